/* Pieces of the conversion shared by one process (convert.c) and MPI
 * ranks (convert_mpi.c), so both convert the same components alike. */
#ifndef SNAPKIT_CONVERT_INTERNAL_H
#define SNAPKIT_CONVERT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/convert.h"
#include "snapkit/ramses.h"
#include "snapkit/store.h"

/* Components, indexed as sk_ramses_component_name numbers them. */
#define CV_NC 7

/* Cell components keep their refined cells with --with-coarse. */
int cv_is_cells(int k);
/* Which components to convert: want[k] for component k. */
int cv_pick_components(const sk_ramses *r, const char *list, int want[CV_NC], sk_error *err);
/* A selection per component; drops components without the variables. */
int cv_split_vars(sk_ramses *r, const sk_selection *sel, int explicit_components,
                  int want[CV_NC], sk_selection sels[CV_NC], sk_error *err);
/* Bytes of the RAMSES files the components are read from; -1 on error. */
int64_t cv_source_bytes(const sk_ramses *r, const int want[CV_NC], sk_error *err);
/* Refined cells of a table read with_refined, but those at the cap. */
int64_t cv_count_refined(const sk_table *t, int cap);
/* "hydro,particles": the convert.components metadata. */
void cv_components_list(const int want[CV_NC], char *list, size_t size);

/* What streaming one component into a writer did. */
typedef struct cv_streamed {
    int fallback;          /* its CPU files were out of curve order: nothing was
                              written, write it whole */
    int64_t rows, bytes_raw;
    double read_seconds;   /* the stream's wall time but the appends */
    double write_seconds;  /* sorting and appending each file, the last chunks */
} cv_streamed;
/* Write component `name` (leaves only: ro->with_refined unset) as one
 * table, streamed from the output file by file (stream_convert.c). */
int cv_stream_component(sk_ramses *r, sk_store_writer *w, const char *name,
                        const sk_selection *sel, const sk_read_options *ro, cv_streamed *out,
                        sk_error *err);

#endif
