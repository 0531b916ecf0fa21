/* Clipping (snapkit/select.h): the fraction of a cell inside a
 * selection's region, and the widened selection that reads every cell
 * meeting it.
 *
 * The fraction is the box part times the shape part. The box part is the
 * product of the 1-D overlaps (exact; the box does not wrap, as the
 * selection's [lo, hi) does not). The shape part is taken over the cell
 * already cut to the box: cells wholly in or out (sk_shape_box_test)
 * are 1 or 0; a cell the shape's surface crosses is cut into
 * SK_CLIP_COLUMNS x SK_CLIP_COLUMNS columns along the axis nearest to the
 * surface's normal at its centre (column_axis), and the length of each
 * column's centre line inside the shape is
 * found exactly (a sphere's, a cylinder's and their shells' sections of
 * a line are intervals, from a quadratic and a linear inequality): the
 * fraction is the mean of those lengths over the cell's depth. Distances
 * wrap across the faces as sk_shape_contains takes them: the line is cut
 * where its nearest image of the centre changes. */
#include <math.h>
#include <string.h>

#include "core/shape_internal.h"

/* The length of [a0, a1] within [b0, b1]. */
static double common(double a0, double a1, double b0, double b1)
{
    double in = fmin(a1, b1) - fmax(a0, b0);
    return in > 0 ? in : 0.0;
}

/* An interval [lo, hi] (empty when lo > hi). */
typedef struct span {
    double lo, hi;
} span;

static const span k_all = {-INFINITY, INFINITY}, k_none = {INFINITY, -INFINITY};

static span meet(span a, span b)
{
    return (span){fmax(a.lo, b.lo), fmin(a.hi, b.hi)};
}

/* {u : A u^2 + B u + C <= 0} for A >= 0, as one interval (A > 0, or
 * linear or constant when A is 0). */
static span quadratic(double A, double B, double C)
{
    if (A == 0) {
        if (B == 0)
            return C <= 0 ? k_all : k_none;
        double u = -C / B;
        return B > 0 ? (span){-INFINITY, u} : (span){u, INFINITY};
    }
    double disc = B * B - 4 * A * C;
    if (!(disc >= 0))
        return k_none;
    /* the root of the larger magnitude without cancellation, then the other */
    double q = -0.5 * (B + copysign(sqrt(disc), B));
    double r1 = q / A, r2 = q != 0 ? C / q : 0.0;
    return r1 < r2 ? (span){r1, r2} : (span){r2, r1};
}

static int is_cylinder(const sk_shape *s)
{
    return s->kind == SK_SHAPE_CYLINDER || s->kind == SK_SHAPE_CYLINDER_SHELL;
}

static int is_shell(const sk_shape *s)
{
    return s->kind == SK_SHAPE_SHELL || s->kind == SK_SHAPE_CYLINDER_SHELL;
}

/* The points d + u e_t (d[t] = 0) whose distance to the centre (sphere)
 * or the axis (cylinder) is at most r, intersected for cylinders with
 * |d . axis| <= half_height. */
static span line_in(const sk_shape *s, const double d[3], int t, double r)
{
    double q = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (!is_cylinder(s))
        return quadratic(1.0, 0.0, q - r * r);
    const double *a = s->axis;
    double h0 = d[0] * a[0] + d[1] * a[1] + d[2] * a[2], at = a[t];
    /* |d + u e_t|^2 - (h0 + u at)^2 <= r^2 */
    span radial = quadratic(1.0 - at * at, -2.0 * h0 * at, q - h0 * h0 - r * r);
    span slab;
    if (at == 0)
        slab = fabs(h0) <= s->half_height ? k_all : k_none;
    else if (at > 0)
        slab = (span){(-s->half_height - h0) / at, (s->half_height - h0) / at};
    else
        slab = (span){(s->half_height - h0) / at, (-s->half_height - h0) / at};
    return meet(radial, slab);
}

/* The length of [u0, u1] (displacements along axis t) inside the shape,
 * not counting `inverse`, for the line through d. */
