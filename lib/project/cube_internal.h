/* Internal pieces of the cubes (cube.c fills, cube_result.c finishes and
 * writes). */
#ifndef SNAPKIT_CUBE_INTERNAL_H
#define SNAPKIT_CUBE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "project_internal.h"
#include "snapkit/cube.h"

struct sk_cube_stream {
    int nq;
    char *names[SK_MAX_VARS];
    sk_cube_options opt;
    sk_project_options popt;  /* how each batch's quantities are resolved */
    int64_t i0[3], n[3];      /* the grid: first cell index and cells across */
    size_t ncells;
    int begun;
    int by_volume[SK_MAX_VARS]; /* density: averaged by volume whatever the weight */
    double factor[SK_MAX_VARS];
    char units[SK_MAX_VARS][24];
    double boxlen, unit_l, start;
    double *vol, *mass, *num; /* per grid cell: volume and mass weights; nq numerators */
    int64_t rows, deposited;
};

struct sk_cube {
    int nq, level;
    char (*names)[64];
    char (*units)[24];
    int64_t i0[3], n[3];
    double boxlen, unit_l, seconds;
    int weight_mass, no_fsync;
    char length_unit[16];
    double *data;             /* nq blocks of nx*ny*nz values */
    int64_t rows, deposited, empty;
};

/* One batch's rows onto the grid, in row order. */
int cube_deposit(sk_cube_stream *cs, const sk_table *batch, sk_error *err);

/* cube_fits.c */
int cube_write_fits(const sk_cube *cube, const char *path, sk_error *err);

#endif
