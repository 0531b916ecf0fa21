/* Compact files made from every RAMSES fixture (tests/data/ramses and, when
 * present, $SNAPKIT_SHARED/fixtures/ramses): for several selections a read
 * of the file equals, bit for bit and in metadata, the RAMSES reader's read
 * of the output; lmax reads too when refined cells are stored; a ~1% region
 * reads fewer chunks than the file holds and gives exactly the brute-force
 * filtered rows of a full read; verify agrees, and notices a changed file. */
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

static char g_tmp[256];

static void check_same(const sk_table *file, const sk_table *ramses, const char *what)
{
    int equal = 0;
    char why[512];
    sk_error e;
    CHECK_OK(sk_tables_same_rows(file, ramses, &equal, why, sizeof why, &e), &e);
    CHECK_MSG(equal, "%s: %s", what, why);
    /* every metadata pair, in the same order */
    int same_meta = sk_table_meta_count(file) == sk_table_meta_count(ramses);
    for (int i = 0; same_meta && i < sk_table_meta_count(file); i++)
        same_meta = !strcmp(sk_table_meta_key(file, i), sk_table_meta_key(ramses, i)) &&
                    !strcmp(sk_table_meta_value(file, i), sk_table_meta_value(ramses, i));
    CHECK_MSG(same_meta, "%s: metadata differ", what);
}

typedef struct sel_case {
    const char *name;
    int lmax;         /* relative to levelmin when > 0 */
    int box;
    double lo[3], hi[3];
    const char *vars;
} sel_case;

static const sel_case k_cases[] = {
    {"everything", 0, 0, {0}, {0}, NULL},
    {"lmax levelmin+1", 1, 0, {0}, {0}, NULL},
    {"box", 0, 1, {0.3, 0.45, 0.2}, {0.62, 0.55, 0.71}, NULL},
    {"box and lmax", 2, 1, {0.0, 0.0, 0.5}, {0.5, 0.5, 1.0}, NULL},
    {"vars", 0, 1, {0.25, 0.25, 0.25}, {0.75, 0.75, 0.75}, "density,pressure,potential,mass,"
                                                           "identity,acceleration_z"},
    {"centre slab", 0, 1, {0.4921875, 0.0, 0.0}, {0.5078125, 1.0, 1.0}, NULL},
};

/* The selection of a case restricted to the variables the component has
 * (and, for 1-D and 2-D outputs, to the axes present). */
static void make_selection(const sel_case *c, const sk_ramses_info *in, const sk_table *full,
                           sk_selection *sel)
{
    sk_selection_init(sel);
    sel->lmax = c->lmax ? in->levelmin + c->lmax : 0;
    sel->has_box = c->box;
    for (int a = 0; a < 3 && c->box; a++) {
        sel->lo[a] = a < in->ndim ? c->lo[a] : 0.0;
        sel->hi[a] = a < in->ndim ? c->hi[a] : 1.0;
    }
    if (!c->vars)
        return;
    char buf[256], keep[256] = "";
    snprintf(buf, sizeof buf, "%s", c->vars);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!sk_table_find(full, tok))
            continue;
        strcat(keep, keep[0] ? "," : "");
        strcat(keep, tok);
    }
    sk_error e;
    sk_selection_set_vars(sel, keep, &e);
}

static sk_table *ramses_read(sk_ramses *r, const char *comp, const sk_selection *sel,
                             int with_refined)
{
    sk_table *t = NULL;
    sk_error e;
    sk_read_options opt = {.with_refined = with_refined};
    CHECK_OK(sk_ramses_read(r, comp, sel, &opt, &t, NULL, &e), &e);
    return t;
}

static sk_table *file_read(sk_store *s, const char *comp, const sk_selection *sel,
                           int with_refined, sk_read_stats *st)
{
    sk_table *t = NULL;
    sk_error e;
    sk_read_options opt = {.with_refined = with_refined};
    sk_read_stats local;
    CHECK_OK(sk_store_read(s, comp, sel, &opt, &t, st ? st : &local, &e), &e);
    return t;
}

static const char *const k_comps[3] = {"hydro", "gravity", "particles"};

/* Every case on every component of one conversion. */
static void compare_cases(sk_ramses *r, sk_store *s, int with_coarse, const char *label)
{
    const sk_ramses_info *in = sk_ramses_get_info(r);
    for (int k = 0; k < 3; k++) {
        if (sk_store_table_index(s, k_comps[k]) < 0)
            continue;
        sk_table *full = ramses_read(r, k_comps[k], NULL, 0);
        for (size_t c = 0; c < sizeof k_cases / sizeof k_cases[0]; c++) {
            int cells = k < 2;
            /* lmax on a leaves-only file filters: compared below, not here */
            if (k_cases[c].lmax && cells && !with_coarse)
                continue;
            sk_selection sel;
            make_selection(&k_cases[c], in, full, &sel);
            for (int refined = 0; refined <= (cells && with_coarse); refined++) {
                sk_table *a = file_read(s, k_comps[k], &sel, refined, NULL);
                sk_table *b = ramses_read(r, k_comps[k], &sel, refined);
                char what[512];
                snprintf(what, sizeof what, "%s %s %s%s", label, k_comps[k], k_cases[c].name,
                         refined ? " with refined" : "");
                if (a && b)
                    check_same(a, b, what);
                sk_table_free(a);
                sk_table_free(b);
            }
            sk_selection_clear(&sel);
        }
        sk_table_free(full);
    }
}

