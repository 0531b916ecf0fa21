/* Thread sweeps and what they tell: speedup, efficiency, the fastest,
 * sweet-spot and economical thread counts, and an Amdahl fit. */
#include "bench/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/memory.h"

enum { SWEET_PERCENT = 5, ECONOMICAL_PERCENT = 10 };

/* Weighted squared error of a + b x against y. */
static double fit_error(double a, double b, const double *x, const double *y, const double *w,
                        int n)
{
    double e = 0;
    for (int i = 0; i < n; i++) {
        double r = a + b * x[i] - y[i];
        e += w[i] * r * r;
    }
    return e;
}

/* T(n) = a + b / n with a = T1 (1 - p), b = T1 p: a line in x = 1/n. The
 * weights 1/T^2 fit relative error, so the short times at many threads
 * count as much as the long ones. a, b >= 0 keeps p in [0, 1]: when the
 * free solution breaks that, the best lies on a bound, so both bounds are
 * tried and the better kept. */
int sk_amdahl_fit(const int *threads, const double *seconds, int n, sk_amdahl *out)
{
    memset(out, 0, sizeof *out);
    double x[SK_BENCH_MAX_LEVELS], y[SK_BENCH_MAX_LEVELS], w[SK_BENCH_MAX_LEVELS];
    int m = 0;
    for (int i = 0; i < n && m < SK_BENCH_MAX_LEVELS; i++) {
        if (threads[i] < 1 || !(seconds[i] > 0) || !isfinite(seconds[i]))
            continue;
        x[m] = 1.0 / threads[i];
        y[m] = seconds[i];
        w[m] = 1.0 / (seconds[i] * seconds[i]);
        m++;
    }
    if (m == 0)
        return SK_ERR_ARG;
    double S = 0, Sx = 0, Sy = 0, Sxx = 0, Sxy = 0;
    for (int i = 0; i < m; i++) {
        S += w[i];
        Sx += w[i] * x[i];
        Sy += w[i] * y[i];
        Sxx += w[i] * x[i] * x[i];
        Sxy += w[i] * x[i] * y[i];
    }
    double a_flat = Sy / S; /* b = 0: no parallel part */
    double b_all = Sxy / Sxx; /* a = 0: all parallel */
    double a = a_flat, b = 0;
    double det = S * Sxx - Sx * Sx;
    double a_free = det > 1e-12 * S * Sxx ? (Sxx * Sy - Sx * Sxy) / det : -1;
    double b_free = det > 1e-12 * S * Sxx ? (S * Sxy - Sx * Sy) / det : -1;
    if (a_free >= 0 && b_free >= 0) {
        a = a_free;
        b = b_free;
    } else if (det > 1e-12 * S * Sxx &&
               fit_error(0, b_all, x, y, w, m) < fit_error(a_flat, 0, x, y, w, m)) {
        a = 0;
        b = b_all;
    }
    out->points_used = m;
    out->one_thread_seconds = a + b;
    out->serial_seconds = a;
    out->parallel_fraction = b / (a + b);
    out->ceiling = a > 0 ? (a + b) / a : INFINITY;
    return SK_OK;
}

static int cmp_point(const void *p, const void *q)
{
    const sk_sweep_point *a = p, *b = q;
    return (a->threads > b->threads) - (a->threads < b->threads);
}

/* Fewest threads whose time is within percent of the least time. */
static int fewest_within(const sk_scaling *s, double best, int percent)
{
    for (int i = 0; i < s->npoints; i++)
        if (s->points[i].seconds <= best * (1.0 + percent / 100.0))
            return s->points[i].threads;
    return s->points[s->npoints - 1].threads;
}

int sk_scaling_analyse(sk_scaling *s, sk_error *err)
{
    if (s->npoints < 1 || s->npoints > SK_BENCH_MAX_LEVELS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a sweep needs 1 to %d points, not %d",
                       SK_BENCH_MAX_LEVELS, s->npoints);
    qsort(s->points, (size_t)s->npoints, sizeof s->points[0], cmp_point);
    const sk_sweep_point *base = &s->points[0];
    int ifast = 0;
    for (int i = 0; i < s->npoints; i++) {
        sk_sweep_point *p = &s->points[i];
        if (!(p->seconds > 0))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%d threads: time %g is not positive",
                           p->threads, p->seconds);
        p->speedup = base->seconds / p->seconds;
        p->efficiency = p->speedup * base->threads / p->threads;
        p->spread = p->runs > 1 && p->seconds_min > 0
                        ? (p->seconds_max - p->seconds_min) / p->seconds_min
                        : 0;
        if (p->seconds < s->points[ifast].seconds)
            ifast = i;
    }
    double best = s->points[ifast].seconds;
    s->fastest = s->points[ifast].threads;
    s->sweet_spot = fewest_within(s, best, SWEET_PERCENT);
    s->economical = fewest_within(s, best, ECONOMICAL_PERCENT);
    int threads[SK_BENCH_MAX_LEVELS];
    double seconds[SK_BENCH_MAX_LEVELS];
    for (int i = 0; i <= ifast; i++) {
        threads[i] = s->points[i].threads;
        seconds[i] = s->points[i].seconds;
    }
    return sk_amdahl_fit(threads, seconds, ifast + 1, &s->amdahl);
}

