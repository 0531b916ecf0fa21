/* Image geometry: orientation, centre, window, pixel grid, and where each
 * row lands on the image. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "project_internal.h"

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* v divided by its largest component's size, so that its square neither
 * overflows (1e308, 1e308, 1e308) nor underflows (1e-320, 0, 0); 0 when v
 * is zero or not finite. */
static int scale_down(double *v)
{
    double m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(m > 0) || !isfinite(m))
        return 0;
    for (int k = 0; k < 3; k++)
        v[k] /= m;
    return 1;
}

static int normalise(double *v)
{
    if (!scale_down(v))
        return 0;
    double n = sqrt(dot3(v, v));
    for (int k = 0; k < 3; k++)
        v[k] /= n;
    return 1;
}

/* Image axes of the axis-aligned projections, as in yt: along x the image
 * is (y, z), along y (z, x), along z (x, y). */
static const int k_image_axes[3][2] = {{1, 2}, {2, 0}, {0, 1}};

static int orient_off_axis(proj_frame *f, const sk_project_options *opt, sk_error *err)
{
    memcpy(f->los, opt->direction, sizeof f->los);
    if (!normalise(f->los))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the line-of-sight direction (%g, %g, %g) has zero length",
                       opt->direction[0], opt->direction[1], opt->direction[2]);
    double up[3] = {0, 0, 0};
    if (opt->has_up) {
        memcpy(up, opt->up, sizeof up);
    } else {
        int nearest = 0;
        for (int k = 1; k < 3; k++)
            if (fabs(f->los[k]) > fabs(f->los[nearest]))
                nearest = k;
        up[k_image_axes[nearest][1]] = 1.0;
    }
    int sized = scale_down(up);
    double along = dot3(up, f->los), size = sqrt(dot3(up, up));
    for (int k = 0; k < 3; k++)
        up[k] -= along * f->los[k];
    if (!sized || !(sqrt(dot3(up, up)) > 1e-9 * size) || !normalise(up))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the up vector (%g, %g, %g) is zero or along the line of sight",
                       opt->up[0], opt->up[1], opt->up[2]);
    memcpy(f->up, up, sizeof up);
    cross3(f->up, f->los, f->right);
    normalise(f->right);
    return SK_OK;
}

/* Half extents of the selection box seen from the centre along right/up. */
static void box_half_extent(const proj_frame *f, double boxlen, double *hu, double *hv)
{
    *hu = *hv = 0;
    for (int c = 0; c < 8; c++) {
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = ((c >> k) & 1 ? f->sel_hi[k] : f->sel_lo[k]) * boxlen - f->center[k];
        *hu = fmax(*hu, fabs(dot3(d, f->right)));
        *hv = fmax(*hv, fabs(dot3(d, f->up)));
    }
}

int proj_orient(proj_job *job, const sk_project_options *opt, sk_error *err)
{
    proj_frame *f = &job->f;
    double L = job->boxlen;
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = sk_selection_set_region(&sel, &opt->region, &job->units, err);
    if (rc != SK_OK)
        return rc;
    /* Nothing lies outside the box: a region reaching past it is cut to it. */
    for (int k = 0; k < 3; k++) {
        f->sel_lo[k] = sel.lo[k] > 0 ? sel.lo[k] : 0;
        f->sel_hi[k] = sel.hi[k] < 1 ? sel.hi[k] : 1;
    }
    double per_unit; /* box units per region unit */
    if ((rc = sk_box_units_per(&job->units, opt->region.unit, &per_unit, err)) != SK_OK)
        return rc;
    double code_per_unit = per_unit * L;
    for (int k = 0; k < 3; k++) {
        if (opt->region.center_is_bc)
            f->center[k] = 0.5 * L;
        else if (opt->region.has_center)
            f->center[k] = opt->region.center[k] * code_per_unit;
        else
            f->center[k] = 0.5 * (f->sel_lo[k] + f->sel_hi[k]) * L;
    }
    /* A 2-D output's cells have no z: they are seen along z only, whole.
     * A 1-D output's have no y either: its map is one row, a profile. */
    if (job->is_cells && job->ndim < 3 &&
        (opt->has_direction || opt->axis != 2 || opt->has_los_range || f->sel_lo[2] > 0 ||
         f->sel_hi[2] < 1 || (job->ndim == 1 && (f->sel_lo[1] > 0 || f->sel_hi[1] < 1))))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       job->ndim == 2 ? "a 2-D output projects along z only, over the whole "
                                        "depth (no direction, other axis, z range or depth range)"
                                      : "a 1-D output projects to a profile along x only (no "
                                        "direction, other axis, y or z range or depth range)");
    if (job->clip && (opt->has_direction || job->ndim != 3 || opt->has_los_range ||
                      opt->region.shape != SK_SHAPE_NONE))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clip works for axis-aligned maps of 3-D cells in a box, with the depth "
                       "given as the box's range along the axis (no direction, depth range or "
                       "shape)");
    f->has_w = opt->has_los_range;
    f->w_lo = opt->los_range[0] * code_per_unit;
    f->w_hi = opt->los_range[1] * code_per_unit;
    if (!opt->has_direction) {
        if (opt->axis < 0 || opt->axis > 2)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "axis must be x, y or z");
        f->axis = opt->axis;
        f->ua = k_image_axes[f->axis][0];
        f->va = k_image_axes[f->axis][1];
        f->wa = f->axis;
        memset(f->los, 0, sizeof f->los);
        memset(f->right, 0, sizeof f->right);
        memset(f->up, 0, sizeof f->up);
        f->los[f->wa] = f->right[f->ua] = f->up[f->va] = 1.0;
        f->win_lo[0] = f->sel_lo[f->ua] * L;
        f->win_hi[0] = f->sel_hi[f->ua] * L;
        f->win_lo[1] = f->sel_lo[f->va] * L;
        f->win_hi[1] = f->sel_hi[f->va] * L;
        f->half_u = f->half_v = 0.5;
        return SK_OK;
    }
    f->axis = -1;
    if ((rc = orient_off_axis(f, opt, err)) != SK_OK)
        return rc;
    f->half_u = 0.5 * (fabs(f->right[0]) + fabs(f->right[1]) + fabs(f->right[2]));
    f->half_v = 0.5 * (fabs(f->up[0]) + fabs(f->up[1]) + fabs(f->up[2]));
    double hu, hv;
    if (opt->has_fov) {
        hu = 0.5 * opt->fov[0] * code_per_unit;
        hv = 0.5 * opt->fov[1] * code_per_unit;
    } else {
        box_half_extent(f, L, &hu, &hv);
    }
    f->win_lo[0] = -hu;
    f->win_hi[0] = hu;
    f->win_lo[1] = -hv;
    f->win_hi[1] = hv;
    return SK_OK;
}

