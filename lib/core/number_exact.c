/* The exact path of decimal -> double: the value of up to 800 significant
 * digits (a non-zero digit beyond them only breaks ties, as no halfway
 * point between doubles needs more than 767) times a power of ten, as a
 * big integer product or a bit-by-bit big integer quotient, rounded once
 * to nearest, ties to even, subnormals and overflow included. Used only
 * when the fast paths of number_parse.c cannot decide. */
#include <string.h>

#include "core/number_internal.h"

#define MAX_EXACT_DIGITS 800

static double from_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}


#define BIG_LIMBS 100 /* 3200 bits: 801 digits times 2^64, or 5^1130 */

typedef struct big {
    uint32_t limb[BIG_LIMBS]; /* little-endian */
    int n;                    /* limbs in use; no leading zero limb */
} big;

static void big_trim(big *b)
{
    while (b->n > 0 && b->limb[b->n - 1] == 0)
        b->n--;
}

static void big_muladd(big *b, uint32_t mul, uint32_t add)
{
    uint64_t carry = add;
    for (int i = 0; i < b->n; i++) {
        uint64_t v = (uint64_t)b->limb[i] * mul + carry;
        b->limb[i] = (uint32_t)v;
        carry = v >> 32;
    }
    if (carry && b->n < BIG_LIMBS)
        b->limb[b->n++] = (uint32_t)carry;
}

static void big_mul_pow5(big *b, int64_t e)
{
    for (; e >= 13; e -= 13)
        big_muladd(b, 1220703125u, 0); /* 5^13 */
    static const uint32_t small[13] = {1,     5,      25,      125,      625,      3125,    15625,
                                       78125, 390625, 1953125, 9765625, 48828125, 244140625};
    if (e > 0)
        big_muladd(b, small[e], 0);
}

static int big_bits(const big *b)
{
    return b->n == 0 ? 0 : 32 * (b->n - 1) + 32 - __builtin_clz(b->limb[b->n - 1]);
}

static void big_shl(big *b, int bits)
{
    if (b->n == 0 || bits <= 0)
        return;
    int words = bits / 32, r = bits % 32;
    int n = b->n + words + 1;
    if (n > BIG_LIMBS)
        n = BIG_LIMBS;
    for (int i = n - 1; i >= 0; i--) {
        int src = i - words;
        uint64_t hi = src >= 0 && src < b->n ? b->limb[src] : 0;
        uint64_t lo = src - 1 >= 0 && src - 1 < b->n ? b->limb[src - 1] : 0;
        b->limb[i] = r ? (uint32_t)((hi << r) | (lo >> (32 - r))) : (uint32_t)hi;
    }
    b->n = n;
    big_trim(b);
}

static void big_shr1(big *b)
{
    for (int i = 0; i < b->n; i++)
        b->limb[i] = (b->limb[i] >> 1) | (i + 1 < b->n ? b->limb[i + 1] << 31 : 0);
    big_trim(b);
}

static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->limb[i] != b->limb[i])
            return a->limb[i] < b->limb[i] ? -1 : 1;
    return 0;
}

static void big_sub(big *a, const big *b) /* a >= b */
{
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t v = (int64_t)a->limb[i] - (i < b->n ? b->limb[i] : 0) - borrow;
        borrow = v < 0;
        a->limb[i] = (uint32_t)(v + (borrow << 32));
    }
    big_trim(a);
}

/* The top 64 bits of b, the exponent of their lowest bit, and whether any
 * bit below them is set. */
static uint64_t big_top64(const big *b, int *exp, int *sticky)
{
    int nb = big_bits(b);
    uint64_t top = 0;
    *sticky = 0;
    for (int bit = nb - 1; bit >= 0; bit--) {
        int set = (b->limb[bit / 32] >> (bit % 32)) & 1;
        if (bit >= nb - 64)
            top = (top << 1) | (uint64_t)set;
        else if (set) {
            *sticky = 1;
            break;
        }
    }
    *exp = nb > 64 ? nb - 64 : 0;
    return top;
}

