/* snapkit threads: show the thread budget, so users on a shared node can
 * see which scheduler variable or mask limits them. */
#include "bench/bench.h"
#include "cli.h"
#include "cli_mpi.h"

static const char k_help[] =
    "usage: snapkit threads [--threads N] [--json]\n\n"
    "Print how many threads snapkit will use: the smallest of the request, the\n"
    "scheduler's allocation (SLURM_CPUS_PER_TASK, SLURM_JOB_CPUS_PER_NODE, PBS_NP,\n"
    "NSLOTS), OMP_NUM_THREADS, the CPU affinity mask and the machine. Under mpirun or\n"
    "srun the node's CPUs are divided among the ranks on the node, and rank 0 prints\n"
    "every rank's budget (JSON: ranks, per_rank[]).\n";

int cmd_threads(int argc, char **argv)
{
    int json = 0;
    long long requested = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_help(argv[i], k_help)) {
            return CLI_OK;
        } else if (cli_is(argv[i], "--json")) {
            json = 1;
        } else if (cli_is(argv[i], "--threads")) {
            if (cli_int_value(argc, argv, &i, &requested))
                return CLI_USAGE;
        } else {
            return cli_usage("threads", "unknown option '%s'", argv[i]);
        }
    }
    sk_thread_budget b;
    sk_thread_budget_get((int)requested, &b);
    if (cli_mpi_world()->size > 1)
        return cli_mpi_threads(&b, json);
    if (json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_thread_budget_json(&b, &j);
        cli_print_json(&j);
        sk_json_free(&j);
        return CLI_OK;
    }
    printf("threads   %d\nowned     %d (set by %s)\naffinity  %d\nmachine   %d\n", b.threads,
           b.owned, b.limited_by, b.affinity, b.machine);
    if (b.requested > b.owned)
        printf("warning: %d threads were asked for but the job owns %d; use --threads %d\n",
               b.requested, b.owned, b.owned);
    return CLI_OK;
}
