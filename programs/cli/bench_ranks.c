/* snapkit bench ranks: under mpirun -np N, full reads of one component on
 * a grid of ranks (1, 2, 4, ..., N) x threads per rank (bench/ranks.h), so
 * that a user learns whether ranks or threads pay on their machine. Built
 * without MPI, or run alone, it measures 1 rank. */
#include "bench_commands.h"
#include "bench_common.h"
#include "bench_report_stages.h"
#include "cli_mpi.h"
#include "snapkit/util/mpi.h"

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
    "Run it under mpirun (alone it measures 1 rank). `bench report --stages ranks`\n"
    "under mpirun puts the same grid in the report.\n\n"
    "options:\n"
    "  --component C         hydro (default), gravity or particles\n"
    "%s";

int bench_run_ranks(const char *source, const cli_selection *cs, const char *component,
                    const int *levels, int nlevels, int runs, sk_ranks_bench *out)
{
    sk_source *src = NULL;
    sk_selection sel;
    sk_error err;
    sk_error_clear(&err);
    int opened = bench_open(source, cs, &src, &sel) == CLI_OK;
    /* Every rank must reach the grid's collectives, or none. */
    int rc = sk_mpi_agree(opened ? SK_OK
                                 : sk_fail(&err, SK_ERR_IO, source, -1,
                                           "cannot be opened on MPI rank %d",
                                           cli_mpi_world()->rank),
                          &err);
    if (rc == SK_OK) {
        sk_ranks_bench_options opt = {.component = component, .nlevels = nlevels, .runs = runs};
        for (int i = 0; i < nlevels && i < SK_BENCH_MAX_LEVELS; i++)
            opt.levels[i] = levels[i];
        rc = sk_bench_ranks(src, &sel, &opt, out, &err);
    }
    if (opened) {
        sk_selection_clear(&sel);
        sk_source_close(src);
    }
    if (rc != SK_OK)
        return opened ? cli_error(&err) : CLI_FAIL; /* bench_open printed its own */
    return CLI_OK;
}

static void ranks_json(const void *stage, sk_json *j)
{
    sk_ranks_bench_json(stage, j);
}

int cmd_bench_ranks(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench ranks", BENCH_SELECTION | BENCH_COMPONENTS);
    int go = bench_parse_common(&common, argc, argv, k_help);
    if (go <= 0)
        return go < 0 ? CLI_USAGE : CLI_OK;
    if (!common.source)
        return cli_usage("bench ranks", "which output? (mpirun -np N snapkit bench ranks SOURCE)");
    bench_cap_levels(&common);
    static sk_ranks_bench out;
    int rc = bench_run_ranks(common.source, &common.cs, common.components[0], common.levels,
                             common.nlevels, common.runs, &out);
    if (rc != CLI_OK)
        return rc;
    if (cli_mpi_world()->rank > 0)
        return CLI_OK;
    return bench_print(common.json, &out, ranks_json, sk_ranks_bench_text(&out));
}
