/* Weighted statistics, the result (definitions in snapkit/wstats.h): per
 * column, the (value, weight) pairs of every kept row, in whatever order
 * the batches came; exact sums (core/exactsum.h) for the weight sum and the
 * moments, so that order does not matter; a sort by value (radix, on the
 * bits) and a sweep of exact cumulative weights for the quantiles. */
#include <math.h>
#include <string.h>

#include "core/exactsum.h"
#include "core/wstats_internal.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

#include <omp.h>

typedef struct ws_pair {
    double v, w;
} ws_pair;

/* ---- exact sums of doubles of any sign ---- */

typedef struct xsum {
    xs_acc pos, neg;
    int nan; /* a NaN product (0 x inf) was added */
} xsum;

/* Where v's significand m goes: v = m * 2^(pos - 1074); 0 for 0. */
static uint64_t split(double v, unsigned *pos)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    unsigned e = (unsigned)(u >> 52) & 2047;
    *pos = e ? e - 1 : 0;
    return (u & ((UINT64_C(1) << 52) - 1)) | (uint64_t)(e != 0) << 52;
}

static void xsum_add(xsum *s, double v)
{
    if (v != v) {
        s->nan = 1;
        return;
    }
    xs_acc *a = v < 0 ? &s->neg : &s->pos;
    if (isinf(v)) {
        a->inf++;
        return;
    }
    unsigned pos;
    uint64_t m = split(v, &pos);
    if (m) {
        xs_add_wide(a, m, pos);
        xs_normalize_soon(a);
    }
}

static double xsum_value(const xsum *s)
{
    return s->nan ? NAN : xs_round(&s->pos, &s->neg, -1);
}

/* ---- moments ---- */

/* Weight sum, mean, std, skewness and kurtosis of the n pairs; *wsum the
 * exact weight sum, normalised. */
static void moments(const ws_pair *p, int64_t n, sk_wstats_column *c, xs_acc *wsum)
{
    xsum w, s1;
    memset(&w, 0, sizeof w);
    memset(&s1, 0, sizeof s1);
    for (int64_t i = 0; i < n; i++) {
        xsum_add(&w, p[i].w);
        xsum_add(&s1, p[i].w * p[i].v);
    }
    c->weight_sum = xsum_value(&w);
    *wsum = w.pos; /* weights are not negative (-0 adds nothing) */
    xs_normalize(wsum);
    c->mean = c->std = c->skewness = c->kurtosis = NAN;
    if (!(c->weight_sum > 0))
        return;
    double mu = xsum_value(&s1) / c->weight_sum;
    xsum s[3]; /* sums of w d^2, w d^3, w d^4 */
    memset(s, 0, sizeof s);
    for (int64_t i = 0; i < n; i++) {
        double d = p[i].v - mu, d2 = d * d;
        xsum_add(&s[0], p[i].w * d2);
        xsum_add(&s[1], p[i].w * (d2 * d));
        xsum_add(&s[2], p[i].w * (d2 * d2));
    }
    double m2 = xsum_value(&s[0]) / c->weight_sum, m3 = xsum_value(&s[1]) / c->weight_sum,
           m4 = xsum_value(&s[2]) / c->weight_sum;
    c->mean = mu;
    c->std = sqrt(m2);
    if (m2 > 0) {
        c->skewness = m3 / pow(m2, 1.5);
        c->kurtosis = m4 / (m2 * m2) - 3.0;
    }
}

/* ---- sorting by value ---- */

/* v's bits as an unsigned key in the order of the values, -0 before +0. */
static inline uint64_t sort_key(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 63 ? ~u : u | UINT64_C(1) << 63;
}

enum { RADIX_BITS = 11, RADIX = 1 << RADIX_BITS, RADIX_PASSES = 6 };

/* Sort p[0..n) by value (tmp: room for n more), least significant digit
 * first; a pass whose digit is the same for every value is skipped. */
static void sort_pairs(ws_pair *p, ws_pair *tmp, int64_t n, int64_t (*count)[RADIX])
{
    memset(count, 0, sizeof *count * RADIX_PASSES);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = sort_key(p[i].v);
        for (int d = 0; d < RADIX_PASSES; d++)
            count[d][(k >> (d * RADIX_BITS)) & (RADIX - 1)]++;
    }
    ws_pair *from = p, *to = tmp;
    for (int d = 0; d < RADIX_PASSES; d++) {
        int64_t at = 0;
        int trivial = 0;
        for (int b = 0; b < RADIX; b++) {
            int64_t c = count[d][b];
            trivial |= c == n;
            count[d][b] = at;
            at += c;
        }
        if (trivial)
            continue;
        for (int64_t i = 0; i < n; i++)
            to[count[d][(sort_key(from[i].v) >> (d * RADIX_BITS)) & (RADIX - 1)]++] = from[i];
        ws_pair *t = from;
        from = to;
        to = t;
    }
    if (from != p)
        memcpy(p, from, sizeof *p * (size_t)n);
}

/* ---- quantiles: exact cumulative weights against p W / 100 ---- */

/* Non-negative integers in units of 2^-1074, wide enough for 100 C 2^1074
 * (C, a sum of weights, below 2^2240, the exact sums' reach). */
