/* Weighted statistics, the result (definitions in snapkit/wstats.h): per
 * column, the (value, weight) pairs of every kept row, in whatever order
 * the batches came; exact sums (core/exactsum.h) for the weight sum and the
 * moments, so that order does not matter; a sort by value (radix, on the
 * bits) and a sweep of exact cumulative weights for the quantiles. */
#include <math.h>
#include <string.h>

#include "core/wpairs.h"
#include "core/wstats_internal.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

#include <omp.h>

/* ---- per column ---- */

/* The percentiles a result computes: the median, then those asked, and
 * their order from the smallest. */
typedef struct pct_plan {
    int n;
    double *p;
    int *order;
} pct_plan;

static int plan_new(pct_plan *pl, const double *asked, int nasked)
{
    pl->n = nasked + 1;
    pl->p = sk_malloc(sizeof *pl->p * (size_t)pl->n);
    pl->order = sk_malloc(sizeof *pl->order * (size_t)pl->n);
    if (!pl->p || !pl->order)
        return 0;
    pl->p[0] = 50.0;
    if (nasked)
        memcpy(pl->p + 1, asked, sizeof *asked * (size_t)nasked);
    for (int q = 0; q < pl->n; q++) { /* insertion sort: a handful of percentiles */
        int k = q;
        for (; k > 0 && pl->p[pl->order[k - 1]] > pl->p[q]; k--)
            pl->order[k] = pl->order[k - 1];
        pl->order[k] = q;
    }
    return 1;
}

static void plan_free(pct_plan *pl)
{
    sk_free(pl->p);
    sk_free(pl->order);
}

/* Column j's statistics into c (c->percentiles: room for pl->n - 1);
 * scratch: room for 2 a->rows pairs, count: the sort's counters. */
static void column_result(const sk_wstats_acc *a, int j, const pct_plan *pl, ws_pair *scratch,
                          int64_t (*count)[WS_RADIX], double *qs, sk_wstats_column *c)
{
    int64_t n = 0;
    for (int64_t b = 0; b < a->nblocks; b++) {
        const ws_block *blk = &a->blocks[b];
        const double *v = blk->w + (int64_t)(j + 1) * blk->stride;
        for (int64_t i = 0; i < blk->n; i++)
            if (v[i] == v[i])
                scratch[n++] = (ws_pair){v[i], blk->w[i]};
    }
    c->count = n;
    xs_acc wsum;
    ws_moments(scratch, n, 2, c, &wsum, NULL);
    ws_sort_pairs(scratch, scratch + n, n, count);
    c->min = n ? scratch[0].v : NAN;
    c->max = n ? scratch[n - 1].v : NAN;
    for (int q = 0; q < pl->n; q++)
        qs[q] = NAN;
    if (c->weight_sum > 0)
        ws_quantiles(scratch, n, &wsum, pl->p, pl->order, pl->n, qs);
    c->median = qs[0];
    if (pl->n > 1)
        memcpy(c->percentiles, qs + 1, sizeof *qs * (size_t)(pl->n - 1));
}

int sk_wstats_check_percentiles(const double *pct, int np, sk_error *err)
{
    if (np < 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a negative number of percentiles");
    for (int q = 0; q < np; q++)
        if (!(pct[q] >= 0 && pct[q] <= 100))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "percentile %g is outside 0..100", pct[q]);
    return SK_OK;
}

/* The result's arrays: columns, the percentiles asked and a block of every
 * column's quantiles. */
static int result_alloc(const sk_wstats_acc *a, const double *pct, int np, sk_wstats *out)
{
    memset(out, 0, sizeof *out);
    out->weight = a->weight;
    out->rows = a->rows;
    out->ncols = a->ncols;
    out->npercentiles = np;
    out->cols = sk_calloc((size_t)(a->ncols ? a->ncols : 1), sizeof *out->cols);
    out->percentiles = sk_malloc(sizeof *pct * (size_t)(np ? np : 1));
    double *qs = sk_malloc(sizeof *qs * (size_t)(np ? np : 1) * (size_t)(a->ncols ? a->ncols : 1));
    if (!out->cols || !out->percentiles || !qs) {
        sk_free(qs);
        return 0;
    }
    if (np)
        memcpy(out->percentiles, pct, sizeof *pct * (size_t)np);
    for (int j = 0; j < a->ncols; j++)
        out->cols[j].percentiles = qs + (int64_t)j * np;
    if (!a->ncols) /* the block is freed through the first column's pointer */
        sk_free(qs);
    return 1;
}

