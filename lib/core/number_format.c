/* Shortest round-trip double -> decimal, after Giulietti's Schubfach idea.
 *
 * A double v = c * 2^q rounds back from every real in its rounding interval
 * R = [(c - 1/2) 2^q, (c + 1/2) 2^q] (a quarter below when c is a power of
 * two; the ends belong to R when c is even). Choose k with 10^k <= |R| <
 * 10^(k+1): R then holds at least one multiple of 10^k and at most one of
 * 10^(k+1). If it holds a multiple of 10^(k+1), that is the shortest
 * decimal; otherwise the shortest have the digits of floor(v / 10^k) or the
 * next integer, and we take the closer (ties to even).
 *
 * The ends of R and v itself are scaled by 10^-k with a 128-bit
 * overestimate g of 10^-k (the powers-of-five table plus one) and rounded
 * to odd: the integer part is exact, and the lowest bit records whether
 * anything was cut off, which keeps every comparison with the (even)
 * candidates 4s exact. The error of g stays far below the smallest
 * non-zero fraction these products can have (Giulietti's bound for 126-bit
 * g; this table carries 128 bits).
 */
#include <string.h>

#include "core/number_internal.h"
#include "snapkit/util/number.h"

static const char k_two_digits[200] = {
    '0', '0', '0', '1', '0', '2', '0', '3', '0', '4', '0', '5', '0', '6', '0', '7', '0', '8',
    '0', '9', '1', '0', '1', '1', '1', '2', '1', '3', '1', '4', '1', '5', '1', '6', '1', '7',
    '1', '8', '1', '9', '2', '0', '2', '1', '2', '2', '2', '3', '2', '4', '2', '5', '2', '6',
    '2', '7', '2', '8', '2', '9', '3', '0', '3', '1', '3', '2', '3', '3', '3', '4', '3', '5',
    '3', '6', '3', '7', '3', '8', '3', '9', '4', '0', '4', '1', '4', '2', '4', '3', '4', '4',
    '4', '5', '4', '6', '4', '7', '4', '8', '4', '9', '5', '0', '5', '1', '5', '2', '5', '3',
    '5', '4', '5', '5', '5', '6', '5', '7', '5', '8', '5', '9', '6', '0', '6', '1', '6', '2',
    '6', '3', '6', '4', '6', '5', '6', '6', '6', '7', '6', '8', '6', '9', '7', '0', '7', '1',
    '7', '2', '7', '3', '7', '4', '7', '5', '7', '6', '7', '7', '7', '8', '7', '9', '8', '0',
    '8', '1', '8', '2', '8', '3', '8', '4', '8', '5', '8', '6', '8', '7', '8', '8', '8', '9',
    '9', '0', '9', '1', '9', '2', '9', '3', '9', '4', '9', '5', '9', '6', '9', '7', '9', '8',
    '9', '9'};

/* floor(g * cp / 2^128), with the lowest bit set when bits 64..127 of the
 * product are not all zero (round to odd). Bits 0..63 hold only the error
 * of g and are ignored. */
static uint64_t round_to_odd(sk_u128 g, uint64_t cp)
{
    sk_u128 lo = (sk_u128)(uint64_t)g * cp;
    sk_u128 mid = (sk_u128)(uint64_t)(g >> 64) * cp + (lo >> 64);
    return (uint64_t)(mid >> 64) | ((uint64_t)mid != 0);
}

/* Shortest digits and exponent of a finite positive double's bits:
 * value = digits * 10^exp10, digits without trailing zeros. */
static void shortest(uint64_t bits, uint64_t *digits, int *exp10)
{
    int biased = (int)(bits >> 52);
    uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
    uint64_t c = biased ? fraction | (UINT64_C(1) << 52) : fraction;
    int q = biased ? biased - 1075 : -1074;

    /* Integers below 2^53: the integer itself is the shortest. */
    if (q <= 0 && q >= -52 && (c & ((UINT64_C(1) << -q) - 1)) == 0) {
        uint64_t n = c >> -q;
        int e = 0;
        while (n % 10 == 0) {
            n /= 10;
            e++;
        }
        *digits = n;
        *exp10 = e;
        return;
    }

    uint64_t out = c & 1;
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (fraction != 0 || biased <= 1) {
        cbl = cb - 2;
        k = sk_floor_log10_pow2(q);
    } else {
        cbl = cb - 1; /* the next double down is half as far */
        k = sk_floor_log10_three_quarters_pow2(q);
    }
    /* 10^-k ~ g * 2^(s - k); 4 v 10^-k = cb 2^q 10^-k ~ (cb << h) * g / 2^128 */
    sk_u128 g = sk_pow5_t(-k) + 1;
    int h = q + sk_pow5_s(-k) - k + 128;
    uint64_t vb = round_to_odd(g, cb << h);
    uint64_t vbl = round_to_odd(g, cbl << h);
    uint64_t vbr = round_to_odd(g, cbr << h);

    uint64_t s = vb >> 2;
    uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
    int upin = vbl + out <= sp10 << 2;
    int wpin = (tp10 << 2) + out <= vbr;
    uint64_t d;
    if (upin != wpin) {
        d = upin ? sp10 : tp10;
    } else {
        uint64_t t = s + 1;
        int uin = vbl + out <= s << 2;
        int win = (t << 2) + out <= vbr;
        if (uin != win) {
            d = uin ? s : t;
        } else {
            int64_t cmp = (int64_t)(vb - ((s + t) << 1));
            d = (cmp < 0 || (cmp == 0 && (s & 1) == 0)) ? s : t;
        }
    }
    while (d % 10 == 0) {
        d /= 10;
        k++;
    }
    *digits = d;
    *exp10 = k;
}

