/* snapkit/util/clock.h - the clock the library measures its own durations
 * with (read, write, conversion and bench times): monotonic seconds.
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_UTIL_CLOCK_H
#define SNAPKIT_UTIL_CLOCK_H

#include "snapkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on the monotonic clock (CLOCK_MONOTONIC). */
SK_API double sk_monotonic_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
