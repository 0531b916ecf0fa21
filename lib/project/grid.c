/* Cells on the pixel grid: the common projection of a whole box along an
 * axis onto 2^P x 2^P pixels of a box whose length is a power of two. All
 * of its coordinates are then exact binary fractions, so the general path
 * (proj_item_of, then proj_deposit_area or proj_blocks_deposit) always
 * lands a cell of level l >= P in the one pixel (cu >> (l - P), cv >> (l -
 * P)) and a cell of level l < P on the block (cu, cv) of its level's block
 * image, adding the same products. Here those indices come from the keys
 * with shifts, without placing the cell in floating point first: the
 * same sums, bit for bit, at a third of the cost a cell (the deposit was
 * most of a streamed projection's time). */
#include <math.h>

#include "project_internal.h"

void proj_grid_plan(proj_job *job)
{
    const proj_frame *f = &job->f;
    job->grid_level = -1;
    if (!job->is_cells || job->ndim != 3 || f->axis < 0 || f->has_w ||
        proj_is_point_kernel(job) || f->u0 != 0 || f->v0 != 0 || f->nx != f->ny)
        return;
    for (int k = 0; k < 3; k++)
        if (f->sel_lo[k] > 0 || f->sel_hi[k] < 1)
            return;
    int e, p;
    if (frexp(job->boxlen, &e) != 0.5 || frexp((double)f->nx, &p) != 0.5 || p - 1 > 30 ||
        f->pixel * f->nx != job->boxlen)
        return;
    job->grid_level = p - 1;
    const int32_t *keys[3] = {job->cx, job->cy, job->cz};
    job->key_u = keys[f->ua];
    job->key_v = keys[f->va];
}

int proj_deposit_grid(const proj_job *job, const proj_target *t, int64_t r, double *coef,
                      proj_item *it)
{
    int l = job->level[r], p = job->grid_level;
    uint64_t cu = (uint32_t)job->key_u[r], cv = (uint32_t)job->key_v[r];
    uint64_t any = (uint64_t)(uint32_t)job->cx[r] | (uint32_t)job->cy[r] | (uint32_t)job->cz[r];
    if (l < 0 || l > 62 || any >> l) /* outside the box: the general path says so */
        return -1;
    if (l < p && (!t->blk || job->blocks[l].k != 1 << (p - l)))
        return -1;
    it->level = l;
    it->h = job->cell_size[l];
    it->total = it->h * it->h * it->h;
    proj_coefficients(job, r, it, coef);
    if (l >= p) {
        int j = (int)(cv >> (l - p));
        if (j >= t->r0 && j < t->r1)
            proj_add(job, t, (int)(cu >> (l - p)), j, it->total, coef);
        return 1;
    }
    const proj_blocks *b = &job->blocks[l];
    int top = (int)cv * b->k; /* the block's first image row, as proj_blocks_deposit */
    if (top < t->r0 || top >= t->r1)
        return 1;
    size_t at = b->start + ((size_t)cv * (size_t)b->nbu + (size_t)cu) * (size_t)job->nacc;
    proj_block_add(job, t->blk + at, it->total, b->k, coef);
    return 1;
}

int proj_grid_mass_only(const proj_job *job)
{
    return job->grid_level >= 0 && job->nacc == 1 && job->nlin == 1 &&
           job->coef_kind[0] == C_MASS && job->slot_count < 0 && job->mass_src;
}

/* The loop of proj_deposit_grid for one slot holding mass: per level, the
 * cell volume and the share of it each pixel of a block gets, computed as
 * proj_deposit_grid computes them, so the products are the same bits. A
 * row writes its pixel, or its block (through the block's first image
 * row, as proj_blocks_deposit), when that row is one of t's. */
int64_t proj_deposit_grid_mass(const proj_job *job, const proj_target *t, int64_t r0,
                               int64_t r1, proj_tally *tally, int64_t *written)
{
    int p = job->grid_level;
    double vol[PROJ_MAX_LEVEL + 1], share[PROJ_MAX_LEVEL + 1];
    for (int l = 0; l <= PROJ_MAX_LEVEL; l++) {
        double h = job->cell_size[l];
        int k = job->blocks[l].k;
        vol[l] = h * h * h;
        share[l] = k ? vol[l] / ((double)k * k) : 0;
    }
    const int32_t *level = job->level, *cx = job->cx, *cy = job->cy, *cz = job->cz;
    const int32_t *ku = job->key_u, *kv = job->key_v;
    const double *mass = job->mass_src;
    size_t nx = (size_t)job->f.nx;
    uint64_t j0 = (uint64_t)t->r0, rows = (uint64_t)(t->r1 - t->r0);
    int64_t r = r0, n = 0;
    for (; r < r1; r++) {
        int l = level[r];
        if (l < 0 || l > 62)
            break;
        uint64_t any = (uint64_t)(uint32_t)cx[r] | (uint32_t)cy[r] | (uint32_t)cz[r];
        uint64_t cu = (uint32_t)ku[r], cv = (uint32_t)kv[r];
        if (any >> l)
            break;
        double m = mass[r];
        int wrote;
        if (l >= p) {
            uint64_t j = cv >> (l - p);
            wrote = j - j0 < rows; /* j in [r0, r1): unsigned, one compare */
            if (wrote)
                t->acc[j * nx + (cu >> (l - p))] += m * vol[l];
        } else {
            const proj_blocks *b = &job->blocks[l];
            if (!t->blk || b->k != 1 << (p - l))
                break;
            wrote = cv * (uint64_t)b->k - j0 < rows;
            if (wrote)
                t->blk[b->start + cv * (size_t)b->nbu + cu] += m * share[l];
        }
        n += wrote;
        if (tally && wrote)
            proj_tally_row(tally, l, m * vol[l]);
    }
    *written += n;
    return r;
}
