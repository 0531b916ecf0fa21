/* snapkit/util/thp.h - the kernel's transparent huge page settings, which
 * the large-block allocator follows and the benchmarks report.
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_UTIL_THP_H
#define SNAPKIT_UTIL_THP_H

#include "snapkit/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The [bracketed] word of a /sys THP file ("always [madvise] never")
 * into mode (n bytes); 0 when it cannot be read. */
SK_API int sk_thp_mode(const char *path, char *mode, size_t n);

#ifdef __cplusplus
}
#endif

#endif
