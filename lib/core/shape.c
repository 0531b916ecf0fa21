/* Shapes of a selection: spheres, cylinders and their shells about a
 * centre, in box units, with distances taken to the nearest periodic image
 * (yt's RAMSES datasets are periodic, and so are its sphere and disk
 * selectors: a sphere near a face takes cells across it). A shell keeps
 * r_in < r <= r_out, the rows of yt's sphere(c, r_out) - sphere(c, r_in).
 *
 * The box tests (sk_shape_box_test) decide for a whole .snapkit chunk or
 * CPU domain whose rows are then not tested one by one, so they keep a
 * margin of SLACK box units: the rounding of a row's own test (~1e-16)
 * can never contradict them. The bounding box is widened by it too. */
#include "core/shape_internal.h"

#include <math.h>
#include <string.h>

#define SLACK 1e-12

/* The displacement along one axis to the nearest image, in [-0.5, 0.5]. */
static double wrap(double d)
{
    return d - nearbyint(d);
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int is_cylinder(const sk_shape *s)
{
    return s->kind == SK_SHAPE_CYLINDER || s->kind == SK_SHAPE_CYLINDER_SHELL;
}

static int is_shell(const sk_shape *s)
{
    return s->kind == SK_SHAPE_SHELL || s->kind == SK_SHAPE_CYLINDER_SHELL;
}

/* The squared distance of d to the centre (spheres) or axis (cylinders). */
static double radius2(const sk_shape *s, const double d[3])
{
    if (!is_cylinder(s))
        return dot(d, d);
    double h = dot(d, s->axis);
    return dot(d, d) - h * h;
}

/* Inside the shape, not counting `inverse`. */
static int inside(const sk_shape *s, const double d[3])
{
    if (is_cylinder(s) && !(fabs(dot(d, s->axis)) <= s->half_height))
        return 0;
    double r2 = radius2(s, d);
    return r2 <= s->r_out * s->r_out && (!is_shell(s) || r2 > s->r_in * s->r_in);
}

int sk_shape_contains(const sk_shape *s, double x, double y, double z)
{
    if (s->kind == SK_SHAPE_NONE)
        return 1;
    double d[3] = {wrap(x - s->center[0]), wrap(y - s->center[1]), wrap(z - s->center[2])};
    return inside(s, d) != s->inverse;
}

double core_shape_half_extent(const sk_shape *s, int k)
{
    if (!is_cylinder(s))
        return s->r_out;
    double a = fabs(s->axis[k]);
    double across = 1.0 - a * a;
    return a * s->half_height + s->r_out * sqrt(across > 0 ? across : 0);
}

/* Distance from c to the nearest image of [lo, hi] along one axis. */
static double gap(double c, double lo, double hi)
{
    double best = INFINITY;
    for (int k = -1; k <= 1; k++) {
        double g = fmax(0.0, fmax(lo + k - c, c - (hi + k)));
        best = fmin(best, g);
    }
    return best;
}

/* Does no point of the box lie within the shape's outer bound (with
 * SLACK to spare)? */
static int box_outside(const sk_shape *s, const double lo[3], const double hi[3])
{
    double g2 = 0;
    for (int k = 0; k < 3; k++) {
        double g = gap(s->center[k], lo[k], hi[k]);
        if (g > core_shape_half_extent(s, k) + SLACK)
            return 1;
        g2 += g * g;
    }
    double bound = s->r_out; /* a cylinder's bounding sphere */
    if (is_cylinder(s))
        bound = sqrt(s->r_out * s->r_out + s->half_height * s->half_height);
    bound += SLACK;
    return g2 > bound * bound;
}

/* The image of the box nearest to the centre, as displacements d0 <= d1
 * from it, when it lies within the half box about the centre (SLACK
 * inside) on every axis: there each point's displacement is the one
 * sk_shape_contains takes. 0 otherwise. */
static int nearest_image(const sk_shape *s, const double lo[3], const double hi[3], double d0[3],
                         double d1[3])
{
    for (int k = 0; k < 3; k++) {
        double shift = nearbyint(0.5 * (lo[k] + hi[k]) - s->center[k]);
        d0[k] = lo[k] - s->center[k] - shift;
        d1[k] = hi[k] - s->center[k] - shift;
        if (!(d0[k] >= -0.5 + SLACK && d1[k] <= 0.5 - SLACK))
            return 0;
    }
    return 1;
}

/* Corner c (bits: which end on each axis) of the box [d0, d1]. */
static void corner(int c, const double d0[3], const double d1[3], double d[3])
{
    for (int k = 0; k < 3; k++)
        d[k] = (c >> k) & 1 ? d1[k] : d0[k];
}

/* The box [d0, d1] (nearest_image) lies in a shell's hole: the distance
 * to the centre or axis is convex, so at most its largest corner's. */
static int box_in_hole(const sk_shape *s, const double d0[3], const double d1[3])
{
    double r = s->r_in - SLACK;
    if (!is_shell(s) || !(r > 0))
        return 0;
    for (int c = 0; c < 8; c++) {
        double d[3];
        corner(c, d0, d1, d);
        if (!(radius2(s, d) <= r * r))
            return 0;
    }
    return 1;
}

/* Every point of the box [d0, d1] (nearest_image) is in the shape: its
 * corners are in the convex outer shape shrunk by SLACK, and (spherical
 * shells) its nearest point lies beyond r_in. Not worked out for
 * cylindrical shells. */
static int box_inside(const sk_shape *s, const double d0[3], const double d1[3])
{
    if (s->kind == SK_SHAPE_CYLINDER_SHELL)
        return 0;
    if (s->kind == SK_SHAPE_SHELL) {
        double g2 = 0, r = s->r_in + SLACK;
        for (int k = 0; k < 3; k++) {
            double g = fmax(0.0, fmax(d0[k], -d1[k]));
            g2 += g * g;
        }
        if (!(g2 > r * r))
            return 0;
    }
    sk_shape shrunk = *s;
    shrunk.kind = is_cylinder(s) ? SK_SHAPE_CYLINDER : SK_SHAPE_SPHERE;
    shrunk.r_out -= SLACK;
    shrunk.half_height -= SLACK;
    for (int c = 0; c < 8; c++) {
        double d[3];
        corner(c, d0, d1, d);
        if (!inside(&shrunk, d))
            return 0;
    }
    return 1;
}

int sk_shape_box_test(const sk_shape *s, const double lo[3], const double hi[3])
{
    if (s->kind == SK_SHAPE_NONE)
        return 1;
    int out = box_outside(s, lo, hi);
    double d0[3], d1[3];
    if (!out && nearest_image(s, lo, hi, d0, d1)) {
        if (box_inside(s, d0, d1))
            return s->inverse ? -1 : 1;
        out = box_in_hole(s, d0, d1);
    }
    if (out)
        return s->inverse ? 1 : -1;
    return 0;
}

static int finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static int check_shape(const sk_shape *s, sk_error *err)
{
    if (s->kind < SK_SHAPE_NONE || s->kind > SK_SHAPE_CYLINDER_SHELL)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown shape kind %d", s->kind);
    int shell = is_shell(s);
    if (!finite3(s->center))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the centre must be finite numbers");
    for (int k = 0; k < 3; k++)
        if (!(s->center[k] >= 0 && s->center[k] <= 1))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the centre's %c (%.17g box units) lies outside the box [0, 1]; a "
                           "shape's centre must be inside it (distances wrap across the faces)",
                           "xyz"[k], s->center[k]);
    if (!(s->r_out > 0) || !isfinite(s->r_out))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the %sradius must be a finite number above 0",
                       shell ? "outer " : "");
    if (shell && !(s->r_in >= 0 && s->r_in < s->r_out))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the inner radius must be at least 0 and below the outer radius");
    if (is_cylinder(s)) {
        if (!(s->half_height > 0) || !isfinite(s->half_height))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the cylinder's half-height must be a finite number above 0");
        if (!finite3(s->axis) || !(dot(s->axis, s->axis) > 0))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the cylinder's axis must be a direction of non-zero length");
    }
    return SK_OK;
}

