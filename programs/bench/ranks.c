/* `snapkit bench ranks`: full reads on a grid of ranks x threads per rank
 * (see bench/ranks.h). A point's time is the slowest rank's, from a common
 * start to the last share read; ranks beyond the point's count wait. */
#include "bench/ranks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/source.h"
#include "snapkit/util/text.h"
#include "snapkit/util/mpi.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One read of this rank's share of `ranks`, in seconds (0 when idle). */
static int read_share(sk_source *src, const char *component, const sk_selection *sel,
                      int rank, const sk_ranks_point *p, double *sec, sk_error *err)
{
    *sec = 0;
    if (rank >= p->ranks)
        return SK_OK;
    sk_read_options opt = {.threads = p->threads};
    if (p->ranks > 1) {
        opt.share_rank = rank;
        opt.share_count = p->ranks;
    }
    sk_table *t = NULL;
    sk_read_stats rs;
    double t0 = now();
    int rc = sk_source_read(src, component, sel, &opt, &t, &rs, err);
    sk_table_free(t);
    *sec = now() - t0;
    return rc;
}

/* The best of `runs` of one point; every rank gets the same time. */
static int measure(sk_source *src, const char *component, const sk_selection *sel,
                   int runs, sk_ranks_point *p, sk_error *err)
{
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    p->seconds = INFINITY;
    for (int k = 0; k < runs; k++) {
        sk_mpi_agree(SK_OK, err); /* an allreduce: every rank starts together */
        double mine;
        int rc = sk_mpi_agree(read_share(src, component, sel, w.rank, p, &mine, err), err);
        if (rc == SK_OK)
            rc = sk_mpi_max_double(&mine, 1, err);
        if (rc != SK_OK)
            return rc;
        p->seconds = mine < p->seconds ? mine : p->seconds;
    }
    return SK_OK;
}

