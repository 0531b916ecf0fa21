/* snapkit/colstats.h - per-column statistics of a table.
 *
 * One implementation of min, max, sum and volume-weighted sum for every
 * numeric column, shared by `snapkit stats` (RAMSES outputs and compact
 * files), Python and the benchmarks. Sums use Neumaier's compensated
 * summation, so they agree with an exactly rounded sum (math.fsum) to a
 * few ulps of the sum of magnitudes, whatever the row order.
 *
 * For cell tables (an int32 `level` column and `boxlen` in the metadata)
 * volume sums weigh each value by its cell volume (boxlen / 2^level)^3, and
 * rows are counted per level.
 */
#ifndef SNAPKIT_COLSTATS_H
#define SNAPKIT_COLSTATS_H

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
int sk_table_stats_compute(const sk_table *t, int threads, sk_table_stats *out, sk_error *err);
void sk_table_stats_free(sk_table_stats *s);

/* Compensated (Neumaier) running sum: add values with sk_ksum_add, read
 * the total with sk_ksum_value. */
typedef struct sk_ksum {
    double sum, comp;
} sk_ksum;
void sk_ksum_add(sk_ksum *s, double v);
double sk_ksum_value(const sk_ksum *s);

#ifdef __cplusplus
}
#endif
#endif
