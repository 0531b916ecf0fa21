/* snapkit bench outputs: several outputs at once in one process each, or
 * one after another with every thread in one process? */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_commands.h"
#include "bench_common.h"

extern char **environ;

enum { MAX_OUTPUTS = 256 };

static const char k_help[] =
    "usage: snapkit bench outputs OUT1 OUT2 ... [--budget N] [--runs N] [--json]\n\n"
    "Read every component of several outputs two ways and compare: one process per output\n"
    "with N/k threads each (k outputs, at most N/(N/k) processes at a time), against one\n"
    "output after another in this process with all N threads. Each output is read once\n"
    "first, so both ways find the page cache warm. Prints both times and their ratio\n"
    "(above 1: processes are faster).\n\n"
    "options:\n"
    "  --budget N            threads in all (default: the CPUs the job owns)\n"
    "  --runs N              repetitions of both ways, alternated (default 1); medians\n"
    "  --json                print the result as JSON\n"
    "  --csv FILE            append one row per measurement to FILE with the run's metadata\n";

/* Every component of one output at `threads` threads. */
static int read_output(const char *path, int threads, sk_error *err)
{
    sk_source *src;
    int rc = sk_source_open(&src, path, err);
    if (rc != SK_OK)
        return rc;
    const char *names[SKB_MAX_COMPONENTS];
    int n = sk_source_components(src, names, SKB_MAX_COMPONENTS);
    for (int i = 0; i < n && rc == SK_OK; i++) {
        sk_table *t = NULL;
        rc = sk_bench_source_read(src, names[i], NULL, threads, &t, NULL, err);
        sk_table_free(t);
    }
    sk_source_close(src);
    return rc;
}

static int sequential(char **outputs, int k, int threads, double *seconds, sk_error *err)
{
    double t0 = cli_now();
    for (int i = 0; i < k; i++) {
        int rc = read_output(outputs[i], threads, err);
        if (rc != SK_OK)
            return rc;
    }
    *seconds = cli_now() - t0;
    return SK_OK;
}

/* `snapkit bench read OUT --runs 1 --no-cold --no-warmup --threads m`:
 * one timed read of each component and nothing else. */
static int spawn_reader(const char *output, int threads, pid_t *pid)
{
    char tbuf[16];
    snprintf(tbuf, sizeof tbuf, "%d", threads);
    char *args[] = {"snapkit", "bench", "read", (char *)output, "--runs", "1", "--no-cold",
                    "--no-warmup", "--threads", tbuf, "--json", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    int e = posix_spawn(pid, "/proc/self/exe", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    return e;
}

static int processes(char **outputs, int k, int threads, int concurrent, double *seconds)
{
    double t0 = cli_now();
    int started = 0, running = 0, failed = 0;
    while (started < k || running > 0) {
        if (started < k && running < concurrent) {
            pid_t pid;
            int e = spawn_reader(outputs[started], threads, &pid);
            if (e)
                return cli_fail("cannot start a reader process: %s", strerror(e));
            started++;
            running++;
            continue;
        }
        int status;
        if (wait(&status) < 0)
            return cli_fail("waiting for the reader processes: %s", strerror(errno));
        running--;
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    *seconds = cli_now() - t0;
    return failed ? cli_fail("a reader process failed (run snapkit bench read on each output)")
                  : CLI_OK;
}

static void outputs_json(const void *o, sk_json *j)
{
    sk_outputs_json(o, j);
}

int cmd_bench_outputs(int argc, char **argv)
{
    char *outputs[MAX_OUTPUTS];
    int k = 0, json = 0;
    bench_common common;
    bench_common_init(&common, "bench outputs", 0);
    long long budget = 0, runs = 1;
    for (int i = 1; i < argc; i++) {
        if (cli_help(argv[i], k_help)) {
            return CLI_OK;
        } else if (cli_is(argv[i], "--json")) {
            json = 1;
        } else if (cli_is(argv[i], "--csv")) {
            if (!(common.csv = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (cli_is(argv[i], "--budget") || cli_is(argv[i], "--runs")) {
            const char *flag = argv[i];
            long long *dst = cli_is(flag, "--budget") ? &budget : &runs;
            if (cli_int_value(argc, argv, &i, dst))
                return CLI_USAGE;
            if (*dst < 1 || *dst > 4096)
                return cli_usage("bench outputs", "%s must be between 1 and 4096", flag);
        } else if (argv[i][0] == '-') {
            return cli_usage("bench outputs", "unknown option '%s'", argv[i]);
        } else if (k == MAX_OUTPUTS) {
            return cli_usage("bench outputs", "at most %d outputs", MAX_OUTPUTS);
        } else {
            outputs[k++] = argv[i];
        }
    }
    if (k < 2)
        return cli_usage("bench outputs", "give two outputs or more");
    sk_thread_budget b;
    sk_thread_budget_get((int)budget, &b);
    char warning[256];
    if (sk_thread_warning(&b, "--budget", warning, sizeof warning))
        fprintf(stderr, "snapkit: %s\n", warning);
    sk_outputs_bench o = {.noutputs = k, .budget = b.threads};
    o.threads_per_process = o.budget / k > 0 ? o.budget / k : 1;
    int concurrent = o.budget / o.threads_per_process;
    sk_error err;
    for (int i = 0; i < k; i++) /* warm the cache for both ways alike */
        if (read_output(outputs[i], o.budget, &err) != SK_OK)
            return cli_error(&err);
    double tp[64], ts[64];
    int n = runs < 64 ? (int)runs : 64;
    for (int r = 0; r < n; r++) {
        if (processes(outputs, k, o.threads_per_process, concurrent, &tp[r]) != CLI_OK)
            return CLI_FAIL;
        if (sequential(outputs, k, o.budget, &ts[r], &err) != SK_OK)
            return cli_error(&err);
    }
    o.processes_seconds = sk_bench_median(tp, n);
    o.sequential_seconds = sk_bench_median(ts, n);
    o.ratio = o.sequential_seconds / o.processes_seconds;
    common.source = outputs[0];
    sk_report rep = {.outputs = &o};
    if (bench_csv(&common, &rep, o.budget, "warm") != CLI_OK)
        return CLI_FAIL;
    return bench_print(json, &o, outputs_json, json ? NULL : sk_outputs_text(&o));
}
