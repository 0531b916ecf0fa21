/* The snapkit command: dispatch to one subcommand per file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "commands.h"
#include "figure/figure.h"
#include "snapkit/util/atomicfile.h"

static const struct {
    const char *name;
    cli_command_fn fn;
    const char *summary;
} k_commands[] = {
#define SK_COMMAND(name, fn, summary) {name, fn, summary},
#include "commands.def"
#undef SK_COMMAND
};

static void usage(FILE *out)
{
    fprintf(out, "usage: snapkit <command> [options]\n\n"
                 "Read, convert and project simulation snapshots (RAMSES, LAMMPS, extended XYZ).\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        fprintf(out, "  %-12s %s\n", k_commands[i].name, k_commands[i].summary);
    fprintf(out, "\n  snapkit <command> --help   options of one command\n"
                 "  snapkit --version          version\n");
}

static int run(const char *cmd, int argc, char **argv);

/* Standard output that could not be written (a full disk, /dev/full, a
 * closed pipe with SIGPIPE ignored) fails the command that otherwise
 * succeeded, in one line; a command that failed already said why. */
static int check_stdout(int rc)
{
    errno = 0;
    int flushed = fflush(stdout) == 0;
    int e = errno;
    if (flushed && !ferror(stdout))
        return rc;
    if (rc == CLI_OK) {
        if (e)
            fprintf(stderr, "snapkit: cannot write standard output: %s\n", strerror(e));
        else
            fprintf(stderr, "snapkit: cannot write standard output\n");
        rc = CLI_FAIL;
    }
    return rc;
}

/* OpenMP threads waiting for work sleep instead of spinning, unless the
 * user chose (OMP_WAIT_POLICY, GOMP_SPINCOUNT). Why: a new thread can start
 * on its parent's CPU, and a spinning waiter then holds the CPU the other
 * thread needs until the scheduler's next tick moves one of them: on a
 * 2-CPU VM the first parallel region of a run took 4-12 ms instead of
 * 0.1 ms, and the commands' medians drop 3-8 ms (docs/performance.md).
 * libgomp reads its environment once, in its own constructor, so the CLI
 * links libgomp statically (CMakeLists.txt) and sets the variable in a
 * constructor that runs before libgomp's; main takes it out again, so the
 * programs snapkit starts (bench's peers) see the user's environment. */
static int g_set_wait_policy;

__attribute__((constructor(101))) static void prefer_passive_wait(void)
{
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT"))
        g_set_wait_policy = setenv("OMP_WAIT_POLICY", "passive", 0) == 0;
}

/* SIGINT, SIGTERM (what Slurm and mpirun send at a time limit), SIGHUP:
 * remove the temporary files of outputs not yet in place, then die of the
 * signal as before. */
static void remove_temporaries_and_die(int sig)
{
    sk_atomic_remove_pending();
    raise(sig); /* SA_RESETHAND: the default action now */
}

static void on_interrupt_remove_temporaries(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_temporaries_and_die;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        /* a signal the caller ignores (nohup) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    if (g_set_wait_policy)
        unsetenv("OMP_WAIT_POLICY");
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    /* "bench ranks" divides its work, and "bench report" runs it under
     * several ranks (refusing its other stages there). */
    int bench_mpi = cli_is(cmd, "bench") && argc > 2 &&
                    (cli_is(argv[2], "ranks") || cli_is(argv[2], "report"));
    int mrc = cli_mpi_begin(bench_mpi ? (cli_is(argv[2], "ranks") ? "bench ranks" : "bench report")
                                      : cmd);
    if (mrc != CLI_OK)
        return mrc;
    on_interrupt_remove_temporaries();
    int rc = run(cmd, argc, argv);
    rc = check_stdout(rc);
    cli_mpi_end();
    return rc;
}

static int run(const char *cmd, int argc, char **argv)
{
    if (cli_is(cmd, "--version") || cli_is(cmd, "version")) {
        printf("snapkit %s\n", sk_version());
        return CLI_OK;
    }
    if (cli_is(cmd, "--help") || cli_is(cmd, "-h") || cli_is(cmd, "help")) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        if (strcmp(cmd, k_commands[i].name) == 0) {
            int rc = k_commands[i].fn(argc - 1, argv + 1);
            skf_release(); /* the font caches of figures, if any were drawn */
            return rc;
        }
    fprintf(stderr, "snapkit: unknown command '%s' (see snapkit --help)\n", cmd);
    return CLI_USAGE;
}
