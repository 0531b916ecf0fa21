/* snapkit/store.h - the compact file (.snapkit): convert once, re-read fast.
 *
 * One file holds several tables (hydro, gravity, particles, ...). Rows are
 * ordered along a Hilbert curve and cut into chunks; every column of every
 * chunk is encoded on its own (integers as the smallest sufficient width,
 * floats plain or byte-shuffled) and compressed with LZ4, or stored raw. A footer at
 * the end holds the schema, every metadata pair of the source and, per
 * chunk, its offsets, row count, bounding box, level range, column min/max
 * and XXH64 checksums. docs/format.md specifies the bytes.
 *
 * Writing:
 *   sk_store_writer *w;
 *   sk_store_writer_open(&w, "run.snapkit", NULL, &err);
 *   sk_store_writer_add(w, NULL, hydro, &err);      // name from meta "component"
 *   sk_store_writer_add(w, NULL, particles, &err);
 *   sk_store_writer_commit(w, &stats, &err);        // temp file, fsync, rename
 *
 * Reading (the selections and table of sk_ramses_read):
 *   sk_store *s;
 *   sk_store_open(&s, "run.snapkit", NULL, &err);
 *   sk_store_read(s, "hydro", &sel, NULL, &table, &rstats, &err);
 *
 * A box reads only the chunks whose bounding boxes meet it, an lmax cap only
 * chunks at or below lmax; chunks are read with positioned reads and decoded
 * in parallel straight into the result's columns. Every chunk read is
 * checked against its checksum.
 */
#ifndef SNAPKIT_STORE_H
#define SNAPKIT_STORE_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/colstats.h"
#include "snapkit/error.h"
#include "snapkit/progress.h"
#include "snapkit/read.h"
#include "snapkit/select.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format version this library writes; it reads every file whose major
 * version is at most SK_STORE_VERSION_MAJOR (see docs/format.md). */
#define SK_STORE_VERSION_MAJOR 1
#define SK_STORE_VERSION_MINOR 1

/* Default rows per chunk: rows / 1024 rounded down to a power of two,
 * within these bounds (about a thousand chunks for tables of 1 to 67
 * million rows; see docs/format.md). */
#define SK_STORE_CHUNK_ROWS_MIN 1024
#define SK_STORE_CHUNK_ROWS_MAX 65536

/* How a table's rows are placed in space (and so ordered and indexed). */
typedef enum sk_store_geometry {
    SK_STORE_ROWS = 0,   /* no positions: rows kept in their order, no bounding boxes */
    SK_STORE_CELLS = 1,  /* int32 level, cx, cy, cz: centre (c + 0.5) / 2^level */
    SK_STORE_POINTS = 2  /* float64 position_x/y/z in code units: box units = p / boxlen */
} sk_store_geometry;

/* ---- writing ---- */

typedef struct sk_store_write_options {
    int compress;            /* 1 (default): LZ4; 0: every column stored raw */
    int threads;             /* 0: the whole thread budget */
    int64_t chunk_rows;      /* rows per chunk; 0: the default (SK_STORE_CHUNK_ROWS_MIN..MAX) */
    sk_progress progress;    /* optional: chunks written of the current table */
    int64_t fail_after_bytes;/* testing: < 0 (default) never; else writes fail with
                                ENOSPC once this many bytes are written, as a full
                                disk would, so tests can kill a conversion midway */
} sk_store_write_options;

/* compress = 1, chunk_rows = 0, threads = 0, fail_after_bytes = -1. */
SK_API void sk_store_write_options_init(sk_store_write_options *opt);

typedef struct sk_store_write_stats {
    int ntables;
    int64_t rows;            /* rows written over every table */
    int64_t chunks;          /* chunks written over every table */
    int64_t bytes_raw;       /* bytes of the tables' columns (what they take in memory) */
    int64_t bytes_file;      /* size of the finished file */
    double seconds;          /* wall time from open to commit */
} sk_store_write_stats;

