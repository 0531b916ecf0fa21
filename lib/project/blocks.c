/* Coarse cells on the pixel grid, as blocks. Along an axis, a cell of a
 * level whose edge is a whole number k >= 2 of pixels covers exactly a
 * k x k block of pixels, each receiving 1/k^2 of it. Such cells add once
 * to an image of blocks of their level instead of k^2 times to the pixels.
 * At the end each block of the finest such level gathers the coarser
 * blocks above it and paints its pixels, in one parallel pass. At 2^lmax
 * pixels across, most of the deposit work of an AMR table is its coarse
 * cells, so this takes the pixel work from sum(cells x k^2) down to about
 * one pass over the image. */
#include <math.h>

#include "project_internal.h"

/* floor(a / b) for b > 0 */
static int floor_div(int a, int b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

size_t proj_blocks_plan(proj_job *job, int lo, int hi)
{
    const proj_frame *f = &job->f;
    size_t total = 0;
    for (int l = 0; l <= PROJ_MAX_LEVEL; l++)
        job->blocks[l].k = 0;
    job->block_finest = -1;
    if (!job->is_cells || f->axis < 0 || proj_is_point_kernel(job) || job->ndim == 1)
        return 0;
    double corner_u = nearbyint(f->u0 * f->inv_pixel), corner_v = nearbyint(f->v0 * f->inv_pixel);
    for (int l = lo; l <= hi; l++) {
        double k = job->cell_size[l] * f->inv_pixel, kr = nearbyint(k);
        if (kr < 2 || fabs(k - kr) > 1e-9 * k)
            continue;
        proj_blocks *b = &job->blocks[l];
        b->k = (int)kr;
        /* pixel column of the first block's left edge: blocks sit on the level's grid */
        b->offu = (int)(floor_div((int)corner_u, b->k) * (double)b->k - corner_u);
        b->offv = (int)(floor_div((int)corner_v, b->k) * (double)b->k - corner_v);
        b->nbu = (f->nx - b->offu + b->k - 1) / b->k;
        b->nbv = (f->ny - b->offv + b->k - 1) / b->k;
        b->start = total;
        total += (size_t)b->nbu * (size_t)b->nbv * (size_t)job->nacc;
        job->block_finest = l;
    }
    return total;
}

/* x (within rounding of an integer) as that integer. */
static int nearest(double x)
{
    return x >= 0 ? (int)(x + 0.5) : -(int)(0.5 - x);
}

int proj_blocks_deposit(const proj_job *job, const proj_target *t, const proj_item *it,
                        const double *coef)
{
    const proj_frame *f = &job->f;
    const proj_blocks *b = &job->blocks[it->level];
    double half = 0.5 * it->h;
    double x = (it->u - half - f->u0) * f->inv_pixel, y = (it->v - half - f->v0) * f->inv_pixel;
    if (x <= -b->k || x >= f->nx || y <= -b->k || y >= f->ny)
        return 0;
    int i = nearest(x), j = nearest(y);
    if (i + b->k <= 0 || i >= f->nx || j + b->k <= 0 || j >= f->ny)
        return 0;
    /* A block is written by the band holding its first image row (bands.c);
     * the whole image is one band for the cells strategy. */
    int top = j < 0 ? 0 : j;
    if (top < t->r0 || top >= t->r1)
        return 1;
    size_t at = b->start + ((size_t)((j - b->offv) / b->k) * (size_t)b->nbu +
                            (size_t)((i - b->offu) / b->k)) * (size_t)job->nacc;
    proj_block_add(job, t->blk + at, it->total, b->k, coef);
    return 1;
}

/* Adds to block row cj of the finest level the blocks of the coarser level
 * l above it: blocks hold per-pixel values, and each level's blocks nest
 * in the next coarser level's (both sit on their level's cell grid). */
static void pull_row(const proj_job *job, double *blk, int l, int cj)
{
    const proj_blocks *p = &job->blocks[l], *b = &job->blocks[job->block_finest];
    size_t nacc = (size_t)job->nacc;
    int pj = (cj * b->k + b->offv - p->offv) / p->k;
    double *dst = blk + b->start + (size_t)cj * b->nbu * nacc;
    const double *src = blk + p->start + (size_t)pj * p->nbu * nacc;
    /* Block ci's left edge, in pixels from the left edge of block pi of
     * level l, steps by b->k (an integer division per block was most of
     * this pass). The coarse block holding pixel 0 holds the fine one. */
    int in = b->offu - p->offu;
    size_t pi = (size_t)(in / p->k);
    in %= p->k;
    for (int ci = 0; ci < b->nbu; ci++) {
        for (size_t s = 0; s < nacc; s++)
            dst[(size_t)ci * nacc + s] += src[pi * nacc + s];
        if ((in += b->k) >= p->k) {
            in -= p->k;
            pi++;
        }
    }
}

/* expand_row with one accumulator a pixel (sd or mass alone, the usual
 * map): the blocks inside the row take no clamping, and blocks of two
 * pixels (the level above the finest, at 2^lmax pixels) no inner loop. */
static void expand_row_single(double *row, const double *src, const proj_blocks *b, int nx)
{
    int k = b->k;
    for (int bu = 0; bu < b->nbu; bu++) {
        int i0 = b->offu + bu * k, i1 = i0 + k;
        double v = src[bu];
        if (k == 2 && i0 >= 0 && i1 <= nx) {
            row[i0] += v;
            row[i0 + 1] += v;
            continue;
        }
        i0 = i0 < 0 ? 0 : i0;
        i1 = i1 > nx ? nx : i1;
        for (int i = i0; i < i1; i++)
            row[i] += v;
    }
}

/* Adds the blocks of level l that cover image row j to that row. */
static void expand_row(const proj_job *job, double *acc, const double *blk, int l, int j)
{
    const proj_frame *f = &job->f;
    const proj_blocks *b = &job->blocks[l];
    size_t nacc = (size_t)job->nacc;
    double *row = acc + (size_t)j * (size_t)f->nx * nacc;
    const double *src = blk + b->start + (size_t)((j - b->offv) / b->k) * b->nbu * nacc;
    if (nacc == 1) {
        expand_row_single(row, src, b, f->nx);
        return;
    }
    for (int bu = 0; bu < b->nbu; bu++, src += nacc) {
        int i0 = b->offu + bu * b->k, i1 = i0 + b->k;
        i0 = i0 < 0 ? 0 : i0;
        i1 = i1 > f->nx ? f->nx : i1;
        for (int i = i0; i < i1; i++)
            for (size_t s = 0; s < nacc; s++)
                row[(size_t)i * nacc + s] += src[s];
    }
}

void proj_blocks_spread(const proj_job *job, double *acc, double *blk)
{
    int fl = job->block_finest;
    if (fl < 0)
        return;
    const proj_blocks *b = &job->blocks[fl];
    /* One pass over the finest block rows, each on its own: gather the
     * coarser blocks above it, then paint its pixel rows. */
#pragma omp for schedule(static)
    for (int cj = 0; cj < b->nbv; cj++) {
        for (int l = 0; l < fl; l++)
            if (job->blocks[l].k)
                pull_row(job, blk, l, cj);
        int j0 = b->offv + cj * b->k, j1 = j0 + b->k;
        for (int j = j0 < 0 ? 0 : j0; j < j1 && j < job->f.ny; j++)
            expand_row(job, acc, blk, fl, j);
    }
}
