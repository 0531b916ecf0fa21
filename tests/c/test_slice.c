/* Slices of random AMR tables against a brute force: every pixel's point
 * looked up among all the cells (along each axis, with a window and
 * rectangular pixels, and off-axis); the refusals. */
#include <stdlib.h>

#include "check.h"
#include "project_tables.h"
#include "snapkit/slice.h"

/* The density of the cell containing point x (box units), NaN for none. */
static double brute(const sk_table *t, const double x[3])
{
    const int32_t *lev = sk_table_find(t, "level")->data;
    const int32_t *k[3] = {sk_table_find(t, "cx")->data, sk_table_find(t, "cy")->data,
                           sk_table_find(t, "cz")->data};
    const double *d = sk_table_find(t, "density")->data;
    double v = NAN;
    int hits = 0;
    for (int64_t r = 0; r < sk_table_nrows(t); r++) {
        double h = ldexp(1.0, -lev[r]);
        int in = 1;
        for (int a = 0; a < 3; a++)
            in &= k[a][r] * h <= x[a] && x[a] < (k[a][r] + 1) * h;
        if (in) {
            v = d[r];
            hits++;
        }
    }
    CHECK(hits <= 1);
    return v;
}

/* Cells whose [lo, hi) along the axis holds the plane. */
static int64_t crossing(const sk_table *t, int axis, double at)
{
    const int32_t *lev = sk_table_find(t, "level")->data;
    const int32_t *k = sk_table_find(t, axis == 0 ? "cx" : axis == 1 ? "cy" : "cz")->data;
    int64_t n = 0;
    for (int64_t r = 0; r < sk_table_nrows(t); r++)
        n += k[r] * ldexp(1.0, -lev[r]) <= at && at < (k[r] + 1) * ldexp(1.0, -lev[r]);
    return n;
}

static void check_slice(const sk_table *t, const sk_slice_options *opt)
{
    sk_error e;
    sk_maps *m;
    const char *q[] = {"density", "pressure"};
    CHECK_EQ_INT(sk_slice(t, 2, q, opt, &m, &e), SK_OK);
    if (!m)
        return;
    CHECK_EQ_INT(sk_maps_nx(m), opt->nx);
    CHECK_EQ_INT(sk_maps_ny(m), opt->ny);
    const sk_maps_info *in = sk_maps_get_info(m);
    const double *d = sk_maps_data(m, 0);
    double p = opt->width / opt->nx, c0 = 0, c1 = 0;
    int ua = opt->axis == 0 ? 1 : opt->axis == 1 ? 2 : 0, va = opt->axis == 0 ? 2 : opt->axis == 1 ? 0 : 1;
    if (!opt->has_normal) {
        c0 = opt->center[ua];
        c1 = opt->center[va];
    }
    int bad = 0, nan = 0;
    for (int j = 0; j < opt->ny; j++)
        for (int i = 0; i < opt->nx; i++) {
            double u = c0 - 0.5 * opt->width + (i + 0.5) * p;
            double v = c1 - 0.5 * p * opt->ny + (j + 0.5) * p, x[3];
            for (int a = 0; a < 3; a++)
                x[a] = opt->has_normal ? opt->center[a] + u * in->right[a] + v * in->up[a]
                       : a == opt->axis ? opt->at : a == ua ? u : v;
            double want = brute(t, x), got = d[(size_t)j * (size_t)opt->nx + (size_t)i];
            nan += isnan(want);
            bad += !(got == want || (isnan(got) && isnan(want)));
        }
    CHECK_MSG(bad == 0, "%d of %d pixels differ", bad, opt->nx * opt->ny);
    if (!opt->has_normal)
        CHECK_EQ_INT(in->selected, crossing(t, opt->axis, opt->at));
    CHECK(nan < opt->nx * opt->ny / 2);
    sk_maps_free(m);
}

static void check_refusals(const sk_table *t)
{
    sk_error e;
    sk_maps *m;
    sk_slice_options o;
    const char *q[] = {"density"}, *unknown[] = {"nosuch"}, *sd[] = {"sd"};
    sk_slice_options_init(&o);
    o.at = 1.0;
    CHECK_EQ_INT(sk_slice(t, 1, q, &o, &m, &e), SK_ERR_ARG);
    CHECK(strstr(e.message, "outside the box") != NULL);
    sk_slice_options_init(&o);
    o.ny = 0;
    CHECK_EQ_INT(sk_slice(t, 1, q, &o, &m, &e), SK_ERR_ARG);
    sk_slice_options_init(&o);
    CHECK_EQ_INT(sk_slice(t, 1, unknown, &o, &m, &e), SK_ERR_ARG);
    CHECK(strstr(e.message, "nosuch") != NULL);
    CHECK_EQ_INT(sk_slice(t, 1, sd, &o, &m, &e), SK_ERR_ARG);
    o.has_normal = 1;
    CHECK_EQ_INT(sk_slice(t, 1, q, &o, &m, &e), SK_ERR_ARG);
    CHECK(strstr(e.message, "zero length") != NULL);
    sk_slice_options_init(&o);
    o.center[0] = o.center[1] = 5;
    CHECK_EQ_INT(sk_slice(t, 1, q, &o, &m, &e), SK_ERR_EMPTY);
    o.memory_budget = 1000;
    CHECK_EQ_INT(sk_slice(t, 1, q, &o, &m, &e), SK_ERR_RANGE);
    CHECK(m == NULL);
}

int main(void)
{
    sk_table *t = test_random_amr(7, 2, 5, 0.4, 1.0);
    sk_slice_options o;
    for (int axis = 0; axis < 3; axis++) {
        sk_slice_options_init(&o);
        o.axis = axis;
        o.at = axis == 1 ? 0.5 : 0.3711; /* y: the plane on cell faces */
        o.nx = 37;
        o.ny = 23;
        check_slice(t, &o);
        o.width = 0.45;
        o.center[0] = 0.3;
        o.center[1] = 0.62;
        o.center[2] = 0.71;
        check_slice(t, &o);
    }
    sk_slice_options_init(&o);
    o.has_normal = 1;
    o.normal[0] = 1;
    o.normal[1] = -0.4;
    o.normal[2] = 0.7;
    o.has_north = 1;
    o.north[2] = 1;
    o.center[0] = 0.45;
    o.width = 0.8;
    o.nx = 40;
    o.ny = 30;
    check_slice(t, &o);
    check_refusals(t);
    sk_table_free(t);
    return test_done();
}