/* One thread's scratch: pairs, sort counters, quantiles. */
typedef struct scratch {
    ws_pair *pairs;
    int64_t (*count)[WS_RADIX];
    double *qs;
} scratch;

static int scratch_new(scratch *s, int64_t rows, int nq)
{
    s->pairs = sk_malloc(sizeof *s->pairs * (size_t)(2 * rows + 1));
    s->count = sk_malloc(sizeof *s->count * WS_RADIX_PASSES);
    s->qs = sk_malloc(sizeof *s->qs * (size_t)nq);
    return s->pairs && s->count && s->qs;
}

static void scratch_free(scratch *s)
{
    sk_free(s->pairs);
    sk_free(s->count);
    sk_free(s->qs);
}

/* The statistics of a's columns; names[j] names counted column j. */
static int result(const sk_wstats_acc *a, char *const *names, const double *pct, int np,
                  int threads, sk_wstats *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = sk_wstats_check_percentiles(pct, np, err);
    if (rc != SK_OK)
        return rc;
    pct_plan pl = {0};
    int ok = result_alloc(a, pct, np, out) && plan_new(&pl, pct, np);
    sk_thread_budget b;
    int nthreads = sk_thread_budget_get(threads, &b);
    nthreads = nthreads < a->ncols ? nthreads : a->ncols > 0 ? a->ncols : 1;
    /* Columns are independent: each thread sorts one at a time. */
    if (ok) {
#pragma omp parallel num_threads(nthreads)
        {
            scratch s;
            int mine = scratch_new(&s, a->rows, pl.n);
            if (!mine) {
#pragma omp atomic write
                ok = 0;
            }
#pragma omp for schedule(dynamic)
            for (int j = 0; j < a->ncols; j++) {
                out->cols[j].name = names[j];
                if (mine)
                    column_result(a, j, &pl, s.pairs, s.count, s.qs, &out->cols[j]);
            }
            scratch_free(&s);
        }
    }
    plan_free(&pl);
    if (!ok) {
        sk_wstats_free(out);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for weighted statistics");
    }
    return SK_OK;
}

int sk_wstats_acc_result(const sk_wstats_acc *a, const double *pct, int np, int threads,
                         sk_wstats *out, sk_error *err)
{
    char **names = sk_malloc(sizeof *names * (size_t)(a->ncols ? a->ncols : 1));
    if (!names) {
        memset(out, 0, sizeof *out);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for weighted statistics");
    }
    for (int j = 0; j < a->ncols; j++)
        names[j] = a->names[a->col[j]];
    int rc = result(a, names, pct, np, threads, out, err);
    sk_free(names);
    return rc;
}

int sk_table_wstats_compute(const sk_table *t, sk_weight weight, const double *pct, int np,
                            int threads, sk_wstats *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    sk_wstats_acc *a;
    int rc = sk_wstats_check_percentiles(pct, np, err);
    if (rc == SK_OK)
        rc = sk_wstats_acc_new(t, weight, &a, err);
    if (rc != SK_OK)
        return rc;
    rc = sk_wstats_acc_add(a, t, err);
    char **names = sk_malloc(sizeof *names * (size_t)(a->ncols ? a->ncols : 1));
    if (rc == SK_OK && !names)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for weighted statistics");
    for (int j = 0; rc == SK_OK && j < a->ncols; j++) /* the table's names outlive a */
        names[j] = sk_table_col(t, a->col[j])->name;
    if (rc == SK_OK)
        rc = result(a, names, pct, np, threads, out, err);
    sk_free(names);
    sk_wstats_acc_free(a);
    return rc;
}

void sk_wstats_free(sk_wstats *s)
{
    if (s->cols && s->ncols)
        sk_free(s->cols[0].percentiles);
    sk_free(s->cols);
    sk_free(s->percentiles);
    memset(s, 0, sizeof *s);
}
