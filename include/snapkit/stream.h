/* snapkit/stream.h - reading in batches, for consumers that reduce.
 *
 * A stream hands the rows of a read to a consumer in batches instead of
 * assembling one table: one CPU file's selected rows (RAMSES), or one
 * chunk's (a .snapkit table). Each thread fills a table of its own, sized
 * for the largest batch it has met and reused for its next batch, so a
 * command that reduces (statistics, maps) holds threads x largest batch
 * plus its result, never the whole table:
 *
 *   static int add(void *ctx, int thread, const sk_table *batch,
 *                  const sk_batch_info *info, sk_error *err)
 *   {
 *       my_state *s = ctx;
 *       return sk_stats_acc_add(s->acc[thread], batch, info->index, err);
 *   }
 *   sk_consumer c = {.ctx = &state, .begin = setup, .batch = add};
 *   sk_ramses_stream(r, "hydro", &sel, NULL, &c, &stats, &err);
 *
 * The rows of the batches, taken in `index` order, are the rows of the
 * table sk_ramses_read (sk_store_read) returns for the same arguments, in
 * its order, with the same columns and metadata. Batches arrive in no
 * particular order, unless the consumer asks for them in order. Errors are deterministic: when files (chunks) or the
 * consumer fail, the error reported is the one of the lowest failing batch
 * index, whatever the thread count or timing.
 */
#ifndef SNAPKIT_STREAM_H
#define SNAPKIT_STREAM_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/ramses.h"
#include "snapkit/read.h"
#include "snapkit/select.h"
#include "snapkit/store.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a batch stands in the read. */
typedef struct sk_batch_info {
    int64_t index;    /* 0 .. nbatches-1: its place in the whole table's row order */
    int64_t nbatches; /* files (chunks) the read goes through */
    int64_t source;   /* the RAMSES CPU file number (1-based), or the chunk number */
    /* A RAMSES stream to an ordered consumer, or of a region or family
     * selection, counts every file's rows before the first batch: the
     * batch's first row in the whole table (empty files take no rows, so
     * batch index + 1 starts at row + its rows, or later) and the whole
     * table's rows. 0 and 0 where the reader does not count ahead (other
     * RAMSES streams size their batches from the files' headers;
     * sk_store_stream, except that to an ordered consumer it gives the
     * first row, and the table's rows when no chunk is partly selected
     * and no family filter applies). */
    int64_t row;
    int64_t rows;
} sk_batch_info;

typedef struct sk_consumer {
    void *ctx;
    /* Optional. Called once, on the calling thread, before any batch: the
     * number of threads that will call `batch` (thread indices 0 ..
     * nthreads-1) and a 0-row table with the batches' columns and
     * metadata, valid during the call. Allocate per-thread state here. */
    int (*begin)(void *ctx, int nthreads, const sk_table *schema, sk_error *err);
    /* Called once per batch with at least one row. The table and its
     * columns live only during the call: its buffers are refilled with the
     * thread's next batch. Calls with the same `thread` never overlap;
     * calls with different ones run at the same time. Return SK_OK, or an
     * error code with err set: the read stops (batches of a lower index
     * still run, so the error reported is deterministic). */
    int (*batch)(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                 sk_error *err);
    /* Optional: nonzero calls `batch` in index order, one call at a
     * time. Files (chunks) are still read in parallel, each thread
     * waiting (asleep) with its filled batch for the calls before it, so
     * a consumer that needs the table's order (a writer, a projection's
     * bit-exact sums) holds no batch of its own. A RAMSES stream then
     * counts every file's rows first (one more pass over the amr
     * headers); sk_store_stream has the counts already. */
    int ordered;
} sk_consumer;

/* Stream `component` of a RAMSES output with a selection, with the
 * arguments of sk_ramses_read (sel and opt may be NULL). Cell components
 * and particles come in one batch per CPU file; sinks and clumps, read as a
 * whole table, in one batch. stats (may be NULL) as for sk_ramses_read:
 * bytes_allocated counts the per-thread buffers, not what the consumer
 * allocates outside the library. */
SK_API int sk_ramses_stream(sk_ramses *r, const char *component, const sk_selection *sel,
                            const sk_read_options *opt, const sk_consumer *consumer,
                            sk_read_stats *stats, sk_error *err);

/* Stream a table of a .snapkit file, one batch per chunk read, with the
 * arguments of sk_store_read (stats->files_opened counts chunks). Only the
 * columns the selection names are read and decoded (cells always keep
 * level, cx, cy, cz). */
SK_API int sk_store_stream(sk_store *s, const char *table, const sk_selection *sel,
                           const sk_read_options *opt, const sk_consumer *consumer,
                           sk_read_stats *stats, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
