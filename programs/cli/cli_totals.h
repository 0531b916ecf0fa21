/* snapkit stats --totals (totals.c): totals taken in the statistics' own
 * pass, and printed. */
#ifndef SNAPKIT_CLI_TOTALS_H
#define SNAPKIT_CLI_TOTALS_H

#include "cli.h"

/* A consumer that adds each batch to per-thread totals, then hands it on
 * to `inner`. */
typedef struct cli_totals_tee {
    sk_consumer inner;
    sk_totals_frame frame;
    int nthreads;
    sk_totals_acc **acc, *all;
} cli_totals_tee;

/* The frame of cs (about its centre when it has one, else about the
 * centre of mass; relative to its --bulk-velocity when given, else to the
 * bulk velocity) in the units of the source's component. Free with
 * cli_totals_tee_free, also on failure. */
int cli_totals_tee_init(cli_totals_tee *t, const sk_source *src, const char *component,
                        const cli_selection *cs, const sk_consumer *inner, sk_error *err);
/* The consumer to stream to. */
sk_consumer cli_totals_tee_consumer(cli_totals_tee *t);
/* After the stream, the ranks agreeing it went well: the threads' totals
 * merged and summed over the MPI ranks (collective), into out. */
int cli_totals_tee_finish(cli_totals_tee *t, sk_totals *out, sk_error *err);
void cli_totals_tee_free(cli_totals_tee *t);

/* The "totals" member of a JSON object, and the text block. */
void cli_totals_json(sk_json *j, const sk_totals *t, int about_com);
void cli_totals_print(const sk_totals *t, int about_com);

#endif
