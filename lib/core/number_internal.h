/* Pieces shared by number_parse.c, number_exact.c, number_format.c and
 * their tests: 128-bit arithmetic, the powers-of-five table, log helpers. */
#ifndef SNAPKIT_CORE_NUMBER_INTERNAL_H
#define SNAPKIT_CORE_NUMBER_INTERNAL_H

#include <stdint.h>

__extension__ typedef unsigned __int128 sk_u128;

#include "core/pow5_table.h"

#include "core/number_calls.h"

/* T(q) of the table as one 128-bit integer; s(q) is k_pow5[...].s. */
static inline sk_u128 sk_pow5_t(int q)
{
    return ((sk_u128)k_pow5[q - SK_POW5_MIN].hi << 64) | k_pow5[q - SK_POW5_MIN].lo;
}

static inline int sk_pow5_s(int q)
{
    return k_pow5[q - SK_POW5_MIN].s;
}

/* floor(q * log10(2)) and floor(q * log10(2) + log10(3/4)), for |q| <= 2000
 * (checked against long double in tests/c/test_number.c). */
static inline int sk_floor_log10_pow2(int q)
{
    return (int)(((int64_t)q * 661971961083LL) >> 41);
}

static inline int sk_floor_log10_three_quarters_pow2(int q)
{
    return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41);
}

/* A decimal number as scanned (number_parse.c). */
typedef struct number_decimal {
    const char *int_begin, *int_end;   /* integer digits */
    const char *frac_begin, *frac_end; /* fraction digits */
    int64_t exp10;                     /* the written exponent */
    uint64_t w;                        /* first 19 significant digits */
    int64_t q;                         /* value ~ w * 10^q */
    int truncated;                     /* more than 19 significant digits */
    int neg;
} number_decimal;

/* Its correctly rounded value by big-integer arithmetic (number_exact.c). */
double number_exact(const number_decimal *d);

#endif
