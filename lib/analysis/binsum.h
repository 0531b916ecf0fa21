/* Exact sums per bin, for binned analyses (phase diagrams; profiles can
 * take the same): each thread keeps, for every bin its rows reached, a few
 * exact accumulators (xsum.h), allocated when the bin is first reached;
 * threads merge exactly, so the sums rounded once do not depend on the
 * rows' order, the batches, the thread count or (integer digits) the MPI
 * ranks. About 1.2 KB per accumulator per bin reached per thread. */
#ifndef SNAPKIT_ANALYSIS_BINSUM_H
#define SNAPKIT_ANALYSIS_BINSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/xsum.h"

typedef struct an_binsums {
    size_t nbins;
    int nsum;        /* accumulators per bin */
    an_sum **at;     /* nbins: the bin's nsum accumulators, or NULL */
    an_sum **blocks; /* the allocations */
    int nblocks, cap_blocks, left; /* sets left in the last block */
    size_t block_n;                /* sets in the last block */
} an_binsums;

int an_binsums_init(an_binsums *b, size_t nbins, int nsum, sk_error *err);
void an_binsums_free(an_binsums *b);

/* The accumulators of bin k (allocated zero when first asked); NULL when
 * out of memory. */
an_sum *an_binsums_grow(an_binsums *b, size_t k);
static inline an_sum *an_binsums_get(an_binsums *b, size_t k)
{
    return b->at[k] ? b->at[k] : an_binsums_grow(b, k);
}

/* Add v exactly (a NaN makes the sum NaN; infinities are counted). */
static inline void an_sum_add(an_sum *s, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    unsigned e = (unsigned)(u >> 52) & 2047;
    if (e == 2047) {
        if (v != v)
            s->nan++;
        else
            (v < 0 ? &s->neg : &s->pos)->inf++;
        return;
    }
    uint64_t m = u & ((UINT64_C(1) << 52) - 1);
    if (e)
        m |= UINT64_C(1) << 52;
    xs_acc *a = (u >> 63) ? &s->neg : &s->pos;
    if (a->adds >= XS_ADDS_MAX)
        xs_normalize(a);
    xs_add_wide(a, m, e ? e - 1 : 0);
}

/* into += from, bin by bin, exactly (the same nbins and nsum). */
int an_binsums_merge(an_binsums *into, const an_binsums *from, sk_error *err);

#endif
