/* When a chunk's checksum is computed. A handle checks each chunk-column
 * the first time a read decodes it; later reads of the same handle skip
 * the hash of the chunk-columns already checked (a third of the CPU of a
 * warm whole-table re-read) as long as the file is the one they were
 * checked in: the same device, inode, size, modification and change
 * times at the start of the read.
 *
 * Why the change time must be a second old: the kernel stamps a change
 * with a clock that advances in ticks (a few ms), so a file changed twice
 * within one tick keeps its times, and a check made between the two
 * changes would stand for bytes it never saw. A file whose last change is
 * older than a second at the start of a read cannot be changed again
 * without a later stamp, so its checks are kept; a younger one is hashed
 * on every read, as are files opened from memory (their bytes belong to
 * the caller) and every byte `sk_store_verify` reads.
 *
 * A check carries the generation it was made in (st_cc.checked); a change
 * seen at a read's start (or a younger file, or verify) starts a new
 * generation, which disowns every earlier check at once, including those
 * of reads still under way on other threads. */
#include <inttypes.h>
#include <time.h>

#include "formats/snapkit/codec.h"
#include "formats/snapkit/reader.h"

#define SETTLED_SECONDS 1.0

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static int settled(const struct stat *st)
{
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0)
        return 0;
    double age = (double)(now.tv_sec - st->st_ctim.tv_sec) +
                 1e-9 * (double)(now.tv_nsec - st->st_ctim.tv_nsec);
    return age > SETTLED_SECONDS;
}

void st_checks_init(sk_store *s, const struct stat *st)
{
    pthread_mutex_init(&s->checks_lock, NULL);
    s->checks_gen = 1;
    if (st)
        s->checked_file = *st;
}

void st_checks_forget(sk_store *s)
{
    pthread_mutex_lock(&s->checks_lock);
    __atomic_add_fetch(&s->checks_gen, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&s->checks_kept, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->checks_lock);
}

void st_checks_read_begins(sk_store *s)
{
    struct stat st;
    int keep = s->fd >= 0 && !s->skip_checksums && fstat(s->fd, &st) == 0 && settled(&st);
    pthread_mutex_lock(&s->checks_lock);
    if (!keep || !same_file(&st, &s->checked_file)) {
        __atomic_add_fetch(&s->checks_gen, 1, __ATOMIC_ACQ_REL);
        if (keep)
            s->checked_file = st;
    }
    __atomic_store_n(&s->checks_kept, keep, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->checks_lock);
}

int st_check_hash(const sk_store *s, const st_table *t, int64_t ci, int j, const uint8_t *stored,
                  sk_error *err)
{
    st_cc *cc = st_cc_at(t, ci, j);
    if (s->skip_checksums)
        return SK_OK;
    /* the generation before the hash: a change seen meanwhile disowns it */
    uint32_t gen = __atomic_load_n(&s->checks_gen, __ATOMIC_ACQUIRE);
    int kept = __atomic_load_n(&s->checks_kept, __ATOMIC_ACQUIRE);
    if (kept && __atomic_load_n(&cc->checked, __ATOMIC_RELAXED) == gen)
        return SK_OK;
    uint64_t got = st_hash(stored, (size_t)cc->stored);
    if (got == cc->hash) {
        if (kept)
            __atomic_store_n(&cc->checked, gen, __ATOMIC_RELAXED);
        return SK_OK;
    }
    sk_fail(err, SK_ERR_CHECKSUM, s->path, cc->offset,
            "table %s, chunk %lld of %lld, column %s: checksum mismatch (stored %016" PRIx64
            ", computed %016" PRIx64 "): the file is damaged",
            t->name, (long long)ci + 1, (long long)t->nchunks, sk_table_col(t->schema, j)->name,
            cc->hash, got);
    if (err)
        err->record = ci + 1;
    return SK_ERR_CHECKSUM;
}
