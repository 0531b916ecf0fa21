/* Shapes (issue 29): a read with a sphere, shell, cylinder or cylindrical
 * shell, inverted or not, is the full read filtered by the shape, row for
 * row, on every output of tests/data and the shared fixtures (1-D to 3-D)
 * and on a generated output whose particles stray from their CPU's domain
 * as far as RAMSES allows. The files opened are those the CPU look-up
 * names, never more than the shape's bounding box alone opens; on the
 * generated output shapes open fewer files than their bounding boxes and
 * an inverted sphere skips the files inside it. sk_shape_box_test never
 * contradicts sk_shape_contains, and a shell keeps r_in < r <= r_out. */
#include "check.h"
#include "snapkit/snapkit.h"

static uint64_t g_state = 0x2545f4914f6cdd1dull;

static double uniform(void)
{
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    return (double)(g_state >> 11) * 0x1.0p-53;
}

/* Shape k of a seeded list: every kind, inverted every third time; the
 * last ones sit on faces and corners, and some are large. */
static int make_shape(int k, sk_selection *sel, sk_error *err)
{
    sk_shape s;
    memset(&s, 0, sizeof s);
    s.kind = 1 + k % 4;
    s.inverse = k % 3 == 2;
    for (int a = 0; a < 3; a++) {
        s.center[a] = uniform();
        s.axis[a] = uniform() - 0.5;
    }
    if (k >= 16) /* a corner or a face */
        for (int a = 0; a < 3; a++)
            if (((k >> a) & 1) || a == 0)
                s.center[a] = (k & 8) ? 0.999 : 0.003;
    if (k == 20) /* the outside of a large sphere about the box centre */
        s.center[0] = s.center[1] = s.center[2] = 0.5;
    s.r_out = (k % 5 == 4 || k == 20 ? 0.3 : 0.02) + 0.15 * uniform();
    s.r_in = s.r_out * uniform();
    s.half_height = 0.02 + 0.2 * uniform();
    sk_selection_init(sel);
    return sk_selection_set_shape(sel, &s, err);
}

/* Position (box units) of row i: cell centre or particle position; axes
 * the output lacks at the shape's centre. */
static void where(const sk_table *t, int particles, double boxlen, int ndim,
                  const sk_shape *s, int64_t i, double x[3])
{
    static const char *const cells[3] = {"cx", "cy", "cz"};
    static const char *const pos[3] = {"position_x", "position_y", "position_z"};
    for (int a = 0; a < 3; a++) {
        x[a] = s->center[a];
        if (a >= ndim)
            continue;
        if (particles) {
            x[a] = ((const double *)sk_table_find(t, pos[a])->data)[i] / boxlen;
            continue;
        }
        int level = ((const int32_t *)sk_table_find(t, "level")->data)[i];
        x[a] = (((const int32_t *)sk_table_find(t, cells[a])->data)[i] + 0.5) *
               ldexp(1.0, -level);
    }
}

/* got holds exactly the rows of full the selection keeps, in full's order. */
static void compare(const sk_table *got, const sk_table *full, const sk_selection *sel,
                    int particles, const sk_ramses_info *in, const char *what, int k)
{
    int ncols = sk_table_ncols(full), bad = 0;
    CHECK_EQ_INT(sk_table_ncols(got), ncols);
    int64_t j = 0, ngot = sk_table_nrows(got);
    for (int64_t i = 0; i < sk_table_nrows(full) && !bad; i++) {
        double x[3];
        where(full, particles, in->boxlen, in->ndim, &sel->shape, i, x);
        if (!sk_selection_contains(sel, x[0], x[1], x[2]))
            continue;
        if (j >= ngot) {
            bad = 1;
            break;
        }
        for (int c = 0; c < ncols && !bad; c++) {
            const sk_column *a = sk_table_col(full, c), *b = sk_table_col(got, c);
            size_t s = sk_dtype_size(a->type);
            bad = memcmp((const char *)a->data + s * (size_t)i,
                         (const char *)b->data + s * (size_t)j, s) != 0;
        }
        j++;
    }
    CHECK_MSG(!bad && j == ngot, "%s %s shape %d (kind %d%s): %lld rows, %s %lld", what,
              particles ? "particles" : "cells", k, sel->shape.kind,
              sel->shape.inverse ? ", inverse" : "", (long long)ngot,
              bad ? "first difference at row" : "expected", (long long)j);
}

