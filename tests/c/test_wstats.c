/* Weighted statistics (snapkit/wstats.h):
 * - small cases worked by hand (scipy's skew and kurtosis of [0, 0, 0, 1],
 *   numpy's inverted-CDF quantiles, zero weights at both ends);
 * - quantiles compared exactly where rounded fractions would not be;
 * - a cell table of 5000 rows (ties, NaN values and weights, zero weights)
 *   against brute force: weights, moments in long double, quantiles by
 *   qsort and a cumulative sum that is exact for these weights;
 * - the same rows shuffled, cut into batches in several ways, merged in
 *   any order and through the MPI encoding, on 1 and 4 threads: the same
 *   bits;
 * - refusals: unknown weight, volume for particles, mass without a mass
 *   column, a negative weight, percentiles outside 0..100. */
#include <stdint.h>

#include "check.h"
#include "snapkit/snapkit.h"

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static uint64_t g_rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* A table of rows with one float64 column x (and a mass column when
 * masses is not NULL). */
static sk_table *rows_table(const double *x, const double *masses, int n)
{
    sk_error err;
    sk_table *t = sk_table_new(n);
    sk_table_meta_set(t, "kind", "particles");
    memcpy(sk_table_add(t, "x", SK_FLOAT64, &err), x, sizeof *x * (size_t)n);
    if (masses)
        memcpy(sk_table_add(t, "mass", SK_FLOAT64, &err), masses, sizeof *x * (size_t)n);
    return t;
}

static void test_by_hand(void)
{
    sk_error err;
    double x[] = {0, 0, 0, 1}, ones[] = {1, 1, 1, 1};
    sk_table *t = rows_table(x, ones, 4);
    double pct[] = {0, 25, 75, 75.5, 100};
    sk_wstats s;
    CHECK_OK(sk_table_wstats_compute(t, SK_WEIGHT_NONE, pct, 5, 1, &s, &err), &err);
    CHECK_EQ_INT(s.ncols, 2);
    const sk_wstats_column *c = &s.cols[0];
    CHECK_EQ_STR(c->name, "x");
    CHECK(c->weight_sum == 4 && c->mean == 0.25 && c->count == 4);
    CHECK_CLOSE(c->std, sqrt(0.1875), 1e-15);
    CHECK_CLOSE(c->skewness, 1.1547005383792515, 1e-14); /* scipy.stats.skew */
    CHECK_CLOSE(c->kurtosis, -0.6666666666666665, 1e-14); /* scipy.stats.kurtosis */
    /* numpy.quantile(x, q, weights=1, method="inverted_cdf") */
    CHECK(c->median == 0 && c->percentiles[0] == 0 && c->percentiles[1] == 0);
    CHECK(c->percentiles[2] == 0 && c->percentiles[3] == 1 && c->percentiles[4] == 1);
    CHECK(c->min == 0 && c->max == 1);
    sk_wstats_free(&s);
    sk_table_free(t);

    /* Zero weights at both ends: p = 0 and 100 give the extremes of
     * positive weight, min and max those of every row. */
    double v[] = {5, 1, 2, 3, 9}, m[] = {0, 0, 2, 2, 0};
    t = rows_table(v, m, 5);
    CHECK_OK(sk_table_wstats_compute(t, SK_WEIGHT_MASS, pct, 5, 1, &s, &err), &err);
    c = &s.cols[0];
    CHECK(c->percentiles[0] == 2 && c->percentiles[4] == 3 && c->median == 2);
    CHECK(c->min == 1 && c->max == 9 && c->weight_sum == 4 && c->mean == 2.5);
    sk_wstats_free(&s);
    sk_table_free(t);

    /* W = 2 + 2^-60: the median's threshold 1 + 2^-61 lies above the
     * first value's weight 1, which rounded fractions (W -> 2) would take. */
    double y[] = {1, 2, 3}, w[] = {1, 0x1p-60, 1}, half = 50;
    t = rows_table(y, w, 3);
    CHECK_OK(sk_table_wstats_compute(t, SK_WEIGHT_MASS, &half, 1, 1, &s, &err), &err);
    CHECK(s.cols[0].median == 2 && s.cols[0].percentiles[0] == 2);
    sk_wstats_free(&s);
    sk_table_free(t);

    /* Only zero weights: no moment, no quantile; the extremes remain. */
    double z[] = {0, 0};
    t = rows_table(y, z, 2);
    CHECK_OK(sk_table_wstats_compute(t, SK_WEIGHT_MASS, NULL, 0, 1, &s, &err), &err);
    CHECK(isnan(s.cols[0].mean) && isnan(s.cols[0].median) && s.cols[0].weight_sum == 0);
    CHECK(s.cols[0].min == 1 && s.cols[0].max == 2);
    sk_wstats_free(&s);
    sk_table_free(t);
}

