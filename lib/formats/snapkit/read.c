/* Reading a table: plan the chunks, count the rows of partly covered chunks
 * from their position columns, allocate the result once, then read and
 * decode chunks in parallel straight into their rows of the result. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/util/clock.h"
#include "snapkit/memory.h"
#include "snapkit/stream.h"
#include "snapkit/threads.h"
#include "core/table_rows.h"
#include "core/turns.h"
#include "formats/snapkit/codec.h"
#include "formats/snapkit/plan.h"
#include "formats/snapkit/reader.h"

#include <omp.h>

/* Per-thread buffers, sized for the largest planned chunk. */
typedef struct worker {
    const uint8_t **at;      /* per output column: its stored bytes in `stored` */
    int *cols, *slot;        /* columns read into `stored`, and their output index */
    uint8_t *stored;         /* stored bytes of one chunk's columns */
    uint8_t *scratch;        /* decoding */
    uint8_t *column;         /* one decoded column of a partial chunk */
    void *keys[4];           /* decoded key columns */
    sk_table *batch;         /* streams: this thread's reused batch */
    int64_t bytes_read;      /* not yet added to the reader's */
    int thread;
    sk_error err;
} worker;

typedef struct reader {
    const sk_store *s;
    const st_table *t;
    st_plan *plan;
    sk_table *out;
    int64_t max_rows, max_stored;
    _Atomic int64_t bytes_read;
    int64_t failed_at;         /* lowest failing chunk; INT64_MAX: none (atomic) */
    sk_progress progress;
    int64_t done;
    const sk_consumer *consumer; /* streams (stream.c's sk_store_stream) */
    int64_t group;               /* streams: consecutive chunks per batch */
    turns turns;                 /* ordered streams: whose turn it is */
    int64_t rows_handed;         /* rows of the batches handed over */
    int64_t rows_total;          /* the table's rows when known ahead, else 0 */
    const sk_selection *sel;
    int around_cache;            /* write the result around the caches */
    int in_memory;               /* the file was in memory (mapped) when the read began */
} reader;

static int new_table(const reader *r, const sk_selection *sel, int64_t rows, sk_table **res,
                     sk_error *err);

static void worker_free(worker *w)
{
    sk_free(w->at);
    sk_free(w->cols);
    sk_free(w->slot);
    sk_free(w->stored);
    sk_free(w->scratch);
    sk_free(w->column);
    for (int k = 0; k < 4; k++)
        sk_free(w->keys[k]);
    sk_table_free(w->batch);
}

static int worker_init(worker *w, const reader *r)
{
    memset(w, 0, sizeof *w);
    sk_error_clear(&w->err);
    size_t rows = (size_t)r->max_rows * 8 + 64;
    w->stored = sk_malloc((size_t)r->max_stored + 64);
    w->scratch = sk_malloc(rows);
    w->column = sk_malloc(rows);
    size_t ncols = (size_t)r->plan->nout + 4;
    w->at = sk_malloc(ncols * sizeof *w->at);
    w->cols = sk_malloc(ncols * sizeof *w->cols);
    w->slot = sk_malloc(ncols * sizeof *w->slot);
    int ok = w->stored && w->scratch && w->column && w->at && w->cols && w->slot;
    for (int k = 0; k < r->plan->nkey; k++)
        ok = (w->keys[k] = sk_malloc(rows)) && ok;
    if (!ok)
        sk_fail(&w->err, SK_ERR_NOMEM, r->s->path, -1, "out of memory for read buffers");
    /* A stream's batch holds a group of the largest chunks, made once per
     * thread. */
    if (ok && r->consumer &&
        new_table(r, r->sel, r->max_rows * r->group, &w->batch, &w->err) != SK_OK)
        ok = 0;
    return ok ? SK_OK : SK_ERR_NOMEM;
}

/* Point at[k] to the stored bytes of column cols[k] of chunk ci: in the
 * mapping, or read into w->stored, merging columns that lie back to back
 * into one positioned read. */
