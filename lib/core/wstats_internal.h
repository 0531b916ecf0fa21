/* Weighted statistics: the accumulator (wstats.c keeps the rows) and the
 * result (wstats_result.c sums, sorts and finds the quantiles). */
#ifndef SNAPKIT_CORE_WSTATS_INTERNAL_H
#define SNAPKIT_CORE_WSTATS_INTERNAL_H

#include "snapkit/wstats.h"

#define WS_MAX_LEVEL 63

/* The rows of one batch: n weights, then each counted column's n values
 * (as doubles), in one sk_malloc block of arrays `stride` apart. */
typedef struct ws_block {
    int64_t n, stride;
    double *w;  /* the block; values of counted column j at w + (1 + j) * stride */
} ws_block;

struct sk_wstats_acc {
    int weight;        /* sk_weight */
    int nschema;       /* the schema's columns, all of them, to check batches against */
    char **names;
    int ncols;         /* columns counted (the schema's but cell index columns) */
    int *col;          /* their index in the schema */
    int is_cells;
    int level_col;     /* -1: not a cell table */
    int weight_col;    /* density (cells) or mass for mass weights; -1 otherwise */
    int clip_col;      /* float64 `clip` (snapkit/clip.h): weights times it, not counted;
                          -1: none */
    double per_level[WS_MAX_LEVEL + 1]; /* (boxlen / 2^l)^ndim */
    int64_t rows;
    ws_block *blocks;
    int64_t nblocks, cap;
};

/* Is `name` one of a cell table's index columns (level, cx, cy, cz)? */
int ws_is_cell_index(const char *name);

#endif
