/* Cells seen along any direction: each cell is the cube it is.
 *
 * exact: a pixel receives the volume of the cube inside its prism, the
 * integral over the pixel of the chord length through the cube. With the
 * divergence theorem on the field (0, 0, w), that volume is the sum over
 * the cube's faces of the integral of w n_w over the part of the face
 * above the pixel; the prism's own walls have n_w = 0 and drop out. A face
 * seen along the line of sight is a parallelogram in the image, w is
 * linear on it, so each term is the clipped parallelogram's area and first
 * moments: no 3-D clipping needed.
 *
 * overlap: the chord length sampled on a grid over the cube's footprint
 * (about two samples per pixel, at most overlap_max per axis), scaled so
 * that the cell deposits exactly its volume. The samples are the same for
 * every cell of a level, so each level's are computed once (a stamp). */
#include <math.h>
#include <string.h>

#include "project_internal.h"
#include "snapkit/memory.h"

/* Moments are taken about the face's own centre c: a thin face far from
 * the origin would otherwise lose its area to cancellation in the
 * shoelace sums. Then the term is a0 A - bu Mu - bv Mv, where a0 = s |l_k|
 * is the value of w n_w at the centre. */
typedef struct face {
    double c[2];           /* centre, relative to the cell centre */
    double q[4][2];        /* parallelogram, relative to c */
    double lo[2], hi[2];   /* its bounding box, relative to the cell centre */
    double a0, bu, bv;
} face;

typedef struct poly {
    int n;
    double p[12][2];
} poly;

/* Keep the part of `in` with sign * (x[axis] - edge) >= 0. */
static void clip_edge(const poly *in, poly *out, int axis, double edge, double sign)
{
    out->n = 0;
    for (int k = 0; k < in->n; k++) {
        const double *a = in->p[k], *b = in->p[(k + 1) % in->n];
        double da = sign * (a[axis] - edge), db = sign * (b[axis] - edge);
        if (da >= 0) {
            out->p[out->n][0] = a[0];
            out->p[out->n][1] = a[1];
            out->n++;
        }
        if ((da < 0 && db > 0) || (da > 0 && db < 0)) {
            double t = da / (da - db);
            out->p[out->n][axis] = edge;
            out->p[out->n][1 - axis] = a[1 - axis] + t * (b[1 - axis] - a[1 - axis]);
            out->n++;
        }
    }
}

/* Area and first moments (about the face centre) of the face inside
 * [x0, x1] x [y0, y1], given relative to that centre. */
static double clipped_moments(const face *fc, double x0, double x1, double y0, double y1,
                              double *mu, double *mv)
{
    poly a, b;
    a.n = 4;
    memcpy(a.p, fc->q, sizeof fc->q);
    clip_edge(&a, &b, 0, x0, 1);
    clip_edge(&b, &a, 0, x1, -1);
    clip_edge(&a, &b, 1, y0, 1);
    clip_edge(&b, &a, 1, y1, -1);
    double area = 0, mx = 0, my = 0;
    for (int k = 0; k < a.n; k++) {
        const double *p = a.p[k], *q = a.p[(k + 1) % a.n];
        double cr = p[0] * q[1] - q[0] * p[1];
        area += cr;
        mx += (p[0] + q[0]) * cr;
        my += (p[1] + q[1]) * cr;
    }
    double sign = area < 0 ? -1.0 : 1.0;
    *mu = sign * mx / 6.0;
    *mv = sign * my / 6.0;
    return sign * area / 2.0;
}

/* The faces not seen edge-on, with the linear form of their term. */
static int cube_faces(const proj_frame *f, double h, face *faces)
{
    double s = 0.5 * h;
    int n = 0;
    for (int k = 0; k < 3; k++) {
        double lk = f->los[k];
        if (lk == 0)
            continue;
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        double e1[2] = {h * f->right[k1], h * f->up[k1]};
        double e2[2] = {h * f->right[k2], h * f->up[k2]};
        for (int sigma = -1; sigma <= 1; sigma += 2) {
            face *fc = &faces[n++];
            fc->c[0] = sigma * s * f->right[k];
            fc->c[1] = sigma * s * f->up[k];
            static const double corner[4][2] = {{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}};
            for (int v = 0; v < 4; v++)
                for (int a = 0; a < 2; a++)
                    fc->q[v][a] = corner[v][0] * e1[a] + corner[v][1] * e2[a];
            for (int a = 0; a < 2; a++) {
                double reach = 0.5 * (fabs(e1[a]) + fabs(e2[a]));
                fc->lo[a] = fc->c[a] - reach;
                fc->hi[a] = fc->c[a] + reach;
            }
            double inv = 1.0 / fabs(lk);
            fc->a0 = s * fabs(lk);
            fc->bu = sigma * f->right[k] * inv;
            fc->bv = sigma * f->up[k] * inv;
        }
    }
    return n;
}

