/* snapkit/memory.h - allocation with accounting.
 *
 * Every byte the library allocates goes through these functions so that
 * benchmarks can report bytes allocated (total over the process) and the peak
 * held at once. Blocks are 64-byte aligned, which suits SIMD loops and keeps
 * threads writing neighbouring columns off each other's cache lines.
 * The counters are process-wide atomics: the only global state of the library.
 *
 * Blocks of 4 MB and more are mappings of their own. Where the kernel's
 * transparent huge pages come without direct compaction (THP defrag mode
 * "defer" or "never"), they are advised MADV_HUGEPAGE: one fault per 2 MB
 * instead of per 4 KB on first touch (SNAPKIT_HUGEPAGES=1 advises them
 * whatever the modes, =0 never). When freed they are kept, up to 16 blocks
 * and SNAPKIT_BLOCK_CACHE megabytes (default 1024; 0: none), for the next
 * large allocation they fit without wasting more than a quarter of them,
 * so a loop reading outputs of similar sizes touches its pages once. The
 * counters count blocks in use, not the ones kept.
 */
#ifndef SNAPKIT_MEMORY_H
#define SNAPKIT_MEMORY_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* malloc/calloc/realloc/free with accounting. sk_malloc(0) returns a valid
 * block. sk_free(NULL) does nothing. Blocks from these must be freed with
 * sk_free, never free(). */
SK_API void *sk_malloc(size_t size);
SK_API void *sk_calloc(size_t count, size_t size);
SK_API void *sk_realloc(void *block, size_t size);
SK_API void sk_free(void *block);
SK_API char *sk_strdup(const char *s);
SK_API char *sk_strndup(const char *s, size_t n);

/* Size a block was allocated with. */
SK_API size_t sk_block_size(const void *block);

typedef struct sk_mem_stats {
    uint64_t total;   /* bytes allocated since start (reallocs count the new size) */
    uint64_t current; /* bytes held now */
    uint64_t peak;    /* most bytes held at once since the last reset */
    uint64_t calls;   /* number of allocations */
} sk_mem_stats;

SK_API void sk_mem_get(sk_mem_stats *out);

/* Set peak to the current holding, so a later peak measures one operation. */
SK_API void sk_mem_reset_peak(void);

#ifdef __cplusplus
}
#endif
#endif
