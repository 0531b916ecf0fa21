/* The stages of `snapkit bench report` whose runners live outside
 * bench_report.c: the projection grid (--res LIST), atom files, clumps and
 * the ranks x threads grid. */
#ifndef SNAPKIT_CLI_BENCH_REPORT_STAGES_H
#define SNAPKIT_CLI_BENCH_REPORT_STAGES_H

#include "bench/atoms.h"
#include "bench/clumps.h"
#include "bench/project_grid.h"
#include "bench/ranks.h"
#include "bench_common.h"

/* The project stage at each resolution of res[n] (n >= 2), every thread
 * level up to max_threads; prints its text. CLI_OK or CLI_FAIL. */
int bench_report_grid(sk_source *src, const sk_selection *sel, int max_threads, int runs,
                      const int *res, int n, sk_project_grid *out);

/* The atoms stage, its files in DIR/atoms (removed after); prints its
 * text. sizes NULL: the default sizes. */
int bench_report_atoms(const char *dir, int threads, int runs, const int64_t *sizes, int nsizes,
                       int peers, sk_atoms_bench *out);

/* The clumps stage (as snapkit bench clumps with its defaults) at the
 * threshold (code units); prints its text. */
int bench_report_clumps(sk_source *src, const sk_selection *sel, int max_threads, int runs,
                        double threshold, sk_clumps_bench *out);

/* The ranks x threads grid of SOURCE's component (NULL: hydro) on the
 * world's ranks (bench_ranks.c); collective: every rank calls it. levels
 * (nlevels 0: the defaults) are threads per rank, runs 0 the default.
 * Prints an error and returns CLI_FAIL on failure. */
int bench_run_ranks(const char *source, const cli_selection *cs, const char *component,
                    const int *levels, int nlevels, int runs, sk_ranks_bench *out);

#endif