static int read_columns(reader *r, worker *w, int64_t ci, const int *cols, int n,
                        const uint8_t **at)
{
    int64_t pos = 0;
    for (int k = 0; k < n;) {
        const st_cc *first = st_cc_at(r->t, ci, cols[k]);
        int64_t span = first->stored;
        int e = k + 1;
        while (e < n) {
            const st_cc *next = st_cc_at(r->t, ci, cols[e]);
            if (next->offset != first->offset + span)
                break;
            span += next->stored;
            e++;
        }
        const uint8_t *bytes =
            st_bytes_at(r->s, w->stored + pos, (size_t)span, first->offset, &w->err);
        if (!bytes)
            return (int)w->err.code;
        w->bytes_read += span;
        for (int64_t off = 0; k < e; k++) {
            at[k] = bytes + off;
            off += st_cc_at(r->t, ci, cols[k])->stored;
        }
        pos += span;
    }
    return SK_OK;
}

/* Count the kept rows of a partial chunk and keep its mask. */
static int count_partial(reader *r, worker *w, st_planned *pc)
{
    const st_plan *p = r->plan;
    const uint8_t *at[4];
    int rc = read_columns(r, w, pc->ci, p->key, p->nkey, at);
    for (int k = 0; k < p->nkey && rc == SK_OK; k++)
        rc = st_decode_cc(r->s, r->t, pc->ci, p->key[k], at[k], w->keys[k], w->scratch,
                          &w->err);
    if (rc != SK_OK)
        return rc;
    const st_chunk *ch = &r->t->chunks[pc->ci];
    pc->mask = sk_malloc((size_t)ch->nrows);
    if (!pc->mask)
        return sk_fail(&w->err, SK_ERR_NOMEM, r->s->path, -1, "out of memory");
    pc->count = st_plan_mask(p, ch, w->keys, pc->mask);
    return SK_OK;
}

static void compact(const uint8_t *src, const uint8_t *mask, int64_t n, size_t size,
                    uint8_t *dst)
{
    int64_t w = 0;
    for (int64_t i = 0; i < n; i++) {
        if (mask[i]) {
            memcpy(dst + (size_t)w * size, src + (size_t)i * size, size);
            w++;
        }
    }
}

/* Raw plain columns of a whole chunk are read straight into the result:
 * from memory, or by a positioned read of their own when they are large.
 * A small one is cheaper read with the chunk's other columns and copied:
 * a read each for the 1024-row float columns of a file took more than
 * their LZ4 decode had (stats from the 1.1M-cell file). */
#define DIRECT_READ_BYTES ((int64_t)64 << 10)
static int is_direct(const reader *r, const st_planned *pc, int k)
{
    const st_cc *cc = st_cc_at(r->t, pc->ci, r->plan->out[k]);
    return !pc->partial && cc->codec == ST_CODEC_RAW && cc->encoding == ST_ENC_PLAIN &&
           (r->in_memory || cc->stored >= DIRECT_READ_BYTES);
}

/* A raw plain column of a whole chunk, whose stored bytes are its values:
 * checked in the mapping and copied once (around the caches for a whole
 * table), or read straight into dst and checked there. */
static int read_direct(reader *r, worker *w, int64_t ci, int j, uint8_t *dst)
{
    const st_cc *cc = st_cc_at(r->t, ci, j);
    const uint8_t *bytes = st_bytes_at(r->s, dst, (size_t)cc->stored, cc->offset, &w->err);
    if (!bytes)
        return (int)w->err.code;
    w->bytes_read += cc->stored;
    int rc = st_check_hash(r->s, r->t, ci, j, bytes, &w->err);
    if (rc == SK_OK && bytes != dst && r->around_cache)
        st_copy_around_cache(dst, bytes, (size_t)cc->stored);
    else if (rc == SK_OK && bytes != dst)
        memcpy(dst, bytes, (size_t)cc->stored);
    return rc;
}

