/* snapkit/bins.h - bins of one axis, for profiles and phase diagrams.
 *
 * n bins between lo and hi, equal in the value (linear) or in its base-10
 * logarithm (log). The edges are those numpy gives, so that a value falls
 * in the bin yt's create_profile puts it in:
 *
 *   linear: edge i = lo + i (hi - lo)/n            (np.linspace(lo, hi, n + 1))
 *   log:    edge i = 10^(log10 lo + i (log10 hi - log10 lo)/n)
 *                                                  (np.logspace(...))
 *   and always edge 0 = lo, edge n = hi exactly.
 *
 * 10^y is libm's pow. numpy's power is another on AVX-512 machines (SVML),
 * so log edges can differ from numpy's in the last place there, and a
 * value within a unit in the last place of an edge can fall in the
 * neighbouring bin. To compare bin by bin with yt, give yt these edges
 * (create_profile's override_bins).
 *
 * A value x is binned when lo < x < hi (both edges excluded, as yt's
 * profiles filter; NaN never), into the bin i with edge i <= x < edge i+1
 * (np.digitize(x, edges) - 1).
 *
 * The default range of data whose minimum and maximum are min and max is
 * [min - spacing(min), max + spacing(max)] (sk_bins_pad: np.spacing, one
 * unit in the last place away from zero), as yt widens its extrema so
 * that the extreme values are binned.
 */
#ifndef SNAPKIT_BINS_H
#define SNAPKIT_BINS_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_BINS_MAX 16777216

typedef struct sk_bins {
    int n;
    int log;
    double lo, hi;
    double start, step; /* lo and (hi - lo)/n, or their log10 with log */
} sk_bins;

/* Set b to n bins over (lo, hi). SK_ERR_ARG (naming the axis `what`, e.g.
 * "--bins") for n outside 1..SK_BINS_MAX, a range not finite or with
 * lo >= hi, or a log range with lo <= 0. */
SK_API int sk_bins_init(sk_bins *b, int n, double lo, double hi, int log, const char *what,
                        sk_error *err);

/* Edge i, 0 <= i <= n. */
SK_API double sk_bins_edge(const sk_bins *b, int i);
/* The middle of bin i: the mean of its edges (yt's profile.x), or their
 * geometric mean with log (the middle on a log axis). */
SK_API double sk_bins_center(const sk_bins *b, int i);
/* The bin of x, or -1 when x is not inside (lo, hi). */
SK_API int sk_bins_index(const sk_bins *b, double x);

/* Widen [*lo, *hi] to [lo - spacing(lo), hi + spacing(hi)]. */
SK_API void sk_bins_pad(double *lo, double *hi);

#ifdef __cplusplus
}
#endif

#endif
