/* Weighted statistics of (value, weight) pairs, shared by the weighted
 * statistics of columns (wstats_result.c) and of profile bins
 * (lib/analysis/profile*.c): exact sums (core/exactsum.h) for the weight
 * sum and the moments, so that the order of the pairs does not matter; a
 * radix sort by value and a sweep of exact cumulative weights for the
 * quantiles. The definitions are snapkit/wstats.h's. */
#include <math.h>
#include <string.h>

#include "core/wpairs.h"

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
void ws_moments(const ws_pair *p, int64_t n, int higher, sk_wstats_column *c, xs_acc *wsum,
                double *wvsum)
{
    xsum w, s1;
    memset(&w, 0, sizeof w);
    memset(&s1, 0, sizeof s1);
    for (int64_t i = 0; i < n; i++) {
        xsum_add(&w, p[i].w);
        xsum_add(&s1, p[i].w * p[i].v);
    }
    c->weight_sum = xsum_value(&w);
    if (wvsum)
        *wvsum = xsum_value(&s1);
    *wsum = w.pos; /* weights are not negative (-0 adds nothing) */
    xs_normalize(wsum);
    c->mean = c->std = c->skewness = c->kurtosis = NAN;
    if (!(c->weight_sum > 0))
        return;
    double mu = xsum_value(&s1) / c->weight_sum;
    c->mean = mu;
    if (higher < 1)
        return;
    xsum s[3]; /* sums of w d^2, w d^3, w d^4 */
    memset(s, 0, sizeof s);
    for (int64_t i = 0; i < n; i++) {
        double d = p[i].v - mu, d2 = d * d;
        xsum_add(&s[0], p[i].w * d2);
        if (higher > 1) {
            xsum_add(&s[1], p[i].w * (d2 * d));
            xsum_add(&s[2], p[i].w * (d2 * d2));
        }
    }
    double m2 = xsum_value(&s[0]) / c->weight_sum, m3 = xsum_value(&s[1]) / c->weight_sum,
           m4 = xsum_value(&s[2]) / c->weight_sum;
    c->std = sqrt(m2);
    if (m2 > 0 && higher > 1) {
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

/* Sort p[0..n) by value (tmp: room for n more), least significant digit
 * first; a pass whose digit is the same for every value is skipped. */
void ws_sort_pairs(ws_pair *p, ws_pair *tmp, int64_t n, int64_t (*count)[WS_RADIX])
{
    memset(count, 0, sizeof *count * WS_RADIX_PASSES);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = sort_key(p[i].v);
        for (int d = 0; d < WS_RADIX_PASSES; d++)
            count[d][(k >> (d * WS_RADIX_BITS)) & (WS_RADIX - 1)]++;
    }
    ws_pair *from = p, *to = tmp;
    for (int d = 0; d < WS_RADIX_PASSES; d++) {
        int64_t at = 0;
        int trivial = 0;
        for (int b = 0; b < WS_RADIX; b++) {
            int64_t c = count[d][b];
            trivial |= c == n;
            count[d][b] = at;
            at += c;
        }
        if (trivial)
            continue;
        for (int64_t i = 0; i < n; i++)
            to[count[d][(sort_key(from[i].v) >> (d * WS_RADIX_BITS)) & (WS_RADIX - 1)]++] = from[i];
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
void ws_quantiles(const ws_pair *p, int64_t n, const xs_acc *w, const double *pct,
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
