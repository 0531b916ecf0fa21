/* Large blocks: their own mappings, huge pages where they come without
 * stalls, and a small cache of freed ones (memory_big.h).
 *
 * Huge pages. A first touch costs one fault per 4 KB page (11 us a page on
 * a machine of issue 13: 128 MB in 0.37 s); with MADV_HUGEPAGE one per
 * 2 MB when the kernel has huge pages free (0.012 s). But when the THP
 * defrag mode makes faults on madvised regions compact memory directly
 * ("always", "madvise", "defer+madvise") and no 2 MB block is free, a
 * fault stalls while the kernel compacts (an earlier attempt met such
 * stalls in projections: first touch fell to 0.12-0.16 GB/s). So the
 * advice is given when the defrag mode never compacts in the fault
 * ("defer", "never"), or when /proc/buddyinfo shows free blocks of 2 MB
 * and more for at least HUGE_HEADROOM times the region: those faults take
 * a free block and compact nothing. The free figure is read again once
 * the regions advised since the last reading have used half of it. THP
 * "never" gives no advice. SNAPKIT_HUGEPAGES=1 gives it whatever the
 * modes, =0 never.
 *
 * Reuse. Freed regions are kept (at most CACHE_SLOTS, SNAPKIT_BLOCK_CACHE
 * megabytes in all, default 1024; 0 turns the cache off) and handed to an
 * allocation that fits in one without wasting more than a quarter of it
 * beyond the whole huge pages a new region would have (a 4.4 MB column
 * takes a 6 MB region, new or reused). When the slots or the megabytes
 * run out, the regions freed longest ago go back to the kernel first: a
 * loop over outputs frees and asks again for the sizes of its last table.
 * Their pages stay mapped, so the next table's first touch is a second
 * touch. */
#include "memory_big.h"
#include "snapkit/util/thp.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define CACHE_SLOTS 16

/* Free 2 MB blocks wanted per byte advised, when faults may compact. */
#define HUGE_HEADROOM 4

enum { HUGE_NEVER, HUGE_ALWAYS, HUGE_WHEN_FREE };
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_huge;           /* HUGE_NEVER, HUGE_ALWAYS or HUGE_WHEN_FREE */
static size_t g_huge_free;   /* HUGE_WHEN_FREE: free 2 MB blocks' bytes left to advise */
static size_t g_cache_limit; /* bytes the cache may keep */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *region;
    size_t cap;
    uint64_t freed;      /* when it was given back (g_tick) */
} g_slots[CACHE_SLOTS];
static size_t g_cached;
static uint64_t g_tick;

int sk_thp_mode(const char *path, char *mode, size_t n)
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

size_t big_free_huge_bytes(const char *buddyinfo, size_t page)
{
    size_t total = 0;
    int first = 0; /* the first order whose blocks hold a huge page */
    while (page && (page << first) < HUGE_PAGE)
        first++;
    for (const char *line = buddyinfo; line && *line;) {
        const char *zone = strstr(line, "zone");
        const char *end = strchr(line, '\n');
        if (zone && (!end || zone < end)) {
            char *at = (char *)zone + 4;
            while (*at == ' ')
                at++;
            while (*at && *at != ' ' && *at != '\n') /* the zone's name */
                at++;
            for (int order = 0; order <= 20; order++) {
                char *next;
                unsigned long long n = strtoull(at, &next, 10);
                if (next == at || (end && next > end))
                    break;
                if (order >= first)
                    total += (size_t)n * (page << order);
                at = next;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return total;
}

/* What /proc/buddyinfo says the kernel holds free in 2 MB blocks. */
static size_t read_free_huge(void)
{
    char text[8192];
    FILE *f = fopen("/proc/buddyinfo", "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    long page = sysconf(_SC_PAGESIZE);
    return big_free_huge_bytes(text, page > 0 ? (size_t)page : 4096);
}

static int huge_policy(void)
{
    char enabled[32], defrag[32];
    const char *force = getenv("SNAPKIT_HUGEPAGES");
    if (force && *force)
        return atoi(force) != 0 ? HUGE_ALWAYS : HUGE_NEVER;
    if (!sk_thp_mode("/sys/kernel/mm/transparent_hugepage/enabled", enabled, sizeof enabled) ||
        !sk_thp_mode("/sys/kernel/mm/transparent_hugepage/defrag", defrag, sizeof defrag) ||
        !strcmp(enabled, "never"))
        return HUGE_NEVER;
    return !strcmp(defrag, "defer") || !strcmp(defrag, "never") ? HUGE_ALWAYS : HUGE_WHEN_FREE;
}

/* Advise huge pages for a region of len bytes? Called with g_lock held. */
static int advise_huge(size_t len)
{
    if (g_huge != HUGE_WHEN_FREE)
        return g_huge == HUGE_ALWAYS;
    size_t need = HUGE_HEADROOM * len;
    if (g_huge_free < need) /* used up since the last reading: read again */
        g_huge_free = read_free_huge() / 2;
    if (g_huge_free < need)
        return 0;
    g_huge_free -= len;
    return 1;
}

static void setup(void)
{
    g_huge = huge_policy();
    const char *mb = getenv("SNAPKIT_BLOCK_CACHE");
    long long limit = mb && *mb ? atoll(mb) : 1024;
    g_cache_limit = limit > 0 ? (size_t)limit << 20 : 0;
}

/* Whole huge pages: the length of a new region for `bytes` (0 on overflow). */
static size_t region_length(size_t bytes)
{
    size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    return len < bytes ? 0 : len;
}

static void *map_new(size_t bytes, size_t *cap)
{
    /* Whole huge pages, starting on one, so that every 2 MB of the block
     * can be a huge page. */
    size_t len = region_length(bytes);
    if (!len)
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
    pthread_mutex_lock(&g_lock);
    int huge = advise_huge(len);
    pthread_mutex_unlock(&g_lock);
    if (huge)
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
    size_t len = region_length(bytes);
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (g_slots[i].region && g_slots[i].cap >= bytes &&
            (g_slots[i].cap <= len || g_slots[i].cap - len <= g_slots[i].cap / 4) &&
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

/* The slot of the region freed longest ago, or -1 when none is kept. */
static int oldest_slot(void)
{
    int old = -1;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (g_slots[i].region && (old < 0 || g_slots[i].freed < g_slots[old].freed))
            old = i;
    return old;
}

void big_give(void *region, size_t cap)
{
    pthread_once(&g_once, setup);
    void *evicted[CACHE_SLOTS];
    size_t evicted_cap[CACHE_SLOTS];
    int nevicted = 0;
    pthread_mutex_lock(&g_lock);
    if (cap <= g_cache_limit) {
        /* Room first: the oldest regions go while the slots or the limit are full. */
        int slot = -1;
        for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
            if (!g_slots[i].region)
                slot = i;
        while (slot < 0 || g_cached + cap > g_cache_limit) {
            int old = oldest_slot();
            evicted[nevicted] = g_slots[old].region;
            evicted_cap[nevicted++] = g_slots[old].cap;
            g_cached -= g_slots[old].cap;
            g_slots[old].region = NULL;
            slot = slot < 0 ? old : slot;
        }
        g_slots[slot].region = region;
        g_slots[slot].cap = cap;
        g_slots[slot].freed = ++g_tick;
        g_cached += cap;
        region = NULL;
    }
    pthread_mutex_unlock(&g_lock);
    for (int i = 0; i < nevicted; i++)
        munmap(evicted[i], evicted_cap[i]);
    if (region)
        munmap(region, cap);
}
