/* Column statistics with compensated sums. Columns are independent, so
 * threads take whole columns: each sum keeps the row order, and the result
 * does not depend on the thread count. */
#include "snapkit/colstats.h"

#include <math.h>
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/threads.h"

void sk_ksum_add(sk_ksum *s, double v)
{
    double t = s->sum + v;
    if (fabs(s->sum) >= fabs(v))
        s->comp += (s->sum - t) + v;
    else
        s->comp += (v - t) + s->sum;
    s->sum = t;
}

double sk_ksum_value(const sk_ksum *s)
{
    return s->sum + s->comp;
}

typedef struct col_acc {
    double min, max;
    sk_ksum sum, abs_sum, vsum, abs_vsum;
    int64_t seen;
} col_acc;

typedef struct cell_weights {
    const int32_t *level;                    /* NULL: not a cell table */
    double per_level[SK_STATS_MAX_LEVEL + 1]; /* (boxlen / 2^l)^3 */
} cell_weights;

static void acc_add(col_acc *a, double v, const cell_weights *w, int64_t i)
{
    if (v != v)
        return;
    if (!a->seen++ || v < a->min)
        a->min = v;
    if (a->seen == 1 || v > a->max)
        a->max = v;
    sk_ksum_add(&a->sum, v);
    sk_ksum_add(&a->abs_sum, fabs(v));
    if (w->level) {
        double vv = v * w->per_level[w->level[i]];
        sk_ksum_add(&a->vsum, vv);
        sk_ksum_add(&a->abs_vsum, fabs(vv));
    }
}

/* One loop per element type keeps the per-row type switch out of the loop. */
#define ACC_LOOP(ctype)                                        \
    do {                                                       \
        const ctype *d = data;                                 \
        for (int64_t i = 0; i < n; i++)                        \
            acc_add(&a, (double)d[i], w, i);              \
    } while (0)

static void column_stats(const sk_column *c, int64_t n, const cell_weights *w,
                         sk_column_stats *out)
{
    col_acc a;
    memset(&a, 0, sizeof a);
    const void *data = c->data;
    switch (c->type) {
    case SK_INT8: ACC_LOOP(int8_t); break;
    case SK_UINT8: ACC_LOOP(uint8_t); break;
    case SK_INT16: ACC_LOOP(int16_t); break;
    case SK_UINT16: ACC_LOOP(uint16_t); break;
    case SK_INT32: ACC_LOOP(int32_t); break;
    case SK_CATEGORY: ACC_LOOP(int32_t); break;
    case SK_UINT32: ACC_LOOP(uint32_t); break;
    case SK_INT64: ACC_LOOP(int64_t); break;
    case SK_UINT64: ACC_LOOP(uint64_t); break;
    case SK_FLOAT32: ACC_LOOP(float); break;
    case SK_FLOAT64: ACC_LOOP(double); break;
    }
    out->min = a.seen ? a.min : NAN;
    out->max = a.seen ? a.max : NAN;
    out->sum = sk_ksum_value(&a.sum);
    out->abs_sum = sk_ksum_value(&a.abs_sum);
    out->volume_sum = w->level ? sk_ksum_value(&a.vsum) : NAN;
    out->abs_volume_sum = w->level ? sk_ksum_value(&a.abs_vsum) : NAN;
}

static int is_cell_index(const char *name)
{
    return !strcmp(name, "level") || !strcmp(name, "cx") || !strcmp(name, "cy") ||
           !strcmp(name, "cz");
}

/* Cell weights and rows per level when t is a cell table. */
static int cell_weights_init(const sk_table *t, sk_table_stats *s, cell_weights *w, sk_error *err)
{
    w->level = NULL;
    const sk_column *lev = sk_table_find(t, "level");
    const char *kind = sk_table_meta_get(t, "kind");
    if (!lev || lev->type != SK_INT32 || (kind && strcmp(kind, "cells") != 0))
        return SK_OK;
    double boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    for (int l = 0; l <= SK_STATS_MAX_LEVEL; l++) {
        double size = ldexp(boxlen, -l);
        w->per_level[l] = size * size * size;
    }
    const int32_t *level = lev->data;
    for (int64_t i = 0; i < s->rows; i++) {
        int32_t l = level[i];
        if (l < 0 || l > SK_STATS_MAX_LEVEL)
            return sk_fail(err, SK_ERR_RANGE, NULL, -1, "row %lld: level %d out of range",
                           (long long)i, (int)l);
        s->levels[l]++;
    }
    s->is_cells = 1;
    w->level = level;
    return SK_OK;
}

int sk_table_stats_compute(const sk_table *t, int threads, sk_table_stats *s, sk_error *err)
{
    memset(s, 0, sizeof *s);
    s->rows = sk_table_nrows(t);
    s->ncols = sk_table_ncols(t);
    s->cols = sk_calloc((size_t)(s->ncols ? s->ncols : 1), sizeof *s->cols);
    if (!s->cols)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    cell_weights w;
    int rc = cell_weights_init(t, s, &w, err);
    if (rc != SK_OK) {
        sk_table_stats_free(s);
        return rc;
    }
    sk_thread_budget b;
    int nthreads = sk_thread_budget_get(threads, &b);
    int ncols = s->ncols;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (int j = 0; j < ncols; j++) {
        const sk_column *c = sk_table_col(t, j);
        sk_column_stats *cs = &s->cols[j];
        cs->name = c->name;
        cs->is_cell_index = s->is_cells && is_cell_index(c->name);
        column_stats(c, s->rows, &w, cs);
    }
    return SK_OK;
}

void sk_table_stats_free(sk_table_stats *s)
{
    sk_free(s->cols);
    s->cols = NULL;
    s->ncols = 0;
}
