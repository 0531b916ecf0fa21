/* The report's projection grid, atoms and clumps stages. */
#include "bench_report_stages.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

int bench_report_grid(sk_source *src, const sk_selection *sel, int max_threads, int runs,
                      const int *res, int n, sk_project_grid *out)
{
    sk_project_bench_options opt = {.runs = runs};
    opt.nlevels = sk_bench_default_levels(max_threads, opt.levels, SK_BENCH_MAX_LEVELS);
    cli_progress progress;
    cli_progress_init(&progress, "bench project");
    opt.progress = bench_progress_hook(&progress);
    sk_error err;
    int rc = sk_bench_project_grid(src, sel, &opt, res, n, out, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    bench_show(sk_project_grid_text(out));
    return CLI_OK;
}

int bench_report_atoms(const char *dir, int threads, int runs, const int64_t *sizes, int nsizes,
                       int peers, sk_atoms_bench *out)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_fail("%s: cannot create the folder: %s", dir, strerror(errno));
    char work[4096];
    snprintf(work, sizeof work, "%s/atoms", dir);
    cli_progress progress;
    cli_progress_init(&progress, "bench atoms");
    sk_atoms_bench_options opt = {.sizes = sizes, .nsizes = nsizes, .peers = peers, .work = work,
                                  .threads = threads, .runs = runs,
                                  .progress = bench_progress_hook(&progress)};
    sk_error err;
    int rc = sk_bench_atoms(&opt, out, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    bench_show(sk_atoms_bench_text(out));
    return CLI_OK;
}

int bench_report_clumps(sk_source *src, const sk_selection *sel, int max_threads, int runs,
                        double threshold, sk_clumps_bench *out)
{
    sk_clumps_bench_options opt;
    memset(&opt, 0, sizeof opt);
    sk_clumps_options_init(&opt.find);
    opt.find.threshold = threshold;
    opt.find.threads = max_threads;
    opt.bound_threshold = NAN;
    opt.runs = runs;
    opt.nlevels = sk_bench_default_levels(max_threads, opt.levels, SK_BENCH_MAX_LEVELS);
    cli_progress progress;
    cli_progress_init(&progress, "bench clumps");
    opt.progress = bench_progress_hook(&progress);
    sk_error err;
    int rc = sk_bench_clumps(src, sel, &opt, out, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    bench_show(sk_clumps_bench_text(out));
    return CLI_OK;
}
