/* Clipping (snapkit/select.h: sk_selection_cell_fraction,
 * sk_selection_widen), against fractions worked out by hand:
 * - boxes: products of 1-D overlaps, cells outside or touching a face
 *   only (0), no region (1), a 2-D output's missing axis;
 * - shapes whose surface is a plane across the integration axis (z), so
 *   that the columns' lengths give the fraction exactly: a cylinder along
 *   z wrapping across the face z = 0, a cell straddling the antipode of
 *   the centre (two images in one cell), a box and a shape together, the
 *   inverse, a cylindrical shell;
 * - a sphere: the fractions of every cell of a 64^3 grid add up to its
 *   volume 4/3 pi r^3 within the sampling's error, also centred across
 *   two faces, and a shape's and its inverse's fractions add up to 1;
 * - widening: the box by half a cell, shapes by half a diagonal, an
 *   inverted shape shrunk and dropped when nothing is left; bad sizes;
 * - sk_clip_table on a 4^3 grid of density 2 cut by a box, and the column
 *   statistics, weighted statistics and totals of the result (mass twice
 *   the box's volume); particles and a second clip column refused. */
#include "check.h"
#include "snapkit/snapkit.h"

static double fraction(const sk_selection *sel, double x, double y, double z, double size)
{
    const double c[3] = {x, y, z};
    return sk_selection_cell_fraction(sel, c, size, 3);
}

static void box(sk_selection *sel, int axis, double lo, double hi)
{
    sel->has_box = 1;
    sel->lo[axis] = lo;
    sel->hi[axis] = hi;
}

static void set_shape(sk_selection *sel, int kind, const double c[3], double r_in, double r_out,
                      double half_height, int inverse)
{
    sk_shape s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.inverse = inverse;
    memcpy(s.center, c, sizeof s.center);
    s.axis[2] = 1;
    s.r_in = r_in;
    s.r_out = r_out;
    s.half_height = half_height;
    sk_error err;
    CHECK_OK(sk_selection_set_shape(sel, &s, &err), &err);
}

static void test_boxes(void)
{
    sk_selection sel;
    sk_selection_init(&sel);
    CHECK(fraction(&sel, 0.5, 0.5, 0.5, 0.25) == 1.0); /* no region */
    box(&sel, 0, 0.45, 1.0);
    /* x in [0.375, 0.625]: 0.175 of 0.25 inside */
    CHECK_CLOSE(fraction(&sel, 0.5, 0.5, 0.5, 0.25), 0.7, 1e-15);
    box(&sel, 2, 0.0, 0.5625);
    /* and z in [0.375, 0.625]: 0.1875 of 0.25 */
    CHECK_CLOSE(fraction(&sel, 0.5, 0.5, 0.5, 0.25), 0.7 * 0.75, 1e-15);
    CHECK(fraction(&sel, 0.75, 0.5, 0.25, 0.125) == 1.0); /* wholly inside */
    CHECK(fraction(&sel, 0.3, 0.5, 0.5, 0.25) == 0.0);    /* x up to 0.425 */
    CHECK(fraction(&sel, 0.375, 0.5, 0.5, 0.125) == 0.0); /* touches x = 0.4375 < 0.45 */
    CHECK(fraction(&sel, 0.5, 0.5, 0.625, 0.125) == 0.0); /* touches the face z = 0.5625 */
    /* the box does not wrap: a range past 1 takes nothing from near 0 */
    sk_selection_init(&sel);
    box(&sel, 0, 0.9, 1.1);
    CHECK(fraction(&sel, 0.0625, 0.5, 0.5, 0.125) == 0.0);
    CHECK_CLOSE(fraction(&sel, 0.9375, 0.5, 0.5, 0.125), 0.8, 1e-15);
    /* a 2-D output: z is not an axis of its cells, the z range is ignored */
    sk_selection_init(&sel);
    box(&sel, 0, 0.45, 1.0);
    box(&sel, 2, 0.9, 1.0);
    const double c[3] = {0.5, 0.5, 0.5};
    CHECK_CLOSE(sk_selection_cell_fraction(&sel, c, 0.25, 2), 0.7, 1e-15);
}

