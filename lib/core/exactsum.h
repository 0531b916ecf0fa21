/* Exact sums of doubles: a fixed-point accumulator wide enough for every
 * finite double, so that adding in any order, in any number of pieces
 * merged in any order, gives the same bits, and the result is the exact
 * sum rounded once (to nearest, ties to even).
 *
 * The accumulator holds non-negative values only (magnitudes): a signed
 * sum is two of them, positives and negatives, rounded as their
 * difference; the sum of magnitudes is their sum. Bit i of digit k is worth
 * 2^(32k + i - 1074), so the smallest subnormal is bit 0 of digit 0. Each
 * add puts 32-bit pieces into three int64 digits without carrying: 2^30
 * adds fit before xs_normalize must run (xs_bins_move does it). */
#ifndef SNAPKIT_CORE_EXACTSUM_H
#define SNAPKIT_CORE_EXACTSUM_H

#include <stdint.h>
#include <string.h>

enum { XS_DIGITS = 70, XS_ADDS_MAX = 1 << 30 };

typedef struct xs_acc {
    int64_t d[XS_DIGITS];
    int64_t adds;  /* since the last normalisation */
    int64_t inf;   /* infinities added */
} xs_acc;

/* Carry every digit into [0, 2^32) (the top one keeps the rest). */
void xs_normalize(xs_acc *a);

static inline void xs_clear(xs_acc *a)
{
    memset(a, 0, sizeof *a);
}

/* Add m * 2^(p - 1074): the 95 bits of m << (p % 32) in three digits. */
static inline void xs_add_wide(xs_acc *a, uint64_t m, unsigned p)
{
    unsigned __int128 w = (unsigned __int128)m << (p & 31);
    int64_t *d = a->d + (p >> 5);
    d[0] += (int64_t)(uint32_t)w;
    d[1] += (int64_t)(uint32_t)(w >> 32);
    d[2] += (int64_t)(uint64_t)(w >> 64);
    a->adds++;
}

/* Per-exponent bins, the fast way in: bin[u >> 52] of a double with bits u
 * (sign and biased exponent) sums the 53-bit significands of the finite
 * values with that sign and exponent, so one add is one indexed integer
 * add. XS_BIN_ADDS adds fit in a bin (2^11 * 2^53 = 2^64) before
 * xs_bins_move must move the bins into the wide accumulators; "used"
 * has bit g set when a bin among 64g..64g+63 may be non-zero, so a move
 * looks at the few groups a column's values fall in, not all 4096 bins.
 * Infinities do not go in a bin (the caller counts them). */
enum { XS_BINS = 4096, XS_BIN_ADDS = 1 << 11 };

/* Add the finite double with bits u (any sign) to bins; returns the bit to
 * OR into "used". */
static inline uint64_t xs_bins_add(uint64_t *bins, uint64_t u)
{
    uint64_t i = u >> 52, e = i & 2047;
    bins[i] += (u & ((UINT64_C(1) << 52) - 1)) | (uint64_t)(e != 0) << 52;
    return UINT64_C(1) << (i >> 6);
}

/* Normalise a when XS_BINS more adds might not fit (each move adds at most
 * one per bin). */
static inline void xs_normalize_soon(xs_acc *a)
{
    if (a->adds > XS_ADDS_MAX - XS_BINS)
        xs_normalize(a);
}

/* Add the values in the bins flagged in used, times 2^shift, to pos
 * (positive values) and neg (magnitudes of the negative ones); shift is 0
 * or one xs_bins_shift_exact allowed. */
void xs_bins_move(const uint64_t *bins, uint64_t used, int shift, xs_acc *pos, xs_acc *neg);
/* Whether every value in the flagged bins times 2^shift is a double
 * exactly (neither rounded nor beyond DBL_MAX), so that the sum of the
 * products is the bins' sum moved by shift. */
int xs_bins_shift_exact(const uint64_t *bins, uint64_t used, int shift);
/* xs_bins_move to pos and neg, and moved by shift to spos and sneg, in one
 * pass that zeroes the bins. */
void xs_bins_move2(uint64_t *bins, uint64_t used, int shift, xs_acc *pos, xs_acc *neg,
                   xs_acc *spos, xs_acc *sneg);
/* Zero the flagged bins. */
void xs_bins_zero(uint64_t *bins, uint64_t used);

/* a += b (both normalised first, so any number of merges fit). */
void xs_merge(xs_acc *a, const xs_acc *b);
/* The exact value of pos - neg (sign = -1) or pos + neg (sign = +1),
 * rounded to the nearest double; +-inf when an infinity was added (NaN
 * for inf - inf) or when the exact value rounds beyond DBL_MAX. */
double xs_round(const xs_acc *pos, const xs_acc *neg, int sign);

#endif
