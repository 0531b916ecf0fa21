/* Phase diagrams in one pass (phase_internal.h): the extrema pass keeps
 * the values of its rows, so that once the ranges are known they are
 * binned from memory instead of read again. Past keep_limit bytes every
 * thread stops keeping and the caller streams a binning pass. The batches
 * are packed into chunks of at least SK_BIG_BLOCK bytes, which the
 * allocator maps with huge pages: a few faults instead of one per page. */
#include <omp.h>
#include <string.h>

#include "core/memory_big.h"
#include "phase_internal.h"
#include "snapkit/memory.h"

void phase_kept_free(phase_thread *t)
{
    for (int i = 0; i < t->nchunks; i++)
        sk_free(t->chunks[i]);
    sk_free(t->chunks);
    t->chunks = NULL;
    t->nchunks = t->cap_chunks = 0;
    t->chunk_used = t->chunk_cap = 0;
    sk_free(t->kept);
    sk_free(t->kept_n);
    t->kept = NULL;
    t->kept_n = NULL;
    t->nkept = t->cap = 0;
}

void phase_keep_begin(sk_phase *ph)
{
    for (int t = 0; t < ph->nthreads; t++)
        phase_kept_free(&ph->th[t]);
    ph->kept_bytes = 0;
    ph->keeping = ph->keep_limit != 0;
    ph->kept_pass = ph->keeping;
}

static void stop_keeping(sk_phase *ph)
{
    __atomic_store_n(&ph->keeping, 0, __ATOMIC_RELAXED);
}

/* Room for n doubles in t's last chunk, or a new chunk; NULL without
 * memory. */
static double *take(phase_thread *t, size_t n)
{
    if (t->nchunks && t->chunk_cap - t->chunk_used >= n) {
        double *p = t->chunks[t->nchunks - 1] + t->chunk_used;
        t->chunk_used += n;
        return p;
    }
    if (t->nchunks == t->cap_chunks) {
        int cap = t->cap_chunks ? 2 * t->cap_chunks : 8;
        double **c = sk_realloc(t->chunks, (size_t)cap * sizeof *c);
        if (!c)
            return NULL;
        t->chunks = c;
        t->cap_chunks = cap;
    }
    size_t cap = SK_BIG_BLOCK / sizeof(double);
    cap = cap > n ? cap : n;
    double *chunk = sk_malloc(cap * sizeof *chunk);
    if (!chunk)
        return NULL;
    t->chunks[t->nchunks++] = chunk;
    t->chunk_cap = cap;
    t->chunk_used = n;
    return chunk;
}

/* One block per batch in the chunks: no copy as the kept rows grow. */
int phase_keep(sk_phase *ph, phase_thread *t, const double *const v[4], int64_t n,
               sk_error *err)
{
    (void)err;
    size_t bytes = (size_t)n * (size_t)ph->nq * sizeof(double);
    int64_t total = __atomic_add_fetch(&ph->kept_bytes, (int64_t)bytes, __ATOMIC_RELAXED);
    if (ph->keep_limit >= 0 && total > ph->keep_limit) {
        stop_keeping(ph);
        return SK_OK;
    }
    if (t->nkept == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        double **kept = sk_realloc(t->kept, (size_t)cap * sizeof *kept);
        int64_t *kn = kept ? sk_realloc(t->kept_n, (size_t)cap * sizeof *kn) : NULL;
        if (kept)
            t->kept = kept;
        if (!kn) { /* no memory to keep: the binning pass reads the rows again */
            stop_keeping(ph);
            return SK_OK;
        }
        t->kept_n = kn;
        t->cap = cap;
    }
    double *block = take(t, (size_t)n * (size_t)ph->nq);
    if (!block) {
        stop_keeping(ph);
        return SK_OK;
    }
    for (int k = 0; k < ph->nq; k++)
        memcpy(block + (size_t)k * (size_t)n, v[k], (size_t)n * sizeof(double));
    t->kept[t->nkept] = block;
    t->kept_n[t->nkept++] = n;
    return SK_OK;
}

int sk_phase_kept_all(const sk_phase *ph)
{
    return ph->kept_pass && phase_keeping(ph);
}

int phase_bin_kept(sk_phase *ph, sk_error *err)
{
    int rc = SK_OK;
    sk_error *errs = sk_calloc((size_t)ph->nthreads, sizeof *errs);
    int *rcs = sk_calloc((size_t)ph->nthreads, sizeof *rcs);
    if (!errs || !rcs)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
#pragma omp parallel for schedule(dynamic, 1) num_threads(ph->nthreads) if (rc == SK_OK)
    for (int t = 0; t < ph->nthreads; t++) {
        phase_thread *th = &ph->th[t];
        if (!errs || !rcs)
            continue;
        for (int i = 0; i < th->nkept && rcs[t] == SK_OK; i++) {
            int64_t n = th->kept_n[i];
            const double *b = th->kept[i];
            const double *const v[4] = {b, b + n, b + 2 * n, ph->nq == 4 ? b + 3 * n : NULL};
            rcs[t] = phase_bin_rows(ph, th, v, n, &errs[t]);
        }
        phase_kept_free(th);
    }
    for (int t = 0; rc == SK_OK && t < ph->nthreads; t++)
        if (rcs[t] != SK_OK) {
            *err = errs[t];
            rc = rcs[t];
        }
    sk_free(errs);
    sk_free(rcs);
    return rc;
}
