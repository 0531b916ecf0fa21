/* snapkit bench ranks: under mpirun -np N, full reads of one component on
 * a grid of ranks (1, 2, 4, ..., N) x threads per rank, so that a user
 * learns whether ranks or threads pay on their machine. A point's time is
 * the slowest rank's, from a common start to the last share read; ranks
 * beyond the point's count wait. Built without MPI it measures 1 rank. */
#include <math.h>
#include <string.h>

#include "bench_commands.h"
#include "bench_common.h"
#include "cli_mpi.h"
#include "store_cli.h"

static const char k_help[] =
    "usage: mpirun -np N snapkit bench ranks SOURCE [--threads LIST] [--runs N]\n"
    "                                         [--component C] [selection] [--json]\n\n"
    "Time full reads of one component of SOURCE (default hydro) on a grid of ranks\n"
    "(1, 2, 4, ... and N) x threads per rank (--threads, default 1, 2, 4, ... the rank's\n"
    "budget), best of N runs each (default 3). A point's time is the slowest rank's;\n"
    "each rank reads its share. Prints the grid with speedups over 1 rank x 1 thread and\n"
    "the CPUs used (ranks x threads); the fastest point, the sweet spot (fewest CPUs\n"
    "within 5%% of the fastest time) and the economical point (within 10%%); and an\n"
    "Amdahl fit over the CPUs: the parallel fraction and the speedup ceiling.\n"
    "Run it under mpirun (alone it measures 1 rank).\n\n"
    "options:\n"
    "  --component C         hydro (default), gravity or particles\n"
    "%s";

enum { MAX_POINTS = 64 };

typedef struct point {
    int ranks, threads;
    double seconds;
} point;

/* One read of this rank's share of `ranks`, in seconds (0 when idle). */
static int read_share(const char *source, const char *component, const cli_selection *cs,
                      int rank, int ranks, int threads, double *sec, sk_error *err)
{
    *sec = 0;
    if (rank >= ranks)
        return SK_OK;
    sk_read_options opt = {.threads = threads};
    if (ranks > 1) {
        opt.share_rank = rank;
        opt.share_count = ranks;
    }
    double t0 = cli_now();
    sk_table *t = NULL;
    sk_read_stats rs;
    int files = 0;
    int rc;
    if (sk_store_is_file(source)) {
        rc = cli_store_read(source, component, cs, &opt, NULL, &t, &rs, &files, err);
    } else {
        sk_ramses *r;
        rc = sk_ramses_open(&r, source, err);
        sk_selection sel;
        sk_selection_init(&sel);
        if (rc == SK_OK)
            rc = cli_ramses_selection(r, cs, &sel, err);
        if (rc == SK_OK)
            rc = sk_ramses_read(r, component, &sel, &opt, &t, &rs, err);
        sk_selection_clear(&sel);
        if (rc == SK_OK || r)
            sk_ramses_close(r);
    }
    sk_table_free(t);
    *sec = cli_now() - t0;
    return rc;
}

static int measure(const char *source, const char *component, const cli_selection *cs,
                   point *p, int runs, sk_error *err)
{
    const sk_mpi_world *w = cli_mpi_world();
    p->seconds = INFINITY;
    for (int k = 0; k < runs; k++) {
        sk_mpi_agree(SK_OK, err); /* an allreduce: every rank starts together */
        double mine;
        int rc = sk_mpi_agree(read_share(source, component, cs, w->rank, p->ranks, p->threads,
                                         &mine, err),
                              err);
        if (rc == SK_OK)
            rc = sk_mpi_max_double(&mine, 1, err);
        if (rc != SK_OK)
            return rc;
        p->seconds = mine < p->seconds ? mine : p->seconds;
    }
    return SK_OK;
}

/* Fewest CPUs (then fewest ranks) within `slack` of the fastest time. */
static int pick(const point *p, int n, double slack)
{
    double best = INFINITY;
    for (int i = 0; i < n; i++)
        best = p[i].seconds < best ? p[i].seconds : best;
    int at = -1;
    for (int i = 0; i < n; i++) {
        if (p[i].seconds > best * (1 + slack))
            continue;
        int c = p[i].ranks * p[i].threads;
        if (at < 0 || c < p[at].ranks * p[at].threads ||
            (c == p[at].ranks * p[at].threads && p[i].seconds < p[at].seconds))
            at = i;
    }
    return at;
}

/* Least squares of T(c) / T(1) = (1 - f) + f / c over the points: the
 * parallel fraction f (clamped to [0, 1]). */
static double amdahl(const point *p, int n, double t1)
{
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        double x = 1.0 / (p[i].ranks * p[i].threads) - 1.0, y = p[i].seconds / t1 - 1.0;
        num += x * y;
        den += x * x;
    }
    double f = den > 0 ? num / den : 0;
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