static double length_in(const sk_shape *s, const double d[3], int t, double u0, double u1)
{
    span out = line_in(s, d, t, s->r_out);
    double len = common(u0, u1, out.lo, out.hi);
    if (is_shell(s) && len > 0) { /* the hole lies within the outer shape */
        span hole = line_in(s, d, t, s->r_in);
        len -= common(u0, u1, hole.lo, hole.hi);
    }
    return len > 0 ? len : 0.0;
}

/* The displacement along one axis to the nearest image, as
 * sk_shape_contains takes it. */
static double wrap(double d)
{
    return d - nearbyint(d);
}

/* The length of the column [a_t, b_t] through p (box units) inside the
 * shape, `inverse` counted: the column cut where the nearest image of the
 * centre changes (at displacements +-0.5 + whole boxes). */
static double column_in(const sk_shape *s, const double p[3], int t, double at, double bt)
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = k == t ? 0.0 : wrap(p[k] - s->center[k]);
    double u0 = at - s->center[t], u1 = bt - s->center[t], len = 0;
    for (double edge = floor(u0 + 0.5); edge - 0.5 < u1; edge += 1.0) {
        /* the piece whose nearest image is `edge` boxes away */
        double lo = fmax(u0, edge - 0.5), hi = fmin(u1, edge + 0.5);
        if (hi > lo)
            len += length_in(s, d, t, lo - edge, hi - edge);
    }
    if (s->inverse)
        len = (bt - at) - len;
    return len > 0 ? len : 0.0;
}

/* The normal of the shape's surface nearest to the point at displacement
 * d from the centre (not unit length): radial for spheres; for cylinders
 * across the axis or along it, whichever of the side and the caps is
 * nearer. */
static void surface_normal(const sk_shape *s, const double d[3], double n[3])
{
    memcpy(n, d, 3 * sizeof *n);
    if (!is_cylinder(s))
        return;
    double h = d[0] * s->axis[0] + d[1] * s->axis[1] + d[2] * s->axis[2], rho2 = 0;
    for (int k = 0; k < 3; k++) {
        n[k] = d[k] - h * s->axis[k];
        rho2 += n[k] * n[k];
    }
    double rho = sqrt(rho2), side = fabs(rho - s->r_out);
    if (is_shell(s))
        side = fmin(side, fabs(rho - s->r_in));
    if (fabs(fabs(h) - s->half_height) < side)
        memcpy(n, s->axis, 3 * sizeof *n);
}

/* The axis of the columns for the box [a, b]: of its extended axes, the
 * one closest to the surface's normal at its centre, so that the surface
 * crosses the columns rather than runs along them (the last extended
 * axis on a tie); -1 when no axis is extended. */
static int column_axis(const sk_shape *s, const double a[3], const double b[3])
{
    double d[3], n[3];
    for (int k = 0; k < 3; k++)
        d[k] = wrap(0.5 * (a[k] + b[k]) - s->center[k]);
    surface_normal(s, d, n);
    int t = -1;
    for (int k = 0; k < 3; k++)
        if (b[k] > a[k] && (t < 0 || fabs(n[k]) >= fabs(n[t])))
            t = k;
    return t;
}

/* The fraction of the box [a, b] inside the shape (sampled as the file's
 * comment says); axes with a[k] == b[k] are points. */
static double shape_fraction(const sk_shape *s, const double a[3], const double b[3])
{
    int t = column_axis(s, a, b), other[3], nother = 0;
    if (t < 0)
        return sk_shape_contains(s, a[0], a[1], a[2]);
    for (int k = 0; k < 3; k++)
        if (k != t && b[k] > a[k])
            other[nother++] = k;
    const int n = SK_CLIP_COLUMNS;
    int columns = nother == 0 ? 1 : nother == 1 ? n : n * n;
    double sum = 0;
    for (int c = 0; c < columns; c++) {
        double p[3] = {a[0], a[1], a[2]};
        for (int j = 0, rest = c; j < nother; j++, rest /= n) {
            int k = other[j];
            p[k] = a[k] + ((double)(rest % n) + 0.5) / n * (b[k] - a[k]);
        }
        sum += column_in(s, p, t, a[t], b[t]);
    }
    double f = sum / ((double)columns * (b[t] - a[t]));
    return f < 1 ? f : 1.0;
}

