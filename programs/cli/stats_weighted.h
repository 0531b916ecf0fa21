/* snapkit stats --weight: weighted statistics of every column
 * (snapkit/wstats.h) beside the column statistics, from the same stream.
 * stats.c calls these hooks; each does nothing when --weight was not given. */
#ifndef SNAPKIT_CLI_STATS_WEIGHTED_H
#define SNAPKIT_CLI_STATS_WEIGHTED_H

#include "cli.h"
#include "snapkit/util/json.h"

enum { CLI_MAX_PERCENTILES = 100 };

typedef struct cli_wstats {
    int on;                              /* --weight given */
    sk_weight weight;
    int npct;                            /* --percentiles */
    double pct[CLI_MAX_PERCENTILES];
    /* the stream's: one accumulator per thread, merged into all */
    int nthreads;
    sk_wstats_acc **acc;
    sk_wstats_acc *all;
    sk_wstats result;                    /* rank 0, after cli_wstats_result */
} cli_wstats;

/* The options' help lines. */
extern const char cli_wstats_help[];

void cli_wstats_init(cli_wstats *w);
/* --weight W and --percentiles P,...: 1 when argv[*i] was one of them
 * (consumed, *i advanced), 0 when it is another argument, -1 on a bad
 * value (a line printed). */
int cli_wstats_option(cli_wstats *w, int argc, char **argv, int *i);
/* After the options: CLI_OK, or CLI_USAGE with a line for --percentiles
 * without --weight. */
int cli_wstats_check(const cli_wstats *w);

/* The stream's begin and batch (snapkit/stream.h), then the threads'
 * accumulators merged. */
int cli_wstats_begin(cli_wstats *w, int nthreads, const sk_table *schema, sk_error *err);
int cli_wstats_batch(cli_wstats *w, int thread, const sk_table *batch, sk_error *err);
int cli_wstats_merge_threads(cli_wstats *w, sk_error *err);
/* Collective: the ranks agree on rc, then every rank's rows go to rank 0.
 * Returns the agreed status. */
int cli_wstats_reduce(cli_wstats *w, int rc, sk_error *err);
/* Rank 0: the statistics of the rows, on up to `threads` threads. */
int cli_wstats_result(cli_wstats *w, int threads, sk_error *err);

/* The key "weighted" of the stats JSON object (nothing for w NULL), and
 * the text table. */
void cli_wstats_json(sk_json *j, const cli_wstats *w);
void cli_wstats_text(const cli_wstats *w);

void cli_wstats_free(cli_wstats *w);

#endif
