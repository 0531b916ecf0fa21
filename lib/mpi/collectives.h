/* Inside the library: the collectives of snapkit/util/mpi.h that only the
 * library's modules (projection, clumps) call. */
#ifndef SNAPKIT_MPI_COLLECTIVES_H
#define SNAPKIT_MPI_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/util/mpi.h"

/* Sum n doubles over the ranks into rank 0's v (every rank's when all is
 * nonzero) along a binomial tree fixed by the ranks (rank r adds r + 1,
 * r + 2, r + 4, ... in that order): the same bits on every run with the
 * same number of ranks, unlike MPI_Reduce, whose order is not fixed.
 * Other ranks' v is overwritten with partial sums. Sent in pieces of 2^24
 * doubles, so n is not limited by MPI's int counts. Collective. */
int sk_mpi_sum_double_tree(double *v, size_t n, int all, sk_error *err);

/* Gather the rows of every rank's share that keep marks (every row when
 * keep is NULL) into one table on rank 0 (*out; NULL on the others), in
 * rank order: the shares' columns, rank 0's labels and metadata. Rank 0
 * then holds every kept row: use it for what the kept rows fit in one
 * node's memory. Collective; also works without MPI (one rank). */
int sk_mpi_gather_rows(const sk_table *share, const uint8_t *keep, sk_table **out, sk_error *err);

/* The inverse of sk_mpi_gather_int32: rank 0's all (every rank's values,
 * in rank order) to each rank's mine[n] (ignored off rank 0). Collective. */
int sk_mpi_scatter_int32(const int32_t *all, int32_t *mine, int64_t n, sk_error *err);

#endif