static void point_json(sk_json *j, const char *key, const point *p, double t1)
{
    if (key)
        sk_json_key(j, key);
    sk_json_object_begin(j);
    sk_json_kv_int(j, "ranks", p->ranks);
    sk_json_kv_int(j, "threads", p->threads);
    sk_json_kv_int(j, "cpus", p->ranks * p->threads);
    sk_json_kv_double(j, "seconds", p->seconds);
    sk_json_kv_double(j, "speedup", t1 / p->seconds);
    sk_json_kv_double(j, "efficiency", t1 / p->seconds / (p->ranks * p->threads));
    sk_json_object_end(j);
}

static void report(const char *source, const char *component, const point *p, int n, int json)
{
    double t1 = p[0].seconds; /* 1 rank x the first thread level: 1 unless --threads says */
    int fast = pick(p, n, 0), sweet = pick(p, n, 0.05), cheap = pick(p, n, 0.10);
    double f = amdahl(p, n, t1);
    if (json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_json_object_begin(&j);
        sk_json_kv_string(&j, "stage", "ranks");
        sk_json_kv_string(&j, "source", source);
        sk_json_kv_string(&j, "component", component);
        sk_json_kv_int(&j, "ranks", cli_mpi_world()->size);
        sk_json_key(&j, "grid");
        sk_json_array_begin(&j);
        for (int i = 0; i < n; i++)
            point_json(&j, NULL, &p[i], t1);
        sk_json_array_end(&j);
        point_json(&j, "fastest", &p[fast], t1);
        point_json(&j, "sweet_spot", &p[sweet], t1);
        point_json(&j, "economical", &p[cheap], t1);
        sk_json_key(&j, "amdahl");
        sk_json_object_begin(&j);
        sk_json_kv_double(&j, "parallel_fraction", f);
        sk_json_kv_double(&j, "serial_seconds", t1 * (1 - f));
        sk_json_kv_double(&j, "ceiling", f < 1 ? 1 / (1 - f) : INFINITY);
        sk_json_object_end(&j);
        sk_json_object_end(&j);
        cli_print_json(&j);
        sk_json_free(&j);
        return;
    }
    printf("ranks x threads  full reads of %s (%s), best run, slowest rank\n", component, source);
    printf("%6s %8s %5s %10s %8s %10s\n", "ranks", "threads", "cpus", "seconds", "speedup",
           "efficiency");
    for (int i = 0; i < n; i++)
        printf("%6d %8d %5d %10.4f %8.2f %10.2f\n", p[i].ranks, p[i].threads,
               p[i].ranks * p[i].threads, p[i].seconds, t1 / p[i].seconds,
               t1 / p[i].seconds / (p[i].ranks * p[i].threads));
    const char *names[3] = {"fastest", "sweet spot (within 5%)", "economical (within 10%)"};
    int at[3] = {fast, sweet, cheap};
    for (int k = 0; k < 3; k++)
        printf("%-24s %d rank%s x %d thread%s, %.4f s\n", names[k], p[at[k]].ranks,
               p[at[k]].ranks == 1 ? "" : "s", p[at[k]].threads,
               p[at[k]].threads == 1 ? "" : "s", p[at[k]].seconds);
    printf("Amdahl over the CPUs: parallel fraction %.3f, ceiling %.1fx\n", f,
           f < 1 ? 1 / (1 - f) : INFINITY);
}

int cmd_bench_ranks(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench ranks", BENCH_SELECTION | BENCH_COMPONENTS);
    for (int i = 1; i < argc; i++) {
        if (cli_is(argv[i], "--help") || cli_is(argv[i], "-h")) {
            printf(k_help, cli_selection_help);
            fputs(bench_common_help, stdout);
            return CLI_OK;
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    if (!common.source)
        return cli_usage("bench ranks", "which output? (mpirun -np N snapkit bench ranks SOURCE)");
    const char *component = common.components[0] ? common.components[0] : "hydro";
    bench_cap_levels(&common);
    int levels[SK_BENCH_MAX_LEVELS];
    int nlevels = sk_bench_plan_levels(common.levels, common.nlevels, levels, NULL);
    int size = cli_mpi_world()->size, runs = common.runs ? common.runs : 3;
    point p[MAX_POINTS] = {{0}};
    int n = 0;
    for (int r = 1; r <= size; r = r * 2 > size && r < size ? size : r * 2)
        for (int t = 0; t < nlevels && n < MAX_POINTS; t++)
            p[n++] = (point){r, levels[t], 0};
    if (n == 0)
        return cli_usage("bench ranks", "no thread counts to measure");
    sk_error err;
    sk_error_clear(&err);
    int rc = SK_OK;
    for (int i = 0; i < n && rc == SK_OK; i++)
        rc = measure(common.source, component, &common.cs, &p[i], runs, &err);
    if (rc != SK_OK)
        return cli_error(&err);
    if (cli_mpi_world()->rank == 0)
        report(common.source, component, p, n, common.json);
    return CLI_OK;
}