/* x snapped to the nearest integer when within rounding of it (unit
 * conversions leave a few ulps; anything larger is real geometry). */
static double snap(double x)
{
    double r = nearbyint(x);
    return fabs(x - r) <= 1e-12 * fmax(1.0, fabs(x)) ? r : x;
}

static int pixel_size(const proj_job *job, const sk_project_options *opt, int data_lmax,
                      double *pixel, sk_error *err)
{
    double L = job->boxlen, across;
    if (opt->pixel > 0) {
        double per_unit;
        const char *unit = opt->pixel_unit[0] ? opt->pixel_unit : opt->region.unit;
        int rc = sk_box_units_per(&job->units, unit, &per_unit, err);
        if (rc != SK_OK)
            return rc;
        /* Mera's rule: a whole number of pixels spans the box. */
        across = fmax(1.0, ceil(snap(1.0 / (opt->pixel * per_unit))));
    } else if (opt->res < 0) {
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "res must be at least 1, not %lld",
                       (long long)opt->res);
    } else {
        across = opt->res > 0 ? (double)opt->res : ldexp(1.0, data_lmax);
    }
    *pixel = L / across;
    if (!(*pixel > 0) || !isfinite(*pixel))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the pixel size is not a positive number");
    return SK_OK;
}

static int too_large(double nx, double ny, sk_error *err)
{
    return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                   "a %.0f x %.0f pixel map is larger than %d pixels per side; lower the "
                   "resolution or project a smaller region", nx, ny, INT_MAX / 16);
}

int proj_place_grid(proj_job *job, const sk_project_options *opt, int data_lmax, sk_error *err)
{
    proj_frame *f = &job->f;
    int rc = pixel_size(job, opt, data_lmax, &f->pixel, err);
    if (rc != SK_OK)
        return rc;
    f->inv_pixel = 1.0 / f->pixel;
    double n[2], lo[2];
    for (int a = 0; a < 2; a++) {
        double from = snap(f->win_lo[a] * f->inv_pixel), to = snap(f->win_hi[a] * f->inv_pixel);
        if (f->axis >= 0) { /* on the box's pixel grid */
            lo[a] = floor(from);
            n[a] = ceil(to) - lo[a];
        } else { /* centred on the centre */
            n[a] = fmax(1.0, ceil(snap(to - from)));
            lo[a] = 0.5 * (from + to) - 0.5 * n[a];
        }
        n[a] = fmax(1.0, n[a]);
    }
    if (n[0] > INT_MAX / 16 || n[1] > INT_MAX / 16)
        return too_large(n[0], n[1], err);
    f->nx = (int)n[0];
    f->ny = (int)n[1];
    f->u0 = lo[0] * f->pixel;
    f->v0 = lo[1] * f->pixel;
    if (job->is_cells && job->ndim == 1) {
        /* The profile: one row of pixels, a strip of one pixel's height
         * across the middle of the slabs (proj_item_total). */
        f->ny = 1;
        f->v0 = 0.5 * job->boxlen - 0.5 * f->pixel;
    }
    proj_grid_plan(job);
    return SK_OK;
}

