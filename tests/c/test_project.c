/* Projection: geometry, conservation, analytic columns, brute-force
 * references, quantities and units, threads, particles. */
#include "check.h"
#include "project_helpers.h"
#include "project_tables.h"

/* A uniform cube seen along each axis: every pixel holds rho x boxlen,
 * whether pixels are larger, equal or smaller than cells, aligned or not. */
static void test_uniform_axis(void)
{
    sk_error e;
    double L = 2.0, rho = 3.0;
    sk_table *t = test_uniform(3, L, rho);
    const char *res[] = {"8", "16", "5", "3"};
    for (int a = 0; a < 3; a++)
        for (int r = 0; r < 4; r++) {
            char spec[64];
            snprintf(spec, sizeof spec, "axis=%c;res=%s", "xyz"[a], res[r]);
            sk_maps *m = test_project(t, "sd,count", spec, &e);
            CHECK_MSG(m != NULL, "%s: %s", spec, e.message);
            if (!m)
                continue;
            int n = atoi(res[r]);
            CHECK_EQ_INT(sk_maps_nx(m), n);
            CHECK_EQ_INT(sk_maps_ny(m), n);
            const double *sd = test_map(m, "sd");
            double worst = 0;
            for (int i = 0; i < n * n; i++)
                worst = fmax(worst, fabs(sd[i] - rho * L) / (rho * L));
            CHECK_MSG(worst < 1e-13, "%s: worst %g", spec, worst);
            CHECK_CLOSE(test_sd_mass(m), rho * L * L * L, 1e-13);
            if (n == 8) /* one cell per pixel per layer: 8 layers */
                CHECK_CLOSE(test_map(m, "count")[0], 8, 0);
            const sk_maps_info *in = sk_maps_get_info(m);
            CHECK_CLOSE(in->extent[1], L, 1e-15);
            CHECK_CLOSE(in->pixel_size, L / n, 1e-15);
            CHECK_EQ_STR(in->kernel, "area");
            sk_maps_free(m);
        }
    sk_table_free(t);
}

/* Brute force: every cell against every pixel with plain interval
 * overlaps, for a random AMR table and a region: at an odd resolution
 * (every cell deposited by area), and at resolutions where coarse cells
 * are whole blocks of pixels (64: 16, 8, 4, 2; 96: 24, 12, 6, 3) whose
 * window starts inside a block. */