/* ---- a cell table against brute force ---- */

enum { NROWS = 5000 };

/* Cells of levels 3..7 with densities 0..9 (a few NaN) and values with
 * ties and NaNs, their rows in the order of perm. */
static sk_table *cell_table(const int *perm, int64_t from, int64_t to)
{
    sk_error err;
    int64_t n = to - from;
    sk_table *t = sk_table_new(n);
    sk_table_meta_set(t, "kind", "cells");
    sk_table_meta_set(t, "boxlen", "2");
    int32_t *lev = sk_table_add(t, "level", SK_INT32, &err);
    int32_t *cx = sk_table_add(t, "cx", SK_INT32, &err);
    double *rho = sk_table_add(t, "density", SK_FLOAT64, &err);
    double *x = sk_table_add(t, "x", SK_FLOAT64, &err);
    float *f = sk_table_add(t, "f", SK_FLOAT32, &err);
    int16_t *k = sk_table_add(t, "k", SK_INT16, &err);
    for (int64_t i = 0; i < n; i++) {
        int r = perm[from + i];
        lev[i] = 3 + r % 5;
        cx[i] = r;
        rho[i] = r % 97 == 5 ? NAN : (double)((r * 7) % 10);
        x[i] = r % 61 == 1 ? NAN : (double)((r * 31) % 113) * 0.25 - 3;
        f[i] = (float)sin(r * 0.37) * 100.0f;
        k[i] = (int16_t)((r * 13) % 41 - 20);
    }
    return t;
}

static double cell_weight(int r, sk_weight w)
{
    double size = ldexp(2.0, -(3 + r % 5)), vol = size * size * size;
    double rho = r % 97 == 5 ? NAN : (double)((r * 7) % 10);
    return w == SK_WEIGHT_VOLUME ? vol : w == SK_WEIGHT_MASS ? rho * vol : 1.0;
}

static double cell_value(int r, int col)
{
    switch (col) {
    case 0: return r % 97 == 5 ? NAN : (double)((r * 7) % 10); /* density */
    case 1: return r % 61 == 1 ? NAN : (double)((r * 31) % 113) * 0.25 - 3;
    case 2: return (double)((float)sin(r * 0.37) * 100.0f);
    default: return (double)((r * 13) % 41 - 20);
    }
}

typedef struct vw {
    double v, w;
} vw;

static int by_value(const void *a, const void *b)
{
    double x = ((const vw *)a)->v, y = ((const vw *)b)->v;
    return x < y ? -1 : x > y;
}

/* Brute force for column col: moments in long double, quantiles from a
 * sorted copy and a cumulative sum exact for these weights (multiples of
 * 2^-12 below 2^17). */
