/* Rows kept per thread for binned analyses (profiles, and phase diagrams
 * can use it too): each streamed row's weight (sk_weight: mass, volume or
 * none, times a float64 `clip` column when there is one) and the values of
 * some columns, each times a unit factor, appended to the arrays of the
 * thread that read it. Rows whose weight or whose value of one of the
 * first `nfilter` columns is NaN are left out, and so are rows outside a
 * filter column's open range (lo, hi) when it has one (bins.h's strict
 * filter). The extrema of the filter columns' values kept (and the least
 * positive value, for log bins) come with them. Nothing depends on which
 * thread kept which row: the callers sum exactly. */
#ifndef SNAPKIT_ANALYSIS_KEEP_H
#define SNAPKIT_ANALYSIS_KEEP_H

#include <stdint.h>

#include "analysis/colstore.h"
#include "snapkit/table.h"
#include "snapkit/wstats.h"

enum { AN_KEEP_MAX_COLS = 64 };

/* Rows kept in a part's store: the weight (store column 0), then each
 * column's values. */
static inline const double *an_keep_weights(const an_colblock *b)
{
    return an_colblock_col(b, 0);
}
static inline const double *an_keep_values(const an_colblock *b, int c)
{
    return an_colblock_col(b, c + 1);
}

typedef struct an_keep_part {
    an_colstore rows;
    double min[AN_KEEP_MAX_COLS], max[AN_KEEP_MAX_COLS], min_pos[AN_KEEP_MAX_COLS];
} an_keep_part;

typedef struct an_keep {
    int ncols, nfilter;
    char *names[AN_KEEP_MAX_COLS];
    double factor[AN_KEEP_MAX_COLS];   /* code value -> kept value */
    int has_range[AN_KEEP_MAX_COLS];
    double lo[AN_KEEP_MAX_COLS], hi[AN_KEEP_MAX_COLS];
    sk_weight weight;
    /* resolved at begin from the schema */
    int col[AN_KEEP_MAX_COLS], weight_col, level_col, clip_col;
    double per_level[64];
    int nparts;
    an_keep_part *parts;               /* one per thread */
} an_keep;

/* Keep columns names[0..ncols) (the first nfilter filter the rows) with
 * weights `weight`; factors 1 and no ranges until set. */
int an_keep_init(an_keep *k, int ncols, const char *const *names, int nfilter, sk_weight weight,
                 sk_error *err);
void an_keep_free(an_keep *k);
/* Find the columns and the weight's in the batches' schema, and make
 * room for nthreads parts. The rows kept by earlier streams stay: several
 * streams (a RAMSES output's gas, then its particles) keep their rows
 * together. SK_ERR_ARG naming a column the rows lack, or a
 * weight they cannot give (volume without cells, mass without density or
 * mass). */
int an_keep_begin(an_keep *k, int nthreads, const sk_table *schema, sk_error *err);
/* Append the batch's rows to part `thread`. SK_ERR_RANGE for a negative
 * or infinite weight, or a level outside 0..63. */
int an_keep_batch(an_keep *k, int thread, const sk_table *batch, sk_error *err);
/* Rows kept in every part. */
int64_t an_keep_rows(const an_keep *k);
/* The extrema of filter column c over every part: its least and greatest
 * value and its least positive one (+inf when none). 0 when no row was kept. */
int an_keep_extrema(const an_keep *k, int c, double *min, double *max, double *min_pos);

/* Every row kept, row after row: its weight, then its ncols values, into
 * *rows (an sk_malloc block; NULL when none) and their count into *n. */
int an_keep_pack(const an_keep *k, double **rows, int64_t *n, sk_error *err);
/* Replace the rows kept by n packed rows (an_keep_pack's layout), all in
 * part 0, the extrema recomputed. */
int an_keep_unpack(an_keep *k, const double *rows, int64_t n, sk_error *err);

#endif
