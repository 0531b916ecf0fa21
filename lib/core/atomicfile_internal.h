/* Inside the library: how files written through sk_atomic reach the disk
 * when their writer has no sk_atomic_file of its own to set (maps written
 * through the npy writer, a PNG's sidecar), and a count of the flushes for
 * tests. */
#ifndef SNAPKIT_ATOMICFILE_INTERNAL_H
#define SNAPKIT_ATOMICFILE_INTERNAL_H

#include <stdint.h>

/* Files opened on this thread from now on flush before their rename
 * (on = 1, the default) or not; returns the previous setting. */
int atomic_scope_fsync(int on);
/* fsync calls made by sk_atomic_commit in this process. */
int64_t atomic_fsync_calls(void);

#endif