static void test_planar_shapes(void)
{
    /* a cylinder along z about (0.5, 0.5, 0.05), half-height 0.1: z in
     * [0.95, 1] and [0, 0.15] */
    sk_selection sel;
    sk_selection_init(&sel);
    const double c1[3] = {0.5, 0.5, 0.05};
    set_shape(&sel, SK_SHAPE_CYLINDER, c1, 0, 0.3, 0.1, 0);
    CHECK_CLOSE(fraction(&sel, 0.5, 0.5, 0.96875, 0.0625), 0.8, 1e-14); /* [0.9375, 1] */
    CHECK_CLOSE(fraction(&sel, 0.5, 0.5, 0.15625, 0.0625), 0.4, 1e-14); /* [0.125, 0.1875] */
    CHECK(fraction(&sel, 0.5, 0.5, 0.5, 0.0625) == 0.0);
    CHECK(fraction(&sel, 0.5, 0.5, 0.03125, 0.0625) == 1.0);
    /* half-height 0.4 about z = 0.25: z in [0, 0.65] and [0.85, 1]; the cell
     * [0.625, 0.875] holds the antipode 0.75: 0.025 + 0.025 of 0.25 */
    sk_selection_init(&sel);
    const double c2[3] = {0.5, 0.5, 0.25};
    set_shape(&sel, SK_SHAPE_CYLINDER, c2, 0, 0.3, 0.4, 0);
    CHECK_CLOSE(fraction(&sel, 0.5, 0.5, 0.75, 0.25), 0.2, 1e-14);
    /* with a box z in [0.6, 0.7]: 0.3 of the cell in the box, a third of
     * that in the cylinder */
    box(&sel, 2, 0.6, 0.7);
    CHECK_CLOSE(fraction(&sel, 0.5, 0.5, 0.75, 0.25), 0.1, 1e-14);
    /* the inverse */
    sk_selection_init(&sel);
    set_shape(&sel, SK_SHAPE_CYLINDER, c2, 0, 0.3, 0.4, 1);
    CHECK_CLOSE(fraction(&sel, 0.5, 0.5, 0.75, 0.25), 0.8, 1e-14);
    /* a cylindrical shell 0.1 < R <= 0.3: the cell x in [0.6875, 0.75],
     * y in [0.46875, 0.53125] lies between the radii, z [0.8125, 0.875]
     * reaches 0.025 into [0.85, 1] */
    sk_selection_init(&sel);
    set_shape(&sel, SK_SHAPE_CYLINDER_SHELL, c2, 0.1, 0.3, 0.4, 0);
    CHECK_CLOSE(fraction(&sel, 0.71875, 0.5, 0.84375, 0.0625), 0.4, 1e-14);
    CHECK(fraction(&sel, 0.5, 0.5, 0.25, 0.0625) == 0.0); /* in the hole */
}

/* The fractions of every cell of an n^3 grid added up, and the largest
 * |fraction(shape) + fraction(inverse) - 1|. */
