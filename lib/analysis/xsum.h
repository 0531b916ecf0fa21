/* Signed exact sums for the analysis module (totals, centres): values
 * binned by exponent into core/exactsum.h's fixed-point accumulators,
 * merged between threads and summed over MPI ranks, all exactly, so the
 * rounded result does not depend on the order of the rows, on the thread
 * count or on the rank count. */
#ifndef SNAPKIT_ANALYSIS_XSUM_H
#define SNAPKIT_ANALYSIS_XSUM_H

#include <stdint.h>
#include <string.h>

#include "core/exactsum.h"
#include "snapkit/error.h"

typedef struct an_sum {
    xs_acc pos, neg; /* magnitudes of the positive and the negative values */
    int64_t nan;     /* NaN values added: the sum is NaN */
} an_sum;

/* The way values go in: per-exponent bins (core/exactsum.h),
 * one integer add a value, moved into an accumulator by an_bins_flush at
 * least every XS_BIN_ADDS values. 32 KiB; zero when made and after a flush. */
typedef struct an_bins {
    uint64_t bins[XS_BINS];
    uint64_t used;
} an_bins;

/* v into b, or, not finite, straight into s. */
static inline void an_bins_add(an_bins *b, an_sum *s, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    if (((u >> 52) & 2047) != 2047)
        b->used |= xs_bins_add(b->bins, u);
    else if (v != v)
        s->nan++;
    else
        (v < 0 ? &s->neg : &s->pos)->inf++;
}

/* Move b's values into s; b is left zero. */
void an_bins_flush(an_bins *b, an_sum *s);

/* a += b, exactly. */
void an_sum_merge(an_sum *a, const an_sum *b);
/* The exact sum rounded once to the nearest double (NaN when a NaN was
 * added, +-inf as xs_round). */
double an_sum_value(const an_sum *s);
/* Sum n accumulators over the MPI ranks, exactly, into every rank's s
 * (their normalised digits are integers: MPI's integer sum is exact in any
 * order). Collective; does nothing when MPI is not running. */
int an_sums_reduce(an_sum *s, int n, sk_error *err);

#endif
