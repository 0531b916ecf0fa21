/* The number functions as the rest of the library calls them. */
#ifndef SNAPKIT_CORE_NUMBER_CALLS_H
#define SNAPKIT_CORE_NUMBER_CALLS_H

#include <stdint.h>

/* Hidden twins of sk_parse_double, sk_format_double and sk_parse_int64
 * (the public names are aliases of these): calls from inside the shared
 * library go straight to them instead of through the PLT, which matters
 * when the atom readers and writers call them for every number. */
#define SK_HIDDEN __attribute__((visibility("hidden")))
int number_parse_double(const char *s, const char *end, double *out, const char **stop) SK_HIDDEN;
int number_format_double(double v, char *buf) SK_HIDDEN;
int number_parse_int64(const char *s, const char *end, int64_t *out, const char **stop) SK_HIDDEN;
/* Did parsing [s, stop) lose the value: 1 when it overflowed to +-inf
 * (the text is not "inf"), -1 when a nonzero value underflowed to zero
 * (a subnormal result is exact enough and counts as kept), else 0. */
int number_range_lost(const char *s, const char *stop, double v) SK_HIDDEN;

#endif
