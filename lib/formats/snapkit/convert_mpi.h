/* Converting under MPI (convert_mpi.c, table_mpi.c): the file every rank
 * writes into with MPI-IO, and one table written by all ranks. */
#ifndef SNAPKIT_CONVERT_MPI_H
#define SNAPKIT_CONVERT_MPI_H

#include "snapkit/convert.h"
#include "formats/snapkit/format.h"
#include "formats/snapkit/order.h"

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

/* One piece of a table along the file: the leaves, or the refined cells
 * of one level (the file orders each along the curve, chunks starting at
 * the piece's first row). plan is a geometry without the refined flag, so
 * all of a piece is one sequence; bits the curve's of the whole table. */
typedef struct cv_segment {
    const st_geometry *plan;
    int bits;
    int64_t chunk_rows, row0; /* row0: the piece's first row in the table */
    uint8_t kind;             /* its chunks' ST_KIND_ROWS or ST_KIND_REFINED */
    int stats;                /* keep the table's statistics (no refined cells) */
} cv_segment;

/* Collective: every rank passes its rows of the piece (t); the chunks are
 * written at f->pos and rank 0 appends their index to *whole (NULL on the
 * other ranks). The same status on every rank (table_mpi.c). */
int cv_mpi_write_segment(cv_mpi_file *f, const char *name, const sk_table *t,
                         const cv_segment *sg, const sk_store_write_options *wo, st_table *whole,
                         sk_error *err);

/* Collective: a table with a refined column (g->refined >= 0) as its
 * pieces, the leaves then each level's refined cells, sg->row0 advanced
 * past each (refined_mpi.c). */
int cv_mpi_write_refined(cv_mpi_file *f, const char *name, const sk_table *t,
                         const st_geometry *g, cv_segment *sg, const sk_store_write_options *wo,
                         st_table *whole, sk_error *err);
#endif

#endif