typedef struct sk_store_writer sk_store_writer;

/* Start writing `path` (through a temporary file beside it). opt may be
 * NULL for the defaults. */
SK_API int sk_store_writer_open(sk_store_writer **out, const char *path,
                                const sk_store_write_options *opt, sk_error *err);

/* A file-level metadata pair (e.g. "convert.source"); set replaces. */
SK_API int sk_store_writer_set_meta(sk_store_writer *w, const char *key, const char *value,
                                    sk_error *err);

/* Append one table under `name` (NULL: the table's "component" metadata,
 * else "table<N>"). Names are unique within a file. Cell tables (int32
 * level, cx, cy, cz) and point tables (float64 position_x/y/z) are ordered
 * along the Hilbert curve; other tables keep their row order. A cell table
 * with a uint8 column `refined` (sk_read_options.with_refined) keeps its
 * refined cells in chunks of their own, ordered by level, so lmax reads of
 * the file are exact. The table is not modified and may be freed after.
 * SK_ERR_ARG (a taken name, cell indices outside their level) leaves the
 * writer usable; after any other failure only sk_store_writer_abort. */
SK_API int sk_store_writer_add(sk_store_writer *w, const char *name, const sk_table *table,
                               sk_error *err);

/* Write the footer, flush, and rename the file into place; frees w (also on
 * failure, when the target is left untouched). stats may be NULL. */
SK_API int sk_store_writer_commit(sk_store_writer *w, sk_store_write_stats *stats, sk_error *err);

/* Give up: remove the temporary file and free w. NULL is allowed. */
SK_API void sk_store_writer_abort(sk_store_writer *w);

/* One call: write `ntables` tables (names NULL: from metadata). */
SK_API int sk_store_save(const char *path, const sk_table *const *tables, const char *const *names,
                         int ntables, const sk_store_write_options *opt,
                         sk_store_write_stats *stats, sk_error *err);

/* ---- reading ---- */

typedef struct sk_store sk_store;

typedef struct sk_store_open_options {
    int skip_checksums;      /* 1: do not check the footer's and the chunks' checksums.
                                For fuzzing the decoder and salvaging damaged files only. */
} sk_store_open_options;

/* Open a .snapkit file: two small reads (the fixed tail, then the footer),
 * both checked. SK_ERR_FORMAT for a file that is not a snapkit file or is
 * truncated, SK_ERR_CHECKSUM for a damaged footer, SK_ERR_VERSION for a
 * newer major version. opt may be NULL. */
SK_API int sk_store_open(sk_store **out, const char *path, const sk_store_open_options *opt,
                         sk_error *err);

/* The same from bytes in memory (not copied: they must outlive the handle);
 * `name` stands for the path in messages. */
SK_API int sk_store_open_memory(sk_store **out, const void *data, size_t size, const char *name,
                                const sk_store_open_options *opt, sk_error *err);

SK_API void sk_store_close(sk_store *s);

/* Is `path` to be read as a snapkit file rather than as a RAMSES output
 * folder: anything that exists and is not a folder (so that a damaged or
 * foreign file gets sk_store_open's word on what is wrong with it, not
 * "not a RAMSES output"). Never fails; 0 for folders and missing paths. */
SK_API int sk_store_is_file(const char *path);

typedef struct sk_store_file_info {
    int version_major, version_minor; /* of the file */
    int ntables;
    int64_t file_bytes;
    int64_t footer_bytes;
} sk_store_file_info;
SK_API void sk_store_get_file_info(const sk_store *s, sk_store_file_info *out);

