/* Shared helpers of the snapkit command. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "snapkit/util/json.h"
#include "snapkit/util/number.h"

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("snapkit: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_FAIL;
}

int cli_usage(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "snapkit %s: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see snapkit %s --help)\n", command);
    va_end(ap);
    return CLI_USAGE;
}

int cli_error(const sk_error *err)
{
    fprintf(stderr, "snapkit: %s\n", err->message[0] ? err->message : sk_status_name(err->code));
    return CLI_FAIL;
}

int cli_is(const char *arg, const char *name)
{
    return strcmp(arg, name) == 0;
}

int cli_help(const char *arg, const char *help)
{
    if (!cli_is(arg, "--help") && !cli_is(arg, "-h"))
        return 0;
    fputs(help, stdout);
    return 1;
}

const char *cli_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_fail("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int cli_int(const char *flag, const char *text, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end) {
        cli_fail("%s: '%s' is not an integer", flag, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* The valid range of the integer options that have one; any other
 * integer option must at least fit an int, which is what it becomes. */
static const struct {
    const char *flag;
    long long lo, hi;
} k_int_ranges[] = {
    {"--threads", 1, 65536},   {"--max-threads", 1, 65536}, {"--budget", 1, 65536},
    {"--gzip-level", 0, 9},    {"--runs", 1, 1000000},
    {"--nfiles", 1, 1 << 20},  {"--chunk-rows", 1, 1LL << 31},
};

int cli_int_value(int argc, char **argv, int *i, long long *out)
{
    const char *flag = argv[*i], *v = cli_value(argc, argv, i);
    if (!v || cli_int(flag, v, out))
        return -1;
    long long lo = INT_MIN, hi = INT_MAX;
    for (size_t k = 0; k < sizeof k_int_ranges / sizeof k_int_ranges[0]; k++)
        if (!strcmp(flag, k_int_ranges[k].flag))
            lo = k_int_ranges[k].lo, hi = k_int_ranges[k].hi;
    if (*out < lo || *out > hi) {
        cli_fail("%s must be between %lld and %lld, not %s", flag, lo, hi, v);
        return -1;
    }
    return 0;
}

int cli_int_between(int argc, char **argv, int *i, long long lo, long long hi, long long *out)
{
    const char *flag = argv[*i];
    if (cli_int_value(argc, argv, i, out))
        return -1;
    if (*out < lo || *out > hi) {
        cli_fail("%s must be between %lld and %lld, not %lld", flag, lo, hi, *out);
        return -1;
    }
    return 0;
}

int cli_double(const char *flag, const char *text, double *out)
{
    const char *stop = NULL;
    size_t n = strlen(text);
    if (!sk_parse_double(text, text + n, out, &stop) || stop != text + n) {
        cli_fail("%s: '%s' is not a number", flag, text);
        return -1;
    }
    return 0;
}

static cli_json_sink g_json_sink;
static void *g_json_sink_ctx;

void cli_set_json_sink(cli_json_sink sink, void *ctx)
{
    g_json_sink = sink;
    g_json_sink_ctx = ctx;
}

void cli_print_json(const sk_json *j)
{
    if (g_json_sink) {
        g_json_sink(g_json_sink_ctx, sk_json_text(j));
        return;
    }
    fputs(sk_json_text(j), stdout);
    fputc('\n', stdout);
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *cli_bytes(double bytes, char *buf, size_t n)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

void cli_progress_init(cli_progress *p, const char *what)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->start = cli_now();
    p->tty = isatty(STDERR_FILENO);
}

int cli_progress_due(cli_progress *p, int64_t done, int64_t total)
{
    if (!p->tty)
        return 0;
    double now = cli_now();
    if (now - p->start < 1.0 || (now - p->last < 0.1 && done < total))
        return 0;
    p->last = now;
    p->shown = 1;
    return 1;
}

static void progress_fn(void *ctx, int64_t done, int64_t total, int64_t bytes)
{
    cli_progress *p = ctx;
    if (!cli_progress_due(p, done, total))
        return;
    char b[32], r[32];
    double rate = bytes / (p->last - p->start);
    fprintf(stderr, "\r%s: %lld/%lld files, %s, %s/s   ", p->what, (long long)done,
            (long long)total, cli_bytes((double)bytes, b, sizeof b), cli_bytes(rate, r, sizeof r));
    fflush(stderr);
}

sk_progress cli_progress_hook(cli_progress *p)
{
    return (sk_progress){.fn = progress_fn, .ctx = p};
}

void cli_progress_done(cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