/* lmax on a leaves-only file keeps the leaves at or below lmax. */
static void leaves_only_lmax(sk_ramses *r, sk_store *s)
{
    const sk_ramses_info *in = sk_ramses_get_info(r);
    sk_table *full = file_read(s, "hydro", NULL, 0, NULL);
    sk_selection sel;
    sk_selection_init(&sel);
    sel.lmax = in->levelmin + 1;
    sk_table *got = file_read(s, "hydro", &sel, 0, NULL);
    const int32_t *lv = sk_table_find(full, "level")->data;
    int64_t n = sk_table_nrows(full), want = 0, bad = 0;
    for (int64_t i = 0; i < n; i++)
        want += lv[i] <= sel.lmax;
    const int32_t *gl = sk_table_find(got, "level")->data;
    for (int64_t i = 0; i < sk_table_nrows(got); i++)
        bad += gl[i] > sel.lmax;
    CHECK_EQ_INT(sk_table_nrows(got), want);
    CHECK_EQ_INT(bad, 0);
    sk_table_free(full);
    sk_table_free(got);
}

/* A cube of ~1% of the box around `centre`: the rows of a full read whose
 * centres are inside, from fewer chunks than the file holds (when asked,
 * and the table has a few chunks at least). */
static void region(sk_store *s, const char *comp, const double centre[3], const char *label,
                   int require_fewer)
{
    sk_table *full = file_read(s, comp, NULL, 0, NULL);
    int ndim = (int)sk_table_meta_double(full, "ndim", 3.0);
    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = 1;
    for (int a = 0; a < 3; a++) {
        sel.lo[a] = a < ndim ? centre[a] - 0.108 : 0.0;
        sel.hi[a] = a < ndim ? centre[a] + 0.108 : 1.0;
    }
    sk_read_stats st;
    sk_table *got = file_read(s, comp, &sel, 0, &st);
    int64_t total = 0;
    sk_error e;
    sk_store_chunks_for(s, comp, &sel, NULL, &total, &e);
    if (require_fewer && total >= 4)
        CHECK_MSG(st.files_opened < total, "%s %s: %d of %lld chunks", label, comp,
                  st.files_opened, (long long)total);
    int64_t n = sk_table_nrows(full);
    uint8_t *keep = malloc((size_t)n + 1);
    double boxlen = sk_table_meta_double(full, "boxlen", 1.0);
    for (int64_t i = 0; i < n; i++) {
        double x[3];
        if (sk_table_find(full, "level")) {
            const int32_t *lv = sk_table_find(full, "level")->data;
            static const char *const c[3] = {"cx", "cy", "cz"};
            for (int a = 0; a < 3; a++)
                x[a] = a < ndim ? (((const int32_t *)sk_table_find(full, c[a])->data)[i] + 0.5) /
                                      (double)(1 << lv[i])
                                : 0.5;
        } else {
            static const char *const p[3] = {"position_x", "position_y", "position_z"};
            for (int a = 0; a < 3; a++)
                x[a] = ((const double *)sk_table_find(full, p[a])->data)[i] / boxlen;
        }
        keep[i] = (uint8_t)sk_selection_contains(&sel, x[0], x[1], x[2]);
    }
    sk_table_filter(full, keep);
    int equal = 0;
    char why[512];
    CHECK_OK(sk_tables_same_rows(got, full, &equal, why, sizeof why, &e), &e);
    CHECK_MSG(equal, "%s %s region: %s", label, comp, why);
    free(keep);
    sk_table_free(full);
    sk_table_free(got);
}

static void convert_one(const char *dir, const char *label)
{
    sk_error e;
    sk_ramses *r;
    int rc = sk_ramses_open(&r, dir, &e);
    CHECK_OK(rc, &e);
    if (rc)
        return;
    for (int variant = 0; variant < 3; variant++) {
        char path[512], what[256];
        snprintf(path, sizeof path, "%s/v%d.snapkit", g_tmp, variant);
        snprintf(what, sizeof what, "%s (%s)", label,
                 variant == 0 ? "lz4" : variant == 1 ? "raw" : "with coarse");
        sk_store_convert_options opt;
        sk_store_convert_options_init(&opt);
        opt.write.compress = variant != 1;
        opt.with_coarse = variant == 2;
        opt.write.chunk_rows = variant == 1 ? 1000 : 0;
        sk_store_convert_stats st;
        rc = sk_store_convert(dir, path, &opt, &st, &e);
        CHECK_OK(rc, &e);
        if (rc)
            continue;
        CHECK(st.bytes_file < st.bytes_source);
        sk_store *s;
        CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
        compare_cases(r, s, variant == 2, what);
        if (variant < 2) {
            /* Chunks of 1000 rows (variant 1) make even the small fixtures
             * hold enough chunks for a region to skip some. */
            if (variant == 0)
                leaves_only_lmax(r, s);
            double centres[3][3] = {{0.5, 0.5, 0.5}, {0.3, 0.62, 0.45}, {0.8, 0.2, 0.7}};
            /* (a cube at the box centre meets the 8 octants, and holds most
             * cells of the fixtures refined around the centre, so it may well
             * meet every chunk) */
            for (int c = 0; c < 3; c++)
                region(s, "hydro", centres[c], what, c > 0);
            if (sk_store_table_index(s, "particles") >= 0)
                region(s, "particles", centres[0], what, 0);
        }
        int same = 0;
        char why[1024];
        CHECK_OK(sk_store_check_source(s, dir, 0, &same, why, sizeof why, &e), &e);
        CHECK_MSG(same, "%s: verify: %s", what, why);
        sk_store_close(s);
    }
    sk_ramses_close(r);
}

