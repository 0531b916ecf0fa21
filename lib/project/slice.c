/* Slices (snapkit/slice.h): the leaf cells crossing a plane, each filling
 * the pixels whose centres fall in its square. Each batch's quantities are
 * resolved by the projector's job (proj_setup: columns, derived quantities,
 * units), as cubes do. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "slice_internal.h"
#include "snapkit/clip.h"
#include "snapkit/memory.h"

void sk_slice_options_init(sk_slice_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->axis = 2;
    opt->at = 0.5;
    for (int a = 0; a < 3; a++)
        opt->center[a] = 0.5;
    opt->nx = opt->ny = 512;
    opt->width = 1.0;
    opt->memory_budget = (int64_t)4 << 30;
}

int sk_slice_check(const sk_slice_options *opt, int nq, sk_error *err)
{
    if (opt->axis < 0 || opt->axis > 2)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the slice's axis must be x, y or z (0..2)");
    if (!opt->has_normal && !(opt->at >= 0 && opt->at < 1))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the plane %c = %.17g (box units) lies outside the box [0, 1)",
                       "xyz"[opt->axis], opt->at);
    for (int a = 0; a < 3 && opt->has_normal; a++)
        if (!(opt->center[a] >= 0 && opt->center[a] < 1))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the off-axis plane's centre (%.6g, %.6g, %.6g) (box units) lies "
                           "outside the box [0, 1)", opt->center[0], opt->center[1],
                           opt->center[2]);
    if (opt->nx < 1 || opt->ny < 1 || opt->nx > SK_SLICE_MAX_PIXELS ||
        opt->ny > SK_SLICE_MAX_PIXELS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the slice needs 1..%d pixels along each axis, not %d x %d",
                       SK_SLICE_MAX_PIXELS, opt->nx, opt->ny);
    if (!(opt->width > 0) || !isfinite(opt->width))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the slice's width must be a positive number, not %g", opt->width);
    for (int a = 0; a < 3; a++)
        if (!isfinite(opt->center[a]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "the slice's centre is not finite");
    double bytes = (double)opt->nx * (double)opt->ny * 8.0 * (nq > 0 ? nq : 1);
    if (opt->memory_budget > 0 && bytes > (double)opt->memory_budget)
        return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                       "%d maps of %d x %d pixels take %.4g GB, more than the %.4g GB allowed",
                       nq, opt->nx, opt->ny, bytes / 1e9, (double)opt->memory_budget / 1e9);
    return SK_OK;
}

static void image_axes(int axis, int *ua, int *va)
{
    static const int k_axes[3][2] = {{1, 2}, {2, 0}, {0, 1}};
    *ua = k_axes[axis][0];
    *va = k_axes[axis][1];
}

/* The image's lower-left corner and pixel size, box units. */
static void window(const sk_slice_options *opt, double *u0, double *v0, double *pixel)
{
    int ua, va;
    image_axes(opt->axis, &ua, &va);
    *pixel = opt->width / opt->nx;
    *u0 = (opt->has_normal ? 0 : opt->center[ua]) - 0.5 * opt->width;
    *v0 = (opt->has_normal ? 0 : opt->center[va]) - 0.5 * (*pixel * opt->ny);
}

void sk_slice_box(const sk_slice_options *opt, double coarsest, double lo[3], double hi[3])
{
    int ua, va;
    image_axes(opt->axis, &ua, &va);
    double u0, v0, p, half = 0.5 * coarsest;
    window(opt, &u0, &v0, &p);
    double l[3], h[3];
    l[opt->axis] = opt->at - half;
    h[opt->axis] = opt->at + half;
    l[ua] = u0 - half;
    h[ua] = u0 + opt->nx * p + half;
    l[va] = v0 - half;
    h[va] = v0 + opt->ny * p + half;
    for (int a = 0; a < 3; a++) {
        lo[a] = fmin(fmax(l[a], 0.0), 1.0);
        /* a cell of the coarsest level starting on the plane has its centre at h */
        hi[a] = fmin(nextafter(fmax(h[a], 0.0), 2.0), 1.0);
    }
}