static double grid_volume(const sk_selection *sel, const sk_selection *inv, int n,
                          double *worst)
{
    double sum = 0, h = 1.0 / n;
    *worst = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                double f = fraction(sel, (i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h, h);
                double g = fraction(inv, (i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h, h);
                CHECK(f >= 0 && f <= 1);
                sum += f;
                *worst = fmax(*worst, fabs(f + g - 1));
            }
    return sum * h * h * h;
}

static void test_sphere_volume(void)
{
    const double centers[2][3] = {{0.5, 0.5, 0.5}, {0.02, 0.5, 0.97}}; /* across x = 0, z = 1 */
    const double r = 0.2, exact = 4.0 / 3.0 * M_PI * r * r * r;
    for (int c = 0; c < 2; c++) {
        sk_selection sel, inv;
        sk_selection_init(&sel);
        sk_selection_init(&inv);
        set_shape(&sel, SK_SHAPE_SPHERE, centers[c], 0, r, 0, 0);
        set_shape(&inv, SK_SHAPE_SPHERE, centers[c], 0, r, 0, 1);
        double worst, v = grid_volume(&sel, &inv, 64, &worst);
        CHECK_CLOSE(v, exact, 3e-5);
        CHECK_MSG(worst < 1e-14, "shape + inverse - 1 = %g", worst);
        /* by centres alone, the volume is off by far more */
        double by_centre = 0;
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                for (int k = 0; k < 64; k++)
                    by_centre += sk_shape_contains(&sel.shape, (i + 0.5) / 64, (j + 0.5) / 64,
                                                   (k + 0.5) / 64);
        CHECK(fabs(by_centre / (64.0 * 64 * 64) - exact) > 10 * fabs(v - exact));
    }
    /* a spherical shell: the difference of two spheres' volumes */
    sk_selection sel, inv;
    sk_selection_init(&sel);
    sk_selection_init(&inv);
    set_shape(&sel, SK_SHAPE_SHELL, centers[1], 0.1, r, 0, 0);
    set_shape(&inv, SK_SHAPE_SHELL, centers[1], 0.1, r, 0, 1);
    double worst, v = grid_volume(&sel, &inv, 64, &worst);
    CHECK_CLOSE(v, exact * (1 - 0.125), 1e-4);
    CHECK(worst < 1e-14);
}

static void test_widen(void)
{
    sk_error err;
    sk_selection sel;
    sk_selection_init(&sel);
    box(&sel, 0, 0.25, 0.5);
    CHECK_OK(sk_selection_widen(&sel, 1.0 / 64, &err), &err);
    CHECK(sel.lo[0] == 0.25 - 1.0 / 64 && sel.hi[0] == 0.5 + 1.0 / 64);
    CHECK(sel.lo[1] == -1.0 / 64 && sel.hi[1] == 1 + 1.0 / 64);
    const double c[3] = {0.5, 0.5, 0.5};
    sk_selection_init(&sel);
    set_shape(&sel, SK_SHAPE_SHELL, c, 0.01, 0.1, 0, 0);
    CHECK_OK(sk_selection_widen(&sel, 1.0 / 64, &err), &err);
    CHECK(sel.shape.kind == SK_SHAPE_SHELL && sel.shape.r_in == 0.0);
    CHECK_CLOSE(sel.shape.r_out, 0.1 + sqrt(3.0) / 64, 1e-15);
    /* the widened selection holds every cell of a 64^3 grid that meets the
     * shell; the plain one misses some */
    sk_selection plain;
    sk_selection_init(&plain);
    set_shape(&plain, SK_SHAPE_SHELL, c, 0.01, 0.1, 0, 0);
    int missed_plain = 0, missed_wide = 0;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
            for (int k = 0; k < 64; k++) {
                double x = (i + 0.5) / 64, y = (j + 0.5) / 64, z = (k + 0.5) / 64;
                if (!(fraction(&plain, x, y, z, 1.0 / 64) > 0))
                    continue;
                missed_plain += !sk_selection_contains(&plain, x, y, z);
                missed_wide += !sk_selection_contains(&sel, x, y, z);
            }
    CHECK(missed_plain > 0);
    CHECK_EQ_INT(missed_wide, 0);
    /* inverted: the cylinder shrinks; a small sphere's inverse is all */
    sk_selection_init(&sel);
    set_shape(&sel, SK_SHAPE_CYLINDER, c, 0, 0.2, 0.1, 1);
    CHECK_OK(sk_selection_widen(&sel, 1.0 / 64, &err), &err);
    CHECK_CLOSE(sel.shape.r_out, 0.2 - sqrt(3.0) / 64, 1e-15);
    CHECK_CLOSE(sel.shape.half_height, 0.1 - sqrt(3.0) / 64, 1e-15);
    CHECK(sel.shape.inverse == 1);
    sk_selection_init(&sel);
    set_shape(&sel, SK_SHAPE_SPHERE, c, 0, 0.01, 0, 1);
    CHECK_OK(sk_selection_widen(&sel, 1.0 / 16, &err), &err);
    CHECK(sel.shape.kind == SK_SHAPE_NONE && !sel.has_box);
    CHECK(sk_selection_widen(&sel, -1, &err) == SK_ERR_ARG);
    CHECK(sk_selection_widen(&sel, NAN, &err) == SK_ERR_ARG);
}

/* A 4^3 grid of level-2 cells of density 2 (boxlen 1). */
static sk_table *grid_table(void)
{
    sk_error err;
    sk_table *t = sk_table_new(64);
    sk_table_meta_set(t, "kind", "cells");
    sk_table_meta_set(t, "ndim", "3");
    sk_table_meta_set(t, "boxlen", "1");
    int32_t *level = sk_table_add(t, "level", SK_INT32, &err);
    int32_t *c[3] = {sk_table_add(t, "cx", SK_INT32, &err), sk_table_add(t, "cy", SK_INT32, &err),
                     sk_table_add(t, "cz", SK_INT32, &err)};
    double *rho = sk_table_add(t, "density", SK_FLOAT64, &err);
    for (int i = 0; i < 64; i++) {
        level[i] = 2;
        c[0][i] = i & 3, c[1][i] = (i >> 2) & 3, c[2][i] = i >> 4;
        rho[i] = 2.0;
    }
    return t;
}

static void test_clip_table(void)
{
    sk_error err;
    sk_selection box_sel;
    sk_selection_init(&box_sel);
    box(&box_sel, 0, 0.3, 0.6); /* x: 0.8 of the cells cx = 1, 0.4 of cx = 2 */
    sk_table *t = grid_table();
    CHECK_OK(sk_clip_table(&box_sel, t, &err), &err);
    CHECK_EQ_INT(sk_table_nrows(t), 32);
    const double *f = sk_table_find(t, "clip")->data;
    const int32_t *cx = sk_table_find(t, "cx")->data;
    for (int64_t i = 0; i < sk_table_nrows(t); i++)
        CHECK_CLOSE(f[i], cx[i] == 1 ? 0.8 : 0.4, 1e-15);
    CHECK_EQ_STR(sk_table_meta_get(t, "clip"), "exact");
    sk_table_stats s;
    CHECK_OK(sk_table_stats_compute(t, 1, &s, &err), &err);
    for (int j = 0; j < s.ncols; j++) {
        if (!strcmp(s.cols[j].name, "density")) {
            CHECK_CLOSE(s.cols[j].volume_sum, 2 * 0.3, 1e-15); /* the mass */
            CHECK_CLOSE(s.cols[j].sum, 2 * 16 * 1.2, 1e-15);
            CHECK(s.cols[j].min == 2 && s.cols[j].max == 2);
        }
        if (!strcmp(s.cols[j].name, "clip")) {
            CHECK_CLOSE(s.cols[j].sum, 16 * 1.2, 1e-15); /* the cells' worth */
            CHECK_CLOSE(s.cols[j].volume_sum, 0.3, 1e-15);
        }
    }
    sk_table_stats_free(&s);
    sk_wstats w;
    CHECK_OK(sk_table_wstats_compute(t, SK_WEIGHT_VOLUME, NULL, 0, 1, &w, &err), &err);
    CHECK_EQ_INT(w.ncols, 1); /* density; clip is no weighted column */
    CHECK_CLOSE(w.cols[0].weight_sum, 0.3, 1e-15);
    sk_wstats_free(&w);
    sk_totals_frame frame = {.ref = {0.5, 0.5, 0.5}, .about_com = 1};
    sk_totals_acc *acc;
    CHECK_OK(sk_totals_acc_new(&frame, &acc, &err), &err);
    CHECK_OK(sk_totals_acc_add(acc, t, &err), &err);
    sk_totals tot;
    sk_totals_acc_result(acc, &tot);
    CHECK_CLOSE(tot.mass, 0.6, 1e-15);
    CHECK_CLOSE(tot.volume, 0.3, 1e-15);
    /* the cells' centres weighted by mass x clip: (0.375 x 0.8 + 0.625 x 0.4) / 1.2 */
    CHECK_CLOSE(tot.com[0], (0.375 * 0.8 + 0.625 * 0.4) / 1.2, 1e-15);
    sk_totals_acc_free(acc);
    /* a second clip is refused, and so are particles */
    CHECK(sk_clip_table(&box_sel, t, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "column 'clip' already");
    sk_table_free(t);
    sk_table *p = sk_table_new(1);
    sk_table_meta_set(p, "component", "particles");
    sk_table_add(p, "position_x", SK_FLOAT64, &err);
    CHECK(sk_clip_table(&box_sel, p, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "particles are points");
    sk_table_free(p);
}

int main(void)
{
    test_boxes();
    test_planar_shapes();
    test_sphere_volume();
    test_widen();
    test_clip_table();
    return test_done();
}