enum { BIG_DIGITS = 112 };
typedef struct big {
    uint32_t d[BIG_DIGITS];
} big;

static void big_from(big *b, const xs_acc *x) /* x normalised */
{
    memset(b, 0, sizeof *b);
    for (int k = 0; k < XS_DIGITS; k++)
        b->d[k] = (uint32_t)x->d[k];
}

static void big_mul(big *b, uint64_t m) /* m < 2^64 */
{
    unsigned __int128 carry = 0;
    for (int k = 0; k < BIG_DIGITS; k++) {
        unsigned __int128 t = (unsigned __int128)b->d[k] * m + carry;
        b->d[k] = (uint32_t)t;
        carry = t >> 32;
    }
}

static void big_shl(big *b, unsigned s)
{
    int q = (int)(s / 32), r = (int)(s % 32);
    for (int k = BIG_DIGITS - 1; k >= 0; k--) {
        uint32_t hi = k - q >= 0 ? b->d[k - q] : 0, lo = k - q - 1 >= 0 ? b->d[k - q - 1] : 0;
        b->d[k] = r ? hi << r | lo >> (32 - r) : hi;
    }
}

static int big_cmp(const big *a, const big *b)
{
    for (int k = BIG_DIGITS - 1; k >= 0; k--)
        if (a->d[k] != b->d[k])
            return a->d[k] < b->d[k] ? -1 : 1;
    return 0;
}

/* A threshold p W / 100 as the comparison 100 C 2^shift >= rhs. */
typedef struct threshold {
    big rhs;
    unsigned shift;
} threshold;

static void threshold_set(threshold *t, double p, const xs_acc *w)
{
    int e;
    uint64_t m = p > 0 ? (uint64_t)ldexp(frexp(p, &e), 53) : 0; /* p = m 2^(e - 53) */
    e = p > 0 ? e - 53 : 0;
    big_from(&t->rhs, w);
    big_mul(&t->rhs, m);
    big_shl(&t->rhs, e > 0 ? (unsigned)e : 0);
    t->shift = e < 0 ? (unsigned)-e : 0;
}

/* Does the cumulative weight c (normalised) reach the threshold, c > 0? */
static int reaches(const xs_acc *c, const threshold *t)
{
    big lhs;
    big_from(&lhs, c);
    int positive = 0;
    for (int k = 0; k < XS_DIGITS && !positive; k++)
        positive = lhs.d[k] != 0;
    big_mul(&lhs, 100);
    big_shl(&lhs, t->shift);
    return positive && big_cmp(&lhs, &t->rhs) >= 0;
}

static void add_weight(xs_acc *c, double w)
{
    unsigned pos;
    uint64_t m = split(w, &pos);
    if (m)
        xs_add_wide(c, m, pos);
}

enum { SWEEP_BLOCK = 256 };

/* c (the weights of p[0..*k), not reaching t) moved to the first k whose
 * weight, added, reaches t: whole blocks first, then one by one. */
static void sweep(const ws_pair *p, int64_t n, xs_acc *c, int64_t *k, const threshold *t)
{
    xs_acc next;
    while (*k + SWEEP_BLOCK <= n) {
        next = *c;
        for (int64_t i = *k; i < *k + SWEEP_BLOCK; i++)
            add_weight(&next, p[i].w);
        xs_normalize(&next);
        if (reaches(&next, t))
            break;
        *c = next;
        *k += SWEEP_BLOCK;
    }
    for (; *k < n; ++*k) {
        next = *c;
        add_weight(&next, p[*k].w);
        xs_normalize(&next);
        if (reaches(&next, t))
            return;
        *c = next;
    }
}

/* The quantiles of the sorted pairs at pct[order[0..np)] (ascending) into
 * out[order[q]]; w is their exact weight sum, positive. */
static void quantiles(const ws_pair *p, int64_t n, const xs_acc *w, const double *pct,
                      const int *order, int np, double *out)
{
    xs_acc c;
    xs_clear(&c);
    int64_t k = 0;
    threshold t;
    for (int q = 0; q < np; q++) {
        threshold_set(&t, pct[order[q]], w);
        sweep(p, n, &c, &k, &t);
        out[order[q]] = k < n ? p[k].v : NAN; /* k < n: p = 100 reaches W */
    }
}

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
                          int64_t (*count)[RADIX], double *qs, sk_wstats_column *c)
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
    moments(scratch, n, c, &wsum);
    sort_pairs(scratch, scratch + n, n, count);
    c->min = n ? scratch[0].v : NAN;
    c->max = n ? scratch[n - 1].v : NAN;
    for (int q = 0; q < pl->n; q++)
        qs[q] = NAN;
    if (c->weight_sum > 0)
        quantiles(scratch, n, &wsum, pl->p, pl->order, pl->n, qs);
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
    int64_t (*count)[RADIX];
    double *qs;
} scratch;

static int scratch_new(scratch *s, int64_t rows, int nq)
{
    s->pairs = sk_malloc(sizeof *s->pairs * (size_t)(2 * rows + 1));
    s->count = sk_malloc(sizeof *s->count * RADIX_PASSES);
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
