/* Rows of a few double columns kept in memory, for binned analyses that
 * keep what they read (profiles: every row; phase diagrams: the extrema
 * pass's rows, so the binning pass needs no second read). Rows are
 * appended in batches to blocks of at least AN_COLSTORE_SLAB bytes, each
 * column contiguous within its block: large blocks get huge pages
 * (memory.c) and fault a few times instead of once per page, and a batch
 * is never copied again as the store grows. One store per thread. */
#ifndef SNAPKIT_ANALYSIS_COLSTORE_H
#define SNAPKIT_ANALYSIS_COLSTORE_H

#include <stdint.h>

enum { AN_COLSTORE_SLAB = 8 << 20 };

/* n rows; column c's values at base + c * stride (room for stride rows). */
typedef struct an_colblock {
    int64_t n, stride;
    double *base;
} an_colblock;

static inline double *an_colblock_col(const an_colblock *b, int c)
{
    return b->base + (int64_t)c * b->stride;
}

typedef struct an_colstore {
    int ncols;
    int64_t n;                 /* rows in every block */
    int64_t nblocks, cap;
    an_colblock *blocks;
} an_colstore;

/* An empty store of ncols columns. */
void an_colstore_init(an_colstore *s, int ncols);
/* Free every block; the store is empty again (same columns). */
void an_colstore_clear(an_colstore *s);
/* A block with room for n more rows at its end (the last block, or a new
 * one); NULL when out of memory. The caller writes the rows at
 * an_colblock_col(b, c) + b->n and then calls an_colstore_added. */
an_colblock *an_colstore_room(an_colstore *s, int64_t n);
/* The m rows just written at the end of block b are kept. */
static inline void an_colstore_added(an_colstore *s, an_colblock *b, int64_t m)
{
    b->n += m;
    s->n += m;
}

#endif
