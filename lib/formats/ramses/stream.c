/* sk_ramses_stream: the selected rows of each CPU file handed to a
 * consumer in a table of the reading thread's own, reused for its next
 * file (rs_stream_files), instead of the one table rs_read_files fills.
 * Every thread makes its table once for the largest file. That size comes
 * from the headers (the cells of each file's own octs down to the cap,
 * its particles), so each file is walked once, unless a region or family
 * selects part of each file (a count pass keeps the batches that small)
 * or the consumer takes batches in order (it is told each batch's first
 * row and the table's rows). The count pass cost a tenth of the CPU of
 * `stats` from an output: every amr file walked twice. */
#include <stddef.h>
#include <string.h>

#include "snapkit/util/clock.h"
#include "core/table_rows.h"
#include "core/turns.h"
#include "formats/ramses/internal.h"
#include "snapkit/memory.h"

#include <omp.h>

/* One thread's reused batch: a table of `cap` rows and the column
 * pointers the walk writes through. */
typedef struct batch_buf {
    sk_table *t;
    int64_t cap;
    void *out;
} batch_buf;

/* Make b's table, once, for the largest file (max rows). */
static int batch_make(rs_read_ctx *ctx, const rs_file_reader *fr, rs_kind kind, batch_buf *b,
                      int64_t max, sk_error *err)
{
    if (b->t)
        return SK_OK;
    int rc = fr->make_table(fr->plan, max, &b->t, b->out, err);
    if (rc == SK_OK)
        rc = rs_label_table(ctx->r, kind, ctx->sel, b->t, err);
    b->cap = rc == SK_OK ? max : 0;
    return rc;
}

/* The largest file's rows (or their bound); when the files were counted,
 * rows per file, the first row of each in the whole table and the total
 * (rows and first NULL when not). */
typedef struct counts {
    int64_t *rows, *first, max, total;
} counts;

/* Fill the batch with the rows of the file at position k. */
static int fill_file(rs_read_ctx *ctx, const rs_file_reader *fr, rs_kind kind, int k,
                     const counts *c, batch_buf *b, void *scratch, int64_t *bytes, sk_error *err)
{
    int64_t row = 0;
    int rc = batch_make(ctx, fr, kind, b, c->max, err);
    if (rc != SK_OK)
        return rc;
    /* Walked even when empty: the walk checks the component's file. */
    rc = fr->walk_file(ctx, fr->plan, ctx->cpus[k], b->out, &row, scratch, bytes, err);
    tb_set_nrows(b->t, rc == SK_OK ? row : 0);
    return rc;
}

/* Hand the filled batch of file k over (when it has rows). */
static int hand_file(rs_read_ctx *ctx, int k, const counts *c, int thread, const batch_buf *b,
                     sk_error *err)
{
    if (sk_table_nrows(b->t) == 0)
        return SK_OK;
    int icpu = ctx->cpus[k];
    sk_batch_info info = {.index = k, .nbatches = ctx->ncpus, .source = icpu,
                          .row = c->first ? c->first[k] : 0, .rows = c->total};
    int rc = ctx->consumer->batch(ctx->consumer->ctx, thread, b->t, &info, err);
    if (rc != SK_OK && (!err || err->code == SK_OK))
        rc = sk_fail(err, rc, NULL, -1, "the consumer failed on file %d", icpu);
    return rc;
}

/* The consumer's begin, with the 0-row table of the batches' columns. */
static int begin(rs_read_ctx *ctx, const rs_file_reader *fr, rs_kind kind, sk_error *err)
{
    if (!ctx->consumer->begin)
        return SK_OK;
    batch_buf b = {.out = sk_malloc(fr->out_size)};
    if (!b.out)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = fr->make_table(fr->plan, 0, &b.t, b.out, err);
    if (rc == SK_OK)
        rc = rs_label_table(ctx->r, kind, ctx->sel, b.t, err);
    if (rc == SK_OK)
        rc = ctx->consumer->begin(ctx->consumer->ctx, ctx->threads, b.t, err);
    sk_table_free(b.t);
    sk_free(b.out);
    return rc;
}

