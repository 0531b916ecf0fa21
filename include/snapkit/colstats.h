/* snapkit/colstats.h - per-column statistics of a table.
 *
 * One implementation of min, max, sum and volume-weighted sum for every
 * numeric column, shared by `snapkit stats` (RAMSES outputs and compact
 * files), Python and the benchmarks. Sums are exact until the end and
 * rounded once (to nearest, as math.fsum), so they do not depend on the row
 * order, on how the rows are cut into batches, or on the thread count.
 *
 * Whole tables: sk_table_stats_compute. Streams (snapkit/stream.h): one
 * sk_stats_acc per thread, each fed batches with sk_stats_acc_add, merged
 * with sk_stats_acc_merge and read with sk_stats_acc_result; the result has
 * the same bits as sk_table_stats_compute on the concatenated table when
 * each batch is added with its position in that table's order.
 *
 * For cell tables (an int32 `level` column and `boxlen` in the metadata)
 * volume sums weigh each value by its cell volume (boxlen / 2^level)^3, and
 * rows are counted per level.
 *
 * Clipped tables (a float64 column `clip`, snapkit/clip.h): every other
 * column's sum is of value x clip and its volume sum of (value x volume) x
 * clip, each product rounded once; the clip column's own sums are plain
 * (its sum is the cells' fractional count, its volume sum the volume
 * inside); min and max are the values of the rows (the cells touched).
 */
#ifndef SNAPKIT_COLSTATS_H
#define SNAPKIT_COLSTATS_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_STATS_MAX_LEVEL 63

typedef struct sk_column_stats {
    const char *name;      /* the table's column name (valid while the table lives) */
    int is_cell_index;     /* level, cx, cy, cz of a cell table */
    double min, max;       /* NaN when the table has no rows; NaN values are skipped */
    double sum, abs_sum;   /* compensated sums of the values and of their magnitudes */
    double volume_sum, abs_volume_sum; /* sum of value * cell volume (cell tables only) */
} sk_column_stats;

typedef struct sk_table_stats {
    int64_t rows;
    int is_cells;          /* volume sums and level counts are filled */
    int64_t levels[SK_STATS_MAX_LEVEL + 1]; /* rows per level (cell tables) */
    int ncols;
    sk_column_stats *cols; /* one per column, in table order */
} sk_table_stats;

/* Statistics of every numeric column of t, columns spread over up to
 * `threads` threads (0: the thread budget). Free with sk_table_stats_free. */
SK_API int sk_table_stats_compute(const sk_table *t, int threads, sk_table_stats *out,
                                  sk_error *err);
SK_API void sk_table_stats_free(sk_table_stats *s);

/* A mergeable accumulator of the statistics of tables with the columns
 * of `schema` (names and order; its metadata says whether it is a cell
 * table: "kind", "boxlen", "ndim", as for sk_table_stats_compute). */
typedef struct sk_stats_acc sk_stats_acc;
SK_API int sk_stats_acc_new(const sk_table *schema, sk_stats_acc **out, sk_error *err);
SK_API void sk_stats_acc_free(sk_stats_acc *acc);

/* Add every row of batch (the schema's columns, in its order). `index` is
 * the batch's position in the whole table's row order (file or chunk
 * number): among extremes that compare equal (0 and -0) the one of the
 * lowest index wins, as in one pass over the rows. Batches may come in any
 * order. SK_ERR_ARG for other columns, SK_ERR_RANGE for a level outside
 * 0..SK_STATS_MAX_LEVEL. */
SK_API int sk_stats_acc_add(sk_stats_acc *acc, const sk_table *batch, int64_t index, sk_error *err);

/* acc += from (the same schema); from is unchanged. Exact: any order of
 * merges gives the same result. An accumulator without rows merges with
 * any other (an empty one takes the other's columns); two with rows and
 * different columns are SK_ERR_ARG. */
SK_API int sk_stats_acc_merge(sk_stats_acc *acc, const sk_stats_acc *from, sk_error *err);

/* The statistics so far (column names owned by acc: valid while it
 * lives). Free with sk_table_stats_free. */
SK_API int sk_stats_acc_result(const sk_stats_acc *acc, sk_table_stats *out, sk_error *err);

/* The accumulator's whole state (column names too) as bytes, for another
 * process of the same build on the same kind of machine (the ranks of an
 * MPI job), and an accumulator made back from such bytes: decoded and
 * merged, it gives the bits the original would. *bytes is an sk_malloc
 * block the caller frees; SK_ERR_FORMAT for bytes that are not one. */
SK_API int sk_stats_acc_encode(const sk_stats_acc *acc, void **bytes, size_t *size, sk_error *err);
SK_API int sk_stats_acc_decode(const void *bytes, size_t size, sk_stats_acc **out, sk_error *err);

/* Compensated (Neumaier) running sum: add values with sk_ksum_add, read
 * the total with sk_ksum_value. */
typedef struct sk_ksum {
    double sum, comp;
} sk_ksum;
SK_API void sk_ksum_add(sk_ksum *s, double v);
SK_API double sk_ksum_value(const sk_ksum *s);

#ifdef __cplusplus
}
#endif
#endif