static void brute_force_case(const sk_table *t, double L, int res)
{
    sk_error e;
    char spec[160];
    snprintf(spec, sizeof spec, "axis=y;res=%d;xrange=0.1 0.8;yrange=0.2 0.9;zrange=0.05 0.7",
             res);
    sk_maps *m = test_project(t, "sd,count", spec, &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (!m)
        return;
    int nx = sk_maps_nx(m), ny = sk_maps_ny(m);
    /* along y the image is (z, x): z in [0.05, 0.7), x in [0.1, 0.8), widened to pixels */
    int u0 = (int)floor(0.05 * res), v0 = (int)floor(0.1 * res);
    CHECK_EQ_INT(nx, (int)ceil(0.7 * res) - u0);
    CHECK_EQ_INT(ny, (int)ceil(0.8 * res) - v0);
    const sk_maps_info *in = sk_maps_get_info(m);
    double p = L / res;
    CHECK_CLOSE(in->extent[0], u0 * p, 1e-14);
    CHECK_CLOSE(in->extent[2], v0 * p, 1e-14);
    double *ref = calloc((size_t)nx * ny, sizeof *ref), *cnt = calloc((size_t)nx * ny, sizeof *cnt);
    const int32_t *lv = sk_table_find(t, "level")->data, *c[3] = {sk_table_find(t, "cx")->data,
                                                                 sk_table_find(t, "cy")->data,
                                                                 sk_table_find(t, "cz")->data};
    const double *d = sk_table_find(t, "density")->data;
    double lo[3] = {0.1, 0.2, 0.05}, hi[3] = {0.8, 0.9, 0.7};
    for (int64_t r = 0; r < sk_table_nrows(t); r++) {
        double s = ldexp(1.0, -lv[r]), b[3];
        int in_box = 1;
        for (int k = 0; k < 3; k++) {
            b[k] = (c[k][r] + 0.5) * s;
            in_box &= b[k] >= lo[k] && b[k] < hi[k];
        }
        if (!in_box)
            continue;
        double h = s * L, u = b[2] * L, v = b[0] * L;
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double pu0 = in->extent[0] + i * p, pv0 = in->extent[2] + j * p;
                double ou = fmin(u + h / 2, pu0 + p) - fmax(u - h / 2, pu0);
                double ov = fmin(v + h / 2, pv0 + p) - fmax(v - h / 2, pv0);
                if (ou > 1e-12 * p && ov > 1e-12 * p) {
                    ref[(size_t)j * nx + i] += d[r] * h * ou * ov / (p * p);
                    cnt[(size_t)j * nx + i] += 1;
                }
            }
    }
    double diff = test_max_rel_diff(test_map(m, "sd"), ref, (int64_t)nx * ny);
    CHECK_MSG(diff < 1e-12, "res %d: brute force differs by %g", res, diff);
    diff = test_max_rel_diff(test_map(m, "count"), cnt, (int64_t)nx * ny);
    CHECK_MSG(diff == 0, "res %d: counts differ by %g", res, diff);
    free(ref);
    free(cnt);
    sk_maps_free(m);
}

static void test_axis_brute_force(void)
{
    double L = 1.5;
    sk_table *t = test_random_amr(11, 2, 6, 0.35, L);
    brute_force_case(t, L, 37);
    brute_force_case(t, L, 64);
    brute_force_case(t, L, 96);
    sk_table_free(t);
}

/* Projected mass equals the selected cells' mass, every axis and kernel. */
static void test_conservation(void)
{
    sk_error e;
    double L = 3.0;
    sk_table *t = test_random_amr(5, 2, 6, 0.4, L);
    double total = test_cell_mass(t, NULL, NULL);
    const char *specs[] = {
        "axis=x", "axis=y", "axis=z;res=50", "axis=z;res=1000",
        "direction=1 2 3;kernel=exact;res=48", "direction=1 2 3;kernel=overlap;res=48",
        "direction=1 2 3;kernel=cic;res=48", "direction=1 2 3;kernel=ngp;res=48",
        "direction=-0.3 0.1 1;up=1 0 0;kernel=exact;res=100",
        "direction=0 1 1e-9;kernel=exact;res=64", "angles=30 60;kernel=overlap;overlap_max=3",
        "direction=1 1 1;kernel=overlap;res=700",
    };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        sk_maps *m = test_project(t, "sd,mass", specs[k], &e);
        CHECK_MSG(m != NULL, "%s: %s", specs[k], e.message);
        if (!m)
            continue;
        const sk_maps_info *in = sk_maps_get_info(m);
        CHECK_MSG(fabs(test_sd_mass(m) - total) <= 1e-12 * total, "%s: sd mass %.17g vs %.17g",
                  specs[k], test_sd_mass(m), total);
        CHECK_MSG(fabs(test_map_sum(m, "mass") - total) <= 1e-12 * total, "%s: mass", specs[k]);
        CHECK_CLOSE(in->selected_mass, total, 1e-12);
        CHECK_CLOSE(in->projected_mass, total, 1e-12);
        CHECK_EQ_INT(in->selected, sk_table_nrows(t));
        CHECK_EQ_INT(in->deposited, sk_table_nrows(t));
        sk_maps_free(m);
    }
    sk_table_free(t);
}

/* Seen along (0, 0, 1) the exact kernel gives the z projection at any
 * resolution; the overlap kernel too where pixels and cells share a grid
 * (its two samples per pixel then fall evenly). */
