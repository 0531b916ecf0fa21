/* sk_source (snapkit/source.h): a RAMSES fixture and the .snapkit file
 * converted from it open alike, list the same components and units, and
 * read (and stream) the same hydro rows for a box selection; paths that
 * are missing, or files that are neither kind, fail naming the path. */
#include "check.h"
#include "snapkit/snapkit.h"

static char g_tmp[256];

typedef struct row_sum {
    int64_t rows;
    double density;
} row_sum;

static void check_kind(const sk_source *src, sk_source_format kind, const char *path)
{
    CHECK_EQ_INT(sk_source_kind(src), kind);
    CHECK_EQ_STR(sk_source_kind_name(sk_source_kind(src)),
                 kind == SK_SOURCE_RAMSES ? "ramses" : "snapkit");
    CHECK_EQ_STR(sk_source_path(src), path);
    CHECK_EQ_INT(sk_source_path_kind(path), kind);
    CHECK((sk_source_ramses(src) != NULL) == (kind == SK_SOURCE_RAMSES));
    CHECK((sk_source_store(src) != NULL) == (kind == SK_SOURCE_SNAPKIT));
}

static void check_components(const sk_source *a, const sk_source *b)
{
    const char *na[8], *nb[8];
    int n = sk_source_components(a, na, 8);
    CHECK_EQ_INT(sk_source_components(b, nb, 8), n);
    CHECK(n >= 3);
    for (int i = 0; i < n; i++) {
        CHECK_EQ_STR(na[i], nb[i]);
        CHECK(sk_source_has_component(b, na[i]));
    }
    CHECK_EQ_STR(na[0], "hydro");
    CHECK_EQ_INT(sk_source_components(a, na, 1), 1);
    CHECK(!sk_source_has_component(a, "nothing"));
    CHECK(!sk_source_has_component(b, "nothing"));
}

static void check_units(const sk_source *a, const sk_source *b)
{
    sk_units ua, ub, first;
    sk_error e;
    CHECK_OK(sk_source_units(a, "hydro", &ua, &e), &e);
    CHECK_OK(sk_source_units(b, "hydro", &ub, &e), &e);
    CHECK_OK(sk_source_units(b, NULL, &first, &e), &e);
    CHECK_EQ_INT(memcmp(&ua, &ub, sizeof ua), 0);
    CHECK_EQ_INT(memcmp(&ub, &first, sizeof ub), 0);
    CHECK(sk_source_units(b, "nothing", &ub, &e) != SK_OK);
    CHECK_CONTAINS(e.message, sk_source_path(b));
}

static void check_counts(const sk_source *ramses, const sk_source *file)
{
    sk_error e;
    int64_t n = -1;
    CHECK_OK(sk_source_file_count(ramses, "hydro", &n, &e), &e);
    CHECK_EQ_INT(n, sk_ramses_get_info(sk_source_ramses(ramses))->ncpu);
    CHECK_OK(sk_source_file_count(file, "hydro", &n, &e), &e);
    sk_store_table_info ti;
    sk_store *s = sk_source_store(file);
    CHECK_OK(sk_store_get_table_info(s, sk_store_table_index(s, "hydro"), &ti, &e), &e);
    CHECK_EQ_INT(n, ti.chunks);
    CHECK(sk_source_file_count(file, "nothing", &n, &e) != SK_OK);
    CHECK_EQ_INT(n, 0);
}

/* Called in batch order, one call at a time (the consumer is ordered). */
static int count_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                       sk_error *err)
{
    (void)thread;
    (void)info;
    (void)err;
    row_sum *r = ctx;
    const sk_column *d = sk_table_find(batch, "density");
    int64_t n = sk_table_nrows(batch);
    r->rows += n;
    for (int64_t i = 0; d && i < n; i++)
        r->density += ((const double *)d->data)[i];
    return SK_OK;
}

static row_sum sum_of(const sk_table *t)
{
    row_sum r = {sk_table_nrows(t), 0};
    const sk_column *d = sk_table_find(t, "density");
    CHECK(d != NULL);
    for (int64_t i = 0; d && i < r.rows; i++)
        r.density += ((const double *)d->data)[i];
    return r;
}

