/* The threaded pass over the rows. Two ways to keep every thread busy on
 * any number of quantities:
 *   cells  each thread deposits a share of the rows into its own copy of
 *          the accumulators; the copies are summed at the end (in
 *          parallel, by pixel blocks). Only when asked for: the sums'
 *          order then depends on the thread count, and each copy costs a
 *          pass over the image.
 *   tiles  (bands.c) the image is cut into bands of rows owned by one
 *          thread at a time: one map, no reduction, the same bits on any
 *          number of threads. The default on more than one thread.
 * One thread runs the cells pass on its single copy: the same sums in the
 * same order as the tiles, without bucketing. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "project_internal.h"
#include "snapkit/memory.h"

#define REDUCE_BLOCK 4096
#define ROWS_PER_CHUNK 1024

double proj_image_bytes(const proj_job *job, int nmaps)
{
    return (double)job->f.nx * (double)job->f.ny * 8.0 * (double)(job->nacc + nmaps);
}

size_t proj_acc_doubles(const proj_job *job)
{
    return (size_t)job->f.nx * (size_t)job->f.ny * (size_t)job->nacc;
}

int proj_deposit_item(const proj_job *job, const proj_target *t, int64_t r, double *coef,
                      proj_item *it)
{
    int reached = job->grid_level >= 0 ? proj_deposit_grid(job, t, r, coef, it) : -1;
    if (reached >= 0)
        return reached;
    if (!proj_item_of(job, r, it))
        return -1;
    proj_coefficients(job, r, it, coef);
    return proj_deposit(job, t, it, coef);
}

int64_t proj_deposit_row(const proj_job *job, const proj_target *t, int64_t r, double *coef)
{
    proj_item it;
    return proj_deposit_item(job, t, r, coef, &it) > 0;
}

/* A target over rows [r0, r1) with the thread's scratch (3 nx doubles)
 * and block images (or NULL). */
proj_target proj_target_of(const proj_job *job, double *acc, int r0, int r1, double *scratch,
                          double *blk)
{
    size_t nx = (size_t)job->f.nx;
    return (proj_target){acc, r0, r1, scratch, scratch + nx, scratch + 2 * nx, blk};
}

/* Each thread's copy holds the image's accumulators, then its block
 * images; both are summed together, then the blocks spread onto the image. */
static int run_cells(const proj_job *job, int threads, double **acc_out, int64_t *deposited,
                     int *used, sk_error *err)
{
    size_t npix = proj_acc_doubles(job), n = npix + job->nblk;
    double **priv = sk_calloc((size_t)threads, sizeof *priv);
    if (!priv)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int failed = 0, nthreads = 1;
    int64_t count = 0;
    /* Few barriers: on a busy node each one may wait a time slice. A thread
     * whose memory ran out still takes its turns (depositing nothing); the
     * projection then fails as a whole. */
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        if (me == 0)
            nthreads = nth;
        priv[me] = sk_calloc(n ? n : 1, sizeof(double));
        double *row = sk_calloc(3 * (size_t)job->f.nx, sizeof(double));
        int mine_ok = priv[me] && row;
        if (!mine_ok) {
#pragma omp atomic write
            failed = 1;
        }
        proj_target t = proj_target_of(job, priv[me], 0, job->f.ny, row,
                               job->nblk && priv[me] ? priv[me] + npix : NULL);
        double coef[PROJ_MAX_SLOTS];
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK) reduction(+ : count)
        for (int64_t r = 0; r < job->nrows; r++)
            if (mine_ok)
                count += proj_deposit_row(job, &t, r, coef);
        if (!failed) {
#pragma omp for schedule(static)
            for (size_t b = 0; b < n; b += REDUCE_BLOCK) {
                size_t e = b + REDUCE_BLOCK < n ? b + REDUCE_BLOCK : n;
                for (int k = 1; k < nth; k++)
                    for (size_t i = b; i < e; i++)
                        priv[0][i] += priv[k][i];
            }
            if (job->nblk)
                proj_blocks_spread(job, priv[0], priv[0] + npix);
        }
        sk_free(row);
    }
    for (int k = 1; k < threads; k++)
        sk_free(priv[k]);
    double *acc = priv[0];
    sk_free(priv);
    if (failed) {
        sk_free(acc);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                       "out of memory for %d private copies of the maps (%.0f bytes each)",
                       threads, 8.0 * (double)n);
    }
    *acc_out = acc;
    *deposited = count;
    *used = nthreads;
    return SK_OK;
}

int proj_run(proj_job *job, const sk_project_options *opt, double **acc_out,
             sk_maps_info *info, sk_error *err)
{
    int threads = job->threads;
    double one = 8.0 * (double)(proj_acc_doubles(job) + job->nblk);
    /* Cells only when asked for and their copies fit the private budget;
     * tiles hold the row indices in 32 bits. */
    int cells = threads == 1 ||
                (opt->strategy == SK_STRATEGY_CELLS && one * threads <= (double)opt->private_budget);
    int tiles = (opt->strategy == SK_STRATEGY_TILES || !cells) &&
                job->nrows <= (int64_t)UINT32_MAX;
    int64_t extra = 0;
    int used = 1, rc;
    if (tiles)
        rc = proj_run_tiles(job, threads, acc_out, &info->deposited, &used, &extra, err);
    else
        rc = run_cells(job, threads, acc_out, &info->deposited, &used, err);
    if (rc != SK_OK)
        return rc;
    info->threads = used;
    snprintf(info->strategy, sizeof info->strategy, "%s", tiles ? "tiles" : "cells");
    info->accumulator_bytes =
        (int64_t)(tiles ? one : one * used) + extra;
    return SK_OK;
}