static void test_offaxis_along_z(void)
{
    sk_error e;
    sk_table *t = test_random_amr(8, 2, 5, 0.4, 1.0);
    const char *kernels[] = {"exact", "overlap", "exact"};
    const int res[] = {40, 64, 64};
    for (int k = 0; k < 3; k++) {
        char spec[96];
        snprintf(spec, sizeof spec, "axis=z;res=%d", res[k]);
        sk_maps *ref = test_project(t, "sd,T,velocity_x", spec, &e);
        CHECK_MSG(ref != NULL, "%s", e.message);
        snprintf(spec, sizeof spec, "direction=0 0 1;kernel=%s;res=%d", kernels[k], res[k]);
        sk_maps *m = ref ? test_project(t, "sd,T,velocity_x", spec, &e) : NULL;
        CHECK_MSG(m != NULL, "%s", e.message);
        if (!m) {
            sk_maps_free(ref);
            continue;
        }
        CHECK_EQ_INT(sk_maps_nx(m), res[k]);
        CHECK_EQ_INT(sk_maps_ny(m), res[k]);
        const sk_maps_info *in = sk_maps_get_info(m);
        CHECK_CLOSE(in->extent[0], -0.5, 1e-15);
        CHECK_CLOSE(in->right[0], 1, 0);
        CHECK_CLOSE(in->up[1], 1, 0);
        for (int q = 0; q < 3; q++) {
            double diff = test_max_rel_diff(sk_maps_data(m, q), sk_maps_data(ref, q),
                                            (int64_t)res[k] * res[k]);
            CHECK_MSG(diff < 1e-12, "%s, %s: %g", spec, sk_maps_name(m, q), diff);
        }
        sk_maps_free(m);
        sk_maps_free(ref);
    }
    sk_table_free(t);
}

/* A cube of side a seen along the face diagonal (1, 1, 0): the chord at
 * offset u is sqrt(2) a - 2|u|, for every height inside the cube. The
 * exact kernel integrates it; a cube made of 512 cells gives the same map
 * as the one cell. */
static double diag_column(double u0, double u1, double a)
{
    /* integral of max(0, sqrt(2) a - 2|u|) over [u0, u1] */
    double r = a / sqrt(2.0), s = 0;
    double lo[2] = {fmax(u0, -r), fmax(u0, 0)}, hi[2] = {fmin(u1, 0), fmin(u1, r)};
    for (int k = 0; k < 2; k++)
        if (hi[k] > lo[k]) {
            double f0 = sqrt(2.0) * a - 2 * fabs(lo[k]), f1 = sqrt(2.0) * a - 2 * fabs(hi[k]);
            s += 0.5 * (f0 + f1) * (hi[k] - lo[k]);
        }
    return s;
}