int sk_bench_ranks(sk_source *src, const sk_selection *sel,
                   const sk_ranks_bench_options *opt, sk_ranks_bench *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    const char *component = opt->component ? opt->component : "hydro";
    snprintf(out->source, sizeof out->source, "%s", sk_source_path(src));
    snprintf(out->component, sizeof out->component, "%s", component);
    out->world = w.size;
    out->runs = opt->runs > 0 ? opt->runs : 3;
    int levels[SK_BENCH_MAX_LEVELS];
    int nlevels = sk_bench_plan_levels(opt->levels, opt->nlevels, levels, NULL);
    if (nlevels < 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no thread counts to measure");
    /* 1, 2, 4, ... ranks, and the world's size last. */
    for (int r = 1; r <= w.size; r = r * 2 > w.size && r < w.size ? w.size : r * 2)
        for (int t = 0; t < nlevels && out->npoints < SK_RANKS_MAX_POINTS; t++)
            out->points[out->npoints++] = (sk_ranks_point){r, levels[t], 0};
    if (sk_source_ramses(src)) { /* rank 0 stats the files for every rank */
        int rc = sk_mpi_ramses_sizes(sk_source_ramses(src), err);
        if (rc != SK_OK)
            return rc;
    }
    for (int i = 0; i < out->npoints; i++) {
        int rc = measure(src, component, sel, out->runs, &out->points[i], err);
        if (rc != SK_OK)
            return rc;
    }
    sk_ranks_bench_analyse(out);
    return SK_OK;
}

static int cpus(const sk_ranks_point *p)
{
    return p->ranks * p->threads;
}

/* Fewest CPUs (then the faster) within `slack` of the fastest time. */
static int pick(const sk_ranks_point *p, int n, double slack)
{
    double best = INFINITY;
    for (int i = 0; i < n; i++)
        best = p[i].seconds < best ? p[i].seconds : best;
    int at = 0;
    for (int i = 0, found = 0; i < n; i++) {
        if (!(p[i].seconds <= best * (1 + slack)))
            continue;
        if (!found || cpus(&p[i]) < cpus(&p[at]) ||
            (cpus(&p[i]) == cpus(&p[at]) && p[i].seconds < p[at].seconds))
            at = i;
        found = 1;
    }
    return at;
}

/* Least squares of T(c) / T(1) = (1 - f) + f / c over the points: the
 * parallel fraction f (clamped to [0, 1]). */
void sk_ranks_bench_analyse(sk_ranks_bench *b)
{
    const sk_ranks_point *p = b->points;
    int n = b->npoints;
    b->fastest = pick(p, n, 0);
    b->sweet_spot = pick(p, n, 0.05);
    b->economical = pick(p, n, 0.10);
    double num = 0, den = 0, t1 = n > 0 ? p[0].seconds : NAN;
    for (int i = 0; i < n; i++) {
        double x = 1.0 / cpus(&p[i]) - 1.0, y = p[i].seconds / t1 - 1.0;
        if (isfinite(y)) {
            num += x * y;
            den += x * x;
        }
    }
    double f = den > 0 ? num / den : 0;
    b->parallel_fraction = f < 0 ? 0 : f > 1 ? 1 : f;
}

static double speedup(const sk_ranks_bench *b, const sk_ranks_point *p)
{
    return b->points[0].seconds / p->seconds;
}

static void point_json(const sk_ranks_bench *b, sk_json *j, const char *key,
                       const sk_ranks_point *p)
{
    if (key)
        sk_json_key(j, key);
    sk_json_object_begin(j);
    sk_json_kv_int(j, "ranks", p->ranks);
    sk_json_kv_int(j, "threads", p->threads);
    sk_json_kv_int(j, "cpus", cpus(p));
    sk_json_kv_double(j, "seconds", p->seconds);
    sk_json_kv_double(j, "speedup", speedup(b, p));
    sk_json_kv_double(j, "efficiency", speedup(b, p) / cpus(p));
    sk_json_object_end(j);
}

void sk_ranks_bench_json(const sk_ranks_bench *b, sk_json *j)
{
    double f = b->parallel_fraction, t1 = b->npoints ? b->points[0].seconds : NAN;
    sk_json_object_begin(j);
    sk_json_kv_string(j, "stage", "ranks");
    sk_json_kv_string(j, "source", b->source);
    sk_json_kv_string(j, "component", b->component);
    sk_json_kv_int(j, "ranks", b->world);
    sk_json_kv_int(j, "runs", b->runs);
    sk_json_key(j, "grid");
    sk_json_array_begin(j);
    for (int i = 0; i < b->npoints; i++)
        point_json(b, j, NULL, &b->points[i]);
    sk_json_array_end(j);
    if (b->npoints > 0) {
        point_json(b, j, "fastest", &b->points[b->fastest]);
        point_json(b, j, "sweet_spot", &b->points[b->sweet_spot]);
        point_json(b, j, "economical", &b->points[b->economical]);
    }
    sk_json_key(j, "amdahl");
    sk_json_object_begin(j);
    sk_json_kv_double(j, "parallel_fraction", f);
    sk_json_kv_double(j, "serial_seconds", t1 * (1 - f));
    sk_json_kv_double(j, "ceiling", f < 1 ? 1 / (1 - f) : INFINITY);
    sk_json_object_end(j);
    sk_json_object_end(j);
}

char *sk_ranks_bench_text(const sk_ranks_bench *b)
{
    sk_text t = {0};
    sk_text_printf(&t, "ranks x threads  full reads of %s (%s) on %d rank%s, best of %d, "
                       "slowest rank\n",
                   b->component, b->source, b->world, b->world == 1 ? "" : "s", b->runs);
    sk_text_printf(&t, "%6s %8s %5s %10s %8s %10s\n", "ranks", "threads", "cpus", "seconds",
                   "speedup", "efficiency");
    for (int i = 0; i < b->npoints; i++) {
        const sk_ranks_point *p = &b->points[i];
        sk_text_printf(&t, "%6d %8d %5d %10.4f %8.2f %10.2f\n", p->ranks, p->threads, cpus(p),
                       p->seconds, speedup(b, p), speedup(b, p) / cpus(p));
    }
    const char *names[3] = {"fastest", "sweet spot (within 5%)", "economical (within 10%)"};
    int at[3] = {b->fastest, b->sweet_spot, b->economical};
    for (int k = 0; k < 3 && b->npoints > 0; k++) {
        const sk_ranks_point *p = &b->points[at[k]];
        sk_text_printf(&t, "%-24s %d rank%s x %d thread%s, %.4f s\n", names[k], p->ranks,
                       p->ranks == 1 ? "" : "s", p->threads, p->threads == 1 ? "" : "s",
                       p->seconds);
    }
    double f = b->parallel_fraction;
    sk_text_printf(&t, "Amdahl over the CPUs: parallel fraction %.3f, ceiling %.1fx\n", f,
                   f < 1 ? 1 / (1 - f) : INFINITY);
    return sk_text_take(&t);
}