/* Round (m + f) * 2^e, f in [0, 1) non-zero iff sticky, to a double. */
static double assemble(uint64_t m, int64_t e, int sticky, int neg)
{
    uint64_t sign = (uint64_t)neg << 63;
    int bl = 64 - __builtin_clzll(m);
    int64_t lead = bl - 1 + e; /* exponent of the leading bit */
    if (lead > 1023)
        return from_bits(sign | UINT64_C(0x7ff0000000000000));
    int64_t keep = lead >= -1022 ? 53 : 53 - (-1022 - lead);
    if (keep < 0)
        return from_bits(sign);
    int64_t drop = bl - keep;
    uint64_t kept, rem = 0, half = 1;
    if (drop <= 0) {
        kept = m << -drop; /* m is short only when exact (sticky == 0) */
    } else if (drop == 64) {
        kept = 0; /* the value is below the least subnormal */
        rem = m;
        half = UINT64_C(1) << 63;
    } else {
        kept = m >> drop;
        rem = m & ((UINT64_C(1) << drop) - 1);
        half = UINT64_C(1) << (drop - 1);
    }
    if (rem > half || (rem == half && (sticky || (kept & 1))))
        kept++;
    if (lead < -1022)
        return from_bits(sign | kept); /* subnormal; a carry to 2^52 gives the least normal */
    if (kept == (UINT64_C(1) << 53)) {
        kept >>= 1;
        lead++;
        if (lead > 1023)
            return from_bits(sign | UINT64_C(0x7ff0000000000000));
    }
    return from_bits(sign | ((uint64_t)(lead + 1023) << 52) | (kept & ((UINT64_C(1) << 52) - 1)));
}

/* Feed the significant digits of [p, end) into b, at most `room` more. */
static void big_digits(big *b, const char *p, const char *end, int *ndig, int *tail_nonzero)
{
    uint32_t chunk = 0, scale = 1;
    for (; p < end; p++) {
        if (*ndig == 0 && *p == '0')
            continue;
        if (*ndig >= MAX_EXACT_DIGITS) {
            if (*p != '0')
                *tail_nonzero = 1;
            continue;
        }
        chunk = chunk * 10 + (uint32_t)(*p - '0');
        scale *= 10;
        (*ndig)++;
        if (scale == 1000000000u) {
            big_muladd(b, scale, chunk);
            chunk = 0;
            scale = 1;
        }
    }
    if (scale > 1)
        big_muladd(b, scale, chunk);
}

double number_exact(const number_decimal *d)
{
    big num = {{0}, 1};
    int ndig = 0, tail = 0;
    big_digits(&num, d->int_begin, d->int_end, &ndig, &tail);
    int64_t int_digits_total = d->int_end - d->int_begin;
    int int_kept = ndig;
    big_digits(&num, d->frac_begin, d->frac_end, &ndig, &tail);
    big_trim(&num);
    if (num.n == 0)
        return from_bits((uint64_t)d->neg << 63);
    /* value = num * 10^q10 */
    int64_t lead_zeros_int = 0;
    for (const char *p = d->int_begin; p < d->int_end && *p == '0'; p++)
        lead_zeros_int++;
    int64_t frac_lead = 0;
    if (int_kept == 0)
        for (const char *p = d->frac_begin; p < d->frac_end && *p == '0'; p++)
            frac_lead++;
    int64_t int_sig = int_digits_total - lead_zeros_int; /* significant integer digits */
    int64_t q10 = d->exp10 + int_sig - frac_lead - ndig;
    if (tail) { /* a non-zero digit beyond the kept ones: never a tie */
        big_muladd(&num, 10, 1);
        ndig++;
        q10--;
    }
    int64_t lead10 = q10 + ndig - 1;
    if (lead10 > 309)
        return from_bits(((uint64_t)d->neg << 63) | UINT64_C(0x7ff0000000000000));
    if (lead10 < -326)
        return from_bits((uint64_t)d->neg << 63);
    int e, sticky;
    if (q10 >= 0) {
        big_mul_pow5(&num, q10);
        uint64_t top = big_top64(&num, &e, &sticky);
        return assemble(top, e + q10, sticky, d->neg);
    }
    big den = {{1}, 1};
    big_mul_pow5(&den, -q10);
    int k = 63 - big_bits(&num) + big_bits(&den); /* quotient in [2^62, 2^64) */
    if (k > 0)
        big_shl(&num, k);
    else
        big_shl(&den, -k);
    big_shl(&den, 63);
    uint64_t quot = 0;
    for (int bit = 63; bit >= 0; bit--) {
        if (big_cmp(&num, &den) >= 0) {
            big_sub(&num, &den);
            quot |= UINT64_C(1) << bit;
        }
        big_shr1(&den);
    }
    return assemble(quot, q10 - k, num.n != 0, d->neg);
}

