/* snapkit bench sweep: how many threads a full read rewards. */
#include <string.h>

#include "bench_commands.h"
#include "bench_common.h"

static const char k_help[] =
    "usage: snapkit bench sweep SOURCE [--threads LIST] [--runs N] [--component LIST]\n"
    "                           [selection] [--json]\n\n"
    "Time full reads of SOURCE (every component, or those of --component, with the\n"
    "selection) at each thread level, N runs each (default 3, interleaved across levels),\n"
    "after one warm-up read. Prints the time, speedup, efficiency and spread of the runs per\n"
    "level; the fastest count, the sweet spot (fewest threads within 5%% of the fastest\n"
    "time) and the economical point (within 10%%); the trade in words; and an Amdahl fit on\n"
    "the rising part of the curve: the parallel fraction, the serial time and the speedup\n"
    "ceiling no thread count can pass.\n\n"
    "options:\n"
    "  --component LIST      some of hydro,gravity,particles (default: all present)\n"
    "%s";

static void sweep_json(const void *s, sk_json *j)
{
    sk_scaling_json(s, j);
}

static void join(char *buf, size_t n, const char *const *names, int count)
{
    buf[0] = '\0';
    for (int i = 0; i < count; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? ", " : "", names[i]);
}

int cmd_bench_sweep(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench sweep", BENCH_SELECTION | BENCH_COMPONENTS);
    const char *const *names = common.components;
    int go = bench_parse_common(&common, argc, argv, k_help);
    if (go <= 0)
        return go < 0 ? CLI_USAGE : CLI_OK;
    if (!common.source)
        return cli_usage("bench sweep", "which output? (snapkit bench sweep SOURCE)");
    bench_cap_levels(&common);
    bench_run run;
    if (bench_run_open(&run, &common) != CLI_OK)
        return CLI_FAIL;
    const char *present[4];
    int npresent = sk_source_components(run.src, present, SKB_MAX_COMPONENTS);
    int ncomp = 0;
    while (names[ncomp])
        ncomp++;
    char what[128];
    join(what, sizeof what, ncomp ? names : present, ncomp ? ncomp : npresent);
    int levels[SK_BENCH_MAX_LEVELS];
    int nlevels = sk_bench_plan_levels(common.levels, common.nlevels, levels, NULL);
    int runs = common.runs ? common.runs : 3;
    fprintf(common.json ? stderr : stdout,
            "bench sweep: %d full reads of %s (1 warm-up + %d run%s x %d thread level%s)\n",
            1 + runs * nlevels, what, runs, runs == 1 ? "" : "s", nlevels, nlevels == 1 ? "" : "s");
    fflush(stdout);
    sk_sweep_options opt = {.nlevels = common.nlevels, .runs = runs,
                            .progress = bench_progress_hook(&run.progress)};
    memcpy(opt.levels, common.levels, sizeof opt.levels);
    sk_scaling s;
    sk_error err;
    int rc = sk_bench_read_sweep(run.src, &run.sel, ncomp ? names : NULL, &opt, &s, NULL, &err);
    if (bench_run_close(&run, rc, &err) != CLI_OK)
        return CLI_FAIL;
    sk_report rep = {.sweep = &s};
    if (bench_csv(&common, &rep, bench_most_threads(&s), "warm") != CLI_OK)
        return CLI_FAIL;
    char title[192];
    snprintf(title, sizeof title, "sweep  full reads of %s", what);
    return bench_print(common.json, &s, sweep_json, common.json ? NULL : sk_scaling_text(&s, title));
}
