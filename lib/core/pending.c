/* The named temporary files that exist now, so that a signal handler can
 * remove them (sk_atomic_remove_pending). Fixed slots holding copies of
 * the names: the handler takes no lock, allocates nothing and reads no
 * memory another thread may free; unlink is async-signal-safe. A name
 * longer than a slot, or one past the last slot, is not tracked (the run
 * then behaves as before: the temporary stays after a kill). */
#include <string.h>
#include <unistd.h>

#include "core/atomicfile.h"

#define PENDING_SLOTS 256
#define PENDING_PATH 4096

static char g_path[PENDING_SLOTS][PENDING_PATH];
static int g_used[PENDING_SLOTS]; /* 0 free, 1 taken (being filled), 2 holds a name */

void atomic_track(const char *path)
{
    size_t n = strlen(path);
    if (n >= PENDING_PATH)
        return;
    for (int i = 0; i < PENDING_SLOTS; i++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&g_used[i], &expected, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            memcpy(g_path[i], path, n + 1);
            __atomic_store_n(&g_used[i], 2, __ATOMIC_RELEASE);
            return;
        }
    }
}

void atomic_untrack(const char *path)
{
    for (int i = 0; i < PENDING_SLOTS; i++)
        if (__atomic_load_n(&g_used[i], __ATOMIC_ACQUIRE) == 2 && strcmp(g_path[i], path) == 0) {
            __atomic_store_n(&g_used[i], 0, __ATOMIC_RELEASE);
            return;
        }
}

void sk_atomic_remove_pending(void)
{
    for (int i = 0; i < PENDING_SLOTS; i++)
        if (__atomic_load_n(&g_used[i], __ATOMIC_ACQUIRE) == 2)
            unlink(g_path[i]);
}
