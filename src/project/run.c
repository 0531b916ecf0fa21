/* The threaded pass over the rows. Two ways to keep every thread busy on
 * any number of quantities:
 *   cells  each thread deposits a share of the rows into its own copy of
 *          the accumulators; the copies are summed at the end (in
 *          parallel, by pixel blocks).
 *   tiles  the image is cut into bands of rows; rows are bucketed by the
 *          bands their footprint touches, and each thread deposits whole
 *          bands into the one shared copy. Used when the private copies
 *          would take more than the private budget. */
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

static size_t acc_doubles(const proj_job *job)
{
    return (size_t)job->f.nx * (size_t)job->f.ny * (size_t)job->nacc;
}

static int64_t deposit_row(const proj_job *job, const proj_target *t, int64_t r, double *coef)
{
    proj_item it;
    if (!proj_item_of(job, r, &it))
        return 0;
    proj_coefficients(job, r, &it, coef);
    return proj_deposit(job, t, &it, coef);
}

/* A target over rows [r0, r1) with the thread's scratch (3 nx doubles)
 * and block images (or NULL). */
static proj_target target(const proj_job *job, double *acc, int r0, int r1, double *scratch,
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
    size_t npix = acc_doubles(job), n = npix + job->nblk;
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
        proj_target t = target(job, priv[me], 0, job->f.ny, row,
                               job->nblk && priv[me] ? priv[me] + npix : NULL);
        double coef[PROJ_MAX_SLOTS];
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK) reduction(+ : count)
        for (int64_t r = 0; r < job->nrows; r++)
            if (mine_ok)
                count += deposit_row(job, &t, r, coef);
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

/* Bands of image rows and, per band, the rows of the table that reach it
 * (in table order, so the sums do not depend on the thread count). */
typedef struct tiles {
    int ntiles, band;
    int64_t *start;        /* ntiles + 1 offsets into idx */
    int64_t *idx;
} tiles;

static int tile_range(const proj_job *job, const tiles *tl, int64_t r, int *t0, int *t1)
{
    proj_item it;
    int i0, i1, j0, j1;
    if (!proj_item_of(job, r, &it) || !proj_footprint(job, &it, &i0, &i1, &j0, &j1))
        return 0;
    *t0 = j0 / tl->band;
    *t1 = j1 / tl->band;
    return 1;
}

static int bucket_rows(const proj_job *job, int threads, tiles *tl, int64_t *deposited,
                       sk_error *err)
{
    int nt = tl->ntiles;
    int64_t *cnt = sk_calloc((size_t)threads * (size_t)nt, sizeof *cnt);
    tl->start = sk_calloc((size_t)nt + 1, sizeof *tl->start);
    if (!cnt || !tl->start) {
        sk_free(cnt);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    int64_t count = 0, total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : count)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        int64_t lo = job->nrows * me / nth, hi = job->nrows * (me + 1) / nth;
        int64_t *mine = cnt + (size_t)me * (size_t)nt;
        for (int64_t r = lo; r < hi; r++) {
            int t0, t1;
            if (!tile_range(job, tl, r, &t0, &t1))
                continue;
            count++;
            for (int t = t0; t <= t1; t++)
                mine[t]++;
        }
    }
    for (int t = 0; t < nt; t++) {
        tl->start[t] = total;
        for (int k = 0; k < threads; k++) {
            int64_t c = cnt[(size_t)k * (size_t)nt + (size_t)t];
            cnt[(size_t)k * (size_t)nt + (size_t)t] = total;
            total += c;
        }
    }
    tl->start[nt] = total;
    tl->idx = sk_malloc((size_t)total * sizeof *tl->idx + 1);
    if (!tl->idx) {
        sk_free(cnt);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for %lld tile entries",
                       (long long)total);
    }
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        int64_t lo = job->nrows * me / nth, hi = job->nrows * (me + 1) / nth;
        int64_t *next = cnt + (size_t)me * (size_t)nt;
        for (int64_t r = lo; r < hi; r++) {
            int t0, t1;
            if (!tile_range(job, tl, r, &t0, &t1))
                continue;
            for (int t = t0; t <= t1; t++)
                tl->idx[next[t]++] = r;
        }
    }
    sk_free(cnt);
    *deposited = count;
    return SK_OK;
}

static int run_tiles(const proj_job *job, int threads, double **acc_out, int64_t *deposited,
                     int *used, int64_t *extra_bytes, sk_error *err)
{
    tiles tl = {0};
    int ny = job->f.ny;
    tl.ntiles = ny < 8 * threads ? ny : 8 * threads;
    tl.band = (ny + tl.ntiles - 1) / tl.ntiles;
    tl.ntiles = (ny + tl.band - 1) / tl.band;
    int rc = bucket_rows(job, threads, &tl, deposited, err);
    double *acc = rc == SK_OK ? sk_calloc(acc_doubles(job) + 1, sizeof(double)) : NULL;
    if (rc == SK_OK && !acc)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the maps");
    int failed = 0, nthreads = 1;
    if (rc == SK_OK) {
#pragma omp parallel num_threads(threads)
        {
#pragma omp single
            nthreads = omp_get_num_threads();
            double *row = sk_calloc(3 * (size_t)job->f.nx, sizeof(double));
            if (!row) {
#pragma omp atomic write
                failed = 1;
            }
            double coef[PROJ_MAX_SLOTS];
#pragma omp for schedule(dynamic, 1)
            for (int t = 0; t < tl.ntiles; t++) {
                if (!row)
                    continue;
                int r1 = (t + 1) * tl.band;
                proj_target tg = target(job, acc, t * tl.band, r1 < ny ? r1 : ny, row, NULL);
                for (int64_t k = tl.start[t]; k < tl.start[t + 1]; k++)
                    deposit_row(job, &tg, tl.idx[k], coef);
            }
            sk_free(row);
        }
        if (failed)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    *extra_bytes = (int64_t)sk_block_size(tl.idx) + (int64_t)sk_block_size(tl.start);
    sk_free(tl.idx);
    sk_free(tl.start);
    if (rc != SK_OK) {
        sk_free(acc);
        return rc;
    }
    *acc_out = acc;
    *used = nthreads;
    return SK_OK;
}

int proj_run(proj_job *job, const sk_project_options *opt, double **acc_out,
             sk_maps_info *info, sk_error *err)
{
    int threads = job->threads;
    double one = 8.0 * (double)(acc_doubles(job) + job->nblk);
    int tiles = opt->strategy == SK_STRATEGY_TILES ||
                (opt->strategy == SK_STRATEGY_AUTO && threads > 1 &&
                 one * threads > (double)opt->private_budget);
    int64_t extra = 0;
    int used = 1, rc;
    if (tiles)
        rc = run_tiles(job, threads, acc_out, &info->deposited, &used, &extra, err);
    else
        rc = run_cells(job, threads, acc_out, &info->deposited, &used, err);
    if (rc != SK_OK)
        return rc;
    info->threads = used;
    snprintf(info->strategy, sizeof info->strategy, "%s", tiles ? "tiles" : "cells");
    info->accumulator_bytes =
        (int64_t)(tiles ? 8.0 * (double)acc_doubles(job) : one * used) + extra;
    return SK_OK;
}
