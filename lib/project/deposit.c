/* Deposits that need no rotation: cells seen along an axis (area
 * weighted, exact), and points (nearest grid point, cloud in cell). */
#include <math.h>

#include "project_internal.h"

static int clampi(double x, int lo, int hi)
{
    if (!(x > lo))
        return lo;
    if (x >= hi)
        return hi;
    return (int)x;
}

/* n pixels of nacc slots each: slot k += coef[k] g[i] for the nlin linear
 * slots, and the count slot (when >= 0) += 1 where g[i] > 0. Inlined with
 * a constant nlin so the slot loop unrolls. */
static inline __attribute__((always_inline)) void add_pixels(double *a, size_t nacc, int n,
                                                             const double *g, const double *coef,
                                                             int nlin, int count)
{
    for (int i = 0; i < n; i++, a += nacc) {
        for (int k = 0; k < nlin; k++)
            a[k] += coef[k] * g[i];
        if (count >= 0)
            a[count] += g[i] > 0;
    }
}

void proj_add_row(const proj_job *job, const proj_target *t, int j, int i0, int i1,
                  const double *g, const double *coef)
{
    size_t nacc = (size_t)job->nacc;
    double *a = t->acc + ((size_t)j * (size_t)job->f.nx + (size_t)i0) * nacc;
    int n = i1 - i0, c = job->slot_count;
    switch (job->nlin) {
    case 1:
        if (c < 0) { /* one quantity: a plain axpy */
            for (int i = 0; i < n; i++)
                a[i] += coef[0] * g[i];
        } else {
            add_pixels(a, nacc, n, g, coef, 1, c);
        }
        break;
    case 2:
        add_pixels(a, nacc, n, g, coef, 2, c);
        break;
    case 3:
        add_pixels(a, nacc, n, g, coef, 3, c);
        break;
    case 4:
        add_pixels(a, nacc, n, g, coef, 4, c);
        break;
    case 5:
        add_pixels(a, nacc, n, g, coef, 5, c);
        break;
    case 6:
        add_pixels(a, nacc, n, g, coef, 6, c);
        break;
    default:
        add_pixels(a, nacc, n, g, coef, job->nlin, c);
        break;
    }
}

/* Each cell covers [a, b) x [c, d) in pixel units; the share of the cell in
 * a pixel is the product of the covered fractions along each image axis. */
int proj_deposit_area(const proj_job *job, const proj_target *t, const proj_item *it,
                      const double *coef)
{
    const proj_frame *f = &job->f;
    double half = 0.5 * it->h * f->inv_pixel;
    double x = (it->u - f->u0) * f->inv_pixel, y = (it->v - f->v0) * f->inv_pixel;
    double a = x - half, b = x + half, c = y - half, d = y + half;
    double total = proj_item_total(job, it);
    if (job->is_cells && job->ndim == 1) { /* the slab fills the profile's strip */
        c = 0.0;
        d = 1.0;
    }
    double fa = floor(a), fc = floor(c);
    if (b <= fa + 1 && d <= fc + 1) { /* inside one pixel */
        int inside = fa >= 0 && fa < f->nx && fc >= 0 && fc < f->ny;
        if (inside && fc >= t->r0 && fc < t->r1)
            proj_add(job, t, (int)fa, (int)fc, total, coef);
        return inside;
    }
    int i0 = clampi(fa, 0, f->nx), i1 = clampi(ceil(b), 0, f->nx);
    int j0 = clampi(fc, 0, f->ny), j1 = clampi(ceil(d), 0, f->ny);
    if (i0 >= i1 || j0 >= j1)
        return 0;
    double inv_w = 1.0 / (b - a), inv_h = total / (d - c);
    for (int i = i0; i < i1; i++)
        t->fx[i - i0] = (proj_min(b, i + 1.0) - proj_max(a, (double)i)) * inv_w;
    for (int j = j0 < t->r0 ? t->r0 : j0; j < j1 && j < t->r1; j++) {
        double fy = (proj_min(d, j + 1.0) - proj_max(c, (double)j)) * inv_h;
        for (int i = i0; i < i1; i++)
            t->g[i - i0] = t->fx[i - i0] * fy;
        proj_add_row(job, t, j, i0, i1, t->g, coef);
    }
    return 1;
}

/* A point inside the image keeps all of its weight inside: cloud-in-cell
 * weights falling outside go to the neighbours that are inside. */
int proj_deposit_point(const proj_job *job, const proj_target *t, const proj_item *it,
                       const double *coef, int cic)
{
    const proj_frame *f = &job->f;
    double x = (it->u - f->u0) * f->inv_pixel, y = (it->v - f->v0) * f->inv_pixel;
    if (!(x >= 0 && x < f->nx && y >= 0 && y < f->ny))
        return 0;
    if (!cic) {
        int j = (int)y;
        if (j >= t->r0 && j < t->r1)
            proj_add(job, t, (int)x, j, proj_item_total(job, it), coef);
        return 1;
    }
    double fx = x - 0.5, fy = y - 0.5;
    int i0 = (int)floor(fx), j0 = (int)floor(fy);
    double ax = fx - i0, ay = fy - j0;
    double w[4] = {(1 - ax) * (1 - ay), ax * (1 - ay), (1 - ax) * ay, ax * ay};
    double inside = 0;
    for (int k = 0; k < 4; k++) {
        int i = i0 + (k & 1), j = j0 + (k >> 1);
        if (i < 0 || i >= f->nx || j < 0 || j >= f->ny || !(w[k] > 0))
            w[k] = 0;
        inside += w[k];
    }
    double scale = proj_item_total(job, it) / inside;
    for (int k = 0; k < 4; k++) {
        int i = i0 + (k & 1), j = j0 + (k >> 1);
        if (w[k] > 0 && j >= t->r0 && j < t->r1)
            proj_add(job, t, i, j, w[k] * scale, coef);
    }
    return 1;
}

int proj_deposit(const proj_job *job, const proj_target *t, const proj_item *it,
                 const double *coef)
{
    if (!job->is_cells || job->kernel == SK_KERNEL_CIC || job->kernel == SK_KERNEL_NGP)
        return proj_deposit_point(job, t, it, coef, job->kernel == SK_KERNEL_CIC);
    if (job->f.axis >= 0 && t->blk && job->blocks[it->level].k)
        return proj_blocks_deposit(job, t, it, coef);
    if (job->f.axis >= 0)
        return proj_deposit_area(job, t, it, coef);
    if (job->kernel == SK_KERNEL_EXACT)
        return proj_deposit_exact(job, t, it, coef);
    return proj_deposit_overlap(job, t, it, coef);
}