static int copy_names(sk_slice_stream *ss, int nq, const char *const *names, sk_error *err)
{
    if (nq < 1 || nq > SK_MAX_VARS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "1 to %d quantities, not %d", SK_MAX_VARS, nq);
    ss->nq = nq;
    for (int i = 0; i < nq; i++)
        if (!(ss->names[i] = sk_strdup(names[i] ? names[i] : "")))
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return SK_OK;
}

/* The off-axis frame, as an off-axis projection's (geometry.c). */
static int oblique_frame(sk_slice_stream *ss, sk_error *err)
{
    proj_job *job = sk_calloc(1, sizeof *job);
    if (!job)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    sk_units_set(&job->units, 1, 1, 1, 1);
    job->boxlen = 1;
    job->is_cells = 1;
    job->ndim = 3;
    sk_project_options po;
    sk_project_options_init(&po);
    po.has_direction = 1;
    memcpy(po.direction, ss->opt.normal, sizeof po.direction);
    po.has_up = ss->opt.has_north;
    memcpy(po.up, ss->opt.north, sizeof po.up);
    int rc = proj_orient(job, &po, err);
    if (rc != SK_OK && err)
        snprintf(err->message, sizeof err->message, "%s",
                 ss->opt.has_north ? "the north vector is zero or along the normal"
                                   : "the normal has zero length");
    memcpy(ss->n, job->f.los, sizeof ss->n);
    memcpy(ss->right, job->f.right, sizeof ss->right);
    memcpy(ss->up, job->f.up, sizeof ss->up);
    memcpy(ss->P, ss->opt.center, sizeof ss->P);
    ss->oblique = 1;
    sk_free(job);
    return rc;
}

int sk_slice_stream_new(int nq, const char *const *quantities, const sk_slice_options *opt,
                        sk_slice_stream **out, sk_error *err)
{
    *out = NULL;
    int rc = sk_slice_check(opt, nq, err);
    if (rc != SK_OK)
        return rc;
    sk_slice_stream *ss = sk_calloc(1, sizeof *ss);
    if (!ss)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    ss->opt = *opt;
    rc = copy_names(ss, nq, quantities, err);
    if (rc != SK_OK) {
        sk_slice_stream_free(ss);
        return rc;
    }
    image_axes(opt->axis, &ss->ua, &ss->va);
    window(opt, &ss->u0, &ss->v0, &ss->pixel);
    if (opt->has_normal && (rc = oblique_frame(ss, err)) != SK_OK) {
        sk_slice_stream_free(ss);
        return rc;
    }
    ss->npix = (size_t)opt->nx * (size_t)opt->ny;
    sk_project_options_init(&ss->popt);
    ss->popt.threads = 1;
    ss->popt.weight_volume = 1; /* no mass column needed */
    ss->popt.mu = opt->mu;
    ss->popt.gamma = opt->gamma;
    snprintf(ss->popt.units, sizeof ss->popt.units, "%s", opt->units);
    *out = ss;
    return SK_OK;
}

/* The batch's quantities on a projector's job: fields of 3-D cells only. */
static int setup_job(const sk_slice_stream *ss, proj_job *job, const sk_table *t, sk_error *err)
{
    int rc = proj_setup(job, t, ss->nq, (const char *const *)ss->names, &ss->popt, err);
    if (rc == SK_OK && (!job->is_cells || job->ndim != 3))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "a slice needs 3-D cells (level, cx, cy, cz)");
    for (int i = 0; i < ss->nq && rc == SK_OK; i++)
        if (job->q[i].kind != Q_FIELD)
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                         "'%s' is not a quantity of cells (a column or derived quantity, e.g. "
                         "density, velocity_x, T)", job->q[i].name);
    return rc;
}

