/* Rank 0 stats an output's CPU files and broadcasts their sizes, so that
 * dividing the files among ranks costs the metadata servers one rank's
 * stat calls rather than every rank's (20,000 files x 5 kinds x 256
 * ranks is 25 million requests; this makes it 100,000). */
#include <limits.h>

#include "formats/ramses/sizes.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

#ifdef SNAPKIT_HAVE_MPI
#include <mpi.h>

int sk_mpi_ramses_sizes(sk_ramses *r, sk_error *err)
{
    int init = 0, fin = 0, rank = 0, size = 1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return SK_OK;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2)
        return SK_OK;
    size_t n = rs_file_sizes_count(r);
    int64_t *sizes = n <= INT_MAX ? sk_malloc(sizeof *sizes * (n ? n : 1)) : NULL;
    int rc = sizes ? SK_OK
                   : sk_fail(err, SK_ERR_NOMEM, rs_dir(r), -1, "out of memory for %zu file sizes", n);
    if (rc == SK_OK && rank == 0)
        rs_file_sizes(r, sizes);
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK && n > 0 &&
        MPI_Bcast(sizes, (int)n, MPI_INT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = sk_fail(err, SK_ERR_IO, rs_dir(r), -1, "MPI: broadcasting the file sizes failed");
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK)
        rs_set_file_sizes(r, sizes);
    else
        sk_free(sizes);
    return rc;
}

#else /* built without MPI: one process stats its own files */

int sk_mpi_ramses_sizes(sk_ramses *r, sk_error *err)
{
    (void)r;
    (void)err;
    return SK_OK;
}

#endif