/* Decode chunk pc's planned columns into rows [row, ...) of dst. */
static int fill_chunk(reader *r, worker *w, const st_planned *pc, sk_table *dst_table,
                      int64_t row)
{
    const st_plan *p = r->plan;
    const uint8_t **at = w->at;
    int *cols = w->cols, *slot = w->slot, n = 0, rc = SK_OK;
    for (int k = 0; k < p->nout; k++) {
        if (!is_direct(r, pc, k)) {
            slot[n] = k;
            cols[n++] = p->out[k];
        }
    }
    rc = read_columns(r, w, pc->ci, cols, n, at);
    for (int i = n - 1; i >= 0; i--) /* at[] by output column */
        at[slot[i]] = at[i];
    int64_t rows = r->t->chunks[pc->ci].nrows;
    for (int k = 0; k < p->nout && rc == SK_OK; k++) {
        const sk_column *col = sk_table_col(dst_table, k);
        size_t size = sk_dtype_size(col->type);
        uint8_t *dst = (uint8_t *)col->data + (size_t)row * size;
        if (is_direct(r, pc, k)) {
            rc = read_direct(r, w, pc->ci, p->out[k], dst);
        } else if (!pc->partial && r->around_cache) {
            /* decode in cache, then write around it */
            rc = st_decode_cc(r->s, r->t, pc->ci, p->out[k], at[k], w->column, w->scratch,
                              &w->err);
            if (rc == SK_OK)
                st_copy_around_cache(dst, w->column, (size_t)rows * size);
        } else if (!pc->partial) { /* a stream's batch, which its consumer reads next */
            rc = st_decode_cc(r->s, r->t, pc->ci, p->out[k], at[k], dst, w->scratch, &w->err);
        } else {
            rc = st_decode_cc(r->s, r->t, pc->ci, p->out[k], at[k], w->column, w->scratch,
                              &w->err);
            if (rc == SK_OK)
                compact(w->column, pc->mask, rows, size, dst);
        }
    }
    return rc;
}

/* The worker's bytes into the reader's count, once a chunk: an atomic add
 * per column, on a line the other threads read, took 5% of a re-read. */
static void add_bytes_read(reader *r, worker *w)
{
    if (w->bytes_read)
        atomic_fetch_add(&r->bytes_read, w->bytes_read);
    w->bytes_read = 0;
}

static void report(reader *r, worker *w)
{
    add_bytes_read(r, w);
    if (!r->progress.fn)
        return;
#pragma omp critical(st_read_progress)
    {
        r->done++;
        r->progress.fn(r->progress.ctx, r->done, r->plan->nchunks, atomic_load(&r->bytes_read));
    }
}

