/* int32 values spread over ranks (one per row of each rank's share, e.g.
 * clump ids) to rank 0 and back, in rank order. Point to point in pieces
 * of 2^24 values, so a share's count is not limited by MPI's int counts. */
#include "snapkit/mpi.h"

#include <string.h>

#ifdef SNAPKIT_HAVE_MPI
#include <mpi.h>

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

/* Rank 0 and the world's size when MPI runs with several ranks. */
static int several(int *rank, int *size)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return 0;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return *size > 1;
}

int sk_mpi_gather_int32(const int32_t *mine, int64_t n, int32_t *all, sk_error *err)
{
    int rank = 0, size = 1;
    if (!several(&rank, &size)) {
        if (n > 0)
            memcpy(all, mine, sizeof *mine * (size_t)n);
        return SK_OK;
    }
    int ok = 1;
    if (rank > 0) {
        ok = MPI_Send(&n, 1, MPI_INT64_T, 0, TAG_COUNT, MPI_COMM_WORLD) == MPI_SUCCESS &&
             send_values(mine, n, 0);
    } else {
        if (n > 0)
            memcpy(all, mine, sizeof *mine * (size_t)n);
        int64_t at = n;
        for (int r = 1; r < size && ok; r++) {
            int64_t k = 0;
            ok = MPI_Recv(&k, 1, MPI_INT64_T, r, TAG_COUNT, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                     MPI_SUCCESS &&
                 recv_values(all + at, k, r);
            at += k;
        }
    }
    return sk_mpi_agree(ok ? SK_OK : fail(err, "gathering"), err);
}

int sk_mpi_scatter_int32(const int32_t *all, int32_t *mine, int64_t n, sk_error *err)
{
    int rank = 0, size = 1;
    if (!several(&rank, &size)) {
        if (n > 0)
            memcpy(mine, all, sizeof *mine * (size_t)n);
        return SK_OK;
    }
    int ok = 1;
    if (rank > 0) {
        ok = MPI_Send(&n, 1, MPI_INT64_T, 0, TAG_COUNT, MPI_COMM_WORLD) == MPI_SUCCESS &&
             recv_values(mine, n, 0);
    } else {
        if (n > 0)
            memcpy(mine, all, sizeof *mine * (size_t)n);
        int64_t at = n;
        for (int r = 1; r < size && ok; r++) {
            int64_t k = 0;
            ok = MPI_Recv(&k, 1, MPI_INT64_T, r, TAG_COUNT, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                     MPI_SUCCESS &&
                 send_values(all + at, k, r);
            at += k;
        }
    }
    return sk_mpi_agree(ok ? SK_OK : fail(err, "scattering"), err);
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
