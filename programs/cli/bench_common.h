/* Shared pieces of the `snapkit bench` subcommands: the thread-list and
 * runs options, the budget warning, the progress line, stage output. */
#ifndef SNAPKIT_CLI_BENCH_COMMON_H
#define SNAPKIT_CLI_BENCH_COMMON_H

#include <string.h>

#include "bench/bench.h"
#include "cli.h"

/* Options a stage takes besides --json, --runs and --threads. */
enum { BENCH_SELECTION = 1, BENCH_COMPONENTS = 2 };

typedef struct bench_common {
    const char *stage;                /* "bench read", for usage messages */
    int takes;                        /* BENCH_SELECTION | BENCH_COMPONENTS */
    int json;
    int runs;                         /* 0: the stage's default */
    int levels[SK_BENCH_MAX_LEVELS];  /* from --threads LIST */
    int nlevels;
    cli_selection cs;
    const char *components[SKB_MAX_COMPONENTS + 1]; /* --component a,b: NULL-terminated, NULL first: all */
    char component_list[128];         /* what components[] points into */
    const char *source;               /* the one positional argument */
    const char *csv;                  /* --csv FILE: rows appended there */
    int max_threads;                  /* --max-threads N (0: none) */
    char selection[512];              /* the selection options as given, for the metadata */
} bench_common;

void bench_common_init(bench_common *b, const char *stage, int takes);
/* The last branch of a stage's option loop: --json, --runs N,
 * --threads LIST, the selection options and --component LIST when the
 * stage takes them, and SOURCE. Returns 1 when argv[*i] was one of them
 * (consumed), -1 on a bad value, an unknown option or a second SOURCE
 * (message printed). */
int bench_option(bench_common *b, int argc, char **argv, int *i);
extern const char bench_common_help[];

/* Is arg --help or -h? Then print the stage's help (a format whose %s
 * takes the selection options' help) and the common options: 1. */
int bench_help(const char *arg, const char *help);

/* The option loop of a stage that has no options of its own: 1 to go on,
 * 0 when the help was printed, -1 on a bad option (message printed). */
int bench_parse_common(bench_common *b, int argc, char **argv, const char *help);

/* After the option loop: apply --max-threads to the --threads list (levels
 * above it dropped; without a list, the defaults 1, 2, 4, ... up to it). */
void bench_cap_levels(bench_common *b);

/* The one thread count of a stage that takes one (--threads N), capped by
 * --max-threads (0: the budget). */
int bench_one_thread(const bench_common *b);

/* With --csv FILE: append the report's rows (its machine filled here)
 * with the run's metadata. threads: most threads used (0: the budget);
 * cache: "warm" or "warm+cold". Prints the error and returns CLI_FAIL on
 * failure. */
int bench_csv(const bench_common *b, sk_report *r, int threads, const char *cache);

/* Open SOURCE and resolve the selection options into sel (initialised
 * here; the caller clears it). Prints the error and returns CLI_FAIL on
 * failure. */
int bench_open(const char *path, const cli_selection *cs, sk_source **src,
               sk_selection *sel);

/* A stage's measurement of SOURCE: the source opened with the selection,
 * and the stage's progress line (bench_progress_hook(&run.progress)). */
typedef struct bench_run {
    sk_source *src;
    sk_selection sel;
    cli_progress progress;
} bench_run;

/* Warn when b's levels ask for more threads than the job owns, open
 * b->source with b's selection and start the progress line. Prints the
 * error and returns CLI_FAIL on failure. */
int bench_run_open(bench_run *r, const bench_common *b);
/* Give a stage's options (every sk_*_bench_options names these fields
 * alike) the --threads levels, --runs and the run's progress line. */
#define BENCH_PLAN(opt, b, run)                                                                    \
    do {                                                                                           \
        (opt).nlevels = (b)->nlevels;                                                              \
        memcpy((opt).levels, (b)->levels, sizeof (opt).levels);                                    \
        (opt).runs = (b)->runs;                                                                    \
        (opt).progress = bench_progress_hook(&(run)->progress);                                    \
    } while (0)
/* End the progress line and close the source; then the measurement's
 * status rc as CLI_OK, or err printed and its CLI code. */
int bench_run_close(bench_run *r, int rc, const sk_error *err);

/* The most threads a scaling curve used (its last level; 0 when empty),
 * for bench_csv. */
int bench_most_threads(const sk_scaling *s);

/* When the list asks for more threads than the job owns, say so on stderr
 * and name the value to use. */
void bench_warn_levels(const int *levels, int n);

/* A progress line for a bench stage (measurement k of n, bytes so far),
 * on a terminal only. */
sk_progress bench_progress_hook(cli_progress *p);

/* Print a stage's text now, then a blank line (bench report shows each
 * stage as it ends, and repeats it in the report); the text is freed. */
void bench_show(char *text);

/* Print a stage: its JSON object with --json, else its text. The text
 * is freed. Returns CLI_OK, or CLI_FAIL when memory ran out. */
typedef void (*bench_json_fn)(const void *stage, sk_json *j);
int bench_print(int json, const void *stage, bench_json_fn to_json, char *text);

#endif
