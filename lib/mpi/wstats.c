/* Weighted statistics over the ranks (sk_mpi_wstats_reduce): every rank's
 * kept rows to rank 0, whose accumulator then holds them all. The result
 * depends only on the rows (snapkit/wstats.h), so rank 0 gets the bits one
 * process would. Point to point in pieces of 2^30 bytes, so a rank's rows
 * are not limited by MPI's int counts. */
#include "mpi/collectives.h"

#include <string.h>

#include "snapkit/memory.h"

#ifdef SNAPKIT_HAVE_MPI
#include <mpi.h>

#include "mpi/mpi_internal.h"

enum { PIECE = 1 << 30, TAG_BYTES = 81 };

static int transfer(unsigned char *b, int64_t n, int peer, int send)
{
    for (int64_t at = 0; at < n; at += PIECE) {
        int k = (int)(n - at < PIECE ? n - at : PIECE);
        int mrc = send ? MPI_Send(b + at, k, MPI_BYTE, peer, TAG_BYTES, MPI_COMM_WORLD)
                       : MPI_Recv(b + at, k, MPI_BYTE, peer, TAG_BYTES, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE);
        if (mrc != MPI_SUCCESS)
            return 0;
    }
    return 1;
}

/* Rank r's rows (bytes[0..n)) into *acc, or made *acc when it had none. */
static int merge_bytes(sk_wstats_acc **acc, const unsigned char *bytes, int64_t n, sk_error *err)
{
    sk_wstats_acc *other;
    int rc = sk_wstats_acc_decode(bytes, (size_t)n, &other, err);
    if (rc != SK_OK)
        return rc;
    if (!*acc) {
        *acc = other;
        return SK_OK;
    }
    rc = sk_wstats_acc_merge(*acc, other, err);
    sk_wstats_acc_free(other);
    return rc;
}

/* Rank 0: receive every other rank's bytes (sizes[r]) in rank order and
 * merge them; after a failure it still receives, so no rank waits. */
static int receive_all(sk_wstats_acc **acc, const int64_t *sizes, int size, unsigned char *buf,
                       sk_error *err)
{
    int rc = SK_OK;
    for (int r = 1; r < size; r++) {
        if (!transfer(buf, sizes[r], r, 0) && rc == SK_OK)
            rc = sk_fail(err, SK_ERR_IO, NULL, -1, "MPI: receiving rank %d's rows failed", r);
        if (rc == SK_OK && sizes[r])
            rc = merge_bytes(acc, buf, sizes[r], err);
    }
    return rc;
}

int sk_mpi_wstats_reduce(sk_wstats_acc **acc, sk_error *err)
{
    int rank = 0, size = 1;
    if (!mpi_several_ranks(&rank, &size))
        return SK_OK;
    void *mine = NULL;
    size_t bytes = 0;
    int rc = *acc ? sk_wstats_acc_encode(*acc, &mine, &bytes, err) : SK_OK;
    int64_t n = (int64_t)bytes, *sizes = rank == 0 ? sk_calloc((size_t)size, sizeof *sizes) : NULL;
    if (rc == SK_OK && rank == 0 && !sizes)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    rc = sk_mpi_agree(rc, err);
    unsigned char *buf = NULL;
    if (rc == SK_OK) {
        MPI_Gather(&n, 1, MPI_INT64_T, sizes, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
        int64_t most = 0;
        for (int r = 1; rank == 0 && r < size; r++)
            most = sizes[r] > most ? sizes[r] : most;
        if (rank == 0 && !(buf = sk_malloc((size_t)most + 1)))
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the ranks' rows");
        rc = sk_mpi_agree(rc, err); /* rank 0 can receive: the others send */
    }
    if (rc == SK_OK && rank > 0 && !transfer(mine, n, 0, 1))
        rc = sk_fail(err, SK_ERR_IO, NULL, -1, "MPI: sending rank %d's rows failed", rank);
    if (rc == SK_OK && rank == 0)
        rc = receive_all(acc, sizes, size, buf, err);
    sk_free(sizes);
    sk_free(mine);
    sk_free(buf);
    return rc;
}

#else /* built without MPI: one process */

int sk_mpi_wstats_reduce(sk_wstats_acc **acc, sk_error *err)
{
    (void)acc;
    (void)err;
    return SK_OK;
}

#endif
