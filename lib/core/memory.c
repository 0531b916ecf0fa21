/* Accounted allocation. Each block carries a 64-byte header holding its size
 * (and, for a large block of its own mapping, the mapping's length), which
 * keeps the payload 64-byte aligned and lets sk_free update the counters
 * without a lookup table. Large blocks: memory_big.c. */
#include "snapkit/memory.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "memory_big.h"

#define HEADER 64

static _Atomic uint64_t g_total, g_current, g_peak, g_calls;

static void account_add(size_t n)
{
    atomic_fetch_add_explicit(&g_total, n, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_calls, 1, memory_order_relaxed);
    uint64_t now = atomic_fetch_add_explicit(&g_current, n, memory_order_relaxed) + n;
    uint64_t peak = atomic_load_explicit(&g_peak, memory_order_relaxed);
    while (now > peak &&
           !atomic_compare_exchange_weak_explicit(&g_peak, &peak, now, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

static void account_sub(size_t n)
{
    atomic_fetch_sub_explicit(&g_current, n, memory_order_relaxed);
}

static unsigned char *header_of(const void *block)
{
    return (unsigned char *)block - HEADER;
}

/* A block of `size` bytes; *fresh: its bytes are known to be zero. */
static void *alloc(size_t size, int *fresh)
{
    if (size > SIZE_MAX - HEADER)
        return NULL;
    void *raw = NULL;
    size_t cap = 0;
    *fresh = 0;
    if (size >= SK_BIG_BLOCK) {
        raw = big_take(size + HEADER, &cap, fresh);
        if (!raw)
            return NULL;
    } else if (posix_memalign(&raw, HEADER, size + HEADER) != 0) {
        return NULL;
    }
    memcpy(raw, &size, sizeof size);
    memcpy((unsigned char *)raw + sizeof size, &cap, sizeof cap);
    account_add(size);
    return (unsigned char *)raw + HEADER;
}

void *sk_malloc(size_t size)
{
    int fresh;
    return alloc(size, &fresh);
}

void *sk_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    int fresh;
    void *p = alloc(count * size, &fresh);
    if (p && !fresh) /* a new mapping is zero: writing it would only fault it in */
        memset(p, 0, count * size);
    return p;
}

size_t sk_block_size(const void *block)
{
    size_t n = 0;
    if (block)
        memcpy(&n, header_of(block), sizeof n);
    return n;
}

void sk_free(void *block)
{
    if (!block)
        return;
    size_t cap;
    memcpy(&cap, header_of(block) + sizeof(size_t), sizeof cap);
    account_sub(sk_block_size(block));
    if (cap)
        big_give(header_of(block), cap);
    else
        free(header_of(block));
}

void *sk_realloc(void *block, size_t size)
{
    if (!block)
        return sk_malloc(size);
    size_t old = sk_block_size(block);
    if (size <= old && size >= old / 2) /* not worth moving */
        return block;
    void *fresh = sk_malloc(size);
    if (!fresh)
        return NULL;
    memcpy(fresh, block, old < size ? old : size);
    sk_free(block);
    return fresh;
}

char *sk_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = sk_malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

char *sk_strdup(const char *s)
{
    return sk_strndup(s, strlen(s));
}

void sk_mem_get(sk_mem_stats *out)
{
    out->total = atomic_load(&g_total);
    out->current = atomic_load(&g_current);
    out->peak = atomic_load(&g_peak);
    out->calls = atomic_load(&g_calls);
}

void sk_mem_reset_peak(void)
{
    atomic_store(&g_peak, atomic_load(&g_current));
}
