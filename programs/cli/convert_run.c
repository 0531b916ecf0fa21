/* snapkit convert OUTPUT... -o DIR/: each output in its own process
 * (`snapkit convert OUTPUT -o DIR/output_NNNNN.snapkit --threads T`), a
 * few at once. Processes, not threads, are the axis that pays for many
 * outputs (bench outputs): each worker's serial parts (opening, the
 * index, the write) overlap the others'. Every file is written by the
 * worker atomically, so a failed or killed worker leaves none. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_mpi.h"
#include "convert_run.h"
#include "snapkit/util/json.h"

extern char **environ;

typedef enum job_state { JOB_TODO, JOB_SKIPPED, JOB_DONE, JOB_FAILED } job_state;

typedef struct job {
    const char *source;
    char target[4096];
    job_state state;
    pid_t pid;
    FILE *log;  /* the worker's stdout and stderr */
    char *said; /* what it printed, once done */
} job;

void convert_run_pass(convert_run_args *a, char **argv, int first, int last)
{
    for (int i = first; i <= last; i++)
        a->pass[a->npass++] = argv[i];
}

int convert_run_is_folder(const char *path)
{
    struct stat st;
    size_t n = strlen(path);
    return (n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* DIR/<source's last name>.snapkit; two sources of one name are refused. */
static int plan_targets(const convert_run_args *a, job *jobs)
{
    for (int i = 0; i < a->nsources; i++) {
        const char *s = a->sources[i];
        size_t n = strlen(s);
        while (n > 1 && s[n - 1] == '/')
            n--;
        size_t b = n;
        while (b > 0 && s[b - 1] != '/')
            b--;
        size_t dn = strlen(a->dir);
        const char *sep = dn && a->dir[dn - 1] == '/' ? "" : "/";
        jobs[i] = (job){.source = s, .state = JOB_TODO};
        snprintf(jobs[i].target, sizeof jobs[i].target, "%s%s%.*s.snapkit", a->dir, sep,
                 (int)(n - b), s + b);
        for (int k = 0; k < i; k++)
            if (!strcmp(jobs[k].target, jobs[i].target))
                return cli_usage("convert", "'%s' and '%s' would both write %s", jobs[k].source,
                                 s, jobs[i].target);
    }
    return CLI_OK;
}

/* --resume: a target that opens (tail and footer checked) is done. */
static int already_converted(const char *path)
{
    sk_store *s;
    sk_error err;
    if (access(path, F_OK) != 0 || sk_store_open(&s, path, NULL, &err) != SK_OK)
        return 0;
    sk_store_close(s);
    return 1;
}

static int start(job *j, int threads, const convert_run_args *a)
{
    if (!(j->log = tmpfile()))
        return errno;
    int fd = fileno(j->log);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    char tbuf[24];
    snprintf(tbuf, sizeof tbuf, "%d", threads);
    char *args[a->npass + 10];
    int n = 0;
    args[n++] = "snapkit";
    args[n++] = "convert";
    args[n++] = (char *)j->source;
    args[n++] = "-o";
    args[n++] = j->target;
    args[n++] = "--threads";
    args[n++] = tbuf;
    if (a->json)
        args[n++] = "--json";
    for (int i = 0; i < a->npass; i++)
        args[n++] = a->pass[i];
    args[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fd, STDERR_FILENO);
    fflush(stdout);
    int e = posix_spawn(&j->pid, "/proc/self/exe", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    return e;
}

/* The worker's words, without the trailing newline. */
static void collect(job *j, int ok)
{
    j->state = ok ? JOB_DONE : JOB_FAILED;
    long size = fseek(j->log, 0, SEEK_END) == 0 ? ftell(j->log) : -1;
    j->said = malloc(size > 0 ? (size_t)size + 1 : 1);
    size_t got = 0;
    if (j->said && size > 0 && fseek(j->log, 0, SEEK_SET) == 0)
        got = fread(j->said, 1, (size_t)size, j->log);
    fclose(j->log);
    j->log = NULL;
    if (!j->said)
        return;
    while (got && (j->said[got - 1] == '\n' || j->said[got - 1] == '\r'))
        got--;
    j->said[got] = '\0';
}

static void report_one(const job *j, int json)
{
    if (json)
        return;
    const char *said = j->said ? j->said : "";
    if (j->state == JOB_SKIPPED)
        printf("skipped %s: %s is there and complete\n", j->source, j->target);
    else if (j->state == JOB_DONE)
        printf("%s\n", said);
    else
        printf("failed %s: %s\n", j->source,
               strncmp(said, "snapkit: ", 9) ? (*said ? said : "the worker died") : said + 9);
    fflush(stdout);
}

/* Run the todo jobs, `jobs` at once. */
static int run_jobs(job *js, int n, int jobs, int threads, const convert_run_args *a)
{
    int next = 0, running = 0;
    for (;;) {
        while (next < n && js[next].state != JOB_TODO)
            next++;
        if (next < n && running < jobs) {
            job *j = &js[next++];
            j->state = JOB_FAILED; /* until it says otherwise */
            int e = start(j, threads, a);
            if (!e) {
                running++;
                continue;
            }
            if (j->log)
                fclose(j->log);
            j->log = NULL;
            char msg[256];
            snprintf(msg, sizeof msg, "cannot start a convert process: %s", strerror(e));
            j->said = strdup(msg);
            report_one(j, a->json);
            continue;
        }
        if (!running)
            return CLI_OK;
        int status;
        pid_t pid = wait(&status);
        if (pid < 0)
            return cli_fail("waiting for the convert processes: %s", strerror(errno));
        for (int i = 0; i < n; i++)
            if (js[i].log && js[i].pid == pid) {
                collect(&js[i], WIFEXITED(status) && WEXITSTATUS(status) == 0);
                report_one(&js[i], a->json);
                running--;
            }
    }
}

static void print_json(const job *js, int n, int jobs, int threads, double seconds)
{
    static const char *const names[] = {"todo", "skipped", "converted", "failed"};
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_int(&j, "jobs", jobs);
    sk_json_kv_int(&j, "threads_per_job", threads);
    sk_json_kv_double(&j, "seconds", seconds);
    sk_json_key(&j, "outputs");
    sk_json_array_begin(&j);
    for (int i = 0; i < n; i++) {
        sk_json_object_begin(&j);
        sk_json_kv_string(&j, "source", js[i].source);
        sk_json_kv_string(&j, "path", js[i].target);
        sk_json_kv_string(&j, "state", names[js[i].state]);
        if (js[i].state == JOB_DONE && js[i].said && js[i].said[0] == '{') {
            sk_json_key(&j, "summary");
            sk_json_raw(&j, js[i].said);
        } else if (js[i].state == JOB_FAILED) {
            sk_json_kv_string(&j, "error", js[i].said ? js[i].said : "");
        }
        sk_json_object_end(&j);
    }
    sk_json_array_end(&j);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

/* The summary line; the failed outputs named on stderr. */
static int summarize(const job *js, int n, int jobs, int threads, double seconds, int json)
{
    int count[4] = {0};
    for (int i = 0; i < n; i++)
        count[js[i].state]++;
    if (json)
        print_json(js, n, jobs, threads, seconds);
    else
        printf("%d output%s: %d converted, %d skipped, %d failed in %.2f s (%d at once, %d "
               "thread%s each)\n",
               n, n == 1 ? "" : "s", count[JOB_DONE], count[JOB_SKIPPED], count[JOB_FAILED],
               seconds, jobs, threads, threads == 1 ? "" : "s");
    if (!count[JOB_FAILED])
        return CLI_OK;
    fflush(stdout);
    fprintf(stderr, "snapkit: %d of %d outputs failed:", count[JOB_FAILED], n);
    for (int i = 0; i < n; i++)
        if (js[i].state == JOB_FAILED)
            fprintf(stderr, " %s", js[i].source);
    fprintf(stderr, "\n");
    return CLI_FAIL;
}

int convert_run(const convert_run_args *a)
{
    if (cli_mpi_world()->size > 1)
        return cli_fail("several outputs convert in one process each: start snapkit without "
                        "mpirun (or convert one output per mpirun)");
    if (mkdir(a->dir, 0777) != 0 && errno != EEXIST)
        return cli_fail("%s: cannot make the folder: %s", a->dir, strerror(errno));
    if (!convert_run_is_folder(a->dir))
        return cli_fail("%s: not a folder (several outputs need -o DIR/)", a->dir);
    job *js = calloc((size_t)a->nsources, sizeof *js);
    if (!js)
        return cli_fail("out of memory");
    int rc = plan_targets(a, js), todo = 0;
    for (int i = 0; rc == CLI_OK && i < a->nsources; i++) {
        if (a->resume && already_converted(js[i].target)) {
            js[i].state = JOB_SKIPPED;
            report_one(&js[i], a->json);
        }
        todo += js[i].state == JOB_TODO;
    }
    sk_thread_budget b;
    sk_thread_budget_get((int)a->threads, &b);
    int jobs = a->jobs ? (int)a->jobs : (todo < b.threads ? todo : b.threads);
    jobs = jobs < 1 ? 1 : jobs;
    int threads = b.threads / jobs > 0 ? b.threads / jobs : 1;
    double t0 = cli_now();
    if (rc == CLI_OK)
        rc = run_jobs(js, a->nsources, jobs, threads, a);
    if (rc == CLI_OK)
        rc = summarize(js, a->nsources, jobs, threads, cli_now() - t0, a->json);
    for (int i = 0; i < a->nsources; i++) {
        if (js[i].log)
            fclose(js[i].log);
        free(js[i].said);
    }
    free(js);
    return rc;
}
