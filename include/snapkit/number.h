/* snapkit/number.h - exact number text: parse correctly rounded, print shortest.
 *
 * sk_format_double writes the shortest decimal that reads back to the same
 * double (at most 17 significant digits); sk_parse_double is correctly
 * rounded (equal to strtod for every input). Both are locale independent.
 */
#ifndef SNAPKIT_NUMBER_H
#define SNAPKIT_NUMBER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer size that holds any sk_format_* output plus the terminating NUL. */
#define SK_NUMBER_BUFSIZE 32

/* Shortest round-trip text of v into buf (NUL-terminated); returns its length.
 * Plain notation for moderate exponents ("0.1", "36.150000000000006",
 * "100"), exponent notation otherwise ("1e-07", "2.5e+300"); "nan", "inf",
 * "-inf", "-0". Integral values keep no decimal point. */
int sk_format_double(double v, char *buf);

/* Decimal text of an integer; returns its length. */
int sk_format_int64(int64_t v, char *buf);

/* Parse a double from [s, end): optional sign, digits, '.', exponent, or
 * inf/nan. On success returns 1 and sets *out and *stop (first byte not
 * used); returns 0 when no number starts at s. Correctly rounded. */
int sk_parse_double(const char *s, const char *end, double *out, const char **stop);

/* Parse a signed 64-bit integer; returns 0 on no digits or overflow. */
int sk_parse_int64(const char *s, const char *end, int64_t *out, const char **stop);

#ifdef __cplusplus
}
#endif
#endif