static int stream_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_slice_stream *ss = ctx;
    ss->start = omp_get_wtime();
    proj_job *job = sk_calloc(1, sizeof *job);
    if (!job)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = setup_job(ss, job, schema, err);
    for (int i = 0; i < ss->nq && rc == SK_OK; i++) {
        ss->factor[i] = job->q[i].factor;
        ss->dim[i] = job->q[i].dim;
        snprintf(ss->units[i], sizeof ss->units[i], "%s", job->q[i].unit);
    }
    ss->boxlen = job->boxlen;
    ss->unit_l = job->units.unit_l;
    ss->unit_t = job->units.unit_t;
    ss->time = sk_table_meta_double(schema, "time", NAN);
    proj_job_free(job);
    if (rc != SK_OK)
        return rc;
    ss->nthreads = nthreads > 0 ? nthreads : 1;
    ss->count = sk_calloc((size_t)ss->nthreads * 3, sizeof *ss->count);
    ss->data = sk_malloc(ss->npix * (size_t)ss->nq * sizeof *ss->data + 1);
    ss->painted = sk_calloc(ss->npix + 1, 1);
    if (!ss->count || !ss->data || !ss->painted)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for %d maps of %d x %d",
                       ss->nq, ss->opt.nx, ss->opt.ny);
    for (size_t k = 0; k < ss->npix * (size_t)ss->nq; k++)
        ss->data[k] = NAN;
    ss->begun = 1;
    return SK_OK;
}

/* The first of n pixels (corner c, size p) whose centre is at or above x. */
static int first_pixel(double x, double c, double p, int n)
{
    double t = ceil((x - c) / p - 0.5);
    int i = t <= 0 ? 0 : t >= n ? n : (int)t;
    while (i > 0 && c + ((double)(i - 1) + 0.5) * p >= x)
        i--;
    while (i < n && c + ((double)i + 0.5) * p < x)
        i++;
    return i;
}

static void put(sk_slice_stream *ss, const proj_job *job, int64_t r, size_t pixel)
{
    ss->painted[pixel] = 1;
    for (int q = 0; q < ss->nq; q++)
        ss->data[(size_t)q * ss->npix + pixel] = job->q[q].col[r] * ss->factor[q];
}

/* Off-axis, fill_row's: the pixels whose points (P + u right + v up) lie
 * in the cell, among those its shadow on the plane covers. */
static int fill_oblique(sk_slice_stream *ss, const proj_job *job, int64_t r)
{
    int l = job->level[r];
    double h = ldexp(1.0, -l), lo[3], d[3], du = 0, dv = 0, dn = 0, ext[3] = {0, 0, 0};
    const int32_t *key[3] = {job->cx, job->cy, job->cz};
    for (int a = 0; a < 3; a++) {
        lo[a] = ldexp((double)key[a][r], -l);
        d[a] = lo[a] + 0.5 * h - ss->P[a];
        dn += ss->n[a] * d[a];
        du += ss->right[a] * d[a];
        dv += ss->up[a] * d[a];
        ext[0] += fabs(ss->n[a]);
        ext[1] += fabs(ss->right[a]);
        ext[2] += fabs(ss->up[a]);
    }
    /* half extents along n, right, up, with room for rounding */
    for (int k = 0; k < 3; k++)
        ext[k] = 0.5 * h * ext[k] * (1 + 1e-9) + 1e-15;
    if (fabs(dn) > ext[0])
        return -1;
    int nx = ss->opt.nx, ny = ss->opt.ny, got = 0;
    int i0 = first_pixel(du - ext[1], ss->u0, ss->pixel, nx);
    int i1 = first_pixel(du + ext[1], ss->u0, ss->pixel, nx);
    int j0 = first_pixel(dv - ext[2], ss->v0, ss->pixel, ny);
    int j1 = first_pixel(dv + ext[2], ss->v0, ss->pixel, ny);
    for (int j = j0; j < j1; j++) {
        double v = ss->v0 + ((double)j + 0.5) * ss->pixel;
        for (int i = i0; i < i1; i++) {
            double u = ss->u0 + ((double)i + 0.5) * ss->pixel;
            int in = 1;
            for (int a = 0; a < 3 && in; a++) {
                double x = ss->P[a] + u * ss->right[a] + v * ss->up[a];
                in = lo[a] <= x && x < lo[a] + h;
            }
            if (in) {
                put(ss, job, r, (size_t)j * (size_t)nx + (size_t)i);
                got = 1;
            }
        }
    }
    return got;
}

