/* snapkit bench project: how many threads a projection can use. */
#include <math.h>
#include <string.h>

#include "bench_commands.h"
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

enum { MAX_RES = 8 };

/* The grid: one projection bench per resolution. */
typedef struct project_grid {
    int nres;
    int res[MAX_RES];
    sk_project_bench runs[MAX_RES];
} project_grid;

static void grid_json(const void *gv, sk_json *j)
{
    const project_grid *g = gv;
    sk_json_object_begin(j);
    sk_json_key(j, "grid");
    sk_json_array_begin(j);
    for (int r = 0; r < g->nres; r++) {
        sk_json_object_begin(j);
        sk_json_kv_int(j, "res", g->res[r]);
        sk_json_key(j, "project");
        sk_project_json(&g->runs[r], j);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_key(j, "summary");
    sk_json_array_begin(j);
    for (int r = 0; r < g->nres; r++)
        for (int k = 0; k < g->runs[r].ncases; k++) {
            const sk_scaling *s = &g->runs[r].cases[k].scaling;
            double best = INFINITY;
            for (int i = 0; i < s->npoints; i++)
                best = fmin(best, s->points[i].seconds);
            sk_json_object_begin(j);
            sk_json_kv_int(j, "res", g->res[r]);
            sk_json_kv_string(j, "case", g->runs[r].cases[k].name);
            sk_json_kv_int(j, "fastest", s->fastest);
            sk_json_kv_int(j, "sweet_spot", s->sweet_spot);
            sk_json_kv_int(j, "economical", s->economical);
            sk_json_kv_double(j, "best_seconds", best);
            sk_json_kv_double(j, "parallel_fraction", s->amdahl.parallel_fraction);
            sk_json_object_end(j);
        }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

/* Each resolution's text, then the table of where threads stop paying. */
static char *grid_text(const project_grid *g)
{
    size_t cap = 1 << 16, len = 0;
    char *out = sk_malloc(cap);
    if (!out)
        return NULL;
    out[0] = '\0';
    for (int r = 0; r < g->nres; r++) {
        char *t = sk_project_text(&g->runs[r]);
        len += (size_t)snprintf(out + len, cap - len, "res %d\n%s\n", g->res[r], t ? t : "");
        sk_free(t);
        if (len >= cap)
            break;
    }
    if (len < cap)
        len += (size_t)snprintf(out + len, cap - len,
                                "resolution x threads: where threads stop paying\n"
                                "    res  case                              fastest  sweet  economical  best time\n");
    for (int r = 0; r < g->nres && len < cap; r++)
        for (int k = 0; k < g->runs[r].ncases && len < cap; k++) {
            const sk_scaling *s = &g->runs[r].cases[k].scaling;
            double best = INFINITY;
            for (int i = 0; i < s->npoints; i++)
                best = fmin(best, s->points[i].seconds);
            len += (size_t)snprintf(out + len, cap - len, "  %5d  %-33s %7d  %5d  %10d  %8.4g s\n",
                                    g->res[r], g->runs[r].cases[k].name, s->fastest,
                                    s->sweet_spot, s->economical, best);
        }
    return out;
}

static int parse_res(const char *v, project_grid *g)
{
    sk_error err;
    int n = sk_bench_parse_levels(v, g->res, MAX_RES, &err);
    if (n < 0)
        return cli_usage("bench project", "--res: '%s' is not a list of up to %d pixel counts "
                         "such as 256,512,1024", v, MAX_RES);
    g->nres = n;
    return CLI_OK;
}

int cmd_bench_project(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench project", BENCH_SELECTION);
    sk_project_bench_options opt = {0};
    static project_grid grid;
    grid.nres = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is(a, "--help") || cli_is(a, "-h")) {
            printf(k_help, cli_selection_help);
            fputs(bench_common_help, stdout);
            return CLI_OK;
        } else if (cli_is(a, "--vars") || cli_is(a, "--component")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v)
                return CLI_USAGE;
            *(cli_is(a, "--vars") ? &opt.quantities : &opt.component) = v;
        } else if (cli_is(a, "--res")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v || parse_res(v, &grid) != CLI_OK)
                return CLI_USAGE;
            opt.res = grid.res[0];
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    if (!common.source)
        return cli_usage("bench project", "which source? (snapkit bench project SOURCE)");
    bench_cap_levels(&common);
    bench_warn_levels(common.levels, common.nlevels);
    sk_bench_source *src;
    sk_selection sel;
    if (bench_open(common.source, &common.cs, &src, &sel) != CLI_OK)
        return CLI_FAIL;
    cli_progress progress;
    cli_progress_init(&progress, "bench project");
    opt.nlevels = common.nlevels;
    memcpy(opt.levels, common.levels, sizeof opt.levels);
    opt.runs = common.runs;
    opt.progress = bench_progress_hook(&progress);
    static sk_project_bench p;
    sk_error err;
    int rc = SK_OK;
    for (int r = 0; r < grid.nres && grid.nres > 1 && rc == SK_OK; r++) {
        opt.res = grid.res[r];
        rc = sk_bench_project(src, &sel, &opt, &grid.runs[r], &err);
    }
    if (grid.nres <= 1)
        rc = sk_bench_project(src, &sel, &opt, &p, &err);
    cli_progress_done(&progress);
    sk_selection_clear(&sel);
    sk_bench_source_close(src);
    if (rc != SK_OK)
        return cli_error(&err);
    if (grid.nres > 1) {
        for (int r = 0; r < grid.nres; r++) {
            const sk_scaling *s = &grid.runs[r].cases[0].scaling;
            sk_report rep = {.project = &grid.runs[r]};
            if (bench_csv(&common, &rep, s->npoints ? s->points[s->npoints - 1].threads : 0, "warm") != CLI_OK)
                return CLI_FAIL;
        }
        return bench_print(common.json, &grid, grid_json, common.json ? NULL : grid_text(&grid));
    }
    const sk_scaling *s0 = &p.cases[0].scaling;
    sk_report rep = {.project = &p};
    if (bench_csv(&common, &rep, s0->npoints ? s0->points[s0->npoints - 1].threads : 0, "warm") != CLI_OK)
        return CLI_FAIL;
    return bench_print(common.json, &p, project_json, common.json ? NULL : sk_project_text(&p));
}
