/* int32 values spread over ranks (one per row of each rank's share, e.g.
 * clump ids) to rank 0 and back, in rank order. Point to point in pieces
 * of 2^24 values, so a share's count is not limited by MPI's int counts. */
#include "mpi/collectives.h"

#include <string.h>

#ifdef SNAPKIT_HAVE_MPI
#include <mpi.h>

#include "mpi/mpi_internal.h"

enum { PIECE = 1 << 24, TAG_COUNT = 71, TAG_VALUES = 72 };

static int fail(sk_error *err, const char *what)
{
    return sk_fail(err, SK_ERR_IO, NULL, -1, "MPI: %s of int32 values failed", what);
}

static int send_values(const int32_t *v, int64_t n, int to)
{
    for (int64_t at = 0; at < n; at += PIECE) {
        int k = (int)(n - at < PIECE ? n - at : PIECE);
        if (MPI_Send(v + at, k, MPI_INT32_T, to, TAG_VALUES, MPI_COMM_WORLD) != MPI_SUCCESS)
            return 0;
    }
    return 1;
}

static int recv_values(int32_t *v, int64_t n, int from)
{
    for (int64_t at = 0; at < n; at += PIECE) {
        int k = (int)(n - at < PIECE ? n - at : PIECE);
        if (MPI_Recv(v + at, k, MPI_INT32_T, from, TAG_VALUES, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return 0;
    }
    return 1;
}

/* Each rank's n values between its `in`/`out` and rank 0's array of all of
 * them, in rank order: to rank 0 (gather: in is the rank's, out rank 0's)
 * or from it (scatter: in is rank 0's, out the rank's). */
static int exchange(const int32_t *in, int32_t *out, int64_t n, int gather, sk_error *err)
{
    int rank = 0, size = 1;
    if (!mpi_several_ranks(&rank, &size)) {
        if (n > 0)
            memcpy(out, in, sizeof *in * (size_t)n);
        return SK_OK;
    }
    int ok = 1;
    if (rank > 0) {
        ok = MPI_Send(&n, 1, MPI_INT64_T, 0, TAG_COUNT, MPI_COMM_WORLD) == MPI_SUCCESS &&
             (gather ? send_values(in, n, 0) : recv_values(out, n, 0));
    } else {
        if (n > 0)
            memcpy(out, in, sizeof *in * (size_t)n);
        int64_t at = n;
        for (int r = 1; r < size && ok; r++) {
            int64_t k = 0;
            ok = MPI_Recv(&k, 1, MPI_INT64_T, r, TAG_COUNT, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                     MPI_SUCCESS &&
                 (gather ? recv_values(out + at, k, r) : send_values(in + at, k, r));
            at += k;
        }
    }
    return sk_mpi_agree(ok ? SK_OK : fail(err, gather ? "gathering" : "scattering"), err);
}

int sk_mpi_gather_int32(const int32_t *mine, int64_t n, int32_t *all, sk_error *err)
{
    return exchange(mine, all, n, 1, err);
}

int sk_mpi_scatter_int32(const int32_t *all, int32_t *mine, int64_t n, sk_error *err)
{
    return exchange(all, mine, n, 0, err);
}

#else /* built without MPI: one process holds every value */

int sk_mpi_gather_int32(const int32_t *mine, int64_t n, int32_t *all, sk_error *err)
{
    (void)err;
    if (n > 0)
        memcpy(all, mine, sizeof *mine * (size_t)n);
    return SK_OK;
}

int sk_mpi_scatter_int32(const int32_t *all, int32_t *mine, int64_t n, sk_error *err)
{
    (void)err;
    if (n > 0)
        memcpy(mine, all, sizeof *mine * (size_t)n);
    return SK_OK;
}

#endif
