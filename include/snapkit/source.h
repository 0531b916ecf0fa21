/* snapkit/source.h - one handle for whatever holds a snapshot: a RAMSES
 * output folder or a .snapkit file.
 *
 * sk_source_open decides the kind from the path once; the calls below
 * answer for both kinds, so a program reads a component with a selection
 * without asking which kind it has. Questions only one kind can answer go
 * to the underlying handle (sk_source_ramses, sk_source_store).
 *
 *   sk_source *src;
 *   if (sk_source_open(&src, path, &err) == SK_OK) {
 *       sk_units u;
 *       sk_source_units(src, "hydro", &u, &err);  // for sk_selection_set_region
 *       sk_source_read(src, "hydro", &sel, NULL, &table, NULL, &err);
 *       sk_source_close(src);
 *   }
 */
#ifndef SNAPKIT_SOURCE_H
#define SNAPKIT_SOURCE_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/ramses.h"
#include "snapkit/read.h"
#include "snapkit/select.h"
#include "snapkit/store.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"
#include "snapkit/units.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_source sk_source;

typedef enum sk_source_format {
    SK_SOURCE_RAMSES = 1,  /* an output folder (output_NNNNN) */
    SK_SOURCE_SNAPKIT = 2  /* a .snapkit file */
} sk_source_format;

/* The kind sk_source_open takes `path` for, without opening it:
 * SK_SOURCE_SNAPKIT when it exists and is not a folder (sk_store_is_file:
 * a damaged or foreign file then gets sk_store_open's word on what is
 * wrong with it), else SK_SOURCE_RAMSES (missing paths too). Never fails. */
SK_API sk_source_format sk_source_path_kind(const char *path);

/* Open `path` as the kind sk_source_path_kind says: a .snapkit file
 * (sk_store_open) or a RAMSES output folder (sk_ramses_open).
 * *out is a new handle the caller closes with
 * sk_source_close; NULL on failure, with the opener's error (naming the
 * path or the file at fault) in *err. */
SK_API int sk_source_open(sk_source **out, const char *path, sk_error *err);

/* The same, collective under MPI: every rank of the world calls it with
 * the same path. On more than one rank the ranks agree on the status
 * (sk_mpi_agree: all fail alike, with the lowest failing rank's error),
 * then rank 0 stats a RAMSES output's CPU files for every rank
 * (sk_mpi_ramses_sizes). On one rank, sk_source_open. */
SK_API int sk_source_open_mpi(sk_source **out, const char *path, sk_error *err);

/* Close the handle and the underlying one; NULL is allowed. */
SK_API void sk_source_close(sk_source *src);

/* SK_SOURCE_RAMSES or SK_SOURCE_SNAPKIT. */
SK_API sk_source_format sk_source_kind(const sk_source *src);
/* "ramses" or "snapkit"; NULL for another value. A static string. */
SK_API const char *sk_source_kind_name(sk_source_format kind);
/* The path as given to sk_source_open; valid while src is open. */
SK_API const char *sk_source_path(const sk_source *src);

/* The underlying handle of a RAMSES output (NULL for a .snapkit file), or
 * of a .snapkit file (NULL for a RAMSES output), for questions of that
 * format only. Owned by src: do not close it. */
SK_API sk_ramses *sk_source_ramses(const sk_source *src);
SK_API sk_store *sk_source_store(const sk_source *src);

/* The components present, in reading order: those of
 * sk_ramses_component_name the output holds, or the file's tables in file
 * order. Up to max names go to names (valid while src is open); returns
 * how many were written. */
SK_API int sk_source_components(const sk_source *src, const char **names, int max);
/* Does the source hold `component` (an output's component, a file's
 * table)? 1 or 0. */
SK_API int sk_source_has_component(const sk_source *src, const char *component);

/* The units selections are given in (sk_selection_set_region): a RAMSES
 * output's info (with aexp and h for a cosmological run); a .snapkit
 * file's from the metadata of its table `component` (NULL: the first
 * table, whose metadata holds the output's). SK_ERR_ARG naming the file
 * when it has no such table, SK_ERR_EMPTY when it has no table at all. */
SK_API int sk_source_units(const sk_source *src, const char *component, sk_units *out,
                           sk_error *err);

/* What a read of `component` divides into: a RAMSES output's CPU files
 * (ncpu, whatever the component), or the chunks of the file's table
 * `component`. Errors as sk_store_chunks_for (a table the file lacks). */
SK_API int sk_source_file_count(const sk_source *src, const char *component, int64_t *count,
                                sk_error *err);

/* Read `component` with a selection (NULL: everything) into a new table
 * *out that the caller frees: sk_ramses_read or sk_store_read, whose
 * options, statistics (stats->files_opened counts a file's chunks) and
 * errors it has. opt and stats may be NULL. */
SK_API int sk_source_read(sk_source *src, const char *component, const sk_selection *sel,
                          const sk_read_options *opt, sk_table **out, sk_read_stats *stats,
                          sk_error *err);

/* The same handed to consumer in batches (snapkit/stream.h):
 * sk_ramses_stream or sk_store_stream. opt and stats may be NULL. */
SK_API int sk_source_stream(sk_source *src, const char *component, const sk_selection *sel,
                            const sk_read_options *opt, const sk_consumer *consumer,
                            sk_read_stats *stats, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
