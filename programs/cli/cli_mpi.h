/* The command line under MPI (mpi.c): starting MPI when a launcher started
 * snapkit, the world, and the measurements of a read summed over ranks. */
#ifndef SNAPKIT_CLI_MPI_H
#define SNAPKIT_CLI_MPI_H

#include "cli.h"
#include "snapkit/util/mpi.h"

/* Before the command runs: start MPI when launched (or SNAPKIT_MPI=1),
 * send other ranks' stdout and stderr to /dev/null (rank 0 prints), and
 * refuse, under several ranks, a command that does not divide its work.
 * Returns CLI_OK, or the exit status to stop with. */
int cli_mpi_begin(const char *command);
/* After the command: finalise MPI if cli_mpi_begin started it. */
void cli_mpi_end(void);
/* The world: rank 0 of 1 when MPI is not running. */
const sk_mpi_world *cli_mpi_world(void);
/* This rank's share of a read (share_count 0 without MPI). */
void cli_mpi_share(sk_read_options *opt);
/* Sum the read's files, bytes, result bytes and allocations over the
 * ranks and keep the longest time (collective). */
int cli_mpi_sum_read(cli_source_read *res, sk_error *err);
/* snapkit threads on several ranks: every rank's budget, printed by rank 0
 * (JSON: ranks, limited_by, machine, per_rank[]). Collective. */
int cli_mpi_threads(const sk_thread_budget *b, int json);

#endif