typedef struct sk_store_table_info {
    const char *name;        /* owned by the handle */
    sk_store_geometry geometry;
    int has_refined;         /* refined cells stored (lmax reads exact) */
    int ncols;
    int64_t rows;            /* stored rows (leaves, plus refined cells when stored) */
    int64_t refined_rows;    /* of which refined cells (those at a recorded lmax, the
                                capped output's leaves, not counted) */
    int64_t chunks;
    int64_t refined_chunks;  /* chunks of those refined cells */
    int level_min, level_max;/* over the stored rows (cells; 0 otherwise) */
    int curve_bits;          /* Hilbert grid bits the rows are ordered on (0: none) */
    int64_t bytes_raw;       /* rows x column widths */
    int64_t bytes_stored;    /* bytes of its chunks in the file */
    int compressed_columns;  /* chunk-columns stored LZ4-compressed */
} sk_store_table_info;

/* Table i, 0 <= i < ntables; SK_ERR_ARG when out of range. */
SK_API int sk_store_get_table_info(const sk_store *s, int i, sk_store_table_info *out,
                                   sk_error *err);
/* Index of the table called name, -1 when absent. */
SK_API int sk_store_table_index(const sk_store *s, const char *name);

/* File-level metadata pairs (writer, conversion source, ...). */
SK_API int sk_store_meta_count(const sk_store *s);
SK_API const char *sk_store_meta_key(const sk_store *s, int i);
SK_API const char *sk_store_meta_value(const sk_store *s, int i);

/* A new 0-row table with the schema (columns, types, labels) and every
 * metadata pair of the stored table, for info displays. */
SK_API int sk_store_describe(const sk_store *s, const char *table, sk_table **out, sk_error *err);

/* Read `table` with a selection (NULL: everything), as sk_ramses_read does:
 * cells whose centre lies in [lo, hi), particles whose position does; lmax
 * caps the level (exact when refined cells are stored, a filter on leaves
 * otherwise; particles ignore it); vars picks columns (cells always keep
 * level, cx, cy, cz). opt->with_refined also returns the stored refined
 * cells with their uint8 `refined` column. stats->files_opened counts the
 * chunks read. Rows come in file order (along the curve; refined cells after
 * the leaves), which is not the RAMSES reader's per-file order. */
SK_API int sk_store_read(sk_store *s, const char *table, const sk_selection *sel,
                         const sk_read_options *opt, sk_table **out, sk_read_stats *stats,
                         sk_error *err);

/* The column statistics stored with `table` (files of format 1.1 and
 * later) for a read of it with `sel` (NULL: everything): those
 * sk_table_stats_compute gives for the table sk_store_read returns, bit for
 * bit, without reading a chunk, when the selection keeps every leaf row
 * (no box or level cap that drops one, no family filter; variables pick
 * the columns, as the read does). SK_ERR_EMPTY when the file stores none
 * for the table (format 1.0; refined cells stored) or the selection keeps
 * part of the rows; SK_ERR_ARG as sk_store_read for a variable the table
 * lacks. Column names are the store's: valid while s is open. Free with
 * sk_table_stats_free. */
SK_API int sk_store_stored_stats(const sk_store *s, const char *table, const sk_selection *sel,
                                 sk_table_stats *out, sk_error *err);

/* How many chunks of `table` a selection would read (of `*total`). */
SK_API int64_t sk_store_chunks_for(const sk_store *s, const char *table, const sk_selection *sel,
                                   const sk_read_options *opt, int64_t *total, sk_error *err);

/* Read every chunk of every table, check every checksum and that every
 * chunk decodes to its recorded size, values and bounds. threads 0: the
 * budget. Returns the first problem, naming table, chunk and column. */
SK_API int sk_store_verify(sk_store *s, int threads, sk_progress progress, sk_error *err);

/* ---- comparing ---- */

/* Are a and b the same rows up to order, bit for bit? Both are put in a
 * canonical order (cells by level, cx, cy, cz; other tables by every column
 * in turn, comparing bits), then every column is compared. Column names,
 * order and types must agree too. Sets *equal to 1 or 0; when 0 and `why`
 * is not NULL, it holds one line saying what differs first. Fails only when
 * memory runs out. */
SK_API int sk_tables_same_rows(const sk_table *a, const sk_table *b, int *equal, char *why,
                               size_t why_size, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