/* Read and stream hydro in a box from both: the same rows, bit for bit. */
static void check_reads(sk_source *ramses, sk_source *file)
{
    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = 1;
    const double lo[3] = {0.3, 0.45, 0.2}, hi[3] = {0.62, 0.55, 0.71};
    memcpy(sel.lo, lo, sizeof lo);
    memcpy(sel.hi, hi, sizeof hi);
    sk_error e;
    sk_table *a = NULL, *b = NULL;
    sk_read_options opt = {.threads = 2};
    sk_read_stats st;
    CHECK_OK(sk_source_read(ramses, "hydro", &sel, &opt, &a, &st, &e), &e);
    CHECK(st.files_opened > 0);
    CHECK_OK(sk_source_read(file, "hydro", &sel, NULL, &b, NULL, &e), &e);
    if (a && b) {
        int equal = 0;
        char why[512];
        CHECK_OK(sk_tables_same_rows(a, b, &equal, why, sizeof why, &e), &e);
        CHECK_MSG(equal, "%s", why);
        row_sum ra = sum_of(a), rb = sum_of(b);
        sk_store_table_info ti;
        sk_store *s = sk_source_store(file);
        CHECK_OK(sk_store_get_table_info(s, sk_store_table_index(s, "hydro"), &ti, &e), &e);
        CHECK(ra.rows > 0);
        CHECK(ra.rows < ti.rows); /* the box, not everything */
        CHECK_EQ_INT(ra.rows, rb.rows);
        CHECK_CLOSE(ra.density, rb.density, 1e-12);
        for (int k = 0; k < 2; k++) {
            row_sum s = {0, 0};
            sk_consumer c = {.ctx = &s, .batch = count_batch, .ordered = 1};
            CHECK_OK(sk_source_stream(k ? file : ramses, "hydro", &sel, NULL, &c, NULL, &e), &e);
            CHECK_EQ_INT(s.rows, ra.rows);
            CHECK_CLOSE(s.density, ra.density, 1e-12);
        }
    }
    sk_table_free(a);
    sk_table_free(b);
    CHECK(sk_source_read(file, "nothing", NULL, NULL, &a, NULL, &e) != SK_OK);
    sk_selection_clear(&sel);
}

static void check_errors(void)
{
    sk_error e;
    sk_source *src = (sk_source *)&e; /* set to NULL on failure */
    char path[512];
    snprintf(path, sizeof path, "%s/missing_output", g_tmp);
    CHECK_EQ_INT(sk_source_path_kind(path), SK_SOURCE_RAMSES);
    CHECK(sk_source_open(&src, path, &e) != SK_OK);
    CHECK(src == NULL);
    CHECK_CONTAINS(e.message, path);

    snprintf(path, sizeof path, "%s/notes.txt", g_tmp);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("neither a RAMSES output nor a snapkit file, but long enough to be read\n", f);
        fclose(f);
    }
    CHECK_EQ_INT(sk_source_path_kind(path), SK_SOURCE_SNAPKIT);
    src = (sk_source *)&e;
    CHECK_EQ_INT(sk_source_open(&src, path, &e), SK_ERR_FORMAT);
    CHECK(src == NULL);
    CHECK_CONTAINS(e.message, path);
    CHECK_CONTAINS(e.message, "not a snapkit file");

    CHECK_EQ_INT(sk_source_open_mpi(&src, path, &e), SK_ERR_FORMAT);
    CHECK(src == NULL);
    CHECK(sk_source_kind_name((sk_source_format)0) == NULL);
    sk_source_close(NULL);
}

int main(void)
{
    CHECK(test_tmpdir(g_tmp, sizeof g_tmp) != NULL);
    char dir[1024], path[512];
    test_data(dir, sizeof dir, "ramses/gravpart/output_00002");
    snprintf(path, sizeof path, "%s/gravpart.snapkit", g_tmp);
    sk_error e;
    sk_store_convert_options opt;
    sk_store_convert_options_init(&opt);
    CHECK_OK(sk_store_convert(dir, path, &opt, NULL, &e), &e);

    sk_source *ramses = NULL, *file = NULL;
    CHECK_OK(sk_source_open(&ramses, dir, &e), &e);
    CHECK_OK(sk_source_open_mpi(&file, path, &e), &e); /* one rank: sk_source_open */
    if (ramses && file) {
        check_kind(ramses, SK_SOURCE_RAMSES, dir);
        check_kind(file, SK_SOURCE_SNAPKIT, path);
        check_components(ramses, file);
        check_units(ramses, file);
        check_counts(ramses, file);
        check_reads(ramses, file);
    }
    sk_source_close(ramses);
    sk_source_close(file);
    check_errors();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
    CHECK(system(cmd) == 0);
    return test_done();
}
