/* Quantities about a centre and an axis: each row's displacement d from
 * the centre (to the nearest periodic image) and its velocity v' in the
 * frame, then one function of the two per quantity. Undefined directions
 * give 0: at the centre (r = 0) and, about the axis, on it (R = 0). */
#include <math.h>

#include "analysis/derive_internal.h"

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The displacement d to the nearest image in a periodic box of size L:
 * in (-L/2, L/2], a tie going to +L/2 as in yt's get_periodic_rvec. */
static double nearest(double d, double L)
{
    d = fmod(d, L); /* exact */
    if (d > 0.5 * L)
        return d - L;
    if (d <= -0.5 * L)
        return d + L;
    return d;
}

/* Row i's position along axis a, code lengths; NAN when the table lacks
 * the axis (the displacement is then 0). */
static double position(const dv_rows *rows, int64_t i, int a)
{
    if (rows->particles)
        return rows->pos[a] ? rows->pos[a][i] : NAN;
    if (!rows->cell[a])
        return NAN;
    return ((double)rows->cell[a][i] + 0.5) * ldexp(rows->boxlen, -rows->level[i]);
}

void dv_frame_compute(const dv_rows *rows, const dv_frame *f, dv_frame_fn fn, double *out)
{
    int located = f->has_center && (rows->particles ? rows->pos[0] != NULL : rows->level != NULL);
    for (int64_t i = 0; i < rows->n; i++) {
        double d[3] = {0, 0, 0}, v[3];
        for (int a = 0; a < 3; a++) {
            double x = located ? position(rows, i, a) : NAN;
            d[a] = isnan(x) ? 0.0 : nearest(x - f->c[a], rows->boxlen);
            v[a] = (rows->vel[a] ? rows->vel[a][i] : 0.0) - f->bulk[a];
        }
        out[i] = fn(f, d, v);
    }
}

double dv_r(const dv_frame *f, const double d[3], const double v[3])
{
    (void)f, (void)v;
    return sqrt(dot(d, d));
}

/* |n x d|: the distance from the axis, as yt's cylindrical_radius. */
static double axis_distance(const dv_frame *f, const double d[3])
{
    double c[3];
    cross(f->n, d, c);
    return sqrt(dot(c, c));
}

double dv_theta(const dv_frame *f, const double d[3], const double v[3])
{
    (void)v;
    return atan2(axis_distance(f, d), dot(d, f->n));
}

double dv_phi(const dv_frame *f, const double d[3], const double v[3])
{
    (void)v;
    return atan2(dot(d, f->e2), dot(d, f->e1));
}

double dv_cyl_r(const dv_frame *f, const double d[3], const double v[3])
{
    (void)v;
    return axis_distance(f, d);
}

double dv_cyl_z(const dv_frame *f, const double d[3], const double v[3])
{
    (void)v;
    return dot(d, f->n);
}

double dv_v_r(const dv_frame *f, const double d[3], const double v[3])
{
    double r = dv_r(f, d, v);
    return r > 0 ? dot(v, d) / r : 0.0;
}

/* v'.R_hat, with R_hat = (d - z n) / R. */
static double radial_about_axis(const dv_frame *f, const double d[3], const double v[3],
                                double R)
{
    double z = dot(d, f->n), perp[3];
    for (int a = 0; a < 3; a++)
        perp[a] = d[a] - z * f->n[a];
    return dot(v, perp) / R;
}

double dv_v_theta(const dv_frame *f, const double d[3], const double v[3])
{
    double r = dv_r(f, d, v), R = axis_distance(f, d);
    if (!(r > 0) || !(R > 0))
        return 0.0;
    /* theta_hat = cos(theta) R_hat - sin(theta) n */
    return (dot(d, f->n) * radial_about_axis(f, d, v, R) - R * dot(v, f->n)) / r;
}

double dv_v_phi(const dv_frame *f, const double d[3], const double v[3])
{
    double c[3];
    cross(f->n, d, c);
    double R = sqrt(dot(c, c));
    return R > 0 ? dot(v, c) / R : 0.0;
}

double dv_v_tan(const dv_frame *f, const double d[3], const double v[3])
{
    double r = dv_r(f, d, v), c[3];
    if (!(r > 0))
        return 0.0;
    cross(v, d, c);
    return sqrt(dot(c, c)) / r;
}

double dv_v_cyl_r(const dv_frame *f, const double d[3], const double v[3])
{
    double R = axis_distance(f, d);
    return R > 0 ? radial_about_axis(f, d, v, R) : 0.0;
}

double dv_v_cyl_z(const dv_frame *f, const double d[3], const double v[3])
{
    (void)d;
    return dot(v, f->n);
}

double dv_j_x(const dv_frame *f, const double d[3], const double v[3])
{
    (void)f;
    return d[1] * v[2] - d[2] * v[1];
}

double dv_j_y(const dv_frame *f, const double d[3], const double v[3])
{
    (void)f;
    return d[2] * v[0] - d[0] * v[2];
}

double dv_j_z(const dv_frame *f, const double d[3], const double v[3])
{
    (void)f;
    return d[0] * v[1] - d[1] * v[0];
}

double dv_j(const dv_frame *f, const double d[3], const double v[3])
{
    (void)f;
    double c[3];
    cross(d, v, c);
    return sqrt(dot(c, c));
}
