/* Inside the library: the parts of sk_atomic (snapkit/util/atomicfile.h)
 * that only the library's writers use: the append position, taking bytes
 * back, the descriptor, the fsync at commit, and how files written through
 * sk_atomic reach the disk when their writer has no sk_atomic_file of its
 * own to set (maps written through the npy writer, a PNG's sidecar). */
#ifndef SNAPKIT_CORE_ATOMICFILE_H
#define SNAPKIT_CORE_ATOMICFILE_H

#include <stdint.h>

#include "snapkit/util/atomicfile.h"

/* Bytes appended so far (the append position). */
int64_t sk_atomic_tell(const sk_atomic_file *f);

/* Drop every byte from `size` on (size <= the append position), which
 * becomes the append position: a writer takes back what it appended. */
int sk_atomic_truncate(sk_atomic_file *f, int64_t size, sk_error *err);

/* The temporary file's descriptor. */
int sk_atomic_fd(const sk_atomic_file *f);

/* A name for the temporary file, for a writer that opens files by name
 * (libhdf5): the unnamed file is linked beside the target (a stream's in
 * the temporary folder) and tracked, as where the filesystem has no
 * unnamed files; *name stays valid until commit or abort. */
int atomic_name(sk_atomic_file *f, const char **name, sk_error *err);

/* Skip (on == 0) or make (the default) the fsync at commit: the rename
 * stays atomic either way; without it a power cut may leave the old file
 * or an empty one under the name. */
void sk_atomic_set_fsync(sk_atomic_file *f, int on);

/* Files opened on this thread from now on flush before their rename
 * (on = 1, the default) or not; returns the previous setting. */
int atomic_scope_fsync(int on);

/* Named temporary files that exist now (pending.c): a writer tracks the
 * name it creates beside its target and untracks it before the rename or
 * unlink, so that sk_atomic_remove_pending (a signal handler's call)
 * removes what an interrupted run would leave. */
void atomic_track(const char *path);
void atomic_untrack(const char *path);

#endif