/* Row r onto the maps: -1 when it does not cross the plane, 0 when it
 * crosses it outside the image, 1 when it fills pixels. */
static int fill_row(sk_slice_stream *ss, const proj_job *job, int64_t r)
{
    if (ss->oblique)
        return fill_oblique(ss, job, r);
    int l = job->level[r];
    const int32_t *key[3] = {job->cx, job->cy, job->cz};
    double w = (double)key[ss->opt.axis][r];
    if (!(ldexp(w, -l) <= ss->opt.at && ss->opt.at < ldexp(w + 1, -l)))
        return -1;
    double cu = key[ss->ua][r], cv = key[ss->va][r];
    int nx = ss->opt.nx, ny = ss->opt.ny;
    int i0 = first_pixel(ldexp(cu, -l), ss->u0, ss->pixel, nx);
    int i1 = first_pixel(ldexp(cu + 1, -l), ss->u0, ss->pixel, nx);
    int j0 = first_pixel(ldexp(cv, -l), ss->v0, ss->pixel, ny);
    int j1 = first_pixel(ldexp(cv + 1, -l), ss->v0, ss->pixel, ny);
    if (i0 >= i1 || j0 >= j1)
        return 0;
    for (int q = 0; q < ss->nq; q++) {
        double v = job->q[q].col[r] * ss->factor[q];
        double *m = ss->data + (size_t)q * ss->npix;
        for (int j = j0; j < j1; j++)
            for (int i = i0; i < i1; i++)
                m[(size_t)j * (size_t)nx + (size_t)i] = v;
    }
    for (int j = j0; j < j1; j++)
        memset(ss->painted + (size_t)j * (size_t)nx + (size_t)i0, 1, (size_t)(i1 - i0));
    return 1;
}

static int fill_batch(sk_slice_stream *ss, int thread, const sk_table *batch, sk_error *err)
{
    if (!ss->begun)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the slice's stream was not begun");
    proj_job *job = sk_calloc(1, sizeof *job);
    if (!job)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = setup_job(ss, job, batch, err);
    int64_t *c = ss->count + 3 * (size_t)(thread >= 0 && thread < ss->nthreads ? thread : 0);
    for (int64_t r = 0; r < job->nrows && rc == SK_OK; r++) {
        if (job->level[r] < 0 || job->level[r] > PROJ_MAX_LEVEL) {
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "a cell has level %d, outside 0..%d",
                         job->level[r], PROJ_MAX_LEVEL);
            break;
        }
        int got = fill_row(ss, job, r);
        c[1] += got >= 0;
        c[2] += got > 0;
    }
    c[0] += job->nrows;
    proj_job_free(job);
    return rc;
}

static int stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                        sk_error *err)
{
    (void)info; /* leaf cells do not overlap: each pixel is one cell's, in any order */
    return fill_batch(ctx, thread, batch, err);
}

sk_consumer sk_slice_stream_consumer(sk_slice_stream *ss)
{
    return (sk_consumer){.ctx = ss, .begin = stream_begin, .batch = stream_batch};
}