static void brute_check(const sk_wstats_column *c, int col, sk_weight wk, const double *pct,
                        int np)
{
    vw *p = malloc(sizeof *p * NROWS);
    int n = 0;
    long double W = 0, S = 0;
    for (int r = 0; r < NROWS; r++) {
        double w = cell_weight(r, wk), v = cell_value(r, col);
        if (w == w && v == v) {
            p[n++] = (vw){v, w};
            W += w;
            S += (long double)w * v;
        }
    }
    long double mu = S / W, m[5] = {0};
    for (int i = 0; i < n; i++)
        for (int k = 2; k <= 4; k++)
            m[k] += p[i].w * powl(p[i].v - mu, k);
    for (int k = 2; k <= 4; k++)
        m[k] /= W;
    CHECK_EQ_INT(c->count, n);
    CHECK(c->weight_sum == (double)W);
    CHECK_CLOSE(c->mean, (double)mu, 1e-13);
    CHECK_CLOSE(c->std, (double)sqrtl(m[2]), 1e-13);
    /* dimensionless, and near 0 for the symmetric columns: absolute */
    CHECK(fabs(c->skewness - (double)(m[3] / powl(m[2], 1.5L))) <= 1e-12);
    CHECK(fabs(c->kurtosis - (double)(m[4] / (m[2] * m[2]) - 3)) <= 1e-12);
    qsort(p, (size_t)n, sizeof *p, by_value);
    CHECK(c->min == p[0].v && c->max == p[n - 1].v);
    for (int q = -1; q < np; q++) {
        /* 100 cum and p W are exact in double for these weights and p */
        double target = (q < 0 ? 50 : pct[q]) * (double)W, cum = 0, got = NAN;
        for (int i = 0; i < n && got != got; i++) {
            cum += p[i].w;
            if (cum > 0 && 100 * cum >= target)
                got = p[i].v;
        }
        double mine = q < 0 ? c->median : c->percentiles[q];
        CHECK_MSG(mine == got, "column %d, percentile %g: %.17g, brute force %.17g", col,
                  q < 0 ? 50 : pct[q], mine, got);
    }
    free(p);
}

static void same_result(const sk_wstats *a, const sk_wstats *b, const char *how)
{
    CHECK_EQ_INT(a->ncols, b->ncols);
    CHECK_EQ_INT(a->rows, b->rows);
    for (int j = 0; j < a->ncols && j < b->ncols; j++) {
        const sk_wstats_column *x = &a->cols[j], *y = &b->cols[j];
        int same = !strcmp(x->name, y->name) && x->count == y->count &&
                   same_bits(x->weight_sum, y->weight_sum) && same_bits(x->mean, y->mean) &&
                   same_bits(x->std, y->std) && same_bits(x->skewness, y->skewness) &&
                   same_bits(x->kurtosis, y->kurtosis) && same_bits(x->min, y->min) &&
                   same_bits(x->max, y->max) && same_bits(x->median, y->median);
        for (int q = 0; q < a->npercentiles; q++)
            same &= same_bits(x->percentiles[q], y->percentiles[q]);
        CHECK_MSG(same, "%s: column %s differs", how, x->name);
    }
}

/* The rows of perm cut at `cuts` random points, each piece in its own
 * accumulator, merged last piece first (every other one through the
 * encoding) into *all, then read on `threads` threads. */
static void pieces_result(const int *perm, int cuts, sk_weight wk, const double *pct, int np,
                          int threads, sk_wstats *out, sk_wstats_acc **all)
{
    sk_error err;
    int64_t at[66];
    at[0] = 0;
    at[cuts + 1] = NROWS;
    for (int k = 1; k <= cuts; k++)
        at[k] = (int64_t)(rnd() % NROWS);
    for (int k = 1; k <= cuts; k++) /* sort the cut points */
        for (int m = k + 1; m <= cuts; m++)
            if (at[m] < at[k]) {
                int64_t s = at[m];
                at[m] = at[k];
                at[k] = s;
            }
    sk_table *schema = cell_table(perm, 0, 0);
    CHECK_OK(sk_wstats_acc_new(schema, wk, all, &err), &err);
    for (int k = cuts; k >= 0; k--) {
        sk_table *t = cell_table(perm, at[k], at[k + 1]);
        sk_wstats_acc *acc;
        CHECK_OK(sk_wstats_acc_new(schema, wk, &acc, &err), &err);
        CHECK_OK(sk_wstats_acc_add(acc, t, &err), &err);
        if (k % 2) {
            void *bytes;
            size_t size;
            CHECK_OK(sk_wstats_acc_encode(acc, &bytes, &size, &err), &err);
            sk_wstats_acc_free(acc);
            CHECK_OK(sk_wstats_acc_decode(bytes, size, &acc, &err), &err);
            sk_free(bytes);
        }
        CHECK_OK(sk_wstats_acc_merge(*all, acc, &err), &err);
        CHECK_EQ_INT(sk_wstats_acc_rows(acc), 0);
        sk_wstats_acc_free(acc);
        sk_table_free(t);
    }
    CHECK_OK(sk_wstats_acc_result(*all, pct, np, threads, out, &err), &err);
    sk_table_free(schema);
}

