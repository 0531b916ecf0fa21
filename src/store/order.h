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
    int level, cx, cy, cz;   /* cells */
    int pos[3];              /* points */
    int refined;             /* cells: uint8 `refined` column, or -1 */
    double boxlen;           /* points: box units = position / boxlen */
} st_geometry;

/* Find the geometry of a table from its columns and metadata. */
void st_geometry_detect(const sk_table *t, st_geometry *g);

/* Box-unit position of a cell centre: (c + 0.5) / 2^level, exact. */
static inline double st_cell_centre(int32_t c, int32_t level)
{
    return ((double)c + 0.5) / (double)((uint64_t)1 << level);
}

/* The file order of a table. */
typedef struct st_order {
    int64_t *perm;           /* file row r is table row perm[r] */
    int64_t nrows;
    int64_t nchunks;
    int64_t *start;          /* nchunks + 1 file-row starts of chunks */
    uint8_t *kind;           /* per chunk: ST_KIND_ROWS or ST_KIND_REFINED */
    int curve_bits;          /* Hilbert bits (0: rows kept in order) */
} st_order;

/* Order the rows: leaves (or all rows) along the Hilbert curve on a grid of
 * curve_bits = min(finest level, 21) bits (points: 21), then, for cell
 * tables with a `refined` column, the refined cells by level and curve.
 * Chunks hold at most chunk_rows rows and one kind (refined chunks one
 * level). SK_ERR_ARG names a row whose cell indices are out of range. */
int st_order_plan(const sk_table *t, const st_geometry *g, int64_t chunk_rows, st_order *out,
                  sk_error *err);
void st_order_free(st_order *o);

#endif
