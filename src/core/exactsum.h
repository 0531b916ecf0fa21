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
 * adds fit before xs_normalize must run (xs_add_n does it). */
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

static inline void xs_clear(xs_acc *a)
{
    memset(a, 0, sizeof *a);
}

/* Add |v| (v finite or infinite, not NaN). The caller keeps adds below
 * XS_ADDS_MAX between normalisations. */
static inline void xs_add(xs_acc *a, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    u &= ~(UINT64_C(1) << 63);
    uint64_t e = u >> 52, m = u & ((UINT64_C(1) << 52) - 1);
    if (e == 2047) {
        a->inf++;
        return;
    }
    unsigned p = 0; /* position of m's bit 0 above 2^-1074 */
    if (e) {
        m |= UINT64_C(1) << 52;
        p = (unsigned)e - 1;
    }
    unsigned __int128 w = (unsigned __int128)m << (p & 31);
    int64_t *d = a->d + (p >> 5);
    d[0] += (int64_t)(uint32_t)w;
    d[1] += (int64_t)(uint32_t)(w >> 32);
    d[2] += (int64_t)(uint64_t)(w >> 64);
    a->adds++;
}

/* Carry every digit into [0, 2^32) (the top one keeps the rest). */
void xs_normalize(xs_acc *a);
/* a += b (both normalised first, so any number of merges fit). */
void xs_merge(xs_acc *a, const xs_acc *b);
/* The exact value of pos - neg (sign = -1) or pos + neg (sign = +1),
 * rounded to the nearest double; +-inf when an infinity was added (NaN
 * for inf - inf) or when the exact value rounds beyond DBL_MAX. */
double xs_round(const xs_acc *pos, const xs_acc *neg, int sign);

#endif
