/* Turns: batches produced in parallel, handed to an ordered consumer one
 * at a time in index order. A thread holding batch k sleeps until k's
 * turn comes (an OpenMP ordered loop would spin, taking a core from the
 * thread whose turn it is on a busy machine), or until an item before k
 * failed: the lowest failure's error then wins and k is not handed over.
 * Batches must be claimed in increasing order, so the one whose turn it
 * is is always being produced or handed over. */
#ifndef SNAPKIT_CORE_TURNS_H
#define SNAPKIT_CORE_TURNS_H

#include <pthread.h>
#include <stdint.h>

typedef struct turns {
    pthread_mutex_t lock;
    pthread_cond_t moved;
    int64_t next;             /* the batch whose turn it is */
    const int64_t *failed_at; /* the lowest failing item, read atomically */
} turns;

void turns_init(turns *t, const int64_t *failed_at);
void turns_destroy(turns *t);
/* Wait for batch k's turn; `first` is its first item. 0 when an item
 * before `first` failed instead. */
int turns_wait(turns *t, int64_t k, int64_t first);
/* Batch k was handed over (or failed): the next one's turn. */
void turns_pass(turns *t, int64_t k);
/* Wake the waiters after a failure, so that those behind it give up. */
void turns_wake(turns *t);

#endif
