/* snapkit/util/npy.h - NumPy .npy files (format version 1.0), written atomically.
 *
 * The header dict is padded so that the data starts on a 64-byte boundary;
 * the data is written as it is in memory (little-endian machines only).
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_NPY_H
#define SNAPKIT_NPY_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write an array of ndim (1..4) dimensions `shape`, C order, of elements
 * `descr` ("<f8", "<i4", ...) each `elem_size` bytes, from data. */
SK_API int sk_npy_write(const char *path, const char *descr, size_t elem_size, const int64_t *shape,
                        int ndim, const void *data, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
