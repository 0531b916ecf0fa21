/* Phase diagrams (snapkit/phase.h) of a particle table: counts per bin
 * against a brute-force loop over sk_bins_index; sums that do not depend
 * on the rows' order (a reversed table gives the same bits), equal to the
 * rows' sum in long double; a weighted mean; the default range (padded
 * extrema); the refusals. */
#include "check.h"
#include "snapkit/phase.h"

enum { N = 20000 };

/* Deterministic values: velocities across 0, masses over 3 decades. */
static sk_table *particles(int reversed)
{
    sk_error err;
    sk_table *t = sk_table_new(N);
    double *vx = sk_table_add(t, "velocity_x", SK_FLOAT64, &err);
    double *vy = sk_table_add(t, "velocity_y", SK_FLOAT64, &err);
    double *m = sk_table_add(t, "mass", SK_FLOAT64, &err);
    sk_table_meta_set(t, "kind", "particles");
    uint64_t s = 12345;
    for (int i = 0; i < N; i++) {
        int r = reversed ? N - 1 - i : i;
        double u[3];
        for (int k = 0; k < 3; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            u[k] = (double)(s >> 11) / 9007199254740992.0;
        }
        vx[r] = 2.0 * u[0] - 1.0;
        vy[r] = sin(7.0 * u[1]) * 0.5 + u[0] * 0.1;
        m[r] = pow(10.0, -3.0 * u[2]) * 1.7;
    }
    return t;
}

static void opts(sk_phase_options *o, const char *z, int nx, int ny)
{
    sk_phase_options_init(o);
    snprintf(o->x, sizeof o->x, "velocity_x");
    snprintf(o->y, sizeof o->y, "velocity_y");
    snprintf(o->z, sizeof o->z, "%s", z);
    o->nbins[0] = nx;
    o->nbins[1] = ny;
}

static void check_counts_and_sums(void)
{
    sk_table *t = particles(0), *r = particles(1);
    sk_phase_options o;
    opts(&o, "count", 13, 9);
    o.has_range[0] = o.has_range[1] = 1;
    o.lo[0] = -0.8, o.hi[0] = 0.9, o.lo[1] = -0.4, o.hi[1] = 0.45;
    sk_phase *ph = NULL, *pm = NULL, *pr = NULL;
    sk_error err;
    CHECK(sk_phase_make(t, &o, &ph, &err) == SK_OK);
    snprintf(o.z, sizeof o.z, "mass");
    CHECK(sk_phase_make(t, &o, &pm, &err) == SK_OK);
    CHECK(sk_phase_make(r, &o, &pr, &err) == SK_OK);
    if (!ph || !pm || !pr)
        return;
    const sk_bins *bx = sk_phase_bins(ph, 0), *by = sk_phase_bins(ph, 1);
    CHECK(!bx->log && !by->log); /* velocities: linear by default */
    double count[13][9] = {{0}};
    long double mass[13][9] = {{0}};
    const double *vx = sk_table_find(t, "velocity_x")->data;
    const double *vy = sk_table_find(t, "velocity_y")->data;
    const double *m = sk_table_find(t, "mass")->data;
    int64_t binned = 0;
    for (int k = 0; k < N; k++) {
        int i = sk_bins_index(bx, vx[k]), j = sk_bins_index(by, vy[k]);
        if (i < 0 || j < 0)
            continue;
        count[i][j] += 1;
        mass[i][j] += m[k];
        binned++;
    }
    CHECK_EQ_INT(sk_phase_binned(ph), binned);
    CHECK_EQ_INT(sk_phase_rows(ph), N);
    CHECK(binned > N / 2 && binned < N);
    const double *c = sk_phase_values(ph), *s = sk_phase_values(pm), *sr = sk_phase_values(pr);
    for (int i = 0; i < 13; i++)
        for (int j = 0; j < 9; j++) {
            CHECK(c[i * 9 + j] == count[i][j]);
            CHECK_MSG(fabs(s[i * 9 + j] - (double)mass[i][j]) <= 1e-15 * (double)mass[i][j],
                      "bin %d %d: %.17g, long double %.17g", i, j, s[i * 9 + j],
                      (double)mass[i][j]);
        }
    CHECK(memcmp(s, sr, sizeof(double) * 13 * 9) == 0); /* the same bits, reversed */
    CHECK_EQ_STR(sk_phase_unit(pm, 2), "code");
    sk_phase_free(ph);
    sk_phase_free(pm);
    sk_phase_free(pr);
    sk_table_free(t);
    sk_table_free(r);
}

