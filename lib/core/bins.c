/* Bins of one axis: numpy's edges, yt's filter (snapkit/bins.h). */
#include "snapkit/bins.h"

#include <math.h>
#include <stddef.h>

int sk_bins_init(sk_bins *b, int n, double lo, double hi, int log, const char *what,
                 sk_error *err)
{
    if (!what)
        what = "bins";
    if (n < 1 || n > SK_BINS_MAX)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: 1 to %d bins, not %d", what, SK_BINS_MAX,
                       n);
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: the range %.17g .. %.17g is empty", what,
                       lo, hi);
    if (log && !(lo > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "%s: a log range must start above 0, not at %.17g", what, lo);
    b->n = n;
    b->log = log ? 1 : 0;
    b->lo = lo;
    b->hi = hi;
    b->start = log ? log10(lo) : lo;
    double end = log ? log10(hi) : hi;
    b->step = (end - b->start) / n;
    if (!(b->step > 0) || !isfinite(b->step))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: the range %.17g .. %.17g is too narrow",
                       what, lo, hi);
    return SK_OK;
}

/* numpy's linspace computes i*step + start, in that order. */
double sk_bins_edge(const sk_bins *b, int i)
{
    if (i <= 0)
        return b->lo;
    if (i >= b->n)
        return b->hi;
    double y = (double)i * b->step + b->start;
    return b->log ? pow(10.0, y) : y;
}

double sk_bins_center(const sk_bins *b, int i)
{
    double l = sk_bins_edge(b, i), h = sk_bins_edge(b, i + 1);
    return b->log ? sqrt(l * h) : 0.5 * (l + h);
}

/* A first guess from the formula, then moved to the bin whose edges hold x:
 * the edges are rounded, so the guess can be one off near an edge. */
int sk_bins_index(const sk_bins *b, double x)
{
    if (!(x > b->lo && x < b->hi))
        return -1;
    double y = b->log ? log10(x) : x;
    double g = floor((y - b->start) / b->step);
    int i = g < 0 ? 0 : g > b->n - 1 ? b->n - 1 : (int)g;
    while (i > 0 && sk_bins_edge(b, i) > x)
        i--;
    while (i < b->n - 1 && sk_bins_edge(b, i + 1) <= x)
        i++;
    return i;
}

static double spacing(double x)
{
    return nextafter(x, copysign(INFINITY, x)) - x;
}

void sk_bins_pad(double *lo, double *hi)
{
    *lo = *lo - spacing(*lo);
    *hi = *hi + spacing(*hi);
}