static void test_rotated_cube(void)
{
    sk_error e;
    double L = 2.0, rho = 1.5;
    sk_table *one = test_uniform(0, L, rho), *many = test_uniform(3, L, rho);
    const char *spec = "direction=1 1 0;up=0 0 1;kernel=exact;res=20;fov=0.8 0.6";
    sk_maps *m1 = test_project(one, "sd", spec, &e), *m8 = test_project(many, "sd", spec, &e);
    CHECK_MSG(m1 && m8, "%s", e.message);
    if (m1 && m8) {
        int nx = sk_maps_nx(m1), ny = sk_maps_ny(m1);
        CHECK_EQ_INT(nx, 16);
        CHECK_EQ_INT(ny, 12);
        double p = sk_maps_get_info(m1)->pixel_size, worst = 0;
        const double *sd = test_map(m1, "sd");
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double u0 = -0.5 * nx * p + i * p, v0 = -0.5 * ny * p + j * p;
                double hv = fmax(0, fmin(v0 + p, L / 2) - fmax(v0, -L / 2));
                double want = rho * diag_column(u0, u0 + p, L) * hv / (p * p);
                worst = fmax(worst, fabs(sd[(size_t)j * nx + i] - want));
            }
        CHECK_MSG(worst < 1e-12 * rho * L, "analytic column: worst %g", worst);
        double diff = test_max_rel_diff(test_map(m8, "sd"), sd, (int64_t)nx * ny);
        CHECK_MSG(diff < 1e-12, "512 cells vs one: %g", diff);
    }
    sk_maps_free(m1);
    sk_maps_free(m8);
    /* Along the body diagonal the centre column is the diagonal, sqrt(3) L:
     * the overlap kernel's samples see it where the pixels are small. */
    sk_maps *m = test_project(one, "sd", "direction=1 1 1;kernel=exact;res=401", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        int nx = sk_maps_nx(m), ny = sk_maps_ny(m);
        double peak = 0;
        for (int i = 0; i < nx * ny; i++)
            peak = fmax(peak, test_map(m, "sd")[i]);
        CHECK_CLOSE(peak, rho * sqrt(3.0) * L, 2e-2);
        CHECK(peak <= rho * sqrt(3.0) * L * (1 + 1e-12));
        CHECK_CLOSE(test_sd_mass(m), rho * L * L * L, 1e-12);
        sk_maps_free(m);
    }
    sk_table_free(one);
    sk_table_free(many);
}

/* The mean of a constant is the constant wherever the weight is not zero,
 * and NaN where it is. */
static void test_constant_mean(void)
{
    sk_error e;
    sk_table *t = test_random_amr(21, 2, 5, 0.4, 1.0);
    const char *specs[] = {
        "axis=x;res=30;yrange=0.2 0.6", "axis=z;weight=volume;res=64",
        "direction=1 2 2;kernel=exact;res=30", "direction=1 2 2;kernel=overlap;res=30",
        "direction=1 2 2;kernel=cic;res=30", "direction=1 2 2;kernel=ngp;res=60",
        "axis=y;res=40;center=0.5 0.5 0.5;xrange=-0.2 0.2;zrange=-0.1 0.3",
    };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        sk_maps *m = test_project(t, "const,weight", specs[k], &e);
        CHECK_MSG(m != NULL, "%s: %s", specs[k], e.message);
        if (!m)
            continue;
        const double *c = test_map(m, "const"), *w = test_map(m, "weight");
        int64_t n = (int64_t)sk_maps_nx(m) * sk_maps_ny(m), bad = 0, weighted = 0;
        for (int64_t i = 0; i < n; i++) {
            weighted += w[i] > 0;
            bad += w[i] > 0 ? fabs(c[i] - 3.75) > 1e-13 * 3.75 : !isnan(c[i]);
        }
        CHECK_MSG(bad == 0, "%s: %lld bad pixels", specs[k], (long long)bad);
        CHECK_MSG(weighted > (strstr(specs[k], "kernel=ngp") ? 0 : n / 4), "%s", specs[k]);
        sk_maps_free(m);
    }
    sk_table_free(t);
}

/* Several quantities in one pass equal each projected alone, and the
 * mean is numerator over weight. */
static void test_many_in_one_pass(void)
{
    sk_error e;
    sk_table *t = test_random_amr(3, 2, 5, 0.4, 1.0);
    sk_maps *all = test_project(t, "sd,T,velocity_x,velocity_y,count,weight,mass", "res=32", &e);
    CHECK_MSG(all != NULL, "%s", e.message);
    const char *single[] = {"sd", "T", "velocity_x", "velocity_y", "count", "weight", "mass"};
    for (int q = 0; q < 7 && all; q++) {
        sk_maps *one = test_project(t, single[q], "res=32", &e);
        CHECK_MSG(one != NULL, "%s", e.message);
        if (!one)
            continue;
        double diff = test_max_rel_diff(test_map(all, single[q]), sk_maps_data(one, 0), 32 * 32);
        CHECK_MSG(diff < 1e-14, "%s: %g", single[q], diff);
        sk_maps_free(one);
    }
    if (all) {
        /* sd x pixel area equals the mass map, which equals the weight map */
        double p = sk_maps_get_info(all)->pixel_size;
        const double *sd = test_map(all, "sd"), *ma = test_map(all, "mass"),
                     *w = test_map(all, "weight");
        double worst = 0;
        for (int i = 0; i < 32 * 32; i++)
            worst = fmax(worst, fabs(sd[i] * p * p - ma[i]) + fabs(ma[i] - w[i]));
        CHECK(worst < 1e-15);
        CHECK_EQ_INT(test_map_sum(all, "count") >= sk_table_nrows(t), 1);
    }
    sk_maps_free(all);
    sk_table_free(t);
}