typedef struct tally {
    long shape_files, box_files, shapes; /* 3-D, not inverted */
    long inverse_files, inverse_all;     /* inverted, cells */
} tally;

/* The files of the shape against those of its bounding box alone. */
static void check_files(const sk_ramses *r, const char *comp, const sk_selection *sel,
                        const sk_read_stats *st, tally *t)
{
    const sk_ramses_info *in = sk_ramses_get_info(r);
    uint8_t *shape = calloc((size_t)in->ncpu, 1), *box = calloc((size_t)in->ncpu, 1);
    int n = sk_ramses_cpus_for_component(r, comp, sel, NULL, shape);
    CHECK_EQ_INT(st->files_opened, n);
    sk_selection bbox = *sel;
    memset(&bbox.shape, 0, sizeof bbox.shape);
    int nbox = sk_ramses_cpus_for_component(r, comp, &bbox, NULL, box);
    int outside = 0;
    for (int i = 0; i < in->ncpu; i++)
        outside += shape[i] && !box[i];
    CHECK_MSG(outside == 0 && n <= nbox, "%s: %d files, %d outside the box's %d", comp, n,
              outside, nbox);
    if (sel->shape.inverse && strcmp(comp, "hydro") == 0) {
        t->inverse_files += n;
        t->inverse_all += in->ncpu;
    } else if (!sel->shape.inverse) {
        t->shape_files += n;
        t->box_files += nbox;
        t->shapes++;
    }
    free(shape);
    free(box);
}

static void check_output(const char *dir, void *ctx)
{
    tally *t = ctx;
    sk_ramses *r = NULL;
    sk_error err;
    int rc = sk_ramses_open(&r, dir, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return;
    const sk_ramses_info *in = sk_ramses_get_info(r);
    /* One thread: the test makes many small reads. */
    sk_read_options opt = {.threads = 1};
    const char *comps[] = {"hydro", "particles"};
    int present[] = {in->has_hydro, in->has_particles};
    for (int c = 0; c < 2; c++) {
        if (!present[c])
            continue;
        sk_table *full = NULL;
        rc = sk_ramses_read(r, comps[c], NULL, &opt, &full, NULL, &err);
        CHECK_OK(rc, &err);
        for (int k = 0; rc == SK_OK && k < 24; k++) {
            sk_selection sel;
            rc = make_shape(k, &sel, &err);
            CHECK_OK(rc, &err);
            sk_table *got = NULL;
            sk_read_stats st;
            if (rc == SK_OK)
                rc = sk_ramses_read(r, comps[c], &sel, &opt, &got, &st, &err);
            CHECK_OK(rc, &err);
            if (rc)
                break;
            compare(got, full, &sel, c == 1, in, dir, k);
            check_files(r, comps[c], &sel, &st, t);
            sk_table_free(got);
        }
        sk_table_free(full);
    }
    sk_ramses_close(r);
}

/* A generated output of many CPU files, refined about the centre, its
 * particles strayed. */
static void check_generated(void)
{
    char tmp[64], out[128];
    CHECK(test_tmpdir(tmp, sizeof tmp) != NULL);
    snprintf(out, sizeof out, "%s/output_00001", tmp);
    sk_synth_options o;
    sk_synth_options_init(&o);
    o.ncpu = 24;
    o.levelmin = 4;
    o.levelmax = 8;
    o.npart = 20000;
    o.stray_particles = 0.5;
    o.seed = 11;
    o.components = SK_SYNTH_HYDRO | SK_SYNTH_PARTICLES;
    sk_synth_truth *truth = NULL;
    sk_synth_report rep;
    sk_error err;
    int rc = sk_synth_write(out, &o, &truth, &rep, &err);
    CHECK_OK(rc, &err);
    tally t = {0};
    if (!rc)
        check_output(out, &t);
    printf("generated: shapes %ld files (their boxes %ld); inverted %ld of %ld\n",
           t.shape_files, t.box_files, t.inverse_files, t.inverse_all);
    CHECK_MSG(t.shape_files < t.box_files, "shapes open %ld files, their boxes %ld",
              t.shape_files, t.box_files);
    CHECK_MSG(t.inverse_files < t.inverse_all, "inverted shapes open every cell file");
    sk_synth_truth_free(truth);
    test_remove_tree(out);
    rmdir(tmp);
}

/* sk_shape_box_test against sk_shape_contains at points of seeded boxes:
 * 1 means all in, -1 none. */
static void check_box_test(void)
{
    int decided = 0, wrong = 0;
    sk_error err;
    for (int k = 0; k < 4000; k++) {
        sk_selection sel;
        CHECK_OK(make_shape(k % 24, &sel, &err), &err);
        double lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = uniform() * 1.2 - 0.1;
            hi[a] = lo[a] + 0.3 * uniform() * uniform();
        }
        int v = sk_shape_box_test(&sel.shape, lo, hi);
        decided += v != 0;
        for (int p = 0; v && p < 64; p++) {
            double x[3];
            for (int a = 0; a < 3; a++)
                x[a] = lo[a] + (hi[a] - lo[a]) * (p < 8 ? (p >> a) & 1 : uniform());
            for (int a = 0; a < 3; a++)
                x[a] -= floor(x[a]); /* the point in the box */
            wrong += sk_shape_contains(&sel.shape, x[0], x[1], x[2]) != (v > 0);
        }
    }
    CHECK_MSG(wrong == 0, "%d points contradict sk_shape_box_test", wrong);
    CHECK_MSG(decided > 1000, "only %d of 4000 boxes decided", decided);
}