/* The count pass (every file checked, as rs_read_files does), then where
 * each file's rows start, the largest file's rows and the total. */
static int count_files(rs_read_ctx *ctx, const rs_file_reader *fr, counts *c, sk_error *err)
{
    int64_t *rows = c->rows;
    int failed_at = ctx->ncpus;
    int64_t done = 0;
#pragma omp parallel num_threads(ctx->threads)
    {
        _Alignas(max_align_t) unsigned char scratch[RS_SCRATCH_BYTES] = {0};
        rs_walk_files(ctx, fr, NULL, rows, NULL, scratch, &failed_at, &done, err);
        fr->scratch_free(scratch);
    }
    c->max = c->total = 0;
    for (int k = 0; k < ctx->ncpus; k++) {
        c->max = rows[k] > c->max ? rows[k] : c->max;
        c->first[k] = c->total;
        c->total += rows[k];
    }
    return failed_at == ctx->ncpus ? SK_OK : err && err->code ? err->code : SK_ERR_FORMAT;
}

/* The largest bound of the files' rows, from their headers alone (a few
 * pages each); the lowest failing file's error. */
static int bound_files(rs_read_ctx *ctx, const rs_file_reader *fr, counts *c, sk_error *err)
{
    int failed_at = ctx->ncpus;
    int64_t most = 0;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1) reduction(max : most)
    for (int k = 0; k < ctx->ncpus; k++) {
        sk_error e;
        sk_error_clear(&e);
        int64_t rows = 0;
        if (fr->file_bound(ctx, fr->plan, ctx->cpus[k], &rows, &e) != SK_OK) {
#pragma omp critical(rs_read_error)
            if (k < failed_at) {
                *err = e;
                failed_at = k;
            }
        }
        most = rows > most ? rows : most;
    }
    c->max = most;
    return failed_at == ctx->ncpus ? SK_OK : err && err->code ? err->code : SK_ERR_FORMAT;
}

/* Count every file's rows, keeping the amr (particle) mappings for the
 * fill. */
static int count_all(rs_read_ctx *ctx, const rs_file_reader *fr, counts *c, sk_error *err)
{
    size_t n = (size_t)(ctx->ncpus ? ctx->ncpus : 1);
    c->rows = sk_calloc(n, sizeof *c->rows);
    c->first = sk_calloc(n, sizeof *c->first);
    if (!c->rows || !c->first)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = rs_keep_maps(ctx, err);
    return rc == SK_OK ? count_files(ctx, fr, c, err) : rc;
}

/* Read file k and hand it over, unless a file before it failed (for an
 * ordered consumer, in its turn). The lowest failing file's error wins,
 * as in rs_walk_files. */
