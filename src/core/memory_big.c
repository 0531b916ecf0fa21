/* Large blocks: their own mappings, huge pages where they come without
 * stalls, and a small cache of freed ones (memory_big.h).
 *
 * Huge pages. A first touch costs one fault per 4 KB page (11 us a page on
 * a machine of issue 13: 128 MB in 0.37 s); with MADV_HUGEPAGE one per
 * 2 MB when the kernel has huge pages free (0.012 s). But when the THP
 * defrag mode makes faults on madvised regions compact memory directly
 * ("always", "madvise", "defer+madvise"), a fault may stall for
 * milliseconds, as an earlier attempt did in projections. So the advice
 * is given only when the defrag mode is "defer" or "never" (no direct
 * compaction: a huge page when one is free, else small pages at once) and
 * THP is not "never". SNAPKIT_HUGEPAGES=1 gives it whatever the modes,
 * =0 never.
 *
 * Reuse. Freed regions are kept (at most CACHE_SLOTS, SNAPKIT_BLOCK_CACHE
 * megabytes in all, default 1024; 0 turns the cache off) and handed to an
 * allocation that fits in one without wasting more than a quarter of it.
 * Their pages stay mapped, so the next table's first touch is a second
 * touch. */
#include "memory_big.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define CACHE_SLOTS 16

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_huge;           /* give MADV_HUGEPAGE */
static size_t g_cache_limit; /* bytes the cache may keep */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *region;
    size_t cap;
} g_slots[CACHE_SLOTS];
static size_t g_cached;

/* The bracketed word of a /sys THP file ("always [madvise] never"). */
static int thp_mode(const char *path, char *mode, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[128] = "";
    int ok = f && fgets(line, sizeof line, f);
    if (f)
        fclose(f);
    char *a = ok ? strchr(line, '[') : NULL, *b = a ? strchr(a, ']') : NULL;
    if (!a || !b || (size_t)(b - a) >= n)
        return 0;
    memcpy(mode, a + 1, (size_t)(b - a - 1));
    mode[b - a - 1] = '\0';
    return 1;
}

static void setup(void)
{
    char enabled[32], defrag[32];
    const char *force = getenv("SNAPKIT_HUGEPAGES");
    if (force && *force)
        g_huge = atoi(force) != 0;
    else
        g_huge = thp_mode("/sys/kernel/mm/transparent_hugepage/enabled", enabled, sizeof enabled) &&
                 thp_mode("/sys/kernel/mm/transparent_hugepage/defrag", defrag, sizeof defrag) &&
                 strcmp(enabled, "never") != 0 &&
                 (!strcmp(defrag, "defer") || !strcmp(defrag, "never"));
    const char *mb = getenv("SNAPKIT_BLOCK_CACHE");
    long long limit = mb && *mb ? atoll(mb) : 1024;
    g_cache_limit = limit > 0 ? (size_t)limit << 20 : 0;
}

static void *map_new(size_t bytes, size_t *cap)
{
    /* Whole huge pages, starting on one, so that every 2 MB of the block
     * can be a huge page. */
    size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (len < bytes)
        return NULL;
    unsigned char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    size_t lead = (HUGE_PAGE - (uintptr_t)raw % HUGE_PAGE) % HUGE_PAGE;
    if (lead)
        munmap(raw, lead);
    munmap(raw + lead + len, HUGE_PAGE - lead);
#ifdef MADV_HUGEPAGE
    if (g_huge)
        madvise(raw + lead, len, MADV_HUGEPAGE);
#endif
    *cap = len;
    return raw + lead;
}

void *big_take(size_t bytes, size_t *cap, int *fresh)
{
    pthread_once(&g_once, setup);
    void *found = NULL;
    pthread_mutex_lock(&g_lock);
    int best = -1;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (g_slots[i].region && g_slots[i].cap >= bytes &&
            g_slots[i].cap - bytes <= g_slots[i].cap / 4 &&
            (best < 0 || g_slots[i].cap < g_slots[best].cap))
            best = i;
    if (best >= 0) {
        found = g_slots[best].region;
        *cap = g_slots[best].cap;
        g_cached -= *cap;
        g_slots[best].region = NULL;
    }
    pthread_mutex_unlock(&g_lock);
    *fresh = found == NULL;
    return found ? found : map_new(bytes, cap);
}

void big_give(void *region, size_t cap)
{
    pthread_once(&g_once, setup);
    pthread_mutex_lock(&g_lock);
    int slot = -1;
    for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
        if (!g_slots[i].region)
            slot = i;
    /* With every slot taken or the limit reached, back to the kernel. */
    if (slot >= 0 && g_cached + cap <= g_cache_limit) {
        g_slots[slot].region = region;
        g_slots[slot].cap = cap;
        g_cached += cap;
        region = NULL;
    }
    pthread_mutex_unlock(&g_lock);
    if (region)
        munmap(region, cap);
}
