/* snapkit bench: measure snapkit on this machine. One subcommand per
 * stage, each in its own file. */
#include <string.h>

#include "bench_commands.h"
#include "cli.h"

static const struct {
    const char *name;
    cli_command_fn fn;
    const char *summary;
} k_stages[] = {
    {"storage", cmd_bench_storage, "open/close rate and per-reader throughput under concurrency"},
    {"read", cmd_bench_read, "per component: cold and warm read time, memory"},
    {"sweep", cmd_bench_sweep, "full reads at each thread level: sweet spot, Amdahl fit"},
    {"ranks", cmd_bench_ranks, "under mpirun: full reads on a grid of ranks x threads per rank"},
    {"convert", cmd_bench_convert, "does converting to a .snapkit file pay? the break-even"},
    {"project", cmd_bench_project, "projection at each thread level: one quantity and many, two geometries"},
    {"lmax", cmd_bench_lmax, "each lmax: rows, bytes, read time; does time follow allocation or bytes read?"},
    {"analyse", cmd_bench_analyse, "profile, phase, slice and cube against a stats pass and yt (--yt)"},
    {"sphere", cmd_bench_sphere, "the totals of a sphere (mass, com, angular momentum) against the whole output"},
    {"atoms", cmd_bench_atoms, "atom files: snapkit against ASE and LAMMPS, every atom checked"},
    {"outputs", cmd_bench_outputs, "several outputs: one process each against one after another"},
    {"clumps", cmd_bench_clumps, "each clump finder, boundedness method and the statistics' scaling"},
    {"report", cmd_bench_report, "every stage in one run: report.txt, .csv, .json, .png, .svg, .pdf"},
    {"plot", cmd_bench_plot, "the figure of a saved report.json, redrawn without measuring"},
    {"compare", cmd_bench_compare, "two saved reports: the ratio B/A per stage and measurement"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: snapkit bench <stage> [options]\n\n"
                 "Measure snapkit on this machine, with this storage and this job's CPUs.\n\n"
                 "stages:\n");
    for (size_t i = 0; i < sizeof k_stages / sizeof k_stages[0]; i++)
        fprintf(out, "  %-10s %s\n", k_stages[i].name, k_stages[i].summary);
    fprintf(out, "\n  snapkit bench <stage> --help   options of one stage\n");
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (cli_is(argv[1], "--help") || cli_is(argv[1], "-h")) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof k_stages / sizeof k_stages[0]; i++)
        if (strcmp(argv[1], k_stages[i].name) == 0)
            return k_stages[i].fn(argc - 1, argv + 1);
    return cli_usage("bench", "unknown stage '%s'", argv[1]);
}
