/* Phase diagrams in one pass (phase_internal.h): the extrema pass keeps
 * the values of its rows (analysis/colstore.h), so that once the ranges
 * are known they are binned from memory instead of read again. Past
 * keep_limit bytes, or without memory, every thread stops keeping and the
 * caller streams a binning pass. */
#include <omp.h>
#include <string.h>

#include "phase_internal.h"
#include "snapkit/memory.h"

void phase_kept_free(phase_thread *t)
{
    an_colstore_clear(&t->kept);
}

void phase_keep_begin(sk_phase *ph)
{
    for (int t = 0; t < ph->nthreads; t++) {
        an_colstore_clear(&ph->th[t].kept);
        an_colstore_init(&ph->th[t].kept, ph->nq);
    }
    ph->kept_bytes = 0;
    ph->keeping = ph->keep_limit != 0;
    ph->kept_pass = ph->keeping;
}

static void stop_keeping(sk_phase *ph)
{
    __atomic_store_n(&ph->keeping, 0, __ATOMIC_RELAXED);
}

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
    an_colblock *b = an_colstore_room(&t->kept, n);
    if (!b) { /* no memory to keep: the binning pass reads the rows again */
        stop_keeping(ph);
        return SK_OK;
    }
    for (int k = 0; k < ph->nq; k++)
        memcpy(an_colblock_col(b, k) + b->n, v[k], (size_t)n * sizeof(double));
    an_colstore_added(&t->kept, b, n);
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
        for (int64_t i = 0; i < th->kept.nblocks && rcs[t] == SK_OK; i++) {
            const an_colblock *b = &th->kept.blocks[i];
            const double *const v[4] = {an_colblock_col(b, 0), an_colblock_col(b, 1),
                                        an_colblock_col(b, 2),
                                        ph->nq == 4 ? an_colblock_col(b, 3) : NULL};
            rcs[t] = phase_bin_rows(ph, th, v, b->n, &errs[t]);
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
