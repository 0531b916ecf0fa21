/* snapkit/util/atomicfile.h - write a file completely or not at all.
 *
 * Data goes to a temporary file in the target's folder (unnamed where the
 * filesystem allows, so not even SIGKILL leaves it behind); commit flushes
 * it to disk and renames it over the target, so a crash, a full disk or an
 * abort never leaves a half-written file and never replaces a good file
 * with a bad one. A symbolic link is followed; a character device, a FIFO
 * or "-" (standard output) is written through at commit, all of the data or
 * none; a folder, a socket or a read-only file is refused. A replaced file
 * keeps its mode (and owner, where permitted).
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_ATOMICFILE_H
#define SNAPKIT_ATOMICFILE_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>
#include "snapkit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_atomic_file sk_atomic_file;

/* Check the target and create the temporary file. */
SK_API int sk_atomic_open(sk_atomic_file **out, const char *path, sk_error *err);
/* Append n bytes. */
SK_API int sk_atomic_write(sk_atomic_file *f, const void *data, size_t n, sk_error *err);
/* Write n bytes at offset (positioned; for writers that fill in parallel). */
SK_API int sk_atomic_pwrite(sk_atomic_file *f, const void *data, size_t n, int64_t offset,
                            sk_error *err);
/* Flush, fsync, rename over the target, and free f (also on failure, in
 * which case the temporary file is removed and the target left untouched). */
SK_API int sk_atomic_commit(sk_atomic_file *f, sk_error *err);
/* Remove the temporary file and free f. NULL is allowed. */
SK_API void sk_atomic_abort(sk_atomic_file *f);

/* Several files as one: between sk_atomic_batch_begin and _end on one
 * thread, sk_atomic_commit flushes and names each file beside its target
 * but renames none; sk_atomic_batch_end(b, 1) then renames them all, and
 * sk_atomic_batch_end(b, 0) (or a failed rename) removes them all. So a
 * command writing several outputs replaces all of them or none. Batches
 * do not nest; a batch belongs to the thread that began it. */
typedef struct sk_atomic_batch {
    int n, cap;
    char **tmp, **path;
} sk_atomic_batch;
SK_API void sk_atomic_batch_begin(sk_atomic_batch *b);
/* Commit (keep != 0) or discard the batch; SK_OK, or the first rename's
 * error (the files renamed before it stay renamed). */
SK_API int sk_atomic_batch_end(sk_atomic_batch *b, int keep, sk_error *err);

/* Remove every named temporary file sk_atomic (or an MPI convert's
 * .NAME.mpi-part) has made and not yet renamed or removed: the files a
 * batch holds before its end, and those made where the filesystem has no
 * unnamed files. Async-signal-safe, for a program's handler of SIGINT,
 * SIGTERM or SIGHUP to call before the program dies (the snapkit command
 * does), so that an interrupted run leaves no temporary behind. */
SK_API void sk_atomic_remove_pending(void);

#ifdef __cplusplus
}
#endif
#endif