void sk_slice_stream_free(sk_slice_stream *ss)
{
    if (!ss)
        return;
    for (int i = 0; i < ss->nq; i++)
        sk_free(ss->names[i]);
    sk_free(ss->data);
    sk_free(ss->painted);
    sk_free(ss->count);
    sk_free(ss);
}

/* The maps' description: an axis-aligned image in code lengths. */
static void fill_info(const sk_slice_stream *ss, const int64_t tot[3], sk_maps_info *in)
{
    const sk_slice_options *o = &ss->opt;
    double L = ss->boxlen;
    in->axis = ss->oblique ? -1 : o->axis;
    if (ss->oblique) {
        memcpy(in->los, ss->n, sizeof in->los);
        memcpy(in->right, ss->right, sizeof in->right);
        memcpy(in->up, ss->up, sizeof in->up);
    } else {
        in->los[o->axis] = 1;
        in->right[ss->ua] = 1;
        in->up[ss->va] = 1;
    }
    for (int a = 0; a < 3; a++)
        in->center[a] = (a == o->axis && !ss->oblique ? o->at : o->center[a]) * L;
    in->extent[0] = ss->u0 * L;
    in->extent[1] = (ss->u0 + o->nx * ss->pixel) * L;
    in->extent[2] = ss->v0 * L;
    in->extent[3] = (ss->v0 + o->ny * ss->pixel) * L;
    in->pixel_size = ss->pixel * L;
    in->pixel_size_cm = in->pixel_size * ss->unit_l;
    in->time = ss->time;
    in->unit_l = ss->unit_l;
    in->unit_t = ss->unit_t;
    in->rows = tot[0];
    in->selected = tot[1];
    in->deposited = tot[2];
    in->selected_mass = in->projected_mass = NAN;
    in->threads = ss->nthreads;
    snprintf(in->strategy, sizeof in->strategy, "slice");
    snprintf(in->kernel, sizeof in->kernel, "cell");
    snprintf(in->weight, sizeof in->weight, "none");
    snprintf(in->mode, sizeof in->mode, "slice");
    snprintf(in->kind, sizeof in->kind, "cells");
    in->accumulator_bytes = (int64_t)(ss->npix * (size_t)ss->nq * sizeof(double));
    sk_project_options popt;
    sk_project_options_init(&popt);
    snprintf(popt.region.unit, sizeof popt.region.unit, "%s", o->length_unit);
    if (strcmp(o->length_unit, "code") == 0)
        snprintf(in->length_unit, sizeof in->length_unit, "code");
    else
        proj_choose_length_unit(&popt, in, in->length_unit, sizeof in->length_unit);
}

int sk_slice_stream_finish(sk_slice_stream *ss, sk_maps **out, sk_error *err)
{
    *out = NULL;
    if (!ss || !ss->begun)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no stream was sliced");
    int64_t tot[3] = {0, 0, 0};
    for (int t = 0; t < ss->nthreads; t++)
        for (int k = 0; k < 3; k++)
            tot[k] += ss->count[3 * t + k];
    if (tot[2] == 0)
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1,
                       "none of the %lld cells read (%lld crossing the plane %c = %.6g) reaches "
                       "the image", (long long)tot[0], (long long)tot[1], "xyz"[ss->opt.axis],
                       ss->opt.at);
    sk_maps *m = sk_calloc(1, sizeof *m);
    if (m)
        m->maps = sk_calloc((size_t)ss->nq, sizeof *m->maps);
    for (int i = 0; m && m->maps && i < ss->nq; i++) {
        struct sk_map_entry *e = &m->maps[i];
        if (!(e->data = sk_malloc(ss->npix * sizeof *e->data + 1)))
            break;
        m->nmaps++;
        memcpy(e->data, ss->data + (size_t)i * ss->npix, ss->npix * sizeof *e->data);
        snprintf(e->name, sizeof e->name, "%s", ss->names[i]);
        snprintf(e->unit, sizeof e->unit, "%s", ss->units[i]);
        snprintf(e->what, sizeof e->what, "value of the cell at the pixel's centre");
        e->dim = ss->dim[i];
    }
    if (!m || m->nmaps < ss->nq) {
        sk_maps_free(m);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    m->nx = ss->opt.nx;
    m->ny = ss->opt.ny;
    fill_info(ss, tot, &m->info);
    m->info.seconds = omp_get_wtime() - ss->start;
    *out = m;
    return SK_OK;
}