/* Sum mode shares each cell's value among pixels: the map's total is the
 * sum of the values. Volume weights of a constant give the constant. */
static void test_sum_mode(void)
{
    sk_error e;
    sk_table *t = test_random_amr(4, 2, 5, 0.4, 1.0);
    sk_maps *m = test_project(t, "const,velocity_x", "mode=sum;res=24;direction=1 0.5 0.2", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        double want = 0;
        const double *vx = sk_table_find(t, "velocity_x")->data;
        for (int64_t i = 0; i < sk_table_nrows(t); i++)
            want += vx[i];
        CHECK_CLOSE(test_map_sum(m, "const"), 3.75 * sk_table_nrows(t), 1e-12);
        CHECK_MSG(fabs(test_map_sum(m, "velocity_x") - want) < 1e-11, "%g vs %g",
                  test_map_sum(m, "velocity_x"), want);
        CHECK_EQ_STR(sk_maps_get_info(m)->mode, "sum");
        sk_maps_free(m);
    }
    sk_table_free(t);
}

/* Physical units: factors from the table's units and the constants. */
static void test_units(void)
{
    sk_error e;
    sk_table *t = test_uniform(2, 1.0, 2.0);
    double *p = sk_table_find(t, "pressure")->data, *d = sk_table_find(t, "density")->data;
    double *vx = sk_table_find(t, "velocity_x")->data;
    for (int i = 0; i < 64; i++) {
        p[i] = 0.5 * d[i]; /* p/rho = 0.5 */
        vx[i] = 0.25;
    }
    sk_maps *m = test_project(t, "sd,T,velocity_x,cs,mass", "res=4;units=Msun/pc2,K,km/s,mass=Msun", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        double ul = 3.0856775814913673e21, ud = 6.767e-23, ut = 4.7e14, uv = ul / ut;
        double sd_code = 2.0 * 1.0; /* rho x boxlen */
        double msun_pc2 = ud * ul * 3.0856775814913673e18 * 3.0856775814913673e18 / 1.98841e33;
        CHECK_CLOSE(test_map(m, "sd")[5], sd_code * msun_pc2, 1e-13);
        CHECK_EQ_STR(sk_maps_unit(m, 0), "Msun/pc2");
        double tk = 0.5 * uv * uv * 1.66e-24 / 0.76 / 1.380649e-16;
        CHECK_CLOSE(test_map(m, "T")[5], tk, 1e-13);
        CHECK_EQ_STR(sk_maps_unit(m, 1), "K");
        CHECK_CLOSE(test_map(m, "velocity_x")[5], 0.25 * uv / 1e5, 1e-13);
        CHECK_CLOSE(test_map(m, "cs")[5], sqrt(5.0 / 3.0 * 0.5) * uv / 1e5, 1e-13);
        CHECK_CLOSE(test_map_sum(m, "mass"), 2.0 * ud * ul * ul * ul / 1.98841e33, 1e-13);
        sk_maps_free(m);
    }
    m = test_project(t, "sd,T", "res=4;units=sd=g/cm2;mu=0.6", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        CHECK_CLOSE(test_map(m, "sd")[0], 2.0 * 6.767e-23 * 3.0856775814913673e21, 1e-13);
        CHECK_EQ_STR(sk_maps_unit(m, 1), "code");
        CHECK_CLOSE(test_map(m, "T")[0], 0.5, 1e-15);
        sk_maps_free(m);
    }
    CHECK(test_project(t, "sd", "units=km/s", &e) == NULL);
    CHECK_CONTAINS(e.message, "fits none");
    CHECK(test_project(t, "T", "units=T=Msun", &e) == NULL);
    CHECK_CONTAINS(e.message, "does not fit");
    sk_table_free(t);
}

