/* snapkit bench project: how many threads a projection can use. */
#include <math.h>
#include <string.h>

#include "bench_commands.h"
#include "bench/project_grid.h"
#include "bench_common.h"

static const char k_help[] =
    "usage: snapkit bench project SOURCE [--threads LIST] [--runs N] [--vars Q1,Q2,...]\n"
    "                             [--res N] [--component C] [selection] [--json]\n\n"
    "Read the cells of SOURCE (a RAMSES output folder or a .snapkit file) once, then time\n"
    "projections at each thread level: the first quantity alone and all of them in one pass,\n"
    "along z and off-axis (along 1,2,3): per case the time (the projection alone), speedup,\n"
    "efficiency, spread of the runs, memory held, fastest, sweet spot, economical point\n"
    "and Amdahl fit.\n\n"
    "options:\n"
    "  --vars LIST           quantities as snapkit project takes them (default\n"
    "                        sd,T,velocity_x,velocity_y)\n"
    "  --res N[,N...]        pixels across the box (default 2^lmax of the data, at most 2048);\n"
    "                        a list (e.g. 256,512,1024,2048) gives the grid resolution x\n"
    "                        threads: each resolution's sweeps, then per resolution and case\n"
    "                        where threads stop paying (sweet spot, economical point);\n"
    "                        --json: {\"grid\": [{\"res\", \"project\"}], \"summary\": [...]}\n"
    "  --component C         the table to project (default hydro)\n"
    "%s"
    "  (selection --vars is replaced by the quantities above: every variable is read)\n";

static void project_json(const void *p, sk_json *j)
{
    sk_project_json(p, j);
}

static void grid_json(const void *g, sk_json *j)
{
    sk_project_grid_json(g, j);
}

int cmd_bench_project(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench project", BENCH_SELECTION);
    sk_project_bench_options opt = {0};
    static sk_project_grid grid;
    int res[SK_GRID_MAX_RES], nres = 0;
    sk_error err;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (bench_help(a, k_help)) {
            return CLI_OK;
        } else if (cli_is(a, "--vars") || cli_is(a, "--component")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v)
                return CLI_USAGE;
            *(cli_is(a, "--vars") ? &opt.quantities : &opt.component) = v;
        } else if (cli_is(a, "--res")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v)
                return CLI_USAGE;
            if (sk_project_grid_parse(v, res, &nres, &err) != SK_OK)
                return cli_usage("bench project", "%s", err.message);
            opt.res = res[0];
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    if (!common.source)
        return cli_usage("bench project", "which source? (snapkit bench project SOURCE)");
    bench_cap_levels(&common);
    bench_run run;
    if (bench_run_open(&run, &common) != CLI_OK)
        return CLI_FAIL;
    BENCH_PLAN(opt, &common, &run);
    static sk_project_bench p;
    int rc = nres > 1 ? sk_bench_project_grid(run.src, &run.sel, &opt, res, nres, &grid, &err)
                      : sk_bench_project(run.src, &run.sel, &opt, &p, &err);
    if (bench_run_close(&run, rc, &err) != CLI_OK)
        return CLI_FAIL;
    if (nres > 1) {
        for (int r = 0; r < grid.nres; r++) {
            sk_report rep = {.project = &grid.runs[r]};
            int threads = bench_most_threads(&grid.runs[r].cases[0].scaling);
            if (bench_csv(&common, &rep, threads, "warm") != CLI_OK)
                return CLI_FAIL;
        }
        return bench_print(common.json, &grid, grid_json,
                           common.json ? NULL : sk_project_grid_text(&grid));
    }
    sk_report rep = {.project = &p};
    if (bench_csv(&common, &rep, bench_most_threads(&p.cases[0].scaling), "warm") != CLI_OK)
        return CLI_FAIL;
    return bench_print(common.json, &p, project_json, common.json ? NULL : sk_project_text(&p));
}
