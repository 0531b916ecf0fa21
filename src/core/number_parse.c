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
 * 3. Exact: big-integer arithmetic on (up to) 800 significant digits,
 *    for halfway cases, subnormals and huge exponents.
 * The grammar is strtod's decimal one (no hex floats), in any locale.
 */
#include <float.h>
#include <string.h>

#include "core/number_internal.h"
#include "snapkit/number.h"

#define MAX_EXACT_DIGITS 800

typedef struct decimal {
    const char *int_begin, *int_end;   /* integer digits */
    const char *frac_begin, *frac_end; /* fraction digits */
    int64_t exp10;                     /* the written exponent */
    uint64_t w;                        /* first 19 significant digits */
    int64_t q;                         /* value ~ w * 10^q */
    int truncated;                     /* more than 19 significant digits */
    int neg;
} decimal;

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
static const char *take_digits(const char *p, const char *end, decimal *d, int *nsig,
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

/* Scan the decimal grammar at s; returns the end or NULL when no number. */
static const char *scan_decimal(const char *s, const char *end, decimal *d)
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
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *e = p + 1;
        int eneg = 0;
        if (e < end && (*e == '-' || *e == '+'))
            eneg = *e++ == '-';
        if (e < end && is_digit(*e)) {
            int64_t x = 0;
            for (; e < end && is_digit(*e); e++)
                if (x < 100000000)
                    x = x * 10 + (*e - '0');
            d->exp10 = eneg ? -x : x;
            p = e;
        }
    }
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

/* ---- path 3: exact -------------------------------------------------- */

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

static double exact_value(const decimal *d)
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
    decimal d;
    const char *p = scan_decimal(s, end, &d);
    double v, above;
    if (!d.truncated) {
        if (!fast_value(d.w, d.q, &v))
            v = exact_value(&d);
        else if (d.neg)
            v = -v;
    } else if (fast_value(d.w, d.q, &v) && fast_value(d.w + 1, d.q, &above) && v == above) {
        v = d.neg ? -v : v; /* the value lies strictly between, so rounds alike */
    } else {
        v = exact_value(&d);
    }
    *out = v;
    return p;
}

int sk_parse_double(const char *s, const char *end, double *out, const char **stop)
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
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *e = p + 1;
        int eneg = 0;
        if (e < end && (*e == '-' || *e == '+'))
            eneg = *e++ == '-';
        if (e < end && is_digit(*e)) {
            int64_t x = 0;
            for (; e < end && is_digit(*e); e++)
                if (x < 100000000)
                    x = x * 10 + (*e - '0');
            q += eneg ? -x : x;
            p = e;
        }
    }
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
