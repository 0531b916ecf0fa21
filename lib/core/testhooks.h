/* Hooks for the tests, inside the library and not exported: tests that use
 * them link the static library. */
#ifndef SNAPKIT_CORE_TESTHOOKS_H
#define SNAPKIT_CORE_TESTHOOKS_H

#include <stdint.h>

#include "snapkit/util/atomicfile.h"

/* Make writes fail once more than `bytes` have been written, as a full
 * disk would (SK_ERR_IO, "No space left on device"). */
void sk_atomic_fail_after(sk_atomic_file *f, int64_t bytes);

/* fsync calls made by sk_atomic_commit in this process. */
int64_t atomic_fsync_calls(void);

#endif
