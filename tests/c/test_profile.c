/* Profiles (snapkit/profile.h) on a table of particles with random values:
 * counts from np.digitize's rule and weighted means and std against sums
 * in long double; the same bits whatever the batches, their order and
 * the threads that add them; cumulative columns; the refusals. */
#include "check.h"
#include "snapkit/profile.h"

enum { N = 10007, NB = 13 };

static double g_x[N], g_q[N], g_m[N];

/* A table of rows [lo, hi) of the data. */
static sk_table *rows(int lo, int hi)
{
    sk_error err;
    sk_table *t = sk_table_new(hi - lo);
    double *x = sk_table_add(t, "x", SK_FLOAT64, &err);
    double *q = sk_table_add(t, "q", SK_FLOAT64, &err);
    double *m = sk_table_add(t, "mass", SK_FLOAT64, &err);
    for (int i = lo; i < hi; i++) {
        x[i - lo] = g_x[i];
        q[i - lo] = g_q[i];
        m[i - lo] = g_m[i];
    }
    return t;
}

static void fill(void)
{
    unsigned long long s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        g_x[i] = (double)(s >> 11) / 9007199254740992.0 * 3.0 - 1.0;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        g_q[i] = 1e5 + (double)(s >> 11) / 9007199254740992.0;
        g_m[i] = 1.0 + (double)(i % 7);
    }
    g_q[17] = NAN; /* left out of q only */
}

static void check_values(const sk_profile *p)
{
    const sk_bins *b = sk_profile_bins(p);
    long double w[NB] = {0}, wq[NB] = {0}, wqq[NB] = {0}, wn[NB] = {0};
    int64_t count[NB] = {0};
    for (int i = 0; i < N; i++) {
        int j = sk_bins_index(b, g_x[i]);
        if (j < 0)
            continue;
        count[j]++;
        w[j] += g_m[i];
        if (g_q[i] == g_q[i]) {
            wn[j] += g_m[i];
            wq[j] += (long double)g_m[i] * g_q[i];
        }
    }
    const double *mean = sk_profile_values(p, 0, SK_PROFILE_MEAN);
    for (int i = 0; i < N; i++) {
        int j = sk_bins_index(b, g_x[i]);
        if (j >= 0 && g_q[i] == g_q[i]) {
            long double d = g_q[i] - wq[j] / wn[j];
            wqq[j] += g_m[i] * d * d;
        }
    }
    const double *std = sk_profile_values(p, 0, SK_PROFILE_STD);
    int64_t total = 0;
    for (int j = 0; j < NB; j++) {
        total += count[j];
        CHECK_EQ_INT(sk_profile_counts(p)[j], count[j]);
        CHECK_EQ_INT(sk_profile_cum_counts(p)[j], total);
        CHECK(fabs(sk_profile_weights(p)[j] - (double)w[j]) <= 1e-15 * (double)w[j]);
        CHECK(fabs(mean[j] - (double)(wq[j] / wn[j])) <= 1e-15 * mean[j]);
        double s = (double)sqrtl(wqq[j] / wn[j]);
        CHECK_MSG(fabs(std[j] - s) <= 1e-9 * s, "bin %d std %.17g, want %.17g", j, std[j], s);
    }
    CHECK_EQ_INT(sk_profile_binned(p), total);
}

/* The bytes of every result array. */
static int same(const sk_profile *a, const sk_profile *b)
{
    int n = sk_profile_nbins(a), ok = n == sk_profile_nbins(b);
    ok = ok && !memcmp(sk_profile_edges(a), sk_profile_edges(b), sizeof(double) * (n + 1));
    ok = ok && !memcmp(sk_profile_counts(a), sk_profile_counts(b), sizeof(int64_t) * n);
    ok = ok && !memcmp(sk_profile_weights(a), sk_profile_weights(b), sizeof(double) * n);
    for (int s = 0; ok && s <= SK_PROFILE_CUM_MEAN; s++)
        ok = !memcmp(sk_profile_values(a, 0, s), sk_profile_values(b, 0, s), sizeof(double) * n);
    for (int k = 0; ok && k < sk_profile_npercentiles(a); k++)
        ok = !memcmp(sk_profile_percentiles(a, 0, k), sk_profile_percentiles(b, 0, k),
                     sizeof(double) * n);
    return ok;
}

/* The stream fed in pieces of `step` rows, from the last piece back,
 * spread over 3 threads. */