/* The mass-weighted mean of velocity_x over bins of velocity_x: each bin's
 * mean lies inside it; empty bins are NaN. Default range: padded extrema. */
static void check_mean_and_range(void)
{
    sk_table *t = particles(0);
    sk_phase_options o;
    opts(&o, "velocity_x", 50, 4);
    o.weight = SK_WEIGHT_MASS;
    sk_phase *ph = NULL;
    sk_error err;
    CHECK(sk_phase_make(t, &o, &ph, &err) == SK_OK);
    if (!ph)
        return;
    const double *vx = sk_table_find(t, "velocity_x")->data;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < N; k++)
        lo = fmin(lo, vx[k]), hi = fmax(hi, vx[k]);
    sk_bins_pad(&lo, &hi);
    const sk_bins *bx = sk_phase_bins(ph, 0);
    CHECK(bx->lo == lo && bx->hi == hi);
    const double *v = sk_phase_values(ph);
    int finite = 0;
    for (int i = 0; i < 50; i++)
        for (int j = 0; j < 4; j++) {
            double x = v[i * 4 + j];
            if (isnan(x))
                continue;
            finite++;
            CHECK(x >= sk_bins_edge(bx, i) && x <= sk_bins_edge(bx, i + 1));
        }
    CHECK(finite > 100);
    sk_phase_free(ph);
    sk_table_free(t);
}

static void expect(sk_phase_options *o, const sk_table *t, const char *part)
{
    sk_phase *ph = NULL;
    sk_error err;
    sk_error_clear(&err);
    CHECK(sk_phase_make(t, o, &ph, &err) != SK_OK);
    CHECK(ph == NULL);
    CHECK_MSG(strstr(err.message, part) != NULL, "'%s' lacks '%s'", err.message, part);
}

static void check_refusals(void)
{
    sk_table *t = particles(0);
    sk_phase_options o;
    opts(&o, "mass", 0, 5);
    expect(&o, t, "1 to 16777216 bins, not 0");
    opts(&o, "mass", 5, 5);
    o.has_range[1] = 1, o.lo[1] = 1, o.hi[1] = 1;
    expect(&o, t, "is empty");
    opts(&o, "mass", 5, 5);
    o.log[0] = 1, o.has_range[0] = 1, o.lo[0] = -1, o.hi[0] = 1;
    expect(&o, t, "a log range must start above 0");
    opts(&o, "mass", 5, 5);
    snprintf(o.y, sizeof o.y, "nosuch");
    expect(&o, t, "unknown quantity 'nosuch'");
    opts(&o, "mass", 5, 5);
    snprintf(o.x, sizeof o.x, "r");
    expect(&o, t, "'r' is taken about a centre");
    opts(&o, "mass", 5, 5);
    o.weight = SK_WEIGHT_VOLUME;
    expect(&o, t, "'volume' is not a quantity of particles");
    /* every velocity_x below 0.5, so none above 0 after the shift */
    double *vx = sk_table_find(t, "velocity_x")->data;
    for (int k = 0; k < N; k++)
        vx[k] -= 1.0;
    opts(&o, "mass", 5, 5);
    o.log[0] = 1;
    expect(&o, t, "log bins over non-positive values");
    sk_table_free(t);
}

int main(void)
{
    check_counts_and_sums();
    check_mean_and_range();
    check_refusals();
    return test_done();
}
