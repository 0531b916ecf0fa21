/* snapkit/table.h - the columnar table every reader returns.
 *
 * A table is named, typed columns of equal length (struct of arrays) plus
 * ordered key/value metadata (strings). RAMSES cells, particles and atoms are
 * all tables. Column data is one sk_malloc block per column, 64-byte aligned,
 * so Python can wrap it as a numpy array without a copy.
 *
 * Metadata conventions (keys other modules rely on):
 *   kind        "cells", "particles" or "atoms"
 *   component   "hydro", "gravity", "particles", ...
 *   boxlen, unit_l, unit_d, unit_t, time, aexp, ndim, levelmin, levelmax
 *   ramses.info.<key>   every key of info_XXXXX.txt as written
 *   selection.<key>     the selection that produced the table
 * Cell tables hold int32 columns level, cx, cy, cz: the cell centre is
 * (c + 0.5) / 2^level in box units.
 */
#ifndef SNAPKIT_TABLE_H
#define SNAPKIT_TABLE_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>
#include "snapkit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_dtype {
    SK_INT8 = 1,
    SK_UINT8,
    SK_INT16,
    SK_UINT16,
    SK_INT32,
    SK_UINT32,
    SK_INT64,
    SK_UINT64,
    SK_FLOAT32,
    SK_FLOAT64,
    SK_CATEGORY /* int32 codes into the column's labels (element names, strings) */
} sk_dtype;

/* Bytes per element (4 for SK_CATEGORY codes); 0 for an unknown type. */
SK_API size_t sk_dtype_size(sk_dtype type);
/* numpy-style name: "int8" ... "float64", "category". */
SK_API const char *sk_dtype_name(sk_dtype type);
/* Inverse of sk_dtype_name; 0 when unknown. */
SK_API sk_dtype sk_dtype_from_name(const char *name);
SK_API int sk_dtype_is_integer(sk_dtype type);
SK_API int sk_dtype_is_float(sk_dtype type);

typedef struct sk_column {
    char *name;
    sk_dtype type;
    void *data;      /* nrows elements, owned by the table */
    int32_t nlabels; /* SK_CATEGORY only: labels[code] */
    char **labels;
} sk_column;

typedef struct sk_table sk_table;

/* New table of nrows rows and no columns; NULL when out of memory. */
SK_API sk_table *sk_table_new(int64_t nrows);
SK_API void sk_table_free(sk_table *table);

SK_API int64_t sk_table_nrows(const sk_table *table);
SK_API int sk_table_ncols(const sk_table *table);
/* i-th column, 0 <= i < ncols. */
SK_API sk_column *sk_table_col(const sk_table *table, int i);
/* Column by name, NULL when absent. */
SK_API sk_column *sk_table_find(const sk_table *table, const char *name);
/* Index of the column, -1 when absent. */
SK_API int sk_table_index(const sk_table *table, const char *name);

/* Add a column of nrows uninitialised elements and return its data, or NULL
 * (err filled) when the name exists or memory runs out. Readers allocate
 * every column once, then fill in place. */
SK_API void *sk_table_add(sk_table *table, const char *name, sk_dtype type, sk_error *err);
/* Add a column whose data (an sk_malloc block of nrows elements) the table
 * takes over. On failure the block is freed. */
SK_API int sk_table_add_owned(sk_table *table, const char *name, sk_dtype type,
                              void *data, sk_error *err);
/* Give an SK_CATEGORY column its labels (copied). */
SK_API int sk_table_set_labels(sk_table *table, const char *name, const char *const *labels,
                               int32_t nlabels, sk_error *err);
/* Drop a column; SK_ERR_ARG when absent. */
SK_API int sk_table_remove(sk_table *table, const char *name);
/* Rename a column; SK_ERR_ARG when absent or the new name is taken. */
SK_API int sk_table_rename(sk_table *table, const char *from, const char *to, sk_error *err);

/* Keep only the rows whose keep[i] is non-zero, in order, in place. Column
 * blocks shrink to the new size. Returns the new row count. */
SK_API int64_t sk_table_filter(sk_table *table, const uint8_t *keep);
/* Set the row count to nrows <= current, shrinking blocks. */
SK_API int sk_table_truncate(sk_table *table, int64_t nrows, sk_error *err);

/* Bytes of column data (what a result costs in memory). */
SK_API int64_t sk_table_bytes(const sk_table *table);

/* Metadata: ordered string key/value pairs; set replaces an existing key. */
SK_API int sk_table_meta_set(sk_table *table, const char *key, const char *value);
SK_API int sk_table_meta_setf(sk_table *table, const char *key, const char *fmt, ...)
                              __attribute__((format(printf, 3, 4)));
/* Stores the shortest text that reads back to the same double. */
SK_API int sk_table_meta_set_double(sk_table *table, const char *key, double value);
SK_API const char *sk_table_meta_get(const sk_table *table, const char *key);
/* The value parsed as a double, or fallback when absent or not a number. */
SK_API double sk_table_meta_double(const sk_table *table, const char *key, double fallback);
SK_API int sk_table_meta_count(const sk_table *table);
SK_API const char *sk_table_meta_key(const sk_table *table, int i);
SK_API const char *sk_table_meta_value(const sk_table *table, int i);
/* Copy every metadata pair of src into dst. */
SK_API int sk_table_meta_copy(sk_table *dst, const sk_table *src);

/* Value i of a numeric column as a double (category: the code). */
SK_API double sk_column_get_double(const sk_column *col, int64_t i);

#ifdef __cplusplus
}
#endif
#endif