int proj_deposit_exact(const proj_job *job, const proj_target *t, const proj_item *it,
                       const double *coef)
{
    const proj_frame *f = &job->f;
    int i0, i1, j0, j1;
    if (!proj_footprint(job, it, &i0, &i1, &j0, &j1))
        return 0;
    if (j0 < t->r0)
        j0 = t->r0;
    if (j1 >= t->r1)
        j1 = t->r1 - 1;
    face faces[6];
    int nf = cube_faces(f, it->h, faces);
    double bu = f->u0 - it->u, bv = f->v0 - it->v, p = f->pixel;
    for (int j = j0; j <= j1; j++) {
        double y0 = bv + j * p, y1 = bv + (j + 1) * p;
        for (int i = i0; i <= i1; i++) {
            double x0 = bu + i * p, x1 = bu + (i + 1) * p;
            double vol = 0;
            for (int k = 0; k < nf; k++) {
                const face *fc = &faces[k];
                if (fc->hi[0] <= x0 || fc->lo[0] >= x1 || fc->hi[1] <= y0 || fc->lo[1] >= y1)
                    continue;
                double mu, mv, area = clipped_moments(fc, x0 - fc->c[0], x1 - fc->c[0],
                                                      y0 - fc->c[1], y1 - fc->c[1], &mu, &mv);
                vol += fc->a0 * area - fc->bu * mu - fc->bv * mv;
            }
            if (vol > 0)
                proj_add(job, t, i, j, vol, coef);
        }
    }
    return 1;
}

/* Length of the line of sight through the cube of half edge s at image
 * offset (su, sv) from its centre. */
static double chord(const proj_frame *f, double s, double su, double sv)
{
    double tmin = -INFINITY, tmax = INFINITY;
    for (int k = 0; k < 3; k++) {
        double pk = su * f->right[k] + sv * f->up[k], lk = f->los[k];
        if (lk == 0) {
            if (fabs(pk) > s)
                return 0;
            continue;
        }
        double t1 = (-s - pk) / lk, t2 = (s - pk) / lk;
        tmin = proj_max(tmin, proj_min(t1, t2));
        tmax = proj_min(tmax, proj_max(t1, t2));
    }
    return tmax > tmin ? tmax - tmin : 0;
}

static int samples_for(double half_extent, double inv_pixel, int cap)
{
    double n = ceil(4.0 * half_extent * inv_pixel);
    return n < 1 ? 1 : n > cap ? cap : (int)n;
}

static int make_stamp(const proj_job *job, int level, proj_stamp *st, sk_error *err)
{
    const proj_frame *f = &job->f;
    double h = job->cell_size[level], s = 0.5 * h;
    st->hu = h * f->half_u;
    st->hv = h * f->half_v;
    st->nu = samples_for(st->hu, f->inv_pixel, job->overlap_max);
    st->nv = samples_for(st->hv, f->inv_pixel, job->overlap_max);
    st->du = 2 * st->hu / st->nu;
    st->dv = 2 * st->hv / st->nv;
    st->w = sk_malloc((size_t)st->nu * (size_t)st->nv * sizeof *st->w);
    if (!st->w)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the overlap samples");
    double sum = 0;
    for (int b = 0; b < st->nv; b++)
        for (int a = 0; a < st->nu; a++) {
            double c = chord(f, s, -st->hu + (a + 0.5) * st->du, -st->hv + (b + 0.5) * st->dv);
            st->w[(size_t)b * st->nu + a] = c;
            sum += c;
        }
    /* The centre sample always crosses the cube, so sum > 0. */
    double scale = h * h * h / sum;
    for (size_t k = 0; k < (size_t)st->nu * (size_t)st->nv; k++)
        st->w[k] *= scale;
    return SK_OK;
}

int proj_stamps_make(proj_job *job, int lo, int hi, sk_error *err)
{
    for (int l = lo; l <= hi; l++) {
        int rc = make_stamp(job, l, &job->stamp[l], err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

void proj_stamps_free(proj_job *job)
{
    for (int l = 0; l <= PROJ_MAX_LEVEL; l++) {
        sk_free(job->stamp[l].w);
        job->stamp[l].w = NULL;
    }
}

/* Adds the row scratch's columns [lo, hi] to image row j, one deposit per
 * pixel (so counts count cells), and clears them. */
static void flush_row(const proj_job *job, const proj_target *t, int j, int lo, int hi,
                      const double *coef)
{
    if (hi < lo)
        return;
    proj_add_row(job, t, j, lo, hi + 1, t->row + lo, coef);
    memset(t->row + lo, 0, (size_t)(hi - lo + 1) * sizeof *t->row);
}

int proj_deposit_overlap(const proj_job *job, const proj_target *t, const proj_item *it,
                         const double *coef)
{
    const proj_frame *f = &job->f;
    int i0, i1, j0, j1;
    if (!proj_footprint(job, it, &i0, &i1, &j0, &j1))
        return 0;
    const proj_stamp *st = &job->stamp[it->level];
    double x0 = (it->u - st->hu + 0.5 * st->du - f->u0) * f->inv_pixel;
    double dx = st->du * f->inv_pixel;
    int row = -1, lo = 0, hi = -1;
    for (int b = 0; b < st->nv; b++) {
        double y = (it->v - st->hv + (b + 0.5) * st->dv - f->v0) * f->inv_pixel;
        if (!(y >= t->r0 && y < t->r1))
            continue;
        int j = (int)y;
        if (j != row) {
            if (row >= 0)
                flush_row(job, t, row, lo, hi, coef);
            row = j;
            lo = f->nx;
            hi = -1;
        }
        const double *w = st->w + (size_t)b * st->nu;
        for (int a = 0; a < st->nu; a++) {
            double x = x0 + a * dx;
            if (w[a] > 0 && x >= 0 && x < f->nx) {
                int i = (int)x;
                t->row[i] += w[a];
                lo = i < lo ? i : lo;
                hi = i > hi ? i : hi;
            }
        }
    }
    if (row >= 0)
        flush_row(job, t, row, lo, hi, coef);
    return 1;
}
