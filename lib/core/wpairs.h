/* Weighted statistics of (value, weight) pairs, shared by the weighted
 * statistics of columns (wstats_result.c) and of profile bins
 * (lib/analysis/profile*.c): exact sums (core/exactsum.h) for the weight
 * sum and the moments, so that the order of the pairs does not matter; a
 * radix sort by value and a sweep of exact cumulative weights for the
 * quantiles. The definitions are snapkit/wstats.h's. */
#ifndef SNAPKIT_CORE_WPAIRS_H
#define SNAPKIT_CORE_WPAIRS_H

#include <stdint.h>

#include "core/exactsum.h"
#include "snapkit/wstats.h"

typedef struct ws_pair {
    double v, w;
} ws_pair;

enum { WS_RADIX_BITS = 11, WS_RADIX = 1 << WS_RADIX_BITS, WS_RADIX_PASSES = 6 };

/* The weight sum and mean of the n pairs (no NaN value) into c, with
 * higher >= 1 their std too, with higher >= 2 skewness and kurtosis too
 * (the others NaN); *wsum the exact weight sum, normalised; *wvsum (when
 * not NULL) the sum of the products w v, exact and rounded once. */
void ws_moments(const ws_pair *p, int64_t n, int higher, sk_wstats_column *c, xs_acc *wsum,
                double *wvsum);

/* Sort p[0..n) by value (tmp: room for n more; count: the counters of
 * WS_RADIX_PASSES passes), -0 before +0. */
void ws_sort_pairs(ws_pair *p, ws_pair *tmp, int64_t n, int64_t (*count)[WS_RADIX]);

/* The quantiles of the sorted pairs at pct[order[0..np)] (order lists the
 * percentiles from the smallest) into out[order[q]]; w is their exact
 * weight sum (ws_moments), positive. */
void ws_quantiles(const ws_pair *p, int64_t n, const xs_acc *w, const double *pct,
                  const int *order, int np, double *out);

#endif