static const sk_sweep_point *point_at(const sk_scaling *s, int threads)
{
    for (int i = 0; i < s->npoints; i++)
        if (s->points[i].threads == threads)
            return &s->points[i];
    return NULL;
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

void sk_scaling_trade(const sk_scaling *s, char *buf, size_t n)
{
    if (s->npoints < 2) {
        snprintf(buf, n, "only %d thread%s measured: no trade to weigh",
                 s->npoints ? s->points[0].threads : 0, plural(s->npoints ? s->points[0].threads : 0));
        return;
    }
    const sk_sweep_point *eco = point_at(s, s->economical), *fast = point_at(s, s->fastest);
    if (!eco || !fast)
        return (void)snprintf(buf, n, "-");
    if (s->economical == s->fastest) {
        snprintf(buf, n, "%d thread%s is both the fastest and the economical point: fewer lose more "
                         "than %d%% of the speed",
                 s->fastest, plural(s->fastest), ECONOMICAL_PERCENT);
        return;
    }
    double cores = (double)s->fastest / s->economical;
    double gain = 100.0 * (eco->seconds / fast->seconds - 1.0);
    snprintf(buf, n, "going from %d to %d threads costs %.3gx the cores for %.*f%% more speed",
             s->economical, s->fastest, cores, gain < 1 ? 1 : 0, gain);
}

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

double sk_bench_median(double *v, int64_t n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs are interleaved (every level once, then again) so a disturbance
 * on a shared machine spreads over all levels instead of skewing one. */
int sk_bench_sweep(const sk_sweep_options *opt, sk_sweep_fn fn, void *ctx, sk_scaling *out,
                   int *dropped, sk_error *err)
{
    memset(out, 0, sizeof *out);
    int levels[SK_BENCH_MAX_LEVELS];
    int n = sk_bench_plan_levels(opt->levels, opt->nlevels, levels, dropped);
    if (n == 0) {
        sk_thread_budget budget;
        sk_thread_budget_get(0, &budget);
        return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                       "every thread level is above the %d CPUs the job owns (set by %s)",
                       budget.owned, budget.limited_by);
    }
    int runs = opt->runs > 0 ? opt->runs : 3;
    double *times = sk_malloc((size_t)n * (size_t)runs * sizeof *times);
    if (!times)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int64_t total = (int64_t)n * runs + (opt->warmup ? 1 : 0), done = 0;
    int rc = SK_OK;
    out->npoints = n;
    for (int i = 0; i < n; i++)
        out->points[i] = (sk_sweep_point){.threads = levels[i], .runs = runs};
    if (opt->warmup) {
        double t;
        int64_t peak = 0;
        rc = fn(ctx, levels[n - 1], &t, &peak, err);
        done++;
        if (rc == SK_OK && opt->progress.fn)
            opt->progress.fn(opt->progress.ctx, done, total, 0);
    }
    for (int r = 0; r < runs && rc == SK_OK; r++)
        for (int i = 0; i < n && rc == SK_OK; i++) {
            int64_t peak = 0;
            rc = fn(ctx, levels[i], &times[i * runs + r], &peak, err);
            if (peak > out->points[i].peak_bytes)
                out->points[i].peak_bytes = peak;
            done++;
            if (rc == SK_OK && opt->progress.fn)
                opt->progress.fn(opt->progress.ctx, done, total, 0);
        }
    for (int i = 0; i < n && rc == SK_OK; i++) {
        double *t = &times[i * runs];
        sk_sweep_point *p = &out->points[i];
        p->seconds = sk_bench_median(t, runs);
        p->seconds_min = t[0];
        p->seconds_max = t[runs - 1];
    }
    sk_free(times);
    return rc == SK_OK ? sk_scaling_analyse(out, err) : rc;
}

void sk_scaling_shares_get(const sk_scaling *s, sk_scaling_shares *out)
{
    *out = (sk_scaling_shares){.ceiling_share = NAN, .cores_share = NAN, .speed_share = NAN};
    if (s->npoints < 1)
        return;
    const sk_sweep_point *fast = point_at(s, s->fastest), *eco = point_at(s, s->economical);
    out->most_threads = s->points[s->npoints - 1].threads;
    if (fast && s->amdahl.points_used >= 2 && isfinite(s->amdahl.ceiling) && s->amdahl.ceiling > 0)
        out->ceiling_share = fast->speedup / s->amdahl.ceiling;
    if (fast && eco && eco->seconds > 0) {
        out->cores_share = (double)eco->threads / out->most_threads;
        out->speed_share = fast->seconds / eco->seconds;
    }
}