/* The line-of-sight range keeps cells whose centre lies in it. */
static void test_slab(void)
{
    sk_error e;
    double rho = 2.0;
    sk_table *t = test_uniform(3, 1.0, rho);
    sk_maps *m = test_project(t, "sd", "axis=x;res=8;los=-0.25 0.25", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        CHECK_CLOSE(test_map(m, "sd")[9], rho * 0.5, 1e-14);
        CHECK_EQ_INT(sk_maps_get_info(m)->selected, 4 * 64);
        sk_maps_free(m);
    }
    m = test_project(t, "sd", "direction=0 0 1;res=8;los=0 0.5;center=0.5 0.5 0.5", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        CHECK_CLOSE(test_map(m, "sd")[9], rho * 0.5, 1e-14);
        sk_maps_free(m);
    }
    sk_table_free(t);
}

/* Threads and strategies give the same maps: the same bits on any thread
 * count by default (bands of rows, each pixel's sum in table order, blocks
 * of coarse cells included), within rounding with private copies. */
static void test_threads(void)
{
    sk_error e;
    sk_table *t = test_random_amr(9, 4, 6, 0.3, 1.0);
    CHECK(sk_table_nrows(t) > 20000); /* smaller tables use one thread */
    const char *geo[] = {"axis=z;res=64", "axis=x;res=100", "direction=1 2 3;kernel=exact;res=32",
                         "direction=1 2 3;kernel=overlap;res=64", "axis=y;res=64;kernel=cic"};
    for (int g = 0; g < 5; g++) {
        char spec[160];
        snprintf(spec, sizeof spec, "%s;threads=1", geo[g]);
        sk_maps *ref = test_project(t, "sd,velocity_z,count", spec, &e);
        CHECK_MSG(ref != NULL, "%s", e.message);
        if (ref)
            CHECK_EQ_STR(sk_maps_get_info(ref)->strategy, "cells");
        const char *runs[] = {"threads=2",          "threads=3",
                              "threads=2;strategy=tiles", "threads=1;strategy=tiles",
                              "threads=2;strategy=cells;private_budget=1k",
                              "threads=2;strategy=cells"};
        for (int r = 0; r < 6 && ref; r++) {
            snprintf(spec, sizeof spec, "%s;%s", geo[g], runs[r]);
            sk_maps *m = test_project(t, "sd,velocity_z,count", spec, &e);
            CHECK_MSG(m != NULL, "%s", e.message);
            if (!m)
                continue;
            int64_t n = (int64_t)sk_maps_nx(m) * sk_maps_ny(m);
            int cells = r == 5;
            for (int q = 0; q < 3; q++) {
                const double *a = sk_maps_data(m, q), *b = sk_maps_data(ref, q);
                if (cells) {
                    double diff = test_max_rel_diff(a, b, n);
                    CHECK_MSG(diff < 1e-12, "%s %s: %g", spec, sk_maps_name(m, q), diff);
                } else {
                    int64_t same = 0;
                    for (int64_t i = 0; i < n; i++)
                        same += memcmp(&a[i], &b[i], sizeof a[i]) == 0;
                    CHECK_MSG(same == n, "%s %s: %lld of %lld pixels differ in bits", spec,
                              sk_maps_name(m, q), (long long)(n - same), (long long)n);
                }
            }
            const sk_maps_info *in = sk_maps_get_info(m);
            CHECK_EQ_STR(in->strategy, cells ? "cells" : "tiles");
            int want = strstr(runs[r], "threads=3") ? 3 : strstr(runs[r], "threads=2") ? 2 : 1;
            if (want < 3) /* three only where the budget holds them */
                CHECK_EQ_INT(in->threads, want);
            CHECK_EQ_INT(in->deposited, sk_table_nrows(t));
            sk_maps_free(m);
        }
        sk_maps_free(ref);
    }
    sk_table_free(t);
}

