/* The state of a streamed projection (stream.c), shared with its turns
 * (stream_turns.c). */
#ifndef SNAPKIT_PROJECT_STREAM_INTERNAL_H
#define SNAPKIT_PROJECT_STREAM_INTERNAL_H

#include <pthread.h>

#include "project_internal.h"

/* A batch that came, until every band has deposited it. */
typedef struct proj_slot {
    int64_t index;
    proj_job *job;          /* over the caller's batch, or over `copy` */
    sk_table *copy;         /* the batch, copied when its thread went on reading */
    proj_bands bands;       /* its runs' bands (more than one band) */
    unsigned char *meets;   /* per band: some run meets it (NULL: one band) */
    int left;               /* bands that have not deposited it */
    int users;              /* bands depositing it now */
    int frozen;             /* being copied: no band starts on it */
    int64_t bytes;          /* the copy's */
} proj_slot;

struct sk_project_stream {
    int nq;
    char *names[SK_MAX_VARS];
    sk_project_options opt;
    sk_table *schema;       /* the batches' columns (0 rows) and metadata */
    proj_job *master;       /* the job of the schema: quantities, frame, blocks */
    double *acc;            /* the image's accumulators, then the block images */
    size_t npix;
    int nthreads;
    double start;
    proj_bands plan;        /* the image's bands (1 on one thread) */
    double **scratch;       /* per thread: a row's scratch (3 nx doubles) */
    proj_tally *tally;      /* per thread: what its deposits counted */

    pthread_mutex_t lock;
    pthread_cond_t moved;   /* a band moved on, a batch came or was copied */
    int64_t nbatches;
    proj_slot **slots;      /* nbatches: batches come and not deposited by every band */
    int64_t *next;          /* per band: the batch index it deposits next */
    unsigned char *busy;    /* per band: a thread deposits into it */
    int nbusy, ncopies;
    int64_t rows;
    int64_t held_bytes, held_peak; /* copies waiting */
};

/* stream_turns.c: the consumer's batch call, and the batches still
 * waiting at the end (behind one that never came) deposited. */
int proj_stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                      sk_error *err);
void proj_stream_drain(sk_project_stream *ps);
void proj_slot_free(proj_slot *s);

/* stream.c: a copy of t's columns and metadata with its first nrows rows. */
sk_table *proj_table_copy(const sk_table *t, int64_t nrows);

#endif
