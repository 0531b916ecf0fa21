/* What the MPI module's files share (built with SNAPKIT_HAVE_MPI only). */
#ifndef SNAPKIT_MPI_INTERNAL_H
#define SNAPKIT_MPI_INTERNAL_H

/* 1 when MPI runs (initialised, not finalised) with more than one rank,
 * with this rank and the world's size; else 0. */
int mpi_several_ranks(int *rank, int *size);

#endif