/* A file converted with a level cap and refined cells: reads without a cap
 * are the capped output (its refined cells at the cap are leaves there),
 * lower caps are exact too. */
static void capped_with_coarse(const char *dir)
{
    sk_error e;
    sk_ramses *r;
    CHECK_OK(sk_ramses_open(&r, dir, &e), &e);
    int lmin = sk_ramses_get_info(r)->levelmin;
    char path[512];
    snprintf(path, sizeof path, "%s/capped.snapkit", g_tmp);
    sk_selection cap;
    sk_selection_init(&cap);
    cap.lmax = lmin + 2;
    sk_store_convert_options opt;
    sk_store_convert_options_init(&opt);
    opt.selection = &cap;
    opt.with_coarse = 1;
    opt.components = "hydro";
    CHECK_OK(sk_store_convert(dir, path, &opt, NULL, &e), &e);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    for (int l = 0; l <= lmin + 3; l += l ? 1 : lmin) {
        sk_selection sel;
        sk_selection_init(&sel);
        sel.lmax = l;
        sk_selection want = cap;
        if (l && l < cap.lmax)
            want.lmax = l;
        sk_table *a = file_read(s, "hydro", &sel, 0, NULL);
        sk_table *b = ramses_read(r, "hydro", &want, 0);
        char what[64];
        snprintf(what, sizeof what, "capped file, lmax %d", l);
        if (a && b)
            check_same(a, b, what);
        sk_table_free(a);
        sk_table_free(b);
    }
    int same = 0;
    char why[1024];
    CHECK_OK(sk_store_check_source(s, dir, 0, &same, why, sizeof why, &e), &e);
    CHECK_MSG(same, "capped file: %s", why);
    sk_store_close(s);
    sk_ramses_close(r);
}

/* verify names what differs when the file is not what the output gives. */
static void verify_notices(const char *dir)
{
    sk_error e;
    char path[512], other[512];
    snprintf(path, sizeof path, "%s/lmax.snapkit", g_tmp);
    sk_selection sel;
    sk_selection_init(&sel);
    sel.lmax = 6;
    sk_store_convert_options opt;
    sk_store_convert_options_init(&opt);
    opt.selection = &sel;
    opt.components = "hydro";
    CHECK_OK(sk_store_convert(dir, path, &opt, NULL, &e), &e);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    int same = 0;
    char why[1024];
    CHECK_OK(sk_store_check_source(s, dir, 0, &same, why, sizeof why, &e), &e);
    CHECK(same);
    sk_store_close(s);
    /* The same file checked against another output. */
    test_data(other, sizeof other, "ramses/sedov3d/output_00001");
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    CHECK_OK(sk_store_check_source(s, other, 0, &same, why, sizeof why, &e), &e);
    CHECK(!same);
    CHECK_CONTAINS(why, "hydro: ");
    sk_store_close(s);
}

/* Fixture labels (run/output_NNNNN) already compared: tests/data holds
 * copies of some of ../shared's. */
typedef struct seen_outputs {
    char label[32][64];
    int n;
} seen_outputs;

static void compare_fixture(const char *p, void *ctx)
{
    seen_outputs *seen = ctx;
    const char *name = strrchr(p, '/');
    const char *run = name - 1;
    while (run > p && *run != '/')
        run--;
    char label[64];
    snprintf(label, sizeof label, "%s", run + 1);
    for (int k = 0; k < seen->n; k++)
        if (!strcmp(seen->label[k], label))
            return;
    if (seen->n == 32)
        return;
    snprintf(seen->label[seen->n++], sizeof seen->label[0], "%s", label);
    convert_one(p, label);
}

int main(void)
{
    CHECK(test_tmpdir(g_tmp, sizeof g_tmp) != NULL);
    seen_outputs seen = {.n = 0};
    test_each_output(compare_fixture, &seen);
    CHECK(seen.n >= 3);
    printf("%d outputs compared\n", seen.n);
    char dir[1024];
    verify_notices(test_data(dir, sizeof dir, "ramses/gravpart/output_00002"));
    capped_with_coarse(dir);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
    CHECK(system(cmd) == 0);
    return test_done();
}
