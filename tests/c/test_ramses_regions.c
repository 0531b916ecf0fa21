/* A region read through sk_ramses_read is the full read filtered to the
 * region, row for row (issue 17), for hydro and particles: seeded boxes,
 * boxes on the faces of the box, on a fixture and on a generated output
 * whose particles stray from their CPU's domain as far as RAMSES allows
 * (sk_synth_options.stray_particles). The files opened are the ones the
 * CPU look-up names, and the look-up for every component covers each
 * component's. */
#include "check.h"
#include "snapkit/snapkit.h"

static uint64_t g_state = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    return (double)(g_state >> 11) * 0x1.0p-53;
}

/* Box k of a seeded list: random boxes, then boxes on each face. */
static void make_box(int k, sk_selection *sel)
{
    sk_selection_init(sel);
    sel->has_box = 1;
    for (int a = 0; a < 3; a++) {
        sel->lo[a] = 0.9 * uniform();
        sel->hi[a] = sel->lo[a] + 0.005 + 0.4 * uniform();
        if (sel->hi[a] > 1)
            sel->hi[a] = 1;
    }
    if (k >= 12) { /* faces: axis (k - 12) / 2 at 0 or 1 */
        int a = (k - 12) / 2 % 3;
        double w = 0.01 + 0.2 * uniform();
        if (k % 2)
            sel->lo[a] = 1 - w, sel->hi[a] = 1;
        else
            sel->lo[a] = 0, sel->hi[a] = w;
    }
}

static int in_box(const sk_selection *sel, const double x[3])
{
    for (int a = 0; a < 3; a++)
        if (!(x[a] >= sel->lo[a] && x[a] < sel->hi[a]))
            return 0;
    return 1;
}

/* Position (box units) of row i: cell centre or particle position. */
static void where(const sk_table *t, int particles, double boxlen, int64_t i, double x[3])
{
    static const char *const cells[3] = {"cx", "cy", "cz"};
    static const char *const pos[3] = {"position_x", "position_y", "position_z"};
    if (particles) {
        for (int a = 0; a < 3; a++)
            x[a] = ((const double *)sk_table_find(t, pos[a])->data)[i] / boxlen;
        return;
    }
    int level = ((const int32_t *)sk_table_find(t, "level")->data)[i];
    for (int a = 0; a < 3; a++)
        x[a] = (((const int32_t *)sk_table_find(t, cells[a])->data)[i] + 0.5) * ldexp(1.0, -level);
}

/* got holds exactly the rows of full inside the box, in full's order. */
static void compare(const sk_table *got, const sk_table *full, const sk_selection *sel,
                    int particles, double boxlen, const char *what, int k)
{
    int ncols = sk_table_ncols(full), bad = 0;
    CHECK_EQ_INT(sk_table_ncols(got), ncols);
    int64_t j = 0, ngot = sk_table_nrows(got);
    for (int64_t i = 0; i < sk_table_nrows(full) && !bad; i++) {
        double x[3];
        where(full, particles, boxlen, i, x);
        if (!in_box(sel, x))
            continue;
        if (j >= ngot) {
            bad = 1;
            break;
        }
        for (int c = 0; c < ncols && !bad; c++) {
            const sk_column *a = sk_table_col(full, c), *b = sk_table_col(got, c);
            size_t s = sk_dtype_size(a->type);
            bad = memcmp((const char *)a->data + s * (size_t)i, (const char *)b->data + s * (size_t)j, s) != 0;
        }
        j++;
    }
    CHECK_MSG(!bad && j == ngot, "%s box %d [%g,%g)x[%g,%g)x[%g,%g): %lld rows, %s %lld", what,
              k, sel->lo[0], sel->hi[0], sel->lo[1], sel->hi[1], sel->lo[2], sel->hi[2],
              (long long)ngot, bad ? "first difference at row" : "expected", (long long)j);
}

static void check_output(const char *dir, const char *what)
{
    sk_ramses *r = NULL;
    sk_error err;
    int rc = sk_ramses_open(&r, dir, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return;
    const sk_ramses_info *info = sk_ramses_get_info(r);
    double boxlen = info->boxlen;
    uint8_t *any = calloc((size_t)info->ncpu, 1), *one = calloc((size_t)info->ncpu, 1);
    const char *comps[] = {"hydro", "particles"};
    for (int c = 0; c < 2; c++) {
        int particles = c == 1;
        sk_table *full = NULL;
        rc = sk_ramses_read(r, comps[c], NULL, NULL, &full, NULL, &err);
        CHECK_OK(rc, &err);
        if (rc)
            continue;
        for (int k = 0; k < 18; k++) {
            sk_selection sel;
            make_box(k, &sel);
            sk_table *got = NULL;
            sk_read_stats st;
            rc = sk_ramses_read(r, comps[c], &sel, NULL, &got, &st, &err);
            CHECK_OK(rc, &err);
            if (rc)
                continue;
            compare(got, full, &sel, particles, boxlen, what, k);
            int n = sk_ramses_cpus_for_component(r, comps[c], &sel, NULL, one);
            CHECK_EQ_INT(st.files_opened, n);
            sk_ramses_cpus_for(r, &sel, any);
            for (int i = 0; i < info->ncpu; i++)
                CHECK(!one[i] || any[i]);
            sk_table_free(got);
        }
        sk_table_free(full);
    }
    free(any);
    free(one);
    sk_ramses_close(r);
}

int main(void)
{
    char dir[4096];
    check_output(test_data(dir, sizeof dir, "ramses/gravpart/output_00002"), "gravpart");
    if (test_shared(dir, sizeof dir, "fixtures/ramses/cosmo32/output_00003"))
        check_output(dir, "cosmo32");

    char tmp[64], out[128];
    CHECK(test_tmpdir(tmp, sizeof tmp) != NULL);
    snprintf(out, sizeof out, "%s/output_00001", tmp);
    sk_synth_options o;
    sk_synth_options_init(&o);
    o.ncpu = 7;
    o.levelmin = 3;
    o.levelmax = 6;
    o.npart = 20000;
    o.stray_particles = 0.5;
    o.seed = 5;
    o.components = SK_SYNTH_HYDRO | SK_SYNTH_PARTICLES;
    sk_synth_truth *t = NULL;
    sk_synth_report rep;
    sk_error err;
    int rc = sk_synth_write(out, &o, &t, &rep, &err);
    CHECK_OK(rc, &err);
    if (!rc)
        check_output(out, "stray");
    sk_synth_truth_free(t);
    test_remove_tree(out);
    rmdir(tmp);
    return test_done();
}
