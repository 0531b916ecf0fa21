/* Sinks and clumps through sk_ramses_read (shared fixtures sink3d and
 * clumps3d), and the text-table parser on small texts: the pre-2018
 * headerless sink csv, Fortran's E-less three-digit exponents, and errors
 * that name line and column. Expected values are the files' own text. */
#include "check.h"
#include "formats/ramses/internal.h"
#include "snapkit/snapkit.h"

static const void *column(const sk_table *t, const char *name, sk_dtype type)
{
    const sk_column *c = sk_table_find(t, name);
    CHECK_MSG(c && c->type == type, "column %s", name);
    return c && c->type == type ? c->data : NULL;
}

static void check_sinks(const char *dir)
{
    sk_ramses *r;
    sk_error err;
    int rc = sk_ramses_open(&r, dir, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return;
    CHECK(sk_ramses_get_info(r)->has_sinks && sk_ramses_has_component(r, "sinks"));
    sk_table *t;
    sk_read_stats st;
    rc = sk_ramses_read(r, "sinks", NULL, NULL, &t, &st, &err);
    CHECK_OK(rc, &err);
    if (rc == SK_OK) {
        CHECK_EQ_INT(sk_table_nrows(t), 3);
        CHECK_EQ_INT(sk_table_ncols(t), 23);
        CHECK_EQ_INT(st.files_opened, 1);
        CHECK_EQ_INT(st.bytes_read, 1723);
        CHECK_EQ_STR(sk_table_meta_get(t, "kind"), "catalogue");
        const int32_t *id = column(t, "id", SK_INT32), *level = column(t, "level", SK_INT32);
        const double *m = column(t, "msink", SK_FLOAT64), *c2 = column(t, "cs**2", SK_FLOAT64);
        if (id && level && m && c2) {
            CHECK(id[0] == 1 && id[1] == 2 && id[2] == 3 && level[2] == 7);
            CHECK(m[1] == strtod("2.0542487485E-02", NULL));
            CHECK(c2[0] == strtod("3.3406987742E-01", NULL));
        }
        sk_table_free(t);
    }
    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = 1;
    const double lo[3] = {0.45, 0.3, 0.45}, hi[3] = {0.8, 0.6, 0.6};
    memcpy(sel.lo, lo, sizeof lo);
    memcpy(sel.hi, hi, sizeof hi);
    rc = sk_ramses_read(r, "sinks", &sel, NULL, &t, NULL, &err);
    CHECK_OK(rc, &err);
    if (rc == SK_OK) {
        CHECK_EQ_INT(sk_table_nrows(t), 2);
        sk_table_free(t);
    }
    sk_ramses_close(r);
}

static void check_clumps(const char *dir)
{
    sk_ramses *r;
    sk_error err;
    int rc = sk_ramses_open(&r, dir, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return;
    sk_table *t;
    sk_read_stats st;
    rc = sk_ramses_read(r, "clumps", NULL, NULL, &t, &st, &err);
    CHECK_OK(rc, &err);
    if (rc == SK_OK) {
        CHECK_EQ_INT(sk_table_nrows(t), 4);
        CHECK_EQ_INT(st.files_opened, 8);
        const int32_t *index = column(t, "index", SK_INT32), *ncell = column(t, "ncell", SK_INT32);
        const double *mass = column(t, "mass_cl", SK_FLOAT64);
        static const int32_t want_index[4] = {9, 24, 29, 31}, want_ncell[4] = {2521, 552, 1155, 325};
        static const char *const want_mass[4] = {"4.474554993E-01", "5.183550270E-02",
                                                 "4.088882157E-01", "1.363289687E-01"};
        for (int i = 0; i < 4 && index && ncell && mass; i++) {
            CHECK_EQ_INT(index[i], want_index[i]);
            CHECK_EQ_INT(ncell[i], want_ncell[i]);
            CHECK(mass[i] == strtod(want_mass[i], NULL));
        }
        sk_table_free(t);
    }
    sk_ramses_close(r);
}

static void check_parser(void)
{
    sk_error err;
    rs_catalogue cat;
    /* RAMSES before 2018: no header, 13 values; a three-digit exponent. */
    const char *legacy = "         7,     1.0000000000E+00,     5.0000000000-101,"
                         " 0.25, 0.5, 0, 0, 0, 0, 0, 0, 3.5, 1E-3\n";
    rs_catalogue_init(&cat, 1);
    int rc = rs_catalogue_parse(&cat, "legacy.csv", legacy, strlen(legacy), &err);
    CHECK_OK(rc, &err);
    if (rc == SK_OK) {
        CHECK_EQ_INT(cat.ncols, 13);
        CHECK_EQ_INT(cat.nrows, 1);
        CHECK_EQ_STR(cat.names[11], "age");
        CHECK(cat.is_int[0] && !cat.is_int[1]);
        CHECK(cat.values[0] == 7 && cat.values[2] == strtod("5.0000000000E-101", NULL));
    }
    rs_catalogue_free(&cat);

    rs_catalogue_init(&cat, 1); /* no sinks, before 2018: an empty file */
    rc = rs_catalogue_parse(&cat, "empty.csv", "", 0, &err);
    CHECK_OK(rc, &err);
    CHECK(cat.ncols == 13 && cat.nrows == 0);
    rs_catalogue_free(&cat);

    const char *bad = "  index ncell peak_x\n  1 10 0.5\n  2 x 0.25\n";
    rs_catalogue_init(&cat, 0);
    rc = rs_catalogue_parse(&cat, "clump.txt", bad, strlen(bad), &err);
    CHECK_EQ_INT(rc, SK_ERR_FORMAT);
    CHECK_EQ_INT(err.line, 3);
    CHECK_EQ_INT(err.column, 5);
    CHECK_CONTAINS(err.message, "ncell: 'x' is not an integer");
    CHECK_EQ_INT(cat.nrows, 0); /* the file's rows are dropped */
    rs_catalogue_free(&cat);
}

int main(void)
{
    char sinks[4096], clumps[4096];
    check_parser();
    if (!test_shared(sinks, sizeof sinks, "fixtures/ramses/sink3d/output_00002") ||
        !test_shared(clumps, sizeof clumps, "fixtures/ramses/clumps3d/output_00002")) {
        return test_skip("shared fixtures sink3d/clumps3d absent");
    }
    check_sinks(sinks);
    check_clumps(clumps);
    return test_done();
}
