/* The writer's pieces that a writer spread over MPI ranks reuses
 * (src/convert/convert_mpi.c): the same chunk size, schema, header,
 * chunk encoding and footer bytes, so both write the same file. */
#ifndef SNAPKIT_STORE_WRITER_INTERNAL_H
#define SNAPKIT_STORE_WRITER_INTERNAL_H

#include <stdint.h>

#include "snapkit/store.h"
#include "store/format.h"
#include "store/order.h"

/* Rows per chunk of a table of nrows rows. */
int64_t st_rows_per_chunk(const sk_store_write_options *opt, int64_t nrows);
/* A 0-row copy of a table's columns, labels and metadata. */
int st_copy_schema(const sk_table *t, sk_table **out, sk_error *err);
/* The file's first ST_HEADER_BYTES bytes. */
void st_header_bytes(uint8_t header[ST_HEADER_BYTES]);
/* An empty footer of this version with the "writer" metadata; SK_OK or
 * SK_ERR_NOMEM. */
int st_footer_init(st_footer *f);
/* The footer and the tail, for a footer starting at byte `at`. */
int st_footer_bytes(const st_footer *f, int64_t at, uint8_t **out, size_t *n, sk_error *err);
/* Encode o's chunks of t into st->chunks and st->cc [0, o->nchunks) and
 * into one sk_malloc buffer, chunk after chunk; offsets are from the
 * buffer's start. */
int st_encode_to_memory(const sk_table *t, const st_geometry *g, const st_order *o,
                        st_table *st, int compress, int threads, int64_t chunk_rows,
                        uint8_t **bytes, int64_t *nbytes, sk_error *err);

#endif
