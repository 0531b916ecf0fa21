/* Where rows are in space, and the file order: Hilbert keys at the finest
 * level, a stable radix sort, and the cuts into chunks. */
#ifndef SNAPKIT_STORE_ORDER_H
#define SNAPKIT_STORE_ORDER_H

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/table.h"

/* Columns that place a table's rows (indices into the table, -1 absent). */
typedef struct st_geometry {
    int kind;                /* sk_store_geometry */
    int level, cx, cy, cz;   /* cells; cy, cz are -1 on axes beyond dims */
    int dims;                /* cells: index axes (1-D and 2-D outputs: 1, 2) */
    int pos[3];              /* points */
    int refined;             /* cells: uint8 `refined` column, or -1 */
    double boxlen;           /* points: box units = position / boxlen */
} st_geometry;

/* The float columns that place a point table's rows, into idx[3]: the
 * ones metadata `position_columns` names ("x,y,z" for sinks), else
 * position_x/y/z. Returns 1 when all three exist. */
int st_point_columns(const sk_table *t, int idx[3]);

/* Cell index axes of a table: 3 with int32 level, cx, cy and cz; 2 or 1
 * when metadata `ndim` says the output is 2-D or 1-D and the table has
 * level, cx (and cy) only; 0 when it is not a cell table. A 1-D or 2-D
 * cell sits at index 0 and centre 0.5 on the missing axes, which no box
 * test looks at (as the RAMSES reader ignores those axes). */
int st_cell_dims(const sk_table *t);
/* Find the geometry of a table from its columns and metadata. */
void st_geometry_detect(const sk_table *t, st_geometry *g);

/* Box-unit position of a cell centre: (c + 0.5) / 2^level, exact. */
static inline double st_cell_centre(int32_t c, int32_t level)
{
    return ((double)c + 0.5) / (double)((uint64_t)1 << level);
}

/* Centre of row i on an axis whose index column is c; 0.5 on an axis the
 * table does not have (c == NULL: 1-D and 2-D outputs). */
static inline double st_cell_centre_of(const int32_t *c, int64_t i, int32_t level)
{
    return c ? st_cell_centre(c[i], level) : 0.5;
}

/* The file order of a table. */
typedef struct st_order {
    int64_t *perm;           /* file row r is table row perm[r] */
    int64_t nrows;
    int64_t nchunks;
    int64_t *start;          /* nchunks + 1 file-row starts of chunks */
    uint8_t *kind;           /* per chunk: ST_KIND_ROWS or ST_KIND_REFINED */
    int curve_bits;          /* Hilbert bits (0: rows kept in order) */
    uint64_t key_ends[2];    /* keys of the first and last leaf in file order */
} st_order;

/* Order the rows: leaves (or all rows) along the Hilbert curve on a grid of
 * curve_bits = min(finest level, 21) bits (points: 21), then, for cell
 * tables with a `refined` column, the refined cells by level and curve.
 * Chunks hold at most chunk_rows rows and one kind (refined chunks one
 * level). SK_ERR_ARG names a row whose cell indices are out of range. */
int st_order_plan(const sk_table *t, const st_geometry *g, int64_t chunk_rows, st_order *out,
                  sk_error *err);
/* The same with the curve's bits given (bits > 0; cells only): ranks of
 * an MPI conversion use the finest level of all of them. */
int st_order_plan_bits(const sk_table *t, const st_geometry *g, int64_t chunk_rows, int bits,
                       st_order *o, sk_error *err);
void st_order_free(st_order *o);
/* The curve keys (bits per axis) of rows idx[0..n) into key. */
int st_order_keys(const sk_table *t, const st_geometry *g, const int64_t *idx, int64_t n,
                  int bits, uint64_t *key, sk_error *err);

/* One batch of a table's rows (a RAMSES CPU file) along the curve, for a
 * writer that takes the table batch by batch. Cells use the curve at
 * SK_HILBERT_MAX_BITS whatever the finest level: a cell's key then is its
 * key at the table's curve_bits (its finest level, if no more) shifted
 * left by the same amount for every row, so the order, ties too, is
 * st_order_plan's. Buffers are reused from batch to batch. */
typedef struct st_batch_order {
    int64_t cap;
    int64_t *idx, *ti;       /* idx[0..nrows): the batch's rows in curve order */
    uint64_t *key, *tk;      /* key[r]: the key of row idx[r] (0 for row tables) */
} st_batch_order;
/* Order t's rows (all of them: leaves only, no refined cells); a stable
 * sort, so tied rows keep their order. Row tables keep theirs. */
int st_batch_order_sort(st_batch_order *b, const sk_table *t, const st_geometry *g,
                        sk_error *err);
void st_batch_order_free(st_batch_order *b);

#endif
