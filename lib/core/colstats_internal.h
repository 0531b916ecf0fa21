/* Column statistics (colstats.c) and their per-batch pass (colstats_add.c):
 * the accumulators both files see. */
#ifndef SNAPKIT_CORE_COLSTATS_INTERNAL_H
#define SNAPKIT_CORE_COLSTATS_INTERNAL_H

#include "core/exactsum.h"
#include "snapkit/colstats.h"

typedef struct col_acc {
    double min, max;
    int64_t min_at, max_at; /* batch index of the extreme's first occurrence */
    int64_t seen;
    xs_acc pos, neg, vpos, vneg; /* magnitudes of positive and negative values (and volumes) */
} col_acc;

struct sk_stats_acc {
    int ncols;
    char **names;
    int is_cells;
    int level_col;                           /* -1: not a cell table */
    int clip_col;                            /* float64 `clip`: rows weighted by it; -1: none */
    double per_level[SK_STATS_MAX_LEVEL + 1]; /* (boxlen / 2^l)^ndim */
    int64_t rows;
    int64_t levels[SK_STATS_MAX_LEVEL + 1];
    col_acc *cols;
    uint64_t *bins; /* sk_stats_acc_add's scratch, made (larger) when a batch needs it */
    size_t nbins;
};

/* A batch's levels lmin..lmax (0..0 for a table without levels) and
 * whether each one's weight is 2^shift[l]. */
typedef struct batch_levels {
    int lmin, lmax, pow2;
    int shift[SK_STATS_MAX_LEVEL + 1];
} batch_levels;

/* The bins one thread's colstats_column_add needs for a batch: of values,
 * of weighted values, and of values per level lmin..lmax (powers of two). */
size_t colstats_scratch_size(const batch_levels *bl, int cells);

/* Rows [0, n) of column c into a: level is the batch's level column (NULL:
 * not a cell table), index the batch's number (which orders equal
 * extremes); scratch holds colstats_scratch_size zeros, left zero. */
void colstats_column_add(const sk_stats_acc *s, col_acc *a, const sk_column *c, int64_t n,
                         const int32_t *level, const batch_levels *bl, int64_t index,
                         uint64_t *scratch);
/* The same for a table with a clip column (not column c itself): each
 * value's sum term is value x clip, its volume term (value x volume) x
 * clip, each product rounded once; extremes are the values'. */
void colstats_clipped_column_add(const sk_stats_acc *s, col_acc *a, const sk_column *c,
                                 int64_t n, const int32_t *level, const double *clip,
                                 int64_t index, uint64_t *scratch);
/* a's extremes merged with another piece's. */
void colstats_extremes_merge(col_acc *a, double min, int64_t min_at, double max, int64_t max_at,
                             int64_t seen);

#endif
