/* Sizes and durations as short text, for the bench module's reports. */
#ifndef SNAPKIT_BENCH_FORMAT_H
#define SNAPKIT_BENCH_FORMAT_H

#include <stddef.h>

/* "12.3 MB" style sizes and "1.23 s" / "456 ms" / "7.8 us" style times. */
const char *skb_bytes(double bytes, char *buf, size_t n);
const char *skb_seconds(double seconds, char *buf, size_t n);

#endif