int sk_selection_set_shape(sk_selection *sel, const sk_shape *shape, sk_error *err)
{
    int rc = check_shape(shape, err);
    if (rc != SK_OK)
        return rc;
    sk_shape s = *shape;
    if (!is_shell(&s))
        s.r_in = 0;
    if (is_cylinder(&s)) {
        double n = sqrt(dot(s.axis, s.axis));
        for (int k = 0; k < 3; k++)
            s.axis[k] /= n;
    } else {
        memset(s.axis, 0, sizeof s.axis);
        s.half_height = 0;
    }
    sel->shape = s;
    if (s.kind == SK_SHAPE_NONE || s.inverse)
        return SK_OK;
    /* The bounding box, unless it crosses a face (then the whole axis),
     * widened by SLACK. */
    for (int k = 0; k < 3; k++) {
        double e = core_shape_half_extent(&s, k) + SLACK;
        double lo = s.center[k] - e, hi = s.center[k] + e;
        if (lo < 0 || hi >= 1)
            continue;
        if (!sel->has_box) {
            for (int j = 0; j < 3; j++)
                sel->lo[j] = 0, sel->hi[j] = 1;
        }
        sel->lo[k] = fmax(sel->lo[k], lo);
        sel->hi[k] = fmin(sel->hi[k], hi); /* (SLACK: [lo, hi) holds c + e) */
        sel->has_box = 1;
    }
    return SK_OK;
}