/* Particles: NGP and CIC keep the mass, per family and along any direction. */
static void test_particles_projection(void)
{
    sk_error e;
    double L = 2.0;
    sk_table *t = test_particles(20000, L, 77);
    const double *mass = sk_table_find(t, "mass")->data;
    const int8_t *fam = sk_table_find(t, "family")->data;
    double all = 0, stars = 0;
    for (int64_t i = 0; i < 20000; i++) {
        all += mass[i];
        stars += fam[i] == 2 ? mass[i] : 0;
    }
    const char *specs[] = {"kernel=ngp", "kernel=cic", "kernel=cic;res=7;axis=x",
                           "kernel=cic;direction=1 1 0;res=50", "kernel=ngp;family=star",
                           "family=2;direction=0 1 1;res=33"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        sk_maps *m = test_project(t, "sd,mass,velocity_x,count", specs[k], &e);
        CHECK_MSG(m != NULL, "%s: %s", specs[k], e.message);
        if (!m)
            continue;
        double want = strstr(specs[k], "family") ? stars : all;
        const sk_maps_info *in = sk_maps_get_info(m);
        if (!strstr(specs[k], "direction")) { /* off-axis fields of view cut corners */
            CHECK_MSG(fabs(test_map_sum(m, "mass") - want) <= 1e-12 * want, "%s: %.17g vs %.17g",
                      specs[k], test_map_sum(m, "mass"), want);
            CHECK_CLOSE(test_sd_mass(m), want, 1e-12);
        }
        CHECK_CLOSE(in->projected_mass, test_map_sum(m, "mass"), 1e-12);
        CHECK_CLOSE(in->selected_mass, want, 1e-12);
        const double *v = test_map(m, "velocity_x"), *w = test_map(m, "mass");
        int bad = 0;
        for (int64_t i = 0; i < (int64_t)sk_maps_nx(m) * sk_maps_ny(m); i++)
            bad += w[i] > 0 ? fabs(v[i] - 2.5) > 1e-13 : !isnan(v[i]);
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_STR(in->kind, "particles");
        if (!strstr(specs[k], "res"))
            CHECK_EQ_INT(sk_maps_nx(m), 64); /* 2^levelmax */
        sk_maps_free(m);
    }
    /* The whole box seen along a direction: the default field of view holds it all. */
    sk_maps *m = test_project(t, "mass", "kernel=cic;direction=1 1 1;res=40", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        CHECK_CLOSE(test_map_sum(m, "mass"), all, 1e-12);
        sk_maps_free(m);
    }
    CHECK(test_project(t, "sd", "kernel=exact", &e) == NULL);
    CHECK_CONTAINS(e.message, "particles are points");
    CHECK(test_project(t, "sd,velocity_x", "weight=volume", &e) == NULL);
    CHECK_CONTAINS(e.message, "no volume");
    CHECK(test_project(t, "T", "", &e) == NULL);
    CHECK_CONTAINS(e.message, "needs cells");
    sk_table_free(t);
}

int main(void)
{
    test_uniform_axis();
    test_axis_brute_force();
    test_conservation();
    test_offaxis_along_z();
    test_rotated_cube();
    test_constant_mean();
    test_many_in_one_pass();
    test_sum_mode();
    test_units();
    test_slab();
    test_threads();
    test_particles_projection();
    return test_done();
}
