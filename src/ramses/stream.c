/* sk_ramses_stream: the selected rows of each CPU file handed to a
 * consumer in a table of the reading thread's own, reused for its next
 * file (rs_stream_files), instead of the one table rs_read_files fills.
 * Every thread makes its table once for the largest file. Unless a region
 * or family selects part of each file, that size comes from the headers
 * (the cells of each file's own octs down to the cap, its particles), not
 * from a count pass as in rs_read_files, so each file is walked once: the
 * count pass cost a tenth of the CPU of `stats` from an output, every amr
 * file mapped, walked and unmapped twice. */
#include <stddef.h>
#include <string.h>

#include "core/clock.h"
#include "core/table_rows.h"
#include "ramses/internal.h"
#include "snapkit/memory.h"

#include <omp.h>

/* One thread's reused batch: a table of `cap` rows and the column
 * pointers the walk writes through. */
typedef struct batch_buf {
    sk_table *t;
    int64_t cap;
    void *out;
} batch_buf;

/* Make b's table, once, for the largest file's bound (max rows). */
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

/* Fill the batch with the rows of the file at position k and hand it
 * over. */
static int stream_file(rs_read_ctx *ctx, const rs_file_reader *fr, rs_kind kind, int k,
                       int64_t max, int thread, batch_buf *b, void *scratch, int64_t *bytes,
                       sk_error *err)
{
    int icpu = ctx->cpus[k];
    int64_t row = 0;
    int rc = batch_make(ctx, fr, kind, b, max, err);
    if (rc != SK_OK)
        return rc;
    tb_set_nrows(b->t, max);
    /* Walked even when empty: the walk checks the component's file. */
    rc = fr->walk_file(ctx, fr->plan, icpu, b->out, &row, scratch, bytes, err);
    if (rc != SK_OK || row == 0)
        return rc;
    tb_set_nrows(b->t, row);
    sk_batch_info info = {.index = k, .nbatches = ctx->ncpus, .source = icpu};
    rc = ctx->consumer->batch(ctx->consumer->ctx, thread, b->t, &info, err);
    if (rc != SK_OK && (!err || err->code == SK_OK))
        rc = sk_fail(err, rc, NULL, -1, "the consumer failed on file %d", icpu);
    return rc;
}

/* The largest bound of the files' rows, from their headers alone (a few
 * pages each); the lowest failing file's error. */
static int bound_files(rs_read_ctx *ctx, const rs_file_reader *fr, int64_t *max, sk_error *err)
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
    *max = most;
    return failed_at == ctx->ncpus ? SK_OK : err && err->code ? err->code : SK_ERR_FORMAT;
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

/* The largest file's selected rows, counted by walking every file (as
 * rs_read_files does). */
static int count_files(rs_read_ctx *ctx, const rs_file_reader *fr, int64_t *max, sk_error *err)
{
    int64_t *rows = sk_calloc((size_t)(ctx->ncpus ? ctx->ncpus : 1), sizeof *rows);
    if (!rows)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int failed_at = ctx->ncpus;
    int64_t done = 0;
#pragma omp parallel num_threads(ctx->threads)
    {
        _Alignas(max_align_t) unsigned char scratch[RS_SCRATCH_BYTES] = {0};
        rs_walk_files(ctx, fr, NULL, rows, NULL, scratch, &failed_at, &done, err);
        fr->scratch_free(scratch);
    }
    *max = 0;
    for (int k = 0; k < ctx->ncpus; k++)
        *max = rows[k] > *max ? rows[k] : *max;
    sk_free(rows);
    return failed_at == ctx->ncpus ? SK_OK : err && err->code ? err->code : SK_ERR_FORMAT;
}

/* Each thread fills its own batch, file by file, and hands it over. The
 * lowest failing file's error wins, as in rs_walk_files. */
static int fill_files(rs_read_ctx *ctx, const rs_file_reader *fr, rs_kind kind, int64_t max,
                      sk_error *err)
{
    int failed_at = ctx->ncpus;
    int64_t done = 0;
#pragma omp parallel num_threads(ctx->threads)
    {
        _Alignas(max_align_t) unsigned char scratch[RS_SCRATCH_BYTES] = {0};
        batch_buf b = {.out = sk_malloc(fr->out_size)};
        sk_error e;
        sk_error_clear(&e);
        int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < ctx->ncpus; k++) {
            int first_failed;
#pragma omp atomic read
            first_failed = failed_at;
            if (k > first_failed)
                continue;
            int64_t bytes = 0;
            int rc = b.out ? stream_file(ctx, fr, kind, k, max, thread, &b, scratch, &bytes, &e)
                           : sk_fail(&e, SK_ERR_NOMEM, NULL, -1, "out of memory");
            if (rc != SK_OK) {
#pragma omp critical(rs_read_error)
                if (k < failed_at) {
                    *err = e;
#pragma omp atomic write
                    failed_at = k;
                }
            } else {
#pragma omp atomic
                ctx->bytes_read += bytes;
                rs_progress_step(ctx, &done, bytes);
            }
        }
        fr->scratch_free(scratch);
        sk_table_free(b.t);
        sk_free(b.out);
    }
    return failed_at == ctx->ncpus ? SK_OK : err && err->code ? err->code : SK_ERR_FORMAT;
}

int rs_stream_files(rs_read_ctx *ctx, const rs_file_reader *fr, sk_error *err)
{
    rs_kind kind = (rs_kind)ctx->stream_kind;
    sk_error_clear(err);
    int64_t max = 0;
    /* A region or a family keeps part of each file: counting them first
     * keeps the batches that small, worth a second walk. Otherwise the
     * headers' bound is close to the count (leaves are 7/8 of the cells). */
    int part = ctx->sel->has_box || ctx->sel->has_family;
    int rc = part ? rs_keep_maps(ctx, err) : SK_OK;
    if (rc == SK_OK)
        rc = part ? count_files(ctx, fr, &max, err) : bound_files(ctx, fr, &max, err);
    if (rc == SK_OK)
        rc = begin(ctx, fr, kind, err);
    if (rc == SK_OK)
        rc = fill_files(ctx, fr, kind, max, err);
    rs_release_maps(ctx);
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
    sk_batch_info info = {.index = 0, .nbatches = 1, .source = 0};
    if (rc == SK_OK && sk_table_nrows(t) > 0)
        rc = c->batch(c->ctx, 0, t, &info, err);
    sk_table_free(t);
    return rc;
}

int sk_ramses_stream(sk_ramses *r, const char *component, const sk_selection *sel,
                     const sk_read_options *opt, const sk_consumer *consumer,
                     sk_read_stats *stats, sk_error *err)
{
    sk_mem_stats m0;
    sk_mem_get(&m0);
    double t0 = monotonic_seconds();
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
