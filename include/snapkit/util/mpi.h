/* snapkit/util/mpi.h - running under MPI (mpirun, srun), for outputs one node
 * cannot hold.
 *
 * One libsnapkit serves both: built with MPI (CMake SNAPKIT_MPI) these
 * calls use it, built without they report a world of one process and
 * sk_mpi_start fails with SK_ERR_ARG. MPI is started only by sk_mpi_start,
 * which callers make when sk_mpi_launched() says a launcher started them
 * or when the user asks for it; a plain run never initialises MPI.
 *
 * Division of work: each rank reads its share of a source with
 * sk_read_options.share_rank = rank, share_count = size (snapkit/read.h);
 * the shares concatenated in rank order are the whole read. The calls
 * below that take no root are collective: every rank must make them.
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_MPI_H
#define SNAPKIT_MPI_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/colstats.h"
#include "snapkit/error.h"
#include "snapkit/ramses.h"
#include "snapkit/table.h"
#include "snapkit/wstats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_mpi_world {
    int rank, size;             /* in MPI_COMM_WORLD (0 and 1 when MPI is not running) */
    int local_rank, local_size; /* among the ranks sharing this node's memory */
    int started_here;           /* sk_mpi_start initialised MPI (sk_mpi_stop finalises it) */
} sk_mpi_world;

/* 1 when the library was built with MPI. */
SK_API int sk_mpi_built(void);

/* The name of the launcher variable found in the environment
 * (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE, SLURM_PROCID with
 * SLURM_NTASKS > 1, MPI_LOCALNRANKS), NULL when none: the process was
 * started by mpirun, mpiexec or srun. */
SK_API const char *sk_mpi_launched(void);

/* Initialise MPI (unless the caller did, e.g. mpi4py) and describe the
 * world; divide the thread budget among the ranks on this node
 * (sk_thread_budget_set_ranks). SK_ERR_ARG when built without MPI. */
SK_API int sk_mpi_start(sk_mpi_world *world, sk_error *err);
/* Finalise MPI if sk_mpi_start initialised it. */
SK_API void sk_mpi_stop(const sk_mpi_world *world);
/* The world now: rank 0 of 1 when MPI is not running. */
SK_API void sk_mpi_get_world(sk_mpi_world *world);

/* Agree on a status: every rank passes its rc and err; all return the
 * same: SK_OK when every rank succeeded, else the lowest failing rank's
 * code, with its error copied into every rank's *err. Collective; call it
 * before any collective that a failed rank would not reach. */
SK_API int sk_mpi_agree(int rc, sk_error *err);

/* Merge every rank's column statistics into rank 0's *acc, exactly (the
 * sums are exact), in rank order; a rank that read nothing passes *acc ==
 * NULL (rank 0's is then made from the others'). Other ranks' *acc is left
 * as it was. Collective. */
SK_API int sk_mpi_stats_reduce(sk_stats_acc **acc, sk_error *err);

/* Move every rank's weighted-statistics rows (snapkit/wstats.h) into rank
 * 0's *acc, in rank order; a rank that read nothing passes *acc == NULL
 * (rank 0's is then made from the others'). The result depends only on
 * the rows, so rank 0's has the bits of one process's. Rank 0 holds every
 * rank's rows; other ranks' *acc is left as it was. Collective. */
SK_API int sk_mpi_wstats_reduce(sk_wstats_acc **acc, sk_error *err);

/* Sum n int64 values over the ranks, in place on every rank. Collective. */
SK_API int sk_mpi_sum_int64(int64_t *v, int n, sk_error *err);
/* Largest of n doubles over the ranks, in place on every rank. Collective. */
SK_API int sk_mpi_max_double(double *v, int n, sk_error *err);

/* Gather n ints of every rank to rank 0: out (rank 0 only) holds size * n,
 * rank by rank. Collective. */
SK_API int sk_mpi_gather_int(const int *v, int n, int *out, sk_error *err);

/* Every rank's n int32 values (one per row of its share, say) to rank 0's
 * all, in rank order (all: room for every rank's n on rank 0; ignored on
 * the others). Collective. */
SK_API int sk_mpi_gather_int32(const int32_t *mine, int64_t n, int32_t *all, sk_error *err);

/* Rank 0 stats the output's CPU files (every kind) and broadcasts their
 * sizes; every rank's handle keeps them for dividing its reads
 * (sk_read_options.share_*), so the metadata servers see one rank's stat
 * calls, not every rank's. Without it each rank stats the files itself
 * (same shares). Does nothing on one rank. Collective. */
SK_API int sk_mpi_ramses_sizes(sk_ramses *r, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