static const uint64_t k_pow10[20] = {1,
                                     10,
                                     100,
                                     1000,
                                     10000,
                                     100000,
                                     1000000,
                                     10000000,
                                     100000000,
                                     1000000000,
                                     10000000000,
                                     100000000000,
                                     1000000000000,
                                     10000000000000,
                                     100000000000000,
                                     1000000000000000,
                                     10000000000000000,
                                     100000000000000000,
                                     1000000000000000000,
                                     10000000000000000000u};

static int count_digits(uint64_t v)
{
    int n = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12; /* ~ log10(2^bits) */
    return n + (v >= k_pow10[n]);
}

/* The eight decimal digits of v < 10^8 at p, by halving lanes: 4+4 digits,
 * then 2+2 in each half, then 1+1 (exhaustively checked against printf). */
static void eight_digits(char *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x = (v / 10000) | ((uint64_t)(v % 10000) << 32);
    uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007F0000007Fu; /* x / 100 per lane */
    x = hundreds | ((x - 100 * hundreds) << 16);
    uint64_t tens = ((x * 103) >> 10) & 0x000F000F000F000Fu; /* x / 10 per lane */
    x = tens | ((x - 10 * tens) << 8);
    x += 0x3030303030303030u;
    memcpy(p, &x, 8);
#else
    for (int i = 7; i >= 0; i--, v /= 10)
        p[i] = (char)('0' + v % 10);
#endif
}

/* The digits of v < 10^24 right-aligned in tmp[24]. */
static void render(uint64_t v, char tmp[24])
{
    uint64_t hi = v / 100000000;
    eight_digits(tmp + 16, (uint32_t)(v % 100000000));
    eight_digits(tmp + 8, (uint32_t)(hi % 100000000));
    eight_digits(tmp, (uint32_t)(hi / 100000000));
}

int number_format_double(double v, char *buf)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    char *p = buf;
    if (bits >> 63)
        *p++ = '-';
    uint64_t mag = bits & ~(UINT64_C(1) << 63);
    if (mag >= UINT64_C(0x7ff0000000000000)) {
        if (mag > UINT64_C(0x7ff0000000000000)) {
            memcpy(buf, "nan", 4); /* no sign on nan */
            return 3;
        }
        memcpy(p, "inf", 4);
        return (int)(p - buf) + 3;
    }
    if (mag == 0) {
        memcpy(p, "0", 2);
        return (int)(p - buf) + 1;
    }
    uint64_t digits;
    int k;
    shortest(mag, &digits, &k);
    int n = count_digits(digits);
    char tmp[24];
    render(digits, tmp);
    const char *d = tmp + 24 - n;
    int lead = k + n - 1; /* exponent of the first digit */
    if (lead >= -4 && lead < 16) { /* as Python's repr */
        if (k >= 0) { /* integer: digits then zeros */
            memcpy(p, d, (size_t)n);
            memset(p + n, '0', (size_t)k);
            p += n + k;
        } else if (lead >= 0) { /* digits with the point inside */
            memcpy(p, d, (size_t)lead + 1);
            p[lead + 1] = '.';
            memcpy(p + lead + 2, d + lead + 1, (size_t)(n - lead - 1));
            p += n + 1;
        } else { /* 0.000ddd */
            int zeros = -lead - 1;
            p[0] = '0';
            p[1] = '.';
            memset(p + 2, '0', (size_t)zeros);
            memcpy(p + 2 + zeros, d, (size_t)n);
            p += 2 + zeros + n;
        }
    } else {
        *p++ = d[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)n - 1);
            p += n - 1;
        }
        *p++ = 'e';
        *p++ = lead < 0 ? '-' : '+';
        int e = lead < 0 ? -lead : lead;
        if (e >= 100) {
            *p++ = (char)('0' + e / 100);
            e %= 100;
        }
        memcpy(p, k_two_digits + 2 * e, 2);
        p += 2;
    }
    *p = '\0';
    return (int)(p - buf);
}

int sk_format_double(double v, char *buf) __attribute__((alias("number_format_double")));
