/* snapkit/atomicfile.h - write a file completely or not at all.
 *
 * Data goes to a temporary file in the target's folder; commit flushes it to
 * disk and renames it over the target, so a crash, a full disk or an abort
 * never leaves a half-written file and never replaces a good file with a bad
 * one.
 */
#ifndef SNAPKIT_ATOMICFILE_H
#define SNAPKIT_ATOMICFILE_H

#include <stddef.h>
#include <stdint.h>
#include "snapkit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_atomic_file sk_atomic_file;

/* Create the temporary file beside `path`. */
int sk_atomic_open(sk_atomic_file **out, const char *path, sk_error *err);
/* Append n bytes. */
int sk_atomic_write(sk_atomic_file *f, const void *data, size_t n, sk_error *err);
/* Write n bytes at offset (positioned; for writers that fill in parallel). */
int sk_atomic_pwrite(sk_atomic_file *f, const void *data, size_t n, int64_t offset,
                     sk_error *err);
/* Bytes appended so far (the append position). */
int64_t sk_atomic_tell(const sk_atomic_file *f);
/* The temporary file's descriptor. */
int sk_atomic_fd(const sk_atomic_file *f);
/* Flush, fsync, rename over the target, and free f (also on failure, in
 * which case the temporary file is removed and the target left untouched). */
int sk_atomic_commit(sk_atomic_file *f, sk_error *err);
/* Remove the temporary file and free f. NULL is allowed. */
void sk_atomic_abort(sk_atomic_file *f);

/* Testing hook: make writes fail once more than `bytes` have been written,
 * as a full disk would (SK_ERR_IO, "No space left on device"). */
void sk_atomic_fail_after(sk_atomic_file *f, int64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
