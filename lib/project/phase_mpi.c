/* Phase diagrams over MPI ranks (snapkit/phase.h): the extrema agreed
 * before the binning, the exact sums added over the ranks after it (their
 * digits are integers, so the sum over ranks is exact in any order). */
#include <math.h>
#include <string.h>

#include "phase_internal.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

static int ranks(void)
{
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    return w.size;
}

int sk_phase_agree_extrema(sk_phase *ph, sk_error *err)
{
    if (ranks() <= 1)
        return SK_OK;
    if (!ph->nthreads)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the extrema pass did not begin on this rank");
    double mx[5] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, !phase_keeping(ph)};
    int64_t seen[2] = {0, 0};
    for (int t = 0; t < ph->nthreads; t++)
        for (int a = 0; a < 2; a++) {
            if (!ph->th[t].seen[a])
                continue;
            mx[2 * a] = fmax(mx[2 * a], -ph->th[t].lo[a]);
            mx[2 * a + 1] = fmax(mx[2 * a + 1], ph->th[t].hi[a]);
            seen[a] += ph->th[t].seen[a];
        }
    int rc = sk_mpi_max_double(mx, 5, err);
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(seen, 2, err);
    if (rc != SK_OK)
        return rc;
    for (int t = 0; t < ph->nthreads; t++)
        for (int a = 0; a < 2; a++) {
            ph->th[t].seen[a] = t ? 0 : seen[a];
            ph->th[t].lo[a] = -mx[2 * a];
            ph->th[t].hi[a] = mx[2 * a + 1];
        }
    if (mx[4] > 0)
        __atomic_store_n(&ph->keeping, 0, __ATOMIC_RELAXED);
    return SK_OK;
}

int phase_ranks_sums(sk_phase *ph, const an_binsums *all, an_sum **dense, sk_error *err)
{
    *dense = NULL;
    if (ranks() <= 1)
        return SK_OK;
    size_t n = all->nbins * (size_t)all->nsum;
    an_sum *d = sk_calloc(n, sizeof *d);
    if (!d)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the ranks' bins");
    for (size_t c = 0; c < all->nbins; c++)
        if (all->at[c])
            memcpy(d + c * (size_t)all->nsum, all->at[c], (size_t)all->nsum * sizeof *d);
    int64_t counts[2] = {ph->rows, ph->binned};
    int rc = an_sums_reduce(d, (int)n, err);
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(counts, 2, err);
    if (rc != SK_OK) {
        sk_free(d);
        return rc;
    }
    ph->rows = counts[0];
    ph->binned = counts[1];
    *dense = d;
    return SK_OK;
}