static void lower_failed_at(reader *r, int64_t chunk)
{
    int64_t seen = __atomic_load_n(&r->failed_at, __ATOMIC_ACQUIRE);
    while (chunk < seen && !__atomic_compare_exchange_n(&r->failed_at, &seen, chunk, 1,
                                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
    if (r->consumer && r->consumer->ordered) /* waiters behind it give up */
        turns_wake(&r->turns);
}

/* Run phase(r, w, chunk) over the planned chunks (only partial ones when
 * partial_only) on at most `threads` threads, one per 16 chunks to do
 * (about a megabyte of result): a thread costs a wake-up, which on a busy
 * machine can take a scheduler time slice, far more than decoding a few
 * chunks. Chunks above the lowest failing one are skipped and those below
 * it still run, so the error that lands in *err is the lowest chunk's,
 * whatever the thread count or timing. */
static int run_threads(const reader *r, int threads, int partial_only)
{
    int64_t work = 0;
    for (int64_t i = 0; i < r->plan->nchunks; i++)
        work += !partial_only || r->plan->chunks[i].partial;
    if (work == 0)
        return 0;
    if (threads > (work + 15) / 16)
        threads = (int)((work + 15) / 16);
    return threads;
}

static int run_parallel(reader *r, int threads, int partial_only,
                        int (*phase)(reader *, worker *, st_planned *), sk_error *err)
{
    threads = run_threads(r, threads, partial_only);
    if (threads == 0)
        return SK_OK;
    sk_error first;
    sk_error_clear(&first);
    int64_t first_chunk = -1;
    __atomic_store_n(&r->failed_at, INT64_MAX, __ATOMIC_RELEASE);
#pragma omp parallel num_threads(threads)
    {
        worker w;
        if (worker_init(&w, r) != SK_OK)
            lower_failed_at(r, -1);
        w.thread = omp_get_thread_num();
        /* Streams take groups of consecutive chunks (one batch each), in
         * order within a group; reads have groups of one. */
        int64_t group = r->consumer ? r->group : 1;
        int64_t ngroups = (r->plan->nchunks + group - 1) / group;
#pragma omp for schedule(dynamic, 1)
        for (int64_t g = 0; g < ngroups; g++) {
            for (int64_t i = g * group; i < (g + 1) * group && i < r->plan->nchunks; i++) {
                st_planned *pc = &r->plan->chunks[i];
                int64_t failed_at = __atomic_load_n(&r->failed_at, __ATOMIC_ACQUIRE);
                if (i > failed_at || (partial_only && !pc->partial))
                    continue;
                if (phase(r, &w, pc) != SK_OK)
                    lower_failed_at(r, i);
                add_bytes_read(r, &w);
            }
        }
        if (w.err.code != SK_OK) {
#pragma omp critical(st_read_error)
            if (first_chunk < 0 || w.err.record < first_chunk) {
                first = w.err;
                first_chunk = w.err.record;
            }
        }
        worker_free(&w);
    }
    if (first.code != SK_OK) {
        if (err)
            *err = first;
        return first.code;
    }
    return SK_OK;
}

static int phase_count(reader *r, worker *w, st_planned *pc)
{
    return count_partial(r, w, pc);
}

static int phase_fill(reader *r, worker *w, st_planned *pc)
{
    int rc = fill_chunk(r, w, pc, r->out, pc->out_row);
    if (rc == SK_OK)
        report(r, w);
    return rc;
}

static void measure(reader *r)
{
    for (int64_t i = 0; i < r->plan->nchunks; i++) {
        int64_t ci = r->plan->chunks[i].ci, stored = 0;
        for (int j = 0; j < r->t->ncols; j++)
            stored += st_cc_at(r->t, ci, j)->stored;
        if (stored > r->max_stored)
            r->max_stored = stored;
        if (r->t->chunks[ci].nrows > r->max_rows)
            r->max_rows = r->t->chunks[ci].nrows;
    }
}

/* A table of `rows` rows with the read's columns, labels and metadata. */
static int new_table(const reader *r, const sk_selection *sel, int64_t rows, sk_table **res,
                     sk_error *err)
{
    sk_table *out = sk_table_new(rows);
    if (!out || sk_table_meta_copy(out, r->t->schema) != SK_OK) {
        sk_table_free(out);
        return sk_fail(err, SK_ERR_NOMEM, r->s->path, -1, "out of memory");
    }
    int rc = SK_OK;
    for (int k = 0; k < r->plan->nout && rc == SK_OK; k++) {
        const sk_column *c = sk_table_col(r->t->schema, r->plan->out[k]);
        if (!sk_table_add(out, c->name, c->type, err))
            rc = err ? err->code : SK_ERR_NOMEM;
        else if (c->type == SK_CATEGORY)
            rc = sk_table_set_labels(out, c->name, (const char *const *)c->labels, c->nlabels,
                                     err);
    }
    /* Tables that never carried a selection (atoms saved from Python) keep
     * their metadata as they were unless this read selects. */
    int record = r->plan->lmax || r->plan->has_box || r->plan->shape.kind || (sel && sel->nvars) ||
                 sk_table_meta_get(r->t->schema, "selection.lmax");
    sk_selection eff;
    sk_selection_init(&eff);
    if (rc == SK_OK && record)
        rc = st_plan_effective(r->plan, r->t, sel, &eff, err);
    if (rc == SK_OK && record && sk_selection_to_meta(&eff, out) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, r->s->path, -1, "out of memory");
    sk_selection_clear(&eff);
    if (rc != SK_OK) {
        sk_table_free(out);
        return rc;
    }
    *res = out;
    return SK_OK;
}

/* A result of at least this many bytes is written around the caches: a
 * store to a line not in cache first reads it from memory, a third of the
 * memory traffic of a re-read (1.1M cells, 70 MB: 12.8 -> 11.1 ms). A
 * smaller result may still be in the last-level cache when first used. */
#define AROUND_CACHE_BYTES ((int64_t)16 << 20)

/* The empty result: the chunks' first rows, then the table. */
static int make_result(reader *r, const sk_selection *sel, sk_error *err)
{
    int64_t rows = 0, row_bytes = 0;
    for (int64_t i = 0; i < r->plan->nchunks; i++) {
        r->plan->chunks[i].out_row = rows;
        rows += r->plan->chunks[i].count;
    }
    r->plan->rows = rows;
    for (int k = 0; k < r->plan->nout; k++)
        row_bytes += (int64_t)sk_dtype_size(sk_table_col(r->t->schema, r->plan->out[k])->type);
    r->around_cache = rows * row_bytes >= AROUND_CACHE_BYTES;
    return new_table(r, sel, rows, &r->out, err);
}

/* The family filter of a selection on a particle table already read: the
 * chunks carry no family index, so rows are dropped after the fill. */
static int filter_families(sk_table *t, const sk_selection *sel, sk_error *err)
{
    const sk_column *fam = sk_table_find(t, "family");
    if (!fam || fam->type != SK_INT8)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "a family selection needs the int8 family column in the read");
    int64_t n = sk_table_nrows(t);
    uint8_t *keep = sk_malloc((size_t)n + 1);
    if (!keep)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    const int8_t *f = fam->data;
    for (int64_t i = 0; i < n; i++)
        keep[i] = (uint8_t)sk_selection_wants_family(sel, f[i]);
    sk_table_filter(t, keep);
    sk_free(keep);
    return SK_OK;
}

/* What a read (or stream) cost: chunks, bytes read, bytes allocated since
 * m0, seconds since t0. */
static void read_measurements(reader *r, const sk_mem_stats *m0, double t0, sk_read_stats *stats)
{
    sk_mem_stats m1;
    sk_mem_get(&m1);
    memset(stats, 0, sizeof *stats);
    stats->files_opened = (int)r->plan->nchunks;
    stats->bytes_read = atomic_load(&r->bytes_read);
    stats->bytes_allocated = (int64_t)(m1.total - m0->total);
    stats->seconds = sk_monotonic_seconds() - t0;
}

int sk_store_read(sk_store *s, const char *name, const sk_selection *sel,
                  const sk_read_options *opt, sk_table **out, sk_read_stats *stats,
                  sk_error *err)
{
    *out = NULL;
    double t0 = sk_monotonic_seconds();
    sk_mem_stats m0;
    sk_mem_get(&m0);
    const st_table *t = st_find_table(s, name, err);
    if (!t)
        return SK_ERR_ARG;
    st_read_begins(s);
    st_plan plan;
    int rc = st_plan_make(&plan, s, t, sel, opt && opt->with_refined, err);
    if (rc != SK_OK) {
        st_plan_free(&plan);
        return rc;
    }
    if (opt)
        st_plan_share(&plan, t, opt->share_rank, opt->share_count);
    sk_thread_budget budget;
    int threads = sk_thread_budget_get(opt ? opt->threads : 0, &budget);
    reader r = {.s = s, .t = t, .plan = &plan, .in_memory = st_in_memory(s)};
    if (opt)
        r.progress = opt->progress;
    measure(&r);
    rc = run_parallel(&r, threads, 1, phase_count, err);
    if (rc == SK_OK)
        rc = make_result(&r, sel, err);
    if (rc == SK_OK)
        rc = run_parallel(&r, threads, 0, phase_fill, err);
    if (rc == SK_OK && sel && sel->has_family)
        rc = filter_families(r.out, sel, err);
    if (rc == SK_OK && stats)
        read_measurements(&r, &m0, t0, stats);
    st_plan_free(&plan);
    if (rc != SK_OK) {
        sk_table_free(r.out);
        return rc;
    }
    *out = r.out;
    return SK_OK;
}

int64_t sk_store_chunks_for(const sk_store *s, const char *name, const sk_selection *sel,
                            const sk_read_options *opt, int64_t *total, sk_error *err)
{
    const st_table *t = st_find_table(s, name, err);
    if (!t)
        return -1;
    st_plan plan;
    int rc = st_plan_make(&plan, s, t, sel, opt && opt->with_refined, err);
    int64_t n = plan.nchunks;
    st_plan_free(&plan);
    if (total)
        *total = t->nchunks;
    return rc == SK_OK ? n : -1;
}

/* The family filter on one batch, in place (its buffers are reused). */
static void filter_batch_families(sk_table *t, const sk_selection *sel)
{
    const sk_column *fam = sk_table_find(t, "family");
    const int8_t *f = fam->data;
    int64_t n = sk_table_nrows(t), kept = 0;
    for (int j = 0; j < sk_table_ncols(t); j++) {
        sk_column *c = sk_table_col(t, j);
        if (c == fam)
            continue;
        size_t size = sk_dtype_size(c->type);
        int64_t w = 0;
        for (int64_t i = 0; i < n; i++)
            if (sk_selection_wants_family(sel, f[i]))
                memmove((uint8_t *)c->data + (size_t)w++ * size,
                        (uint8_t *)c->data + (size_t)i * size, size);
    }
    int8_t *fw = fam->data;
    for (int64_t i = 0; i < n; i++)
        if (sk_selection_wants_family(sel, f[i]))
            fw[kept++] = f[i];
    tb_set_nrows(t, kept);
}

/* Count (partial chunks) and append the chunk to this thread's batch;
 * after the last chunk of its group, hand the batch to the consumer. One
 * batch per group of chunks rather than per chunk: a consumer pays its
 * per-batch work (a projection's setup, a copy when the batch comes
 * before its turn) a few dozen times rather than once per 1,024 rows. */
static int phase_stream(reader *r, worker *w, st_planned *pc)
{
    int64_t at = pc - r->plan->chunks;
    int64_t group = at / r->group;
    int last = at + 1 == r->plan->nchunks || (at + 1) % r->group == 0;
    int64_t row0 = at % r->group == 0 ? 0 : sk_table_nrows(w->batch);
    int rc = pc->partial ? count_partial(r, w, pc) : SK_OK;
    int64_t rows = pc->partial ? pc->count : r->t->chunks[pc->ci].nrows;
    if (rc == SK_OK) {
        pc->count = rows;
        tb_set_nrows(w->batch, row0 + rows);
        rc = rows ? fill_chunk(r, w, pc, w->batch, row0) : SK_OK;
    }
    sk_free(pc->mask); /* a stream keeps no mask after its chunk */
    pc->mask = NULL;
    if (rc == SK_OK && !last)
        report(r, w); /* progress counts chunks, the last of a group once handed over */
    if (rc != SK_OK || !last)
        return rc;
    if (r->sel && r->sel->has_family)
        filter_batch_families(w->batch, r->sel);
    int64_t first = group * r->group;
    int64_t ngroups = (r->plan->nchunks + r->group - 1) / r->group;
    sk_batch_info info = {.index = group, .nbatches = ngroups,
                          .source = r->plan->chunks[first].ci};
    int ordered = r->consumer->ordered;
    if (ordered && !turns_wait(&r->turns, group, first))
        return SK_OK;
    if (ordered) { /* in its turn: every batch before it is counted */
        info.row = r->rows_handed;
        info.rows = r->rows_total;
        r->rows_handed += sk_table_nrows(w->batch);
    }
    if (sk_table_nrows(w->batch) > 0) {
        rc = r->consumer->batch(r->consumer->ctx, w->thread, w->batch, &info, &w->err);
        if (rc != SK_OK && w->err.code == SK_OK)
            sk_fail(&w->err, rc, r->s->path, -1, "the consumer failed on chunks %lld to %lld",
                    (long long)info.source + 1, (long long)pc->ci + 1);
        if (rc != SK_OK)
            w->err.record = info.source + 1; /* the lowest failing chunk's error wins */
    }
    if (ordered) {
        if (rc != SK_OK) /* before the turn passes, so that the batches behind it see it */
            lower_failed_at(r, pc - r->plan->chunks);
        turns_pass(&r->turns, group);
    }
    if (rc == SK_OK)
        report(r, w);
    return rc;
}

/* Chunks per stream batch: about STREAM_BATCH_ROWS rows, and at least
 * STREAM_MIN_BATCHES batches for the threads to share. The same on any
 * thread count, so the batches are too. */
#define STREAM_BATCH_ROWS 16384
#define STREAM_MIN_BATCHES 16
static int64_t stream_group(const reader *r)
{
    int64_t g = r->max_rows > 0 ? STREAM_BATCH_ROWS / r->max_rows : 1;
    int64_t even = r->plan->nchunks / STREAM_MIN_BATCHES;
    g = g < even ? g : even;
    return g > 1 ? g : 1;
}

/* The rows of the whole stream when the plan knows them (no chunk partly
 * selected, no family filter), else 0. */
static int64_t stream_rows_known(const reader *r)
{
    int64_t rows = 0;
    for (int64_t i = 0; i < r->plan->nchunks; i++) {
        if (r->plan->chunks[i].partial)
            return 0;
        rows += r->t->chunks[r->plan->chunks[i].ci].nrows;
    }
    return r->sel && r->sel->has_family ? 0 : rows;
}

/* The consumer's begin, with a 0-row table of the batches' columns. */
static int stream_begin(reader *r, int threads, sk_error *err)
{
    if (!r->consumer->begin)
        return SK_OK;
    sk_table *schema;
    int rc = new_table(r, r->sel, 0, &schema, err);
    if (rc == SK_OK)
        rc = r->consumer->begin(r->consumer->ctx, threads, schema, err);
    sk_table_free(schema);
    return rc;
}

int sk_store_stream(sk_store *s, const char *name, const sk_selection *sel,
                    const sk_read_options *opt, const sk_consumer *consumer,
                    sk_read_stats *stats, sk_error *err)
{
    double t0 = sk_monotonic_seconds();
    sk_mem_stats m0;
    sk_mem_get(&m0);
    if (!consumer || !consumer->batch)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "sk_store_stream: no consumer");
    const st_table *t = st_find_table(s, name, err);
    if (!t)
        return SK_ERR_ARG;
    st_read_begins(s);
    if (sel && sel->has_family) {
        const sk_column *fam = sk_table_find(t->schema, "family");
        if (!fam || fam->type != SK_INT8 || (sel->nvars && !sk_selection_wants(sel, "family")))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "a family selection needs the int8 family column in the read");
    }
    st_plan plan;
    int rc = st_plan_make(&plan, s, t, sel, opt && opt->with_refined, err);
    if (rc == SK_OK && opt)
        st_plan_share(&plan, t, opt->share_rank, opt->share_count);
    sk_thread_budget budget;
    int threads = sk_thread_budget_get(opt ? opt->threads : 0, &budget);
    reader r = {.s = s, .t = t, .plan = &plan, .consumer = consumer, .sel = sel,
                .in_memory = st_in_memory(s)};
    turns_init(&r.turns, &r.failed_at);
    if (opt)
        r.progress = opt->progress;
    if (rc == SK_OK) {
        measure(&r);
        r.group = stream_group(&r);
        r.rows_total = consumer->ordered ? stream_rows_known(&r) : 0;
        int used = run_threads(&r, threads, 0);
        rc = stream_begin(&r, used ? used : 1, err);
    }
    if (rc == SK_OK)
        rc = run_parallel(&r, threads, 0, phase_stream, err);
    turns_destroy(&r.turns);
    if (rc == SK_OK && stats)
        read_measurements(&r, &m0, t0, stats);
    st_plan_free(&plan);
    return rc;
}