/* Does the box's face at `face` cut nothing of the shape from the cell's
 * part [p0, p1] beyond it along axis k (that part lies in the gap
 * between the shape's images)? Then the face is left uncut, so that the
 * shape's samples do not depend on the bounding box the selection took
 * from it, nor on ranges wider than the shape. */
static int beyond_shape(const sk_shape *s, int k, double p0, double p1)
{
    if (s->kind == SK_SHAPE_NONE || s->inverse)
        return 0;
    double e = core_shape_half_extent(s, k), c = s->center[k];
    return (p0 >= c + e - 1 && p1 <= c - e) || (p0 >= c + e && p1 <= c - e + 1);
}

/* The cell [a, b] on axis k cut to the selection's box; the factor of
 * its length kept (0 when nothing is). */
static double cut_axis(const sk_selection *sel, int k, double *a, double *b)
{
    double lo = sel->lo[k], hi = sel->hi[k], size = *b - *a;
    double in = common(*a, *b, lo, hi);
    if (!(in > 0))
        return 0.0;
    if (in == size)
        return 1.0;
    if (*a < lo && !beyond_shape(&sel->shape, k, *a, lo))
        *a = lo;
    if (*b > hi && !beyond_shape(&sel->shape, k, hi, *b))
        *b = hi;
    return *b - *a == size ? 1.0 : (*b - *a) / size;
}

double sk_selection_cell_fraction(const sk_selection *sel, const double center[3], double size,
                                  int ndim)
{
    double h = 0.5 * size, a[3], b[3], f = 1.0;
    for (int k = 0; k < 3; k++) {
        if (k >= ndim) { /* an axis the output lacks: the shape's centre, as readers take it */
            a[k] = b[k] = sel->shape.center[k];
            continue;
        }
        a[k] = center[k] - h;
        b[k] = center[k] + h;
        if (sel->has_box && !((f *= cut_axis(sel, k, &a[k], &b[k])) > 0))
            return 0.0;
    }
    if (sel->shape.kind == SK_SHAPE_NONE)
        return f;
    int test = sk_shape_box_test(&sel->shape, a, b);
    return test > 0 ? f : test < 0 ? 0.0 : f * shape_fraction(&sel->shape, a, b);
}

/* The shape grown by m (every point within m of it), or shrunk by m for
 * an inverted one (so that its outside grows); kind NONE when nothing of
 * it is left (the whole box is then read). */
static sk_shape grown(const sk_shape *s, double m)
{
    sk_shape g = *s;
    double sign = s->inverse ? -1.0 : 1.0;
    g.r_out += sign * m;
    if (is_shell(s))
        g.r_in = fmax(0.0, g.r_in - sign * m);
    if (is_cylinder(s))
        g.half_height += sign * m;
    int empty = !(g.r_out > 0) || (is_shell(s) && !(g.r_in < g.r_out)) ||
                (is_cylinder(s) && !(g.half_height > 0));
    if (empty && s->inverse)
        memset(&g, 0, sizeof g);
    return g;
}

int sk_selection_widen(sk_selection *sel, double half, sk_error *err)
{
    if (!(half >= 0) || !isfinite(half))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the half cell size to widen a selection by must be a finite number "
                       "at least 0");
    if (sel->has_box)
        for (int k = 0; k < 3; k++) {
            sel->lo[k] -= half;
            sel->hi[k] += half;
        }
    if (sel->shape.kind == SK_SHAPE_NONE)
        return SK_OK;
    /* a cell meeting the shape has its centre within half its diagonal of it */
    sk_shape g = grown(&sel->shape, sqrt(3.0) * half);
    if (g.kind == SK_SHAPE_NONE) {
        memset(&sel->shape, 0, sizeof sel->shape);
        return SK_OK;
    }
    return sk_selection_set_shape(sel, &g, err);
}
