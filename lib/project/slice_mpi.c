/* Slices over MPI ranks (snapkit/slice.h). Each rank painted the pixels
 * of the cells in its share; a leaf cell is in one rank's files only, so
 * a pixel was painted on one rank at most. The ranks sum, as integers,
 * each pixel's painted flag and the bits of its values (zero where it was
 * not painted): a sum of one value's bits and zeros is those bits,
 * exactly and in any order, so the maps equal one process's. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "slice_internal.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

/* This rank's flags, value bits and counts into v. */
static void pack(const sk_slice_stream *ss, int64_t *v)
{
    size_t np = ss->npix;
    for (size_t p = 0; p < np; p++)
        v[p] = ss->painted[p];
    for (int q = 0; q < ss->nq; q++) {
        const double *d = ss->data + (size_t)q * np;
        int64_t *bits = v + (size_t)(q + 1) * np;
        for (size_t p = 0; p < np; p++) {
            bits[p] = 0;
            if (ss->painted[p])
                memcpy(&bits[p], &d[p], sizeof d[p]);
        }
    }
    int64_t *tot = v + (size_t)(ss->nq + 1) * np;
    tot[0] = tot[1] = tot[2] = 0;
    for (int t = 0; t < ss->nthreads; t++)
        for (int k = 0; k < 3; k++)
            tot[k] += ss->count[3 * t + k];
}

/* The summed pixels back into the stream (the counts on its thread 0). */
static int unpack(sk_slice_stream *ss, const int64_t *v, sk_error *err)
{
    size_t np = ss->npix;
    for (size_t p = 0; p < np; p++)
        if (v[p] > 1)
            return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                           "pixel (%zu, %zu) was reached on %lld ranks: their shares of the "
                           "cells overlap", p % (size_t)ss->opt.nx, p / (size_t)ss->opt.nx,
                           (long long)v[p]);
    for (int q = 0; q < ss->nq; q++) {
        double *d = ss->data + (size_t)q * np;
        const int64_t *bits = v + (size_t)(q + 1) * np;
        for (size_t p = 0; p < np; p++) {
            d[p] = NAN;
            if (v[p])
                memcpy(&d[p], &bits[p], sizeof d[p]);
        }
    }
    for (size_t p = 0; p < np; p++)
        ss->painted[p] = (uint8_t)v[p];
    memset(ss->count, 0, sizeof *ss->count * 3 * (size_t)ss->nthreads);
    memcpy(ss->count, v + (size_t)(ss->nq + 1) * np, 3 * sizeof *ss->count);
    return SK_OK;
}

int sk_slice_stream_finish_ranks(sk_slice_stream *ss, int rc, sk_maps **out, sk_error *err)
{
    *out = NULL;
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    if (w.size == 1)
        return rc == SK_OK ? sk_slice_stream_finish(ss, out, err) : rc;
    if (rc == SK_OK && (!ss || !ss->begun))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "no stream was sliced");
    size_t n = rc == SK_OK ? ss->npix * (size_t)(ss->nq + 1) + 3 : 1;
    if (rc == SK_OK && n > INT_MAX)
        rc = sk_fail(err, SK_ERR_RANGE, NULL, -1,
                     "%d maps of %d x %d pixels are too many to gather over MPI", ss->nq,
                     ss->opt.nx, ss->opt.ny);
    int64_t *v = rc == SK_OK ? sk_malloc(n * sizeof *v) : NULL;
    if (rc == SK_OK && !v)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory to gather the slice");
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK) {
        pack(ss, v);
        rc = sk_mpi_sum_int64(v, (int)n, err);
    }
    if (rc == SK_OK)
        rc = unpack(ss, v, err);
    sk_free(v);
    if (rc == SK_OK)
        rc = sk_slice_stream_finish(ss, out, err);
    if (w.rank != 0) {
        sk_maps_free(*out);
        *out = NULL;
    }
    return rc;
}
