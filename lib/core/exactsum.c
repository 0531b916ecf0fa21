/* Exact sums (exactsum.h): normalising, merging and rounding once. */
#include "core/exactsum.h"

#include <math.h>

void xs_normalize(xs_acc *a)
{
    int64_t carry = 0;
    for (int k = 0; k < XS_DIGITS; k++) {
        int64_t v = a->d[k] + carry;
        carry = v >> 32; /* arithmetic: digits may be negative in differences */
        a->d[k] = k + 1 < XS_DIGITS ? (v & 0xffffffff) : v;
    }
    a->adds = 0;
}

/* Bin k's values are its sum times 2^(p - 1074): subnormals (e = 0) share
 * the position of e = 1, whose significands carry the implicit bit. */
static unsigned bin_position(int k)
{
    unsigned e = (unsigned)k & 2047;
    return e ? e - 1 : 0;
}

/* Whether the 64 bins from b are all zero: one vectorised OR, since a
 * level's bins are often empty in a group another level uses. */
static int group_empty(const uint64_t *b)
{
    uint64_t any = 0;
    for (int k = 0; k < 64; k++)
        any |= b[k];
    return any == 0;
}

void xs_bins_move(const uint64_t *bins, uint64_t used, int shift, xs_acc *pos, xs_acc *neg)
{
    while (used) {
        int g = __builtin_ctzll(used);
        used &= used - 1;
        if (group_empty(bins + 64 * g))
            continue;
        for (int k = 64 * g; k < 64 * g + 64; k++)
            if (bins[k])
                xs_add_wide(k < 2048 ? pos : neg, bins[k], (unsigned)((int)bin_position(k) + shift));
    }
    xs_normalize_soon(pos);
    xs_normalize_soon(neg);
}

int xs_bins_shift_exact(const uint64_t *bins, uint64_t used, int shift)
{
    /* A normal value's product stays normal when its exponent is in
     * [lo, hi]; a subnormal's (e = 0) is a multiple of 2^-1074 below 2^1024
     * when shift is in [0, 2045]. Only groups reaching outside need a look. */
    int lo = 1 - shift > 1 ? 1 - shift : 1, hi = 2046 - shift < 2046 ? 2046 - shift : 2046;
    int sub_ok = shift >= 0 && shift <= 2045;
    while (used) {
        int g = __builtin_ctzll(used);
        used &= used - 1;
        int e0 = (64 * g) & 2047, e1 = e0 + 63;
        if (e0 >= lo && e1 <= hi)
            continue;
        for (int k = 64 * g; k < 64 * g + 64; k++) {
            int e = k & 2047;
            if (bins[k] && !(e ? e >= lo && e <= hi : sub_ok))
                return 0;
        }
    }
    return 1;
}

void xs_bins_move2(uint64_t *bins, uint64_t used, int shift, xs_acc *pos, xs_acc *neg,
                   xs_acc *spos, xs_acc *sneg)
{
    while (used) {
        int g = __builtin_ctzll(used);
        used &= used - 1;
        if (group_empty(bins + 64 * g))
            continue;
        for (int k = 64 * g; k < 64 * g + 64; k++) {
            if (!bins[k])
                continue;
            int neg_bin = k >= 2048;
            unsigned p = bin_position(k);
            xs_add_wide(neg_bin ? neg : pos, bins[k], p);
            xs_add_wide(neg_bin ? sneg : spos, bins[k], (unsigned)((int)p + shift));
            bins[k] = 0;
        }
    }
    xs_normalize_soon(pos);
    xs_normalize_soon(neg);
    xs_normalize_soon(spos);
    xs_normalize_soon(sneg);
}

void xs_bins_zero(uint64_t *bins, uint64_t used)
{
    while (used) {
        int g = __builtin_ctzll(used);
        used &= used - 1;
        memset(bins + 64 * g, 0, 64 * sizeof *bins);
    }
}

void xs_merge(xs_acc *a, const xs_acc *b)
{
    xs_acc t = *b;
    xs_normalize(&t);
    xs_normalize(a);
    for (int k = 0; k < XS_DIGITS; k++)
        a->d[k] += t.d[k];
    a->inf += t.inf;
    xs_normalize(a);
}

/* Round the non-negative normalised digits d to the nearest double. */
static double round_digits(const int64_t *d)
{
    int top = XS_DIGITS - 1;
    while (top >= 0 && d[top] == 0)
        top--;
    if (top < 0)
        return 0.0;
    /* The top three digits hold at least 65 bits: 53 kept, the round bit
     * and more; any digit below them only decides ties (sticky). */
    unsigned __int128 v = 0;
    for (int k = top; k >= top - 2; k--)
        v = (v << 32) | (uint64_t)(k >= 0 ? d[k] : 0);
    int base = 32 * (top - 2); /* bit position of v's bit 0 */
    int sticky = 0;
    for (int k = top - 3; k >= 0 && !sticky; k--)
        sticky = d[k] != 0;
    int nbits = 0;
    for (unsigned __int128 x = v; x; x >>= 1)
        nbits++;
    if (nbits <= 53) /* exact (then nothing lies below: base <= 0) */
        return ldexp((double)(uint64_t)v, base - 1074);
    int shift = nbits - 53;
    uint64_t m = (uint64_t)(v >> shift);
    unsigned __int128 rem = v & (((unsigned __int128)1 << shift) - 1);
    unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
    if (rem > half || (rem == half && (sticky || (m & 1))))
        m++;
    return ldexp((double)m, base + shift - 1074);
}

double xs_round(const xs_acc *pos, const xs_acc *neg, int sign)
{
    if (pos->inf || neg->inf) {
        if (sign > 0)
            return INFINITY;
        return pos->inf && neg->inf ? NAN : pos->inf ? INFINITY : -INFINITY;
    }
    xs_acc a = *pos, b = *neg;
    xs_normalize(&a);
    xs_normalize(&b);
    for (int k = 0; k < XS_DIGITS; k++)
        a.d[k] += sign > 0 ? b.d[k] : -b.d[k];
    xs_normalize(&a);
    if (a.d[XS_DIGITS - 1] >= 0)
        return round_digits(a.d);
    /* Negative: round the magnitude neg - pos. */
    for (int k = 0; k < XS_DIGITS; k++)
        a.d[k] = -a.d[k];
    xs_normalize(&a);
    return -round_digits(a.d);
}
