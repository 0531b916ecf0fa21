/* Which chunks and columns a selection needs, and which rows of a chunk it
 * keeps. Shared by the reader and the chunk counter. */
#ifndef SNAPKIT_STORE_PLAN_H
#define SNAPKIT_STORE_PLAN_H

#include <stdint.h>

#include "snapkit/select.h"
#include "snapkit/store.h"
#include "formats/snapkit/format.h"

typedef struct st_planned {
    int64_t ci;              /* chunk index */
    int partial;             /* some rows only: needs a mask */
    uint8_t *mask;           /* partial: 1 for rows kept */
    int64_t count;           /* rows kept */
    int64_t out_row;         /* first row in the result */
} st_planned;

typedef struct st_plan {
    const st_table *t;
    int has_box;
    double lo[3], hi[3];     /* box units */
    sk_shape shape;          /* kind SK_SHAPE_NONE: none */
    int lmax;                /* 0: none */
    int with_refined;        /* return refined cells too (with `refined`) */
    double boxlen;           /* points */
    int *out;                /* schema indices of the result's columns */
    int nout;
    int dims;                /* cells: index axes (1..3); a box only tests these */
    int key[4];              /* schema indices the row test needs */
    int nkey;
    st_planned *chunks;
    int64_t nchunks;
    int64_t rows;            /* result rows, once counted */
} st_plan;

/* Resolve a selection against a stored table: columns, then chunks (those
 * the box and lmax can touch, marked partial when some rows may fall out).
 * SK_ERR_ARG for a variable the table lacks, a box on a table without
 * positions, or with_refined on a file without refined cells. */
int st_plan_make(st_plan *p, const sk_store *s, const st_table *t, const sk_selection *sel,
                 int with_refined, sk_error *err);
void st_plan_free(st_plan *p);

/* Keep only the planned chunks of share `rank` of `count` (share.c):
 * contiguous chunk ranges balanced by stored bytes; nothing when count <= 1.
 * Call before the rows are counted (no masks yet). */
void st_plan_share(st_plan *p, const st_table *t, int rank, int count);

/* Row test of one chunk from its decoded key columns (in p->key order):
 * mask[i] = 1 for rows kept. Returns the count. */
int64_t st_plan_mask(const st_plan *p, const st_chunk *ch, void *const *keys, uint8_t *mask);

/* The selection a read with p amounts to, given the one recorded with the
 * stored table (selection.* metadata), for the result's metadata. */
int st_plan_effective(const st_plan *p, const st_table *t, const sk_selection *sel,
                      sk_selection *out, sk_error *err);

#endif
