/* Converting under MPI (convert_mpi.c, table_mpi.c): the file every rank
 * writes into with MPI-IO, and one table written by all ranks. */
#ifndef SNAPKIT_CONVERT_MPI_H
#define SNAPKIT_CONVERT_MPI_H

#include "snapkit/convert.h"
#include "store/format.h"

#ifdef SNAPKIT_HAVE_MPI
#include <mpi.h>

typedef struct cv_mpi_file {
    MPI_File fh;
    int64_t pos; /* the end of what is written: the next table starts here */
} cv_mpi_file;

/* Collective: write table `name`, every rank passing its share t (the
 * shares in rank order being the whole table), at f->pos; rank 0 adds the
 * table's entry to footer->tables[footer->ntables] (room for it made by
 * the caller) and every rank advances f->pos. The same status on every
 * rank. */
int cv_mpi_write_table(cv_mpi_file *f, const char *name, const sk_table *t,
                       const sk_store_write_options *wo, st_footer *footer, sk_error *err);
#endif

#endif
