/* Profiles over MPI ranks: every rank's kept rows to rank 0, which then
 * bins them all. The result depends only on the rows (exact sums), so rank
 * 0 gets the bits one process would. */
#include "analysis/profile_internal.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

int sk_profile_stream_reduce(sk_profile_stream *ps, sk_error *err)
{
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    if (w.size < 2)
        return SK_OK;
    double *mine = NULL, *all = NULL;
    int64_t n = 0, stride = ps->keep.ncols + 1;
    int rc = ps->begun ? an_keep_pack(&ps->keep, &mine, &n, err)
                       : sk_fail(err, SK_ERR_ARG, NULL, -1, "the profile's stream was not begun");
    rc = sk_mpi_agree(rc, err);
    int64_t counts[2] = {n, ps->rows};
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(counts, 2, err);
    if (rc == SK_OK && w.rank == 0 && counts[0] &&
        !(all = sk_malloc(sizeof *all * (size_t)(counts[0] * stride))))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the ranks' rows");
    rc = sk_mpi_agree(rc, err);
    /* doubles as pairs of int32: the gather moves bytes */
    if (rc == SK_OK)
        rc = sk_mpi_gather_int32((const int32_t *)(const void *)mine, 2 * n * stride,
                                 (int32_t *)(void *)all, err);
    if (rc == SK_OK && w.rank == 0) {
        rc = an_keep_unpack(&ps->keep, all, counts[0], err);
        ps->rows = counts[1];
    }
    sk_free(mine);
    sk_free(all);
    return rc;
}
