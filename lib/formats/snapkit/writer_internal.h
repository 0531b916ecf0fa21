/* The writer's pieces that a writer spread over MPI ranks reuses
 * (lib/formats/snapkit/convert_mpi.c): the same chunk size, schema, header,
 * chunk encoding and footer bytes, so both write the same file. */
#ifndef SNAPKIT_STORE_WRITER_INTERNAL_H
#define SNAPKIT_STORE_WRITER_INTERNAL_H

#include <stdint.h>

#include "snapkit/util/atomicfile.h"
#include "snapkit/store.h"
#include "formats/snapkit/format.h"
#include "formats/snapkit/order.h"

struct sk_store_writer {
    sk_atomic_file *file;
    sk_store_write_options opt;
    st_footer footer;
    int cap_tables;
    int64_t rows, chunks, bytes_raw;
    double start;
    char *path;
};

/* Start st's statistics (st->acc, fed by the chunk encoders) from its
 * schema, unless it stores refined cells: a plain read returns only its
 * leaves, and the statistics are those of a plain read. */
int st_stats_begin(st_table *st, sk_error *err);
/* Rows per chunk of a table of nrows rows. */
int64_t st_rows_per_chunk(const sk_store_write_options *opt, int64_t nrows);
/* A 0-row copy of a table's columns, labels and metadata. */
int st_copy_schema(const sk_table *t, sk_table **out, sk_error *err);
/* A copy of a table's columns (types, labels) and metadata with nrows
 * rows of undefined values. */
int st_table_like(const sk_table *t, int64_t nrows, sk_table **out, sk_error *err);
/* Copy the rows perm[0..n) of column c into dst. */
void st_gather(const sk_column *c, const int64_t *perm, int64_t n, void *dst);
/* The name a table is stored under: name, else its "component"
 * metadata, else tableN (buf holds it). */
const char *st_table_name(const sk_store_writer *w, const char *name, const sk_table *t,
                          char *buf, size_t n);
/* A new footer entry for a table shaped as t (name unique in the file). */
int st_add_table_entry(sk_store_writer *w, const char *name, const sk_table *t, st_table **out,
                       sk_error *err);
/* Encode o's chunks of t, in parallel batches, as st's chunks chunk0 ..
 * chunk0 + o->nchunks - 1, whose rows start at file row row0 + o->start[]
 * (st->chunks and st->cc have room), and append them to the file; the
 * writer's progress is called when `progress`. */
int st_encode_to_file(sk_store_writer *w, const sk_table *t, const st_geometry *g,
                      const st_order *o, st_table *st, int64_t chunk0, int64_t row0,
                      int64_t chunk_rows, int progress, sk_error *err);
/* One table written batch by batch (append.c), for a caller that has its
 * rows a piece at a time, each sorted along the curve, and not the whole
 * table at once (convert streaming a RAMSES output): the chunks are those
 * sk_store_writer_add cuts from the whole table, written as they become
 * final. Begin with the table's columns and metadata (0 rows: a schema;
 * no `refined` column) and its total rows, which choose the chunk size as
 * for the whole table. */
typedef struct st_appender st_appender;
int st_append_begin(sk_store_writer *w, const char *name, const sk_table *schema, int64_t nrows,
                    st_appender **out, sk_error *err);
/* Append the rows of the next piece of the table: rows perm[0..nrows(t))
 * of t, in curve order, key[r] the key of the r-th (st_batch_order).
 * Pieces may overlap along the curve, but a piece starting below a row
 * already written cannot be placed: it is not taken, *in_order is 0, and
 * the caller discards the table. */
int st_append(st_appender *a, const sk_table *t, const int64_t *perm, const uint64_t *key,
              int *in_order, sk_error *err);
/* Write the rows still waiting, complete the footer entry (*rows: the
 * table's rows) and free a. */
int st_append_end(st_appender *a, int64_t *rows, sk_error *err);
/* Take the table back: the file loses its chunks (truncated to where they
 * began) and the footer its entry; frees a (NULL: nothing). */
int st_append_discard(st_appender *a, sk_error *err);
/* The file's first ST_HEADER_BYTES bytes. */
void st_header_bytes(uint8_t header[ST_HEADER_BYTES]);
/* An empty footer of this version with the "writer" metadata; SK_OK or
 * SK_ERR_NOMEM. */
int st_footer_init(st_footer *f);
/* The footer and the tail, for a footer starting at byte `at`. */
int st_footer_bytes(const st_footer *f, int64_t at, uint8_t **out, size_t *n, sk_error *err);
/* Encode o's chunks of t into st->chunks and st->cc [0, o->nchunks) and
 * into one sk_malloc buffer, chunk after chunk; offsets are from the
 * buffer's start, first rows from file row row0. st->acc, when set, gets
 * the leaf chunks' statistics. */
int st_encode_to_memory(const sk_table *t, const st_geometry *g, const st_order *o,
                        st_table *st, int64_t row0, int compress, int threads,
                        int64_t chunk_rows, uint8_t **bytes, int64_t *nbytes, sk_error *err);

#endif
