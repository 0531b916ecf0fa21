/* Large blocks (memory.c's, at least SK_BIG_BLOCK bytes): mapped on their
 * own, with transparent huge pages where the kernel gives them without
 * stalling, and kept after sk_free for the next large allocation of about
 * the same size (a loop over outputs reads tables of the same sizes:
 * reusing their pages skips the kernel's first-touch faults). */
#ifndef SNAPKIT_MEMORY_BIG_H
#define SNAPKIT_MEMORY_BIG_H

#include <stddef.h>

#define SK_BIG_BLOCK ((size_t)4 << 20)

/* A region of at least `bytes` (header included), or NULL. *fresh: its
 * pages are new (zero) rather than reused. *cap: the region's length. */
void *big_take(size_t bytes, size_t *cap, int *fresh);
/* Give a region back: kept for reuse, or unmapped. */
void big_give(void *region, size_t cap);
/* Bytes free in blocks of 2 MB and more (with 4 KB pages, orders 9 and
 * up), summed over the zones of a /proc/buddyinfo text. */
size_t big_free_huge_bytes(const char *buddyinfo, size_t page);

#endif