/* Boundaries at exactly representable distances: a shell keeps r_in < r
 * <= r_out (yt's sphere(c, r_out) - sphere(c, r_in)); a sphere r <= R. */
static void check_boundaries(void)
{
    sk_selection sel;
    sk_error err;
    sk_shape s = {.kind = SK_SHAPE_SHELL, .center = {0.5, 0.5, 0.5}, .r_in = 0.125,
                  .r_out = 0.25};
    sk_selection_init(&sel);
    CHECK_OK(sk_selection_set_shape(&sel, &s, &err), &err);
    CHECK(!sk_selection_contains(&sel, 0.625, 0.5, 0.5)); /* r = r_in */
    CHECK(sk_selection_contains(&sel, 0.75, 0.5, 0.5));   /* r = r_out */
    CHECK(sk_selection_contains(&sel, 0.5, 0.25, 0.5));
    CHECK(!sk_selection_contains(&sel, 0.5, 0.5, 0.5));
    s.kind = SK_SHAPE_SPHERE;
    sk_selection_init(&sel);
    CHECK_OK(sk_selection_set_shape(&sel, &s, &err), &err);
    CHECK(sk_selection_contains(&sel, 0.625, 0.5, 0.5) && sk_selection_contains(&sel, 0.5, 0.5, 0.5));
    s.kind = SK_SHAPE_CYLINDER_SHELL;
    s.axis[2] = 1;
    s.half_height = 0.25;
    sk_selection_init(&sel);
    CHECK_OK(sk_selection_set_shape(&sel, &s, &err), &err);
    CHECK(!sk_selection_contains(&sel, 0.625, 0.5, 0.7)); /* R = r_in */
    CHECK(sk_selection_contains(&sel, 0.5, 0.75, 0.75));  /* R = r_out, h = H */
    CHECK(!sk_selection_contains(&sel, 0.5, 0.75, 0.76));
    /* Across a face: the nearest image. */
    s.kind = SK_SHAPE_SPHERE;
    s.center[0] = 0.0625;
    sk_selection_init(&sel);
    CHECK_OK(sk_selection_set_shape(&sel, &s, &err), &err);
    CHECK(sk_selection_contains(&sel, 0.875, 0.5, 0.5) && !sk_selection_contains(&sel, 0.75, 0.5, 0.5));
    CHECK(!sel.has_box || (sel.lo[0] == 0 && sel.hi[0] >= 1));
}

int main(void)
{
    check_boundaries();
    check_box_test();
    tally t = {0};
    int n = test_each_output(check_output, &t);
    CHECK(n > 0);
    printf("%d outputs: shapes %ld files (their boxes %ld)\n", n, t.shape_files, t.box_files);
    check_generated();
    return test_done();
}