static sk_profile *pieces(const sk_profile_options *opt, int step)
{
    const char *q[] = {"q"};
    sk_error err;
    sk_profile_stream *ps;
    sk_profile *p = NULL;
    CHECK(sk_profile_stream_new("x", 1, q, opt, &ps, &err) == SK_OK);
    sk_consumer c = sk_profile_stream_consumer(ps);
    sk_table *schema = rows(0, 0);
    CHECK(c.begin(c.ctx, 3, schema, &err) == SK_OK);
    sk_table_free(schema);
    int k = 0;
    for (int lo = (N - 1) / step * step; lo >= 0; lo -= step, k++) {
        sk_table *t = rows(lo, lo + step < N ? lo + step : N);
        sk_batch_info info = {.index = k};
        CHECK(c.batch(c.ctx, k % 3, t, &info, &err) == SK_OK);
        sk_table_free(t);
    }
    CHECK(sk_profile_stream_finish(ps, &p, &err) == SK_OK);
    sk_profile_stream_free(ps);
    return p;
}

static void check_profiles(void)
{
    sk_profile_options opt;
    sk_profile_options_init(&opt);
    opt.nbins = NB;
    opt.npercentiles = 2;
    opt.percentiles[0] = 10;
    opt.percentiles[1] = 90;
    const char *q[] = {"q"};
    sk_error err;
    sk_table *all = rows(0, N);
    sk_profile *whole;
    CHECK(sk_profile_make(all, "x", 1, q, &opt, &whole, &err) == SK_OK);
    double lo = -1, hi = 2;
    for (int i = 0; i < N; i++) {
        lo = i ? fmin(lo, g_x[i]) : g_x[i];
        hi = i ? fmax(hi, g_x[i]) : g_x[i];
    }
    sk_bins_pad(&lo, &hi);
    CHECK(sk_profile_edges(whole)[0] == lo && sk_profile_edges(whole)[NB] == hi);
    /* np.spacing of a negative minimum is negative: yt's padding (and
     * sk_bins_pad) moves it up, and the strict filter drops that one row */
    CHECK(lo > -1 && sk_profile_edges(whole)[0] < 0);
    CHECK_EQ_INT(sk_profile_binned(whole), N - 1);
    check_values(whole);
    for (int step = 1; step < N; step = step * 7 + 3) {
        sk_profile *p = pieces(&opt, step);
        CHECK_MSG(p && same(whole, p), "pieces of %d rows differ", step);
        sk_profile_free(p);
    }
    opt.has_range = 1; /* a range: rows outside are not binned */
    opt.lo = 0.01;
    opt.hi = 1.0;
    opt.log = 1;
    sk_profile *r;
    CHECK(sk_profile_make(all, "x", 1, q, &opt, &r, &err) == SK_OK);
    check_values(r);
    CHECK(sk_profile_binned(r) < N / 2);
    sk_profile_free(r);
    sk_profile_free(whole);
    sk_table_free(all);
}

static void check_refusals(void)
{
    sk_profile_options opt;
    sk_profile_options_init(&opt);
    const char *q[] = {"q"}, *bad[] = {"nope"};
    sk_error err;
    sk_table *all = rows(0, N);
    sk_profile *p = NULL;
    opt.nbins = 0;
    CHECK(sk_profile_make(all, "x", 1, q, &opt, &p, &err) == SK_ERR_ARG && !p);
    CHECK(strstr(err.message, "--bins"));
    sk_profile_options_init(&opt);
    opt.has_range = 1;
    opt.lo = 2;
    opt.hi = 1;
    CHECK(sk_profile_make(all, "x", 1, q, &opt, &p, &err) == SK_ERR_ARG && !p);
    opt.lo = 0;
    opt.log = 1;
    CHECK(sk_profile_make(all, "x", 1, q, &opt, &p, &err) == SK_ERR_ARG && !p);
    sk_profile_options_init(&opt);
    CHECK(sk_profile_make(all, "x", 1, bad, &opt, &p, &err) == SK_ERR_ARG && !p);
    CHECK(strstr(err.message, "unknown field 'nope'"));
    opt.weight = SK_WEIGHT_VOLUME;
    CHECK(sk_profile_make(all, "x", 1, q, &opt, &p, &err) == SK_ERR_ARG && !p);
    CHECK(strstr(err.message, "volume weights need cells"));
    sk_table *neg = rows(0, N);
    double *x = sk_table_find(neg, "x")->data;
    for (int i = 0; i < N; i++)
        x[i] = -fabs(x[i]);
    sk_profile_options_init(&opt);
    opt.log = 1;
    CHECK(sk_profile_make(neg, "x", 1, q, &opt, &p, &err) == SK_ERR_EMPTY && !p);
    CHECK(strstr(err.message, "log bins need positive values of 'x'"));
    sk_table_free(neg);
    sk_table_free(all);
}

int main(void)
{
    fill();
    check_profiles();
    check_refusals();
    return test_done();
}
