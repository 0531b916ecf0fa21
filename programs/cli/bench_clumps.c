/* snapkit bench clumps: the clump finders, boundedness and statistics on
 * this machine (programs/bench/clumps.c). */
#include <math.h>
#include <string.h>

#include "bench/clumps.h"
#include "bench_commands.h"
#include "bench_common.h"

static const char k_help[] =
    "usage: snapkit bench clumps SOURCE --threshold V [--unit U] [--field F] [--relevance R]\n"
    "                            [--linking-length B] [--min-delta D] [--min-cells N]\n"
    "                            [--bound-threshold V] [--direct-max N] [--theta T]\n"
    "                            [--threads LIST] [--runs N] [selection] [--json]\n\n"
    "Read the cells of SOURCE once (timed: the median warm read), then time each finder\n"
    "(faces, watershed, fof, dendrogram) with its clump count and its find and statistics\n"
    "phases; each boundedness method (approx, direct, tree) on the faces clumps at\n"
    "--bound-threshold (default --threshold), one run, with the tree's largest error against\n"
    "direct; and the thread scaling of faces + statistics and of the statistics alone\n"
    "(speedup, sweet spot, Amdahl fit). Ends with the speed targets of issue 11: faces +\n"
    "statistics against reading the cells, direct over tree.\n\n"
    "options (as for snapkit clumps):\n"
    "  --threshold V         cells at or above V (required)\n"
    "  --unit U, --field F, --relevance R, --linking-length B, --length-unit U,\n"
    "  --min-delta D, --min-cells N, --theta T\n"
    "  --bound-threshold V   the threshold of the boundedness comparison\n"
    "  --direct-max N        skip direct when a clump has more than N cells (default 150000)\n"
    "%s";

static int double_opt(int argc, char **argv, int *i, const char *name, double *out)
{
    const char *v = cli_value(argc, argv, i);
    return !v || cli_double(name, v, out) ? -1 : 1;
}

/* 1 consumed, 0 not ours, -1 bad value. */
static int own_option(sk_clumps_bench_options *o, int *has_threshold, int argc, char **argv,
                      int *i)
{
    const char *a = argv[*i];
    long long n;
    if (cli_is(a, "--threshold")) {
        *has_threshold = 1;
        return double_opt(argc, argv, i, a, &o->find.threshold);
    }
    if (cli_is(a, "--relevance"))
        return double_opt(argc, argv, i, a, &o->find.relevance);
    if (cli_is(a, "--linking-length"))
        return double_opt(argc, argv, i, a, &o->find.linking_length);
    if (cli_is(a, "--min-delta"))
        return double_opt(argc, argv, i, a, &o->find.min_delta);
    if (cli_is(a, "--theta"))
        return double_opt(argc, argv, i, a, &o->find.theta);
    if (cli_is(a, "--bound-threshold"))
        return double_opt(argc, argv, i, a, &o->bound_threshold);
    if (cli_is(a, "--unit"))
        return (o->find.unit = cli_value(argc, argv, i)) ? 1 : -1;
    if (cli_is(a, "--field"))
        return (o->find.field = cli_value(argc, argv, i)) ? 1 : -1;
    if (cli_is(a, "--length-unit"))
        return (o->find.length_unit = cli_value(argc, argv, i)) ? 1 : -1;
    if (cli_is(a, "--min-cells")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        o->find.min_cells = n;
        return 1;
    }
    if (cli_is(a, "--direct-max")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        o->direct_max = n;
        return 1;
    }
    return 0;
}

static void clumps_json(const void *b, sk_json *j)
{
    sk_clumps_bench_json(b, j);
}

int cmd_bench_clumps(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench clumps", BENCH_SELECTION);
    sk_clumps_bench_options opt;
    memset(&opt, 0, sizeof opt);
    sk_clumps_options_init(&opt.find);
    opt.bound_threshold = NAN;
    int has_threshold = 0;
    for (int i = 1; i < argc; i++) {
        if (bench_help(argv[i], k_help))
            return CLI_OK;
        int own = own_option(&opt, &has_threshold, argc, argv, &i);
        if (own < 0)
            return CLI_USAGE;
        if (own == 0 && bench_option(&common, argc, argv, &i) < 0)
            return CLI_USAGE;
    }
    if (!common.source)
        return cli_usage("bench clumps", "which source? (snapkit bench clumps SOURCE)");
    if (!has_threshold)
        return cli_usage("bench clumps", "missing --threshold");
    bench_cap_levels(&common);
    bench_run run;
    if (bench_run_open(&run, &common) != CLI_OK)
        return CLI_FAIL;
    BENCH_PLAN(opt, &common, &run);
    static sk_clumps_bench b;
    sk_error err;
    int rc = sk_bench_clumps(run.src, &run.sel, &opt, &b, &err);
    if (bench_run_close(&run, rc, &err) != CLI_OK)
        return CLI_FAIL;
    return bench_print(common.json, &b, clumps_json, common.json ? NULL : sk_clumps_bench_text(&b));
}
