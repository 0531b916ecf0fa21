/* snapkit/h5export.h - tables into HDF5 files other tools read: h5py (and
 * every language's HDF5 library), and ParaView or VisIt through VTK's
 * VTKHDF format.
 *
 * A file is made, given components one after the other, each streamed in
 * (sk_h5_component hands out an ordered consumer, snapkit/stream.h), and
 * committed: it appears whole under its name at commit, or not at all
 * (snapkit/util/atomicfile.h: written beside the target, flushed, renamed).
 * Memory is the stream's batches plus HDF5's chunk buffers (one chunk per
 * column), whatever the table's size.
 *
 *   sk_h5_file *f;
 *   sk_consumer c;
 *   sk_h5_create(&f, "gas.h5", SK_H5_TABLES, NULL, &err);
 *   sk_h5_component(f, "hydro", &c, &err);
 *   sk_source_stream(src, "hydro", &sel, NULL, &c, NULL, &err);
 *   sk_h5_commit(f, &err);   // or sk_h5_abort(f) after a failure
 *
 * SK_H5_TABLES (.h5, .hdf5): a group per component ("/hydro",
 * "/particles"), a one-dimensional dataset per column (chunked, compressed
 * with the shuffle and deflate filters that every HDF5 build has, so h5py
 * reads them without plugins; SK_CATEGORY columns hold the int32 codes and
 * an attribute "labels"). The group's attributes are the table's metadata
 * (snapkit/table.h: kind, boxlen, unit_l, unit_d, unit_t, time, aexp, the
 * ramses.info.* keys, the selection; a value that reads as a number is
 * stored as a number) and "rows". A column of known dimension has the
 * attributes "cgs_unit" (astropy's spelling) and "to_cgs" (the factor from
 * its code units); every column has "unit" = "code".
 *
 * SK_H5_VTKHDF (.vtkhdf): VTK's VTKHDF format, version 1.0, as VTK 9.1's
 * vtkHDFReader and ParaView 5.10 on read it: one UnstructuredGrid of one
 * piece. Cells (kind "cells") become VTK_VOXEL cells (VTK_PIXEL in 2-D,
 * VTK_LINE in 1-D) of 2^ndim points each, in code lengths (0..boxlen), with
 * every column as cell data; particles become VTK_VERTEX cells at
 * position_x/y/z with every column as point data. One component per file.
 */
#ifndef SNAPKIT_H5EXPORT_H
#define SNAPKIT_H5EXPORT_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_h5_format {
    SK_H5_TABLES = 1, /* .h5, .hdf5: a group of column datasets per component */
    SK_H5_VTKHDF = 2  /* .vtkhdf: a VTK unstructured grid */
} sk_h5_format;

/* The format the path's extension names (case-insensitive). SK_ERR_ARG,
 * naming the extensions there are, for any other. */
SK_API int sk_h5_format_of(const char *path, sk_h5_format *out, sk_error *err);

typedef struct sk_h5_options {
    int gzip;           /* deflate level 1..9 (default 4, h5py's); 0: no compression */
    int64_t chunk_rows; /* rows per HDF5 chunk (default 65536) */
    int fsync;          /* flush to disk before the rename (default 1) */
} sk_h5_options;

/* The defaults. */
SK_API void sk_h5_options_init(sk_h5_options *opt);

typedef struct sk_h5_file sk_h5_file;

/* Begin the file `path` in `format` (opt NULL: defaults): libhdf5 is
 * loaded here (on first use; SNAPKIT_HDF5 may name it), and the target
 * checked as sk_atomic_open does (a folder or a read-only file is refused;
 * a device or "-" is written through at commit). SK_ERR_IO when libhdf5
 * cannot be loaded or HDF5 fails (its message in err), SK_ERR_ARG for bad
 * options. */
SK_API int sk_h5_create(sk_h5_file **out, const char *path, sk_h5_format format,
                        const sk_h5_options *opt, sk_error *err);

/* A string attribute of the file's root group (the source, its kind). */
SK_API int sk_h5_set_attribute(sk_h5_file *f, const char *key, const char *value, sk_error *err);

/* An ordered consumer that writes the table it is streamed as component
 * `component` (the group's name; in a VTKHDF file, the grid). It finishes
 * the component given before. The consumer is valid until the next call
 * on f; its begin must run (a stream calls it) before sk_h5_commit.
 * SK_ERR_ARG for a component given twice, a second component in a VTKHDF
 * file, or a name HDF5 cannot take; the consumer's begin fails with
 * SK_ERR_ARG on a VTKHDF file for a table that is neither cells nor
 * particles with positions. */
SK_API int sk_h5_component(sk_h5_file *f, const char *component, sk_consumer *out,
                           sk_error *err);

/* Rows written so far to the components of f. */
SK_API int64_t sk_h5_rows(const sk_h5_file *f);

/* Finish the last component, close the file and put it in place; frees f
 * (on failure too, leaving the target as it was). */
SK_API int sk_h5_commit(sk_h5_file *f, sk_error *err);

/* Drop the file (nothing is left behind) and free f. NULL is allowed. */
SK_API void sk_h5_abort(sk_h5_file *f);

/* A small table in memory (a profile, a clump catalogue) as one HDF5
 * file, whole or not at all: every column a one-dimensional dataset at the
 * root (SK_CATEGORY: the int32 codes and an attribute "labels"), with an
 * attribute "unit" where the table's metadata has "units.NAME"; the
 * table's other metadata pairs (its own "kind" as "table_kind"), and
 * "kind" = `kind`, as attributes of the root (numbers as numbers). opt NULL: the defaults. */
SK_API int sk_h5_write_table(const char *path, const sk_table *t, const char *kind,
                             const sk_h5_options *opt, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
