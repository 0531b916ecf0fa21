/* snapkit/convert.h - RAMSES outputs to compact files and back.
 *
 * The bridge between the two readers: it reads a RAMSES output (ramses.h)
 * and writes a compact file (store.h), checks a file against the output it
 * came from, and describes a file with the keys `snapkit info` gives for a
 * RAMSES output. Neither reader depends on it.
 */
#ifndef SNAPKIT_CONVERT_H
#define SNAPKIT_CONVERT_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/progress.h"
#include "snapkit/select.h"
#include "snapkit/store.h"

/* The JSON writer (snapkit/util/json.h), taken by pointer. */
typedef struct sk_json sk_json;

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_store_convert_options {
    const char *components;      /* "hydro,gravity,particles" (NULL: every one present) */
    const sk_selection *selection; /* NULL: everything; recorded in each table */
    int with_coarse;             /* keep refined cells too (sk_read_options.with_refined) */
    sk_store_write_options write;/* compress, threads (reading too), chunk_rows, ... */
    sk_progress read_progress;   /* optional: files read of the current component */
} sk_store_convert_options;

/* No components list or selection, leaves only, default write options. */
SK_API void sk_store_convert_options_init(sk_store_convert_options *opt);

#define SK_STORE_MAX_CONVERTED 8
typedef struct sk_store_convert_stats {
    int ntables;
    char names[SK_STORE_MAX_CONVERTED][16];
    int64_t rows[SK_STORE_MAX_CONVERTED]; /* leaf cells or particles written per table */
    int64_t refined_rows[SK_STORE_MAX_CONVERTED]; /* refined cells too (--with-coarse) */
    int64_t bytes_source;        /* RAMSES files of those components (plus amr for cells) */
    int64_t bytes_raw;           /* the tables' columns in memory */
    int64_t bytes_file;          /* the finished file */
    double read_seconds;         /* reading the output */
    double write_seconds;        /* ordering, encoding, writing, committing */
    int64_t bytes_allocated;     /* bytes the library allocated during the convert,
                                    every allocation counted (not the most held at
                                    once: see sk_mem_stats.peak); 0 under MPI */
    int fallbacks;               /* tables whose CPU files were not in curve order:
                                    read whole instead of streamed */
} sk_store_convert_stats;

/* Read the components of the RAMSES output `dir` with the selection and
 * write them, one table each, to `path` (atomically). The file metadata
 * records convert.source, convert.components and convert.with_coarse; each
 * table records its selection as selection.* metadata.
 *
 * Leaf tables are streamed (sk_ramses_stream, an ordered consumer): each
 * CPU file is sorted along the curve and merged into the rows waiting for
 * their place, and chunks are written as soon as their rows are final, so
 * the memory held is about threads x the largest CPU file, not the table,
 * and the file is byte for byte the one sk_store_writer_add makes of the
 * whole table. Tables with refined cells (with_coarse), and a table whose
 * CPU files are not consecutive pieces of the curve (its chunks written so
 * far are taken back; stats->fallbacks counts it), are read whole. */
SK_API int sk_store_convert(const char *dir, const char *path, const sk_store_convert_options *opt,
                            sk_store_convert_stats *stats, sk_error *err);

/* sk_store_convert under MPI (snapkit/util/mpi.h), collective over
 * MPI_COMM_WORLD: every rank reads its share of each component and writes
 * its chunks into one file with MPI-IO at offsets from an exclusive scan;
 * rank 0 writes the header and the footer and, once every rank finished,
 * renames the temporary ".NAME.mpi-part" beside the target to it (a
 * stale one from a killed job is removed first). The file is byte for
 * byte sk_store_convert's, refined cells (with_coarse) too: the leaves
 * and then each level's refined cells go through the ranks as pieces of
 * the curve of their own. Refused: shares whose rows interleave along the Hilbert curve (CPU files that
 * are not consecutive pieces of it). Every rank returns the same status
 * and error, and on failure no target and no temporary is left. stats
 * hold the sums over the ranks (times: the slowest rank's). Without MPI
 * running: sk_store_convert. */
SK_API int sk_store_convert_ranks(const char *dir, const char *path,
                                  const sk_store_convert_options *opt,
                                  sk_store_convert_stats *stats, sk_error *err);

/* Does the file hold exactly what the RAMSES output `dir` gives for each
 * table's recorded selection (refined cells too when stored)? Rows are
 * compared bit for bit in canonical order (sk_tables_same_rows), then
 * every metadata pair but "source". Sets *same; when 0, `why` holds one line
 * naming the table and the first difference. Checksums of the chunks read
 * are checked on the way (use sk_store_verify for all of them). */
SK_API int sk_store_check_source(sk_store *s, const char *dir, int threads, int *same, char *why,
                                 size_t why_size, sk_error *err);

/* Everything `snapkit info FILE.snapkit --json` shows, as one object: the
 * keys `snapkit info` gives for a RAMSES output (path, output, format, info,
 * header, namelist, descriptors, components, columns, gamma, disk), rebuilt
 * from the stored metadata, and "store": format version, sizes, file
 * metadata, and per table rows, chunks, levels, bytes raw and stored, the
 * recorded selection, and whether lmax reads are exact ("lmax"). */
SK_API int sk_store_info_json(const sk_store *s, sk_json *j, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
