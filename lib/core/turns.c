/* Turns for ordered consumers (turns.h). */
#include "core/turns.h"

static int failed_before(const turns *t, int64_t first)
{
    return __atomic_load_n(t->failed_at, __ATOMIC_ACQUIRE) < first;
}

void turns_init(turns *t, const int64_t *failed_at)
{
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->moved, NULL);
    t->next = 0;
    t->failed_at = failed_at;
}

void turns_destroy(turns *t)
{
    pthread_cond_destroy(&t->moved);
    pthread_mutex_destroy(&t->lock);
}

int turns_wait(turns *t, int64_t k, int64_t first)
{
    pthread_mutex_lock(&t->lock);
    int failed = failed_before(t, first);
    while (t->next != k && !failed) {
        pthread_cond_wait(&t->moved, &t->lock);
        failed = failed_before(t, first);
    }
    pthread_mutex_unlock(&t->lock);
    return !failed;
}

void turns_pass(turns *t, int64_t k)
{
    pthread_mutex_lock(&t->lock);
    if (t->next == k)
        t->next = k + 1;
    pthread_cond_broadcast(&t->moved);
    pthread_mutex_unlock(&t->lock);
}

void turns_wake(turns *t)
{
    pthread_mutex_lock(&t->lock);
    pthread_cond_broadcast(&t->moved);
    pthread_mutex_unlock(&t->lock);
}
