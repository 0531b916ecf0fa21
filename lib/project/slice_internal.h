/* Internal pieces of the slices (slice.c fills, slice_mpi.c gathers the
 * ranks' pixels). */
#ifndef SNAPKIT_SLICE_INTERNAL_H
#define SNAPKIT_SLICE_INTERNAL_H

#include <stdint.h>

#include "project_internal.h"
#include "snapkit/slice.h"

struct sk_slice_stream {
    int nq;
    char *names[SK_MAX_VARS];
    sk_slice_options opt;
    sk_project_options popt;  /* how each batch's quantities are resolved */
    int ua, va;               /* coordinate index of the image's axes */
    int oblique;              /* off-axis: the plane through P normal to n */
    double n[3], right[3], up[3], P[3];
    double u0, v0, pixel;     /* box units */
    size_t npix;
    int begun, nthreads;
    double *data;             /* nq maps of npix values, NaN where no cell reached */
    uint8_t *painted;         /* npix: 1 where a cell reached the pixel */
    double factor[SK_MAX_VARS];
    char units[SK_MAX_VARS][24];
    proj_dim dim[SK_MAX_VARS];
    double boxlen, unit_l, unit_t, time, start;
    int64_t *count;           /* per thread: rows, crossing the plane, reaching the image */
};

#endif
