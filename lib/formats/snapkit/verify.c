/* Full check of a file: every chunk-column's checksum, that it decodes to
 * its size, and that the footer's statistics (min/max, bounding box, level
 * range, and a table's stored column statistics) describe the decoded
 * values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/table_rows.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"
#include "formats/snapkit/codec.h"
#include "formats/snapkit/order.h"
#include "formats/snapkit/reader.h"
#include "formats/snapkit/writer_internal.h"

typedef struct checker {
    uint8_t *stored, *scratch;
    sk_table *rows;           /* the decoded columns of one chunk */
    sk_stats_acc *acc;        /* the thread's statistics of leaf chunks */
    sk_error err;
} checker;

static double float_at(sk_dtype type, const void *v, int64_t i)
{
    return type == SK_FLOAT32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

/* Recompute the chunk's box and levels from its decoded columns. */
static int check_extent(const sk_store *s, const st_table *t, int64_t ci, const sk_table *rows,
                        sk_error *err)
{
    const st_chunk *ch = &t->chunks[ci];
    if (t->geometry == SK_STORE_ROWS)
        return SK_OK;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    int lmin = 255, lmax = 0;
    static const char *const cells[4] = {"level", "cx", "cy", "cz"};
    int pos[3], dims = st_cell_dims(t->schema);
    st_point_columns(t->schema, pos);
    double boxlen = sk_table_meta_double(t->schema, "boxlen", 1.0);
    if (!(boxlen > 0))
        boxlen = 1.0;
    for (int64_t i = 0; i < ch->nrows; i++) {
        double x[3];
        if (t->geometry == SK_STORE_CELLS) {
            const int32_t *c[4] = {NULL, NULL, NULL, NULL};
            for (int k = 0; k <= dims; k++)
                c[k] = sk_table_col(rows, sk_table_index(t->schema, cells[k]))->data;
            int32_t l = c[0][i];
            if (l < 0 || l > 31)
                break; /* reported by the level check below */
            for (int a = 0; a < 3; a++)
                x[a] = st_cell_centre_of(c[a + 1], i, l);
            lmin = l < lmin ? l : lmin;
            lmax = l > lmax ? l : lmax;
        } else {
            for (int a = 0; a < 3; a++) {
                int j = pos[a];
                x[a] = float_at(sk_table_col(rows, j)->type, sk_table_col(rows, j)->data, i) /
                       boxlen;
            }
        }
        for (int a = 0; a < 3; a++) {
            if (x[a] < lo[a])
                lo[a] = x[a];
            if (x[a] > hi[a])
                hi[a] = x[a];
        }
    }
    int same = t->geometry != SK_STORE_CELLS || (lmin == ch->level_min && lmax == ch->level_max);
    for (int a = 0; a < 3; a++)
        same = same && lo[a] == ch->lo[a] && hi[a] == ch->hi[a];
    if (same)
        return SK_OK;
    sk_fail(err, SK_ERR_FORMAT, s->path, -1,
            "table %s, chunk %lld of %lld: its bounding box or level range does not match its "
            "rows",
            t->name, (long long)ci + 1, (long long)t->nchunks);
    err->record = ci + 1;
    return SK_ERR_FORMAT;
}

static int check_chunk(const sk_store *s, const st_table *t, int64_t ci, checker *c)
{
    const st_chunk *ch = &t->chunks[ci];
    tb_set_nrows(c->rows, ch->nrows);
    for (int j = 0; j < t->ncols; j++) {
        const st_cc *cc = st_cc_at(t, ci, j);
        const sk_column *col = sk_table_col(t->schema, j);
        void *dst = sk_table_col(c->rows, j)->data;
        const uint8_t *bytes = st_bytes_at(s, c->stored, (size_t)cc->stored, cc->offset, &c->err);
        int rc = bytes ? st_decode_cc(s, t, ci, j, bytes, dst, c->scratch, &c->err) : (int)c->err.code;
        if (rc != SK_OK)
            return rc;
        if (st_check_minmax(col->type, dst, ch->nrows, cc) != 0) {
            sk_fail(&c->err, SK_ERR_FORMAT, s->path, cc->offset,
                    "table %s, chunk %lld of %lld, column %s: values outside the recorded "
                    "minimum and maximum",
                    t->name, (long long)ci + 1, (long long)t->nchunks, col->name);
            c->err.record = ci + 1;
            return SK_ERR_FORMAT;
        }
    }
    int rc = check_extent(s, t, ci, c->rows, &c->err);
    if (rc == SK_OK && c->acc && ch->kind == ST_KIND_ROWS)
        rc = sk_stats_acc_add(c->acc, c->rows, ch->row0, &c->err);
    return rc;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The stored statistics against those of the decoded rows, bit for bit. */
static int check_stats(const sk_store *s, const st_table *t, const sk_stats_acc *acc,
                       sk_error *err)
{
    sk_table_stats got;
    int rc = sk_stats_acc_result(acc, &got, err);
    if (rc != SK_OK)
        return rc;
    const sk_table_stats *want = t->stats;
    const char *what = got.rows != want->rows || got.is_cells != want->is_cells ||
                               memcmp(got.levels, want->levels, sizeof got.levels) ||
                               got.ncols != want->ncols
                           ? "rows"
                           : NULL;
    for (int j = 0; !what && j < got.ncols; j++) {
        const sk_column_stats *a = &got.cols[j], *b = &want->cols[j];
        if (!same_bits(a->min, b->min) || !same_bits(a->max, b->max) ||
            !same_bits(a->sum, b->sum) || !same_bits(a->abs_sum, b->abs_sum) ||
            !same_bits(a->volume_sum, b->volume_sum) ||
            !same_bits(a->abs_volume_sum, b->abs_volume_sum) ||
            a->is_cell_index != b->is_cell_index)
            what = b->name;
    }
    sk_table_stats_free(&got);
    if (!what)
        return SK_OK;
    return sk_fail(err, SK_ERR_FORMAT, s->path, s->footer_offset,
                   "table %s: the stored statistics (%s) are not those of its rows", t->name,
                   what);
}

static int64_t largest(const st_table *t, int64_t *stored)
{
    int64_t rows = 0;
    *stored = 0;
    for (int64_t ci = 0; ci < t->nchunks; ci++) {
        rows = t->chunks[ci].nrows > rows ? t->chunks[ci].nrows : rows;
        for (int j = 0; j < t->ncols; j++)
            if (st_cc_at(t, ci, j)->stored > *stored)
                *stored = st_cc_at(t, ci, j)->stored;
    }
    return rows;
}

static int verify_table(sk_store *s, const st_table *t, int threads, sk_progress progress,
                        int64_t *done, int64_t total, sk_error *err)
{
    int64_t max_stored;
    int64_t max_rows = largest(t, &max_stored);
    sk_error first;
    sk_error_clear(&first);
    int failed = 0;
    sk_stats_acc *all = NULL;
    if (t->stats && sk_stats_acc_new(t->schema, &all, err) != SK_OK)
        return err ? err->code : SK_ERR_NOMEM;
#pragma omp parallel num_threads(threads)
    {
        checker c = {0};
        sk_error_clear(&c.err);
        c.stored = sk_malloc((size_t)max_stored + 64);
        c.scratch = sk_malloc((size_t)max_rows * 8 + 64);
        if (!c.stored || !c.scratch)
            sk_fail(&c.err, SK_ERR_NOMEM, s->path, -1, "out of memory");
        else if (st_table_like(t->schema, max_rows, &c.rows, &c.err) == SK_OK && all)
            sk_stats_acc_new(t->schema, &c.acc, &c.err);
#pragma omp for schedule(dynamic, 1)
        for (int64_t ci = 0; ci < t->nchunks; ci++) {
            int stop;
#pragma omp atomic read
            stop = failed;
            if (stop || c.err.code != SK_OK)
                continue;
            if (check_chunk(s, t, ci, &c) != SK_OK) {
#pragma omp atomic write
                failed = 1;
            }
#pragma omp critical(st_verify_progress)
            {
                ++*done;
                if (progress.fn)
                    progress.fn(progress.ctx, *done, total, 0);
            }
        }
#pragma omp critical(st_verify_error)
        {
            if (c.err.code == SK_OK && c.acc)
                sk_stats_acc_merge(all, c.acc, &c.err);
            if (c.err.code != SK_OK && (first.code == SK_OK || c.err.record < first.record))
                first = c.err;
        }
        sk_free(c.stored);
        sk_free(c.scratch);
        sk_table_free(c.rows);
        sk_stats_acc_free(c.acc);
    }
    if (first.code == SK_OK && all && check_stats(s, t, all, &first) != SK_OK)
        first.record = t->nchunks + 1;
    sk_stats_acc_free(all);
    if (first.code != SK_OK) {
        if (err)
            *err = first;
        return first.code;
    }
    return SK_OK;
}

int sk_store_verify(sk_store *s, int threads, sk_progress progress, sk_error *err)
{
    sk_thread_budget budget;
    threads = sk_thread_budget_get(threads, &budget);
    st_checks_forget(s); /* every byte is hashed, whatever earlier reads checked */
    int64_t total = 0, done = 0;
    for (int i = 0; i < s->footer.ntables; i++)
        total += s->footer.tables[i].nchunks;
    for (int i = 0; i < s->footer.ntables; i++) {
        int rc = verify_table(s, &s->footer.tables[i], threads, progress, &done, total, err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}