int sk_slice(const sk_table *table, int nq, const char *const *quantities,
             const sk_slice_options *opt, sk_maps **out, sk_error *err)
{
    *out = NULL;
    sk_slice_stream *ss;
    int rc = sk_slice_stream_new(nq, quantities, opt, &ss, err);
    if (rc != SK_OK)
        return rc;
    rc = stream_begin(ss, 1, table, err);
    if (rc == SK_OK)
        rc = fill_batch(ss, 0, table, err);
    if (rc == SK_OK)
        rc = sk_slice_stream_finish(ss, out, err);
    sk_slice_stream_free(ss);
    return rc;
}

int sk_slice_selection(const sk_source *src, const sk_slice_options *opt, sk_selection *sel,
                       sk_error *err)
{
    sk_selection probe;
    sk_selection_init(&probe);
    probe.has_box = 1;
    for (int a = 0; a < 3; a++)
        probe.lo[a] = probe.hi[a] = 0.5;
    /* half the coarsest cell, as sk_clip_widen widens a point */
    int rc = sk_clip_widen(src, "hydro", &probe, err);
    double half = 0.5 - probe.lo[0];
    sk_selection_clear(&probe);
    if (rc != SK_OK)
        return rc;
    sel->has_box = 1;
    memset(&sel->shape, 0, sizeof sel->shape);
    if (!opt->has_normal) {
        sk_slice_box(opt, 2.0 * half, sel->lo, sel->hi);
        return SK_OK;
    }
    /* a disk about the centre as wide as the window's diagonal */
    double w = opt->width, h = opt->width * opt->ny / opt->nx, len = 0;
    sk_shape disk = {.kind = SK_SHAPE_CYLINDER, .r_out = 0.5 * sqrt(w * w + h * h),
                     .half_height = 1e-9};
    for (int a = 0; a < 3; a++) {
        sel->lo[a] = 0;
        sel->hi[a] = 1;
        disk.center[a] = opt->center[a];
        len += opt->normal[a] * opt->normal[a];
    }
    for (int a = 0; a < 3; a++)
        disk.axis[a] = opt->normal[a] / sqrt(len);
    rc = sk_selection_set_shape(sel, &disk, err);
    return rc == SK_OK ? sk_selection_widen(sel, half, err) : rc;
}

int sk_slice_source(sk_source *src, const sk_selection *base, int nq,
                    const char *const *quantities, const sk_slice_options *opt,
                    const sk_read_options *ropt, sk_maps **out, sk_read_stats *stats,
                    sk_error *err)
{
    *out = NULL;
    sk_slice_stream *ss;
    int rc = sk_slice_stream_new(nq, quantities, opt, &ss, err);
    if (rc != SK_OK)
        return rc;
    sk_selection sel;
    sk_selection_init(&sel);
    rc = base ? sk_selection_copy(&sel, base, err) : SK_OK;
    if (rc == SK_OK)
        rc = sk_slice_selection(src, opt, &sel, err);
    if (rc != SK_OK) {
        sk_selection_clear(&sel);
        sk_slice_stream_free(ss);
        return rc;
    }
    sk_consumer c = sk_slice_stream_consumer(ss);
    rc = sk_source_stream(src, "hydro", &sel, ropt, &c, stats, err);
    if (rc == SK_OK)
        rc = sk_slice_stream_finish(ss, out, err);
    sk_selection_clear(&sel);
    sk_slice_stream_free(ss);
    return rc;
}