static int place(const proj_job *job, const double *x, proj_item *it)
{
    const proj_frame *f = &job->f;
    if (f->axis >= 0) {
        it->u = x[f->ua];
        it->v = x[f->va];
        it->w = x[f->wa] - f->center[f->wa];
    } else {
        double d[3] = {x[0] - f->center[0], x[1] - f->center[1], x[2] - f->center[2]};
        it->u = dot3(d, f->right);
        it->v = dot3(d, f->up);
        it->w = dot3(d, f->los);
    }
    return !f->has_w || (it->w >= f->w_lo && it->w < f->w_hi);
}

/* A clipped cell (centre b, half-size `half`, box units): the fraction
 * of its depth inside the region along the line of sight, 0 when it does
 * not meet the region on some axis. */
static double clipped_depth(const proj_frame *f, const double b[3], double half)
{
    double depth = 0;
    for (int k = 0; k < 3; k++) {
        double in = fmin(b[k] + half, f->sel_hi[k]) - fmax(b[k] - half, f->sel_lo[k]);
        if (!(in > 0))
            return 0;
        if (k == f->wa)
            depth = in == 2 * half ? 1.0 : in / (2 * half);
    }
    return depth;
}

int proj_item_of(const proj_job *job, int64_t r, proj_item *it)
{
    const proj_frame *f = &job->f;
    double b[3], x[3];
    if (job->is_cells) {
        int l = job->level[r];
        double s = job->inv_2l[l];
        b[0] = (job->cx[r] + 0.5) * s;
        b[1] = job->cy ? (job->cy[r] + 0.5) * s : 0.5;
        b[2] = job->cz ? (job->cz[r] + 0.5) * s : 0.5;
        it->h = job->cell_size[l];
        it->level = l;
        /* 2-D cells are columns of depth boxlen, 1-D cells slabs across y and z. */
        it->total = it->h * (job->cy ? it->h : job->boxlen) * (job->cz ? it->h : job->boxlen);
    } else {
        if (job->family && job->family[r] != job->want_family)
            return 0;
        for (int k = 0; k < 3; k++)
            b[k] = job->pos[k][r] / job->boxlen;
        it->h = 0;
        it->level = 0;
        it->total = 1.0;
    }
    if (job->clip) {
        double depth = clipped_depth(f, b, 0.5 * job->inv_2l[it->level]);
        if (!(depth > 0))
            return 0;
        it->total *= depth;
    }
    for (int k = 0; k < 3; k++) {
        if (!job->clip && !(b[k] >= f->sel_lo[k] && b[k] < f->sel_hi[k]))
            return 0;
        x[k] = job->is_cells ? b[k] * job->boxlen : job->pos[k][r];
    }
    return place(job, x, it);
}

/* floor(x) as an int clamped to [lo, hi]. */
static int clamp_floor(double x, int lo, int hi)
{
    if (!(x > lo))
        return lo;
    if (x >= hi)
        return hi;
    return (int)floor(x);
}

int proj_is_point_kernel(const proj_job *job)
{
    return !job->is_cells || job->kernel == SK_KERNEL_CIC || job->kernel == SK_KERNEL_NGP;
}

int proj_footprint(const proj_job *job, const proj_item *it, int *i0, int *i1, int *j0, int *j1)
{
    const proj_frame *f = &job->f;
    double x = (it->u - f->u0) * f->inv_pixel, y = (it->v - f->v0) * f->inv_pixel;
    double hu, hv;
    if (proj_is_point_kernel(job)) {
        if (!(x >= 0 && x < f->nx && y >= 0 && y < f->ny))
            return 0;
        hu = hv = job->kernel == SK_KERNEL_CIC ? 0.5 : 0.0;
    } else {
        hu = it->h * f->half_u * f->inv_pixel;
        hv = it->h * f->half_v * f->inv_pixel;
    }
    *i0 = clamp_floor(x - hu, -1, f->nx);
    *j0 = clamp_floor(y - hv, -1, f->ny);
    *i1 = clamp_floor(x + hu, -1, f->nx);
    *j1 = clamp_floor(y + hv, -1, f->ny);
    /* A footprint ending exactly on a pixel edge does not enter that pixel. */
    if (*i1 > *i0 && x + hu == floor(x + hu) && hu > 0)
        (*i1)--;
    if (*j1 > *j0 && y + hv == floor(y + hv) && hv > 0)
        (*j1)--;
    if (*i0 < 0)
        *i0 = 0;
    if (*j0 < 0)
        *j0 = 0;
    if (*i1 >= f->nx)
        *i1 = f->nx - 1;
    if (*j1 >= f->ny)
        *j1 = f->ny - 1;
    return *i0 <= *i1 && *j0 <= *j1;
}