static void test_cells(void)
{
    static int perm[NROWS];
    for (int i = 0; i < NROWS; i++)
        perm[i] = i;
    double pct[] = {0, 2.5, 5, 25, 50, 62.5, 95, 99, 100};
    int np = (int)(sizeof pct / sizeof pct[0]);
    for (int wk = SK_WEIGHT_NONE; wk <= SK_WEIGHT_VOLUME; wk++) {
        sk_error err;
        sk_table *t = cell_table(perm, 0, NROWS);
        sk_wstats whole;
        CHECK_OK(sk_table_wstats_compute(t, (sk_weight)wk, pct, np, 1, &whole, &err), &err);
        CHECK_EQ_INT(whole.ncols, 4); /* level and cx left out */
        CHECK_EQ_INT(whole.rows, wk == SK_WEIGHT_MASS ? NROWS - 52 : NROWS);
        for (int j = 0; j < whole.ncols; j++)
            brute_check(&whole.cols[j], j, (sk_weight)wk, pct, np);
        for (int trial = 0; trial < 6; trial++) {
            for (int i = NROWS - 1; i > 0; i--) { /* shuffle */
                int k = (int)(rnd() % (uint64_t)(i + 1)), s = perm[i];
                perm[i] = perm[k];
                perm[k] = s;
            }
            int cuts = (int)(rnd() % 64);
            sk_wstats pieces;
            sk_wstats_acc *acc; /* owns the result's names */
            pieces_result(perm, cuts, (sk_weight)wk, pct, np, trial % 2 ? 4 : 1, &pieces, &acc);
            char how[64];
            snprintf(how, sizeof how, "weight %d, %d cuts", wk, cuts);
            same_result(&whole, &pieces, how);
            sk_wstats_free(&pieces);
            sk_wstats_acc_free(acc);
        }
        sk_wstats_free(&whole);
        sk_table_free(t); /* owns whole's names */
    }
}

static void test_refusals(void)
{
    sk_error err;
    sk_weight w;
    CHECK(sk_weight_parse("area", &w, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "unknown weight 'area'");
    CHECK(sk_weight_parse("volume", &w, &err) == SK_OK && w == SK_WEIGHT_VOLUME);
    CHECK_EQ_STR(sk_weight_name(SK_WEIGHT_MASS), "mass");
    double x[] = {1, 2}, m[] = {1, -1};
    sk_table *t = rows_table(x, NULL, 2);
    sk_wstats s;
    CHECK(sk_table_wstats_compute(t, SK_WEIGHT_VOLUME, NULL, 0, 1, &s, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "volume weights need cells: the particles table");
    CHECK(sk_table_wstats_compute(t, SK_WEIGHT_MASS, NULL, 0, 1, &s, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "mass weights need the mass column, which the particles table lacks");
    sk_table_free(t);
    t = rows_table(x, m, 2);
    CHECK(sk_table_wstats_compute(t, SK_WEIGHT_MASS, NULL, 0, 1, &s, &err) == SK_ERR_RANGE);
    CHECK_CONTAINS(err.message, "mass weight -1 is negative (row 1 of the rows added)");
    double bad[] = {50, 100.5};
    CHECK(sk_table_wstats_compute(t, SK_WEIGHT_NONE, bad, 2, 1, &s, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "percentile 100.5 is outside 0..100");
    bad[0] = NAN;
    CHECK(sk_wstats_check_percentiles(bad, 1, &err) == SK_ERR_ARG);
    unsigned char junk[16] = {0};
    sk_wstats_acc *a;
    CHECK(sk_wstats_acc_decode(junk, sizeof junk, &a, &err) == SK_ERR_FORMAT);
    sk_table_free(t);
}

int main(void)
{
    test_by_hand();
    test_cells();
    test_refusals();
    return test_done();
}