static void file_step(rs_read_ctx *ctx, const rs_file_reader *fr, rs_kind kind, int k,
                      const counts *c, int thread, batch_buf *b, void *scratch, turns *t,
                      int64_t *failed_at, int64_t *done, sk_error *err)
{
    if (k > __atomic_load_n(failed_at, __ATOMIC_ACQUIRE))
        return;
    sk_error e;
    sk_error_clear(&e);
    int64_t bytes = 0;
    int rc = b->out ? fill_file(ctx, fr, kind, k, c, b, scratch, &bytes, &e)
                    : sk_fail(&e, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int go = rc == SK_OK && (!t || turns_wait(t, k, k));
    if (go)
        rc = hand_file(ctx, k, c, thread, b, &e);
    if (rc != SK_OK) {
#pragma omp critical(rs_read_error)
        if (k < *failed_at) {
            *err = e;
            __atomic_store_n(failed_at, k, __ATOMIC_RELEASE);
        }
    } else if (go) {
#pragma omp atomic
        ctx->bytes_read += bytes;
        rs_progress_step(ctx, done, bytes);
    }
    if (t)
        turns_pass(t, k);
}

/* The fill pass: each thread fills its own batch, made once for the
 * largest file, and hands it over. */
static int fill_files(rs_read_ctx *ctx, const rs_file_reader *fr, rs_kind kind, const counts *c,
                      sk_error *err)
{
    int64_t failed_at = ctx->ncpus;
    int64_t done = 0;
    turns order;
    turns_init(&order, &failed_at);
    turns *t = ctx->consumer->ordered ? &order : NULL;
#pragma omp parallel num_threads(ctx->threads)
    {
        _Alignas(max_align_t) unsigned char scratch[RS_SCRATCH_BYTES] = {0};
        batch_buf b = {.out = sk_malloc(fr->out_size)};
        int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < ctx->ncpus; k++)
            file_step(ctx, fr, kind, k, c, thread, &b, scratch, t, &failed_at, &done, err);
        fr->scratch_free(scratch);
        sk_table_free(b.t);
        sk_free(b.out);
    }
    turns_destroy(&order);
    return failed_at == ctx->ncpus ? SK_OK : err && err->code ? err->code : SK_ERR_FORMAT;
}

int rs_stream_files(rs_read_ctx *ctx, const rs_file_reader *fr, sk_error *err)
{
    rs_kind kind = (rs_kind)ctx->stream_kind;
    sk_error_clear(err);
    counts c = {0};
    int count = sk_selection_has_region(ctx->sel) || ctx->sel->has_family || ctx->consumer->ordered;
    int rc = count ? count_all(ctx, fr, &c, err) : bound_files(ctx, fr, &c, err);
    if (rc == SK_OK)
        rc = begin(ctx, fr, kind, err);
    if (rc == SK_OK)
        rc = fill_files(ctx, fr, kind, &c, err);
    rs_release_maps(ctx);
    sk_free(c.rows);
    sk_free(c.first);
    return rc;
}

/* Sinks and clumps are text tables read whole: one batch. */
static int stream_whole(rs_read_setup *su, sk_error *err)
{
    rs_read_ctx *ctx = &su->ctx;
    const sk_consumer *c = ctx->consumer;
    ctx->consumer = NULL;
    sk_table *t = NULL;
    int rc = rs_read_kind(ctx, su->kind, &t, err);
    if (rc == SK_OK)
        rc = rs_label_table(ctx->r, su->kind, ctx->sel, t, err);
    if (rc == SK_OK && c->begin)
        rc = c->begin(c->ctx, 1, t, err);
    if (rc == SK_OK && sk_table_nrows(t) > 0) {
        sk_batch_info info = {.index = 0, .nbatches = 1, .source = 0, .row = 0,
                              .rows = sk_table_nrows(t)};
        rc = c->batch(c->ctx, 0, t, &info, err);
    }
    sk_table_free(t);
    return rc;
}

int sk_ramses_stream(sk_ramses *r, const char *component, const sk_selection *sel,
                     const sk_read_options *opt, const sk_consumer *consumer,
                     sk_read_stats *stats, sk_error *err)
{
    sk_mem_stats m0;
    sk_mem_get(&m0);
    double t0 = sk_monotonic_seconds();
    if (!consumer || !consumer->batch)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "sk_ramses_stream: no consumer");
    rs_read_setup su;
    int rc = rs_read_begin(r, component, sel, opt, &su, err);
    if (rc != SK_OK)
        return rc;
    su.ctx.consumer = consumer;
    su.ctx.stream_kind = (int)su.kind;
    if (su.kind == RS_SINKS || su.kind == RS_CLUMPS) {
        rc = stream_whole(&su, err);
    } else {
        sk_table *none = NULL;
        rc = rs_read_kind(&su.ctx, su.kind, &none, err);
    }
    rs_read_end(&su);
    if (rc == SK_OK && stats)
        rs_read_stats(&su, &m0, t0, stats);
    return rc;
}
