/* snapkit/util/number.h - exact number text: parse correctly rounded, print shortest.
 *
 * sk_format_double writes the shortest decimal that reads back to the same
 * double (at most 17 significant digits; of equally short ones the nearest);
 * sk_parse_double is correctly rounded (equal to strtod for every decimal
 * input). Both are locale independent and allocate nothing. Our own
 * implementations: Schubfach-style printing, Eisel-Lemire-style parsing with
 * an exact big-integer fallback (lib/core/number_*.c).
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_NUMBER_H
#define SNAPKIT_NUMBER_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer size that holds any sk_format_* output plus the terminating NUL. */
#define SK_NUMBER_BUFSIZE 32

/* Shortest round-trip text of v into buf (NUL-terminated); returns its length.
 * Plain notation when the first digit's exponent X is in -4..15, as Python's
 * repr ("0.1", "36.150000000000006", "100", "0.0001"), exponent notation
 * otherwise with a signed exponent of at least two digits ("1e-05",
 * "1e+16", "2.5e+300"). Integral values keep no decimal point; "-0" keeps
 * its sign; "nan", "inf", "-inf". Finite values are valid JSON numbers. */
SK_API int sk_format_double(double v, char *buf);

/* Decimal text of an integer; returns its length. */
SK_API int sk_format_int64(int64_t v, char *buf);

/* Parse a double from [s, end): optional sign, digits with an optional '.',
 * optional exponent; or inf, infinity, nan, nan(...) in any case. No leading
 * whitespace, no hexadecimal. On success returns 1 and sets *out and *stop
 * (first byte not used, may be NULL); returns 0 when no number starts at s.
 * Correctly rounded, ties to even; out-of-range values give +-inf or +-0. */
SK_API int sk_parse_double(const char *s, const char *end, double *out, const char **stop);

/* Parse a signed 64-bit integer; returns 0 on no digits or overflow. */
SK_API int sk_parse_int64(const char *s, const char *end, int64_t *out, const char **stop);

#ifdef __cplusplus
}
#endif
#endif
