/* Correctly rounded decimal -> double.
 *
 * Three paths, fastest first:
 * 1. Clinger: up to 2^53 as significand and |exponent| <= 22, one IEEE
 *    multiplication or division of two exact doubles rounds correctly.
 * 2. Eisel-Lemire style: multiply the normalised 64-bit significand by a
 *    128-bit truncation of 5^q (core/pow5_table.h). The true product lies in
 *    a small interval above the computed one; if both ends of the interval
 *    round to the same double, that double is the answer. A second 64-bit
 *    product narrows the interval when the first is not enough.
 * 3. Exact: big-integer arithmetic (number_exact.c) for halfway cases,
 *    subnormals and huge exponents.
 * The grammar is strtod's decimal one (no hex floats), in any locale.
 */
#include <math.h>
#include <float.h>
#include <string.h>

#include "core/number_internal.h"
#include "snapkit/util/number.h"

static double from_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static int is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* Eight ASCII digits at p as a number, or -1 when they are not all digits.
 * Little-endian SWAR: byte 0 is the most significant digit. */
static int64_t eight_digits(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t d = v - 0x3030303030303030u;
    /* every byte in '0'..'9': no borrow below '0', nothing above 9 */
    if (((v & 0xF0F0F0F0F0F0F0F0u) | (((v + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) !=
        0x3333333333333333u)
        return -1;
    d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFu;    /* 4 lanes of 2 digits */
    d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFu;  /* 2 lanes of 4 digits */
    return (int64_t)((d & 0xFFFFFFFFu) * 10000 + (d >> 32));
#else
    int64_t v = 0;
    for (int i = 0; i < 8; i++) {
        if (!is_digit(p[i]))
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
#endif
}

/* Append the digits of [p, end) to the 19-digit significand, counting
 * significant digits (leading zeros of the number are not significant). */
static const char *take_digits(const char *p, const char *end, number_decimal *d, int *nsig,
                               int64_t *dropped)
{
    while (*nsig == 0 && p < end && *p == '0')
        p++;
    while (p + 8 <= end && *nsig + 8 <= 19) {
        int64_t eight = eight_digits(p);
        if (eight < 0)
            break;
        d->w = d->w * 100000000u + (uint64_t)eight;
        *nsig += 8;
        p += 8;
    }
    for (; p < end; p++) {
        if (*nsig < 19) {
            d->w = d->w * 10 + (uint64_t)(*p - '0');
            (*nsig)++;
        } else {
            if (*p != '0')
                d->truncated = 1;
            (*dropped)++;
        }
    }
    return p;
}

static const char *scan_digits(const char *p, const char *end)
{
    while (p + 8 <= end && eight_digits(p) >= 0)
        p += 8;
    while (p < end && is_digit(*p))
        p++;
    return p;
}

/* The exponent "e[+-]digits" at p (its size capped near 1e8: far past
 * any double) into *exp10, and the end of it; without one (or with no
 * digit after the 'e'), *exp10 = 0 and p. */
static const char *scan_exponent(const char *p, const char *end, int64_t *exp10)
{
    *exp10 = 0;
    if (p >= end || (*p != 'e' && *p != 'E'))
        return p;
    const char *e = p + 1;
    int neg = 0;
    if (e < end && (*e == '-' || *e == '+'))
        neg = *e++ == '-';
    if (e >= end || !is_digit(*e))
        return p;
    int64_t x = 0;
    for (; e < end && is_digit(*e); e++)
        if (x < 100000000)
            x = x * 10 + (*e - '0');
    *exp10 = neg ? -x : x;
    return e;
}

/* Scan the decimal grammar at s; returns the end or NULL when no number. */
static const char *scan_decimal(const char *s, const char *end, number_decimal *d)
{
    const char *p = s;
    memset(d, 0, sizeof *d);
    if (p < end && (*p == '-' || *p == '+'))
        d->neg = *p++ == '-';
    d->int_begin = p;
    p = scan_digits(p, end);
    d->int_end = p;
    d->frac_begin = d->frac_end = p;
    if (p < end && *p == '.') {
        d->frac_begin = p + 1;
        p = scan_digits(p + 1, end);
        d->frac_end = p;
    }
    if (d->int_end == d->int_begin && d->frac_end == d->frac_begin)
        return NULL;
    p = scan_exponent(p, end, &d->exp10);
    int nsig = 0;
    int64_t dropped = 0;
    take_digits(d->int_begin, d->int_end, d, &nsig, &dropped);
    int64_t int_dropped = dropped;
    /* fraction digits count as significant only after the first non-zero */
    const char *f = d->frac_begin;
    int64_t lead = 0;
    if (nsig == 0)
        for (; f < d->frac_end && *f == '0'; f++)
            lead++;
    int before = nsig;
    take_digits(f, d->frac_end, d, &nsig, &dropped);
    int64_t frac_kept = (nsig - before);
    d->q = d->exp10 + int_dropped - lead - frac_kept;
    return p;
}

/* ---- path 1 and 2 ----------------------------------------------------- */

static const double k_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Round x * 2^e0 (2^126 <= x < 2^128) to 53 bits, ties to even; 0 when the
 * result would not be a normal double. */
static int round_normal(sk_u128 x, int e0, uint64_t *bits)
{
    int top = (int)(x >> 127) ? 127 : 126;
    int shift = top - 52;
    uint64_t m = (uint64_t)(x >> shift);
    sk_u128 rem = x & (((sk_u128)1 << shift) - 1);
    sk_u128 half = (sk_u128)1 << (shift - 1);
    if (rem > half || (rem == half && (m & 1)))
        m++;
    int exp = top + e0;
    if (m == (UINT64_C(1) << 53)) {
        m >>= 1;
        exp++;
    }
    int biased = exp + 1023;
    if (biased < 1 || biased > 2046)
        return 0;
    *bits = ((uint64_t)biased << 52) | (m & ((UINT64_C(1) << 52) - 1));
    return 1;
}

/* w * 10^q for w != 0 when the interval test decides it; 0 otherwise. */
static int lemire(uint64_t w, int64_t q, uint64_t *bits)
{
    if (q < SK_POW5_MIN || q > 308)
        return 0;
    int l = __builtin_clzll(w);
    uint64_t wn = w << l;
    int qi = (int)q;
    uint64_t thi = k_pow5[qi - SK_POW5_MIN].hi, tlo = k_pow5[qi - SK_POW5_MIN].lo;
    int e0 = 64 + k_pow5[qi - SK_POW5_MIN].s + qi - l;
    /* value = V * 2^e0 with V in [z, z + 2^64 + 1). Both ends round alike
     * unless the bits of z.hi below the 53 kept ones sit just at or below
     * the halfway mark. */
    sk_u128 z = (sk_u128)wn * thi;
    uint64_t zh = (uint64_t)(z >> 64);
    int upper = (int)(zh >> 63);
    int below = 10 + upper; /* bits of zh under the 53 kept */
    uint64_t low = zh & ((UINT64_C(1) << below) - 1);
    uint64_t half = UINT64_C(1) << (below - 1);
    if (low + 1 < half || low > half) {
        uint64_t m = (zh >> below) + (low > half);
        int exp = 126 + upper + e0;
        if (m == (UINT64_C(1) << 53)) {
            m >>= 1;
            exp++;
        }
        if (exp + 1023 < 1 || exp + 1023 > 2046)
            return 0;
        *bits = ((uint64_t)(exp + 1023) << 52) | (m & ((UINT64_C(1) << 52) - 1));
        return 1;
    }
    uint64_t lo_bits, hi_bits;
    /* with the low half of T: V in [a, a + 2) */
    sk_u128 a = z + (((sk_u128)wn * tlo) >> 64);
    if (a < z || a + 2 < a)
        return 0;
    if (round_normal(a, e0, &lo_bits) && round_normal(a + 2, e0, &hi_bits) &&
        lo_bits == hi_bits) {
        *bits = lo_bits;
        return 1;
    }
    return 0;
}

static int fast_value(uint64_t w, int64_t q, double *out)
{
    if (w == 0) {
        *out = 0.0;
        return 1;
    }
#if FLT_EVAL_METHOD == 0 /* one IEEE double rounding per operation */
    if (w <= (UINT64_C(1) << 53) && q >= -22 && q <= 22) {
        double v = (double)w;
        *out = q < 0 ? v / k_pow10[-q] : v * k_pow10[q];
        return 1;
    }
#endif
    uint64_t bits;
    if (!lemire(w, q, &bits))
        return 0;
    *out = from_bits(bits);
    return 1;
}

/* ---- inf and nan ----------------------------------------------------- */

static int match_word(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != word[i])
            return 0;
    return 1;
}

static const char *scan_special(const char *p, const char *end, int neg, double *out)
{
    if (match_word(p, end, "inf")) {
        *out = from_bits(((uint64_t)neg << 63) | UINT64_C(0x7ff0000000000000));
        return p + (match_word(p, end, "infinity") ? 8 : 3);
    }
    if (match_word(p, end, "nan")) {
        *out = from_bits(((uint64_t)neg << 63) | UINT64_C(0x7ff8000000000000));
        const char *q = p + 3;
        if (q < end && *q == '(') { /* nan(n-char-sequence) */
            const char *r = q + 1;
            while (r < end && (is_digit(*r) || ((*r | 0x20) >= 'a' && (*r | 0x20) <= 'z') || *r == '_'))
                r++;
            if (r < end && *r == ')')
                q = r + 1;
        }
        return q;
    }
    return NULL;
}

static const uint64_t k_pow10_u64[9] = {1,      10,      100,      1000,     10000,
                                         100000, 1000000, 10000000, 100000000};

/* Digits of [p, end) appended to *w (mod 2^64); returns the first non-digit.
 * Eight bytes at a time: find where the digits stop, shift those digits to
 * the low end of the number (the bytes before them become leading zeros)
 * and convert. */
static const char *accumulate(const char *p, const char *end, uint64_t *w)
{
    uint64_t v = *w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (p + 8 <= end) {
        uint64_t raw;
        memcpy(&raw, p, 8);
        uint64_t t = raw ^ 0x3030303030303030u; /* digits become 0..9 */
        uint64_t above9 = (((t & 0x7F7F7F7F7F7F7F7Fu) + 0x7676767676767676u) | t) &
                          0x8080808080808080u;
        int n = above9 ? __builtin_ctzll(above9) >> 3 : 8;
        if (n == 0)
            break;
        uint64_t d = t << (8 * (8 - n));
        d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFu;
        d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFu;
        v = v * k_pow10_u64[n] + ((d & 0xFFFFFFFFu) * 10000 + (d >> 32));
        p += n;
        if (n < 8) {
            *w = v;
            return p;
        }
    }
#endif
    for (; p < end && is_digit(*p); p++)
        v = v * 10 + (uint64_t)(*p - '0');
    *w = v;
    return p;
}

static int parse_special(const char *s, const char *end, double *out, const char **stop)
{
    const char *q = s;
    int neg = 0;
    if (q < end && (*q == '-' || *q == '+'))
        neg = *q++ == '-';
    const char *p = scan_special(q, end, neg, out);
    if (!p)
        return 0;
    if (stop)
        *stop = p;
    return 1;
}

/* Numbers of more than 19 significant digits. */
static const char *parse_long(const char *s, const char *end, double *out)
{
    number_decimal d;
    const char *p = scan_decimal(s, end, &d);
    double v, above;
    if (!d.truncated) {
        if (!fast_value(d.w, d.q, &v))
            v = number_exact(&d);
        else if (d.neg)
            v = -v;
    } else if (fast_value(d.w, d.q, &v) && fast_value(d.w + 1, d.q, &above) && v == above) {
        v = d.neg ? -v : v; /* the value lies strictly between, so rounds alike */
    } else {
        v = number_exact(&d);
    }
    *out = v;
    return p;
}

int number_parse_double(const char *s, const char *end, double *out, const char **stop)
{
    const char *p = s;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    const char *first = p;
    while (p < end && *p == '0')
        p++;
    const char *sig = p;
    uint64_t w = 0;
    p = accumulate(p, end, &w);
    int64_t ndigits = p - sig, q = 0;
    int any = p > first;
    if (p < end && *p == '.') {
        const char *frac = ++p;
        if (ndigits == 0)
            while (p < end && *p == '0')
                p++;
        const char *fsig = p;
        p = accumulate(p, end, &w);
        ndigits += p - fsig;
        q = -(int64_t)(p - frac);
        any |= p > frac;
    }
    if (!any)
        return parse_special(s, end, out, stop);
    int64_t exp10;
    p = scan_exponent(p, end, &exp10);
    q += exp10;
    double v;
    if (ndigits > 19)
        p = parse_long(s, end, &v);
    else if (fast_value(w, q, &v))
        v = neg ? -v : v;
    else
        parse_long(s, end, &v);
    *out = v;
    if (stop)
        *stop = p;
    return 1;
}

int sk_parse_double(const char *s, const char *end, double *out, const char **stop)
    __attribute__((alias("number_parse_double")));

int number_range_lost(const char *s, const char *stop, double v)
{
    if (isinf(v)) {
        for (const char *p = s; p < stop; p++)
            if (*p == 'i' || *p == 'I')
                return 0; /* "inf" as written */
        return 1;
    }
    if (v != 0.0)
        return 0;
    /* Zero from a mantissa with a nonzero digit: the value underflowed. */
    for (const char *p = s; p < stop && *p != 'e' && *p != 'E'; p++)
        if (*p >= '1' && *p <= '9')
            return -1;
    return 0;
}
