/* Inside the HDF5 writers (snapkit/h5export.h): the file, a component
 * being written, and the dataset and attribute helpers they share. */
#ifndef SNAPKIT_EXPORT_H5EXPORT_INTERNAL_H
#define SNAPKIT_EXPORT_H5EXPORT_INTERNAL_H

#include "export/h5lib.h"
#include "snapkit/h5export.h"
#include "core/atomicfile.h"

/* A column written chunk by chunk (h5chunks.c). */
typedef struct h5_stream_col {
    hid_t dset;
    size_t elem, row_bytes; /* bytes of a value, of a row (width values) */
    hsize_t width;          /* 0: one value a row */
    int64_t chunk_rows;     /* the dataset's chunk */
    unsigned char *stage;   /* the rows short of a chunk, kept for the next batch */
    int64_t staged, flushed;
} h5_stream_col;

/* A component being written. */
typedef struct h5_component {
    sk_h5_file *file;
    char name[128];
    int begun;
    hid_t group;  /* tables: the component's group; VTKHDF: /VTKHDF */
    hid_t data;   /* VTKHDF: CellData or PointData */
    int ncols;
    char **names; /* the schema's columns */
    h5_stream_col *cols; /* their datasets */
    int64_t rows;
    int threads;  /* the stream's: compressing chunks */
    /* VTKHDF only */
    int particles, ndim, corners;
    double boxlen;
    h5_stream_col grid[4]; /* Points, Connectivity, Offsets, Types */
    void *scratch;  /* one batch's points, connectivity, offsets and types */
    size_t scratch_bytes;
} h5_component;

struct sk_h5_file {
    char *path;
    sk_h5_format format;
    sk_h5_options opt;
    sk_atomic_file *atomic;
    hid_t file;
    h5_component *current;
    int ncomponents;
    char done[16][128]; /* the components given, to refuse one given twice */
    int64_t rows;
};

/* A one-dimensional (width 0) or two-dimensional (rows x width) dataset
 * of `type` that grows: chunked, shuffled and deflated per the options.
 * A negative id on failure. */
hid_t h5x_dataset(const sk_h5_file *f, hid_t loc, const char *name, hid_t type, hsize_t width);
/* The rows of a chunk of the dataset h5x_dataset makes. */
int64_t h5x_chunk_rows(const sk_h5_file *f, hid_t type, hsize_t width);
/* A growing dataset (h5x_dataset) written chunk by chunk into s, which
 * the caller frees with h5s_free: < 0 on failure (HDF5's or memory). */
int h5x_stream_dataset(h5_component *c, h5_stream_col *s, hid_t loc, const char *name,
                       hid_t type, hsize_t width);
/* Prepare s to write the dataset dset chunk by chunk (chunk_rows rows a
 * chunk, as made): < 0 when dset is not valid or memory runs out. */
int h5s_init(h5_stream_col *s, hid_t dset, hid_t type, hsize_t width, int64_t chunk_rows);
void h5s_free(h5_stream_col *s);
/* Append n[i] rows of data[i] to cols[i], for count columns: their
 * complete chunks compressed on c->threads threads, then written. */
int h5s_append(h5_component *c, h5_stream_col *const *cols, const void *const *data,
               const int64_t *n, int count, sk_error *err);
/* Append the batch's columns (c->names, in order) to c->cols. */
int h5x_append_columns(h5_component *c, const sk_table *batch, sk_error *err);
/* Write the last, partial chunk of col. */
int h5s_finish(h5_component *c, h5_stream_col *col, sk_error *err);
/* Append n rows (of width values each, 0 for one) at row `at`: < 0 on failure. */
int h5x_append(hid_t dset, hid_t type, int64_t at, int64_t n, hsize_t width, const void *data);
/* Attributes on loc: < 0 on failure. */
int h5x_attr_string(hid_t loc, const char *key, const char *value);
int h5x_attr_double(hid_t loc, const char *key, double value);
int h5x_attr_int64s(hid_t loc, const char *key, const int64_t *values, int n);
int h5x_attr_doubles(hid_t loc, const char *key, const double *values, int n); /* n: 1 scalar */
/* An array of strings (a category column's labels). */
int h5x_attr_strings(hid_t loc, const char *key, const char *const *values, int n);
/* Every metadata pair of the table as an attribute: numbers as numbers. */
int h5x_attr_meta(hid_t loc, const sk_table *table);
/* A column's unit attributes: "unit" = "code", and "cgs_unit", "to_cgs"
 * when its dimension is known. */
int h5x_attr_units(hid_t dset, const char *column, const sk_table *schema);

/* The schema's column names into c (names, ncols) and room for their
 * datasets: SK_ERR_NOMEM. */
int h5x_take_columns(h5_component *c, const sk_table *schema, sk_error *err);
/* HDF5's error as snapkit's, naming the file and the component. */
int h5x_fail(h5_component *c, const char *what, const char *name, sk_error *err);
/* A scratch block of at least n bytes (kept between batches): NULL
 * without memory. */
void *h5x_scratch(h5_component *c, size_t n);

/* The component's consumer's callbacks, per format (h5table.c, vtkhdf.c),
 * and its finishing: counts and attributes written, everything closed. */
int h5_table_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err);
int h5_table_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                   sk_error *err);
int h5_table_finish(h5_component *c, sk_error *err);
int h5_vtk_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err);
int h5_vtk_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                 sk_error *err);
int h5_vtk_finish(h5_component *c, sk_error *err);
/* Close whatever of c is open and free it (no error: after a failure). */
void h5_component_free(h5_component *c);

#endif
