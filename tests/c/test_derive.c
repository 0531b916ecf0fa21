/* Derived quantities (snapkit/derive.h) on small tables against brute
 * force: the nearest periodic image by trying every image, directions
 * from angles (r_hat, theta_hat, phi_hat of the rotated frame) rather than
 * the library's vector forms; sets of quantities on tables, selections
 * and streams; units; and the refusals. */
#include "check.h"

#include "snapkit/derive.h"
#include "snapkit/memory.h"

#define NCELLS 60
#define NPART 50
#define BOXLEN 2.0

static unsigned long long g_seed = 12345;

static double uniform(void)
{
    g_seed = g_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(g_seed >> 11) / 9007199254740992.0;
}

static void set_meta(sk_table *t, const char *kind)
{
    sk_table_meta_set(t, "kind", kind);
    sk_table_meta_set_double(t, "boxlen", BOXLEN);
    sk_table_meta_set_double(t, "unit_l", 3.0e21);
    sk_table_meta_set_double(t, "unit_d", 1.0e-24);
    sk_table_meta_set_double(t, "unit_t", 4.0e15);
    sk_table_meta_set_double(t, "gamma", 5.0 / 3.0);
    sk_table_meta_set(t, "ndim", "3");
}

static sk_table *cells(void)
{
    sk_table *t = sk_table_new(NCELLS);
    int32_t *lev = sk_table_add(t, "level", SK_INT32, NULL);
    int32_t *c[3] = {sk_table_add(t, "cx", SK_INT32, NULL), sk_table_add(t, "cy", SK_INT32, NULL),
                     sk_table_add(t, "cz", SK_INT32, NULL)};
    double *rho = sk_table_add(t, "density", SK_FLOAT64, NULL);
    double *v[3] = {sk_table_add(t, "velocity_x", SK_FLOAT64, NULL),
                    sk_table_add(t, "velocity_y", SK_FLOAT64, NULL),
                    sk_table_add(t, "velocity_z", SK_FLOAT64, NULL)};
    double *p = sk_table_add(t, "pressure", SK_FLOAT64, NULL);
    for (int i = 0; i < NCELLS; i++) {
        lev[i] = 1 + (int)(uniform() * 5);
        for (int a = 0; a < 3; a++) {
            c[a][i] = (int32_t)(uniform() * (1 << lev[i]));
            v[a][i] = uniform() * 2 - 1;
        }
        rho[i] = 0.1 + uniform();
        p[i] = 0.01 + uniform();
    }
    set_meta(t, "cells");
    return t;
}

static sk_table *particles(void)
{
    sk_table *t = sk_table_new(NPART);
    static const char *const names[] = {"position_x", "position_y", "position_z", "velocity_x",
                                        "velocity_y", "velocity_z", "mass"};
    for (int k = 0; k < 7; k++) {
        double *col = sk_table_add(t, names[k], SK_FLOAT64, NULL);
        for (int i = 0; i < NPART; i++)
            col[i] = k < 3 ? uniform() * BOXLEN : k < 6 ? uniform() * 2 - 1 : 1e-3 * uniform();
    }
    set_meta(t, "particles");
    return t;
}

static double position(const sk_table *t, int i, int a)
{
    const sk_column *pos = sk_table_find(t, a == 0 ? "position_x" : a == 1 ? "position_y"
                                                                          : "position_z");
    if (pos)
        return ((const double *)pos->data)[i];
    const int32_t *lev = sk_table_find(t, "level")->data;
    const int32_t *c = sk_table_find(t, a == 0 ? "cx" : a == 1 ? "cy" : "cz")->data;
    return (c[i] + 0.5) * BOXLEN / (double)(1 << lev[i]);
}

/* The displacement to the image nearest the centre, trying them all; a
 * tie goes to the positive one. */
static double brute_nearest(double x, double c)
{
    double best = x - c;
    for (int k = -3; k <= 3; k++) {
        double d = x - c + k * BOXLEN;
        if (fabs(d) < fabs(best) || (fabs(d) == fabs(best) && d > best))
            best = d;
    }
    return best;
}

typedef struct brute {
    double r, theta, phi, R, z, v_r, v_theta, v_phi, v_tan, v_R, v_z, j[3], speed;
} brute;

/* e1, e2 across the unit axis n: e1 in the plane of n and x with no y
 * component when n_z != 0 (yt's ortho_find), e2 = n x e1. */
static void across(const double n[3], double e1[3], double e2[3])
{
    double x = 1, y = 0, z = -n[0] / n[2], norm = sqrt(1 + z * z);
    e1[0] = x / norm, e1[1] = y / norm, e1[2] = z / norm;
    e2[0] = n[1] * e1[2] - n[2] * e1[1];
    e2[1] = n[2] * e1[0] - n[0] * e1[2];
    e2[2] = n[0] * e1[1] - n[1] * e1[0];
}

static brute brute_row(const sk_table *t, int i, const sk_frame *f)
{
    double len = sqrt(f->axis[0] * f->axis[0] + f->axis[1] * f->axis[1] +
                      f->axis[2] * f->axis[2]);
    double n[3] = {0, 0, 1}, e1[3], e2[3]; /* no axis: z */
    for (int a = 0; a < 3 && len > 0; a++)
        n[a] = f->axis[a] / len;
    across(n, e1, e2);
    double d[3], v[3], p[3] = {0, 0, 0}, w[3] = {0, 0, 0};
    const char *vn[3] = {"velocity_x", "velocity_y", "velocity_z"};
    for (int a = 0; a < 3; a++) {
        d[a] = brute_nearest(position(t, i, a), f->center[a]);
        v[a] = ((const double *)sk_table_find(t, vn[a])->data)[i] - f->bulk_velocity[a];
    }
    const double *basis[3] = {e1, e2, n};
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < 3; a++) {
            p[k] += basis[k][a] * d[a]; /* coordinates in the frame (e1, e2, n) */
            w[k] += basis[k][a] * v[a];
        }
    brute b;
    b.r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    b.R = hypot(p[0], p[1]);
    b.z = p[2];
    b.theta = acos(p[2] / b.r);
    b.phi = atan2(p[1], p[0]);
    double st = sin(b.theta), ct = cos(b.theta), sp = sin(b.phi), cp = cos(b.phi);
    b.v_r = w[0] * st * cp + w[1] * st * sp + w[2] * ct;
    b.v_theta = w[0] * ct * cp + w[1] * ct * sp - w[2] * st;
    b.v_phi = -w[0] * sp + w[1] * cp;
    b.v_tan = hypot(b.v_theta, b.v_phi);
    b.v_R = w[0] * cp + w[1] * sp;
    b.v_z = w[2];
    b.j[0] = d[1] * v[2] - d[2] * v[1];
    b.j[1] = d[2] * v[0] - d[0] * v[2];
    b.j[2] = d[0] * v[1] - d[1] * v[0];
    b.speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    return b;
}

/* got within 1e-12 of want, or 1e-12 of the row's scale where want nears 0
 * by cancellation. */
#define CHECK_ROW(got, want, scale, what)                                                    \
    CHECK_MSG(fabs((got) - (want)) <= 1e-12 * fmax(fabs(want), (scale)), "%s row %d: %.17g vs %.17g", \
              what, i, (got), (want))

static void check_frame(const sk_table *t, const sk_frame *f, const char *label)
{
    static const char *const names[] = {"r", "theta", "phi", "R", "z", "v_r", "v_theta",
                                        "v_phi", "v_tan", "v_R", "v_z", "j_x", "j_y", "j_z", "j"};
    int64_t n = sk_table_nrows(t);
    double *out[15];
    sk_error err;
    for (int k = 0; k < 15; k++) {
        out[k] = malloc((size_t)n * sizeof(double));
        CHECK_OK(sk_derive(t, names[k], f, NULL, out[k], &err), &err);
    }
    for (int i = 0; i < n; i++) {
        brute b = brute_row(t, i, f);
        double jm = sqrt(b.j[0] * b.j[0] + b.j[1] * b.j[1] + b.j[2] * b.j[2]);
        double want[15] = {b.r, b.theta, b.phi, b.R, b.z, b.v_r, b.v_theta, b.v_phi, b.v_tan,
                           b.v_R, b.v_z, b.j[0], b.j[1], b.j[2], jm};
        double scale[15] = {b.r, 1, 1, b.r, b.r, b.speed, b.speed, b.speed, b.speed,
                            b.speed, b.speed, b.r * b.speed, b.r * b.speed, b.r * b.speed,
                            b.r * b.speed};
        for (int k = 0; k < 15; k++) {
            char what[64];
            snprintf(what, sizeof what, "%s %s", label, names[k]);
            CHECK_ROW(out[k][i], want[k], scale[k], what);
        }
    }
    for (int k = 0; k < 15; k++)
        free(out[k]);
}

static void test_frames(void)
{
    sk_table *c = cells(), *p = particles();
    /* near a corner, so that rows wrap on every axis; an oblique axis */
    sk_frame f = {.has_center = 1, .center = {0.1, 1.9, 1.05}, .bulk_velocity = {0.1, -0.2, 0.05},
                  .axis = {1, 2, 3}};
    check_frame(c, &f, "cells oblique");
    check_frame(p, &f, "particles oblique");
    sk_frame z = {.has_center = 1, .center = {1.01, 0.97, 1.0}};
    check_frame(c, &z, "cells z");
    check_frame(p, &z, "particles z");
    /* a centre outside the box is the same point as its image inside */
    sk_frame far = f;
    far.center[0] += 2 * BOXLEN;
    far.center[1] -= BOXLEN;
    double a[NCELLS], b[NCELLS];
    sk_error err;
    CHECK_OK(sk_derive(c, "v_phi", &f, NULL, a, &err), &err);
    CHECK_OK(sk_derive(c, "v_phi", &far, NULL, b, &err), &err);
    for (int i = 0; i < NCELLS; i++)
        CHECK_ROW(b[i], a[i], 1.0, "outside centre");
    sk_table_free(c);
    sk_table_free(p);
}

/* A cell on the axis and at the centre: the directions there are 0. */
static void test_undefined_directions(void)
{
    sk_table *t = cells();
    int32_t *lev = sk_table_find(t, "level")->data, *cx = sk_table_find(t, "cx")->data,
            *cy = sk_table_find(t, "cy")->data, *cz = sk_table_find(t, "cz")->data;
    lev[0] = lev[1] = 2, cx[0] = cy[0] = cz[0] = 1, cx[1] = cy[1] = 1, cz[1] = 3;
    sk_frame f = {.has_center = 1, .center = {0.75, 0.75, 0.75}}; /* row 0's centre */
    static const char *const names[] = {"v_r", "v_theta", "v_phi", "v_tan", "v_R"};
    for (int k = 0; k < 5; k++) {
        double out[NCELLS];
        sk_error err;
        CHECK_OK(sk_derive(t, names[k], &f, NULL, out, &err), &err);
        CHECK_MSG(out[0] == 0.0, "%s at the centre: %g", names[k], out[0]);
        if (k != 0 && k != 3) /* about the axis: row 1 is on it */
            CHECK_MSG(out[1] == 0.0, "%s on the axis: %g", names[k], out[1]);
    }
    sk_table_free(t);
}

static void test_gas(void)
{
    sk_table *t = cells();
    const double *rho = sk_table_find(t, "density")->data, *p = sk_table_find(t, "pressure")->data;
    const double *vx = sk_table_find(t, "velocity_x")->data,
                 *vy = sk_table_find(t, "velocity_y")->data,
                 *vz = sk_table_find(t, "velocity_z")->data;
    const int32_t *lev = sk_table_find(t, "level")->data;
    sk_frame f = {.bulk_velocity = {0.3, 0, -0.1}};
    sk_derive_options opt = {.mu = 0.6, .hydrogen_fraction = 0.7};
    double g = 5.0 / 3.0, unit_m = 1.0e-24 * 2.7e64;
    static const char *const names[] = {"T", "cs", "mach", "entropy", "ekin", "eth", "v",
                                        "v_rel", "n", "nH", "volume", "mass"};
    for (int k = 0; k < 12; k++) {
        double out[NCELLS];
        sk_error err;
        CHECK_OK(sk_derive(t, names[k], &f, &opt, out, &err), &err);
        for (int i = 0; i < NCELLS; i++) {
            double wx = vx[i] - 0.3, wy = vy[i], wz = vz[i] + 0.1;
            double rel2 = wx * wx + wy * wy + wz * wz, cs = sqrt(g * p[i] / rho[i]);
            double dv = pow(BOXLEN / (1 << lev[i]), 3);
            double want[12] = {p[i] / rho[i], cs, sqrt(rel2) / cs, p[i] / pow(rho[i], g),
                               0.5 * rho[i] * rel2, p[i] / (g - 1),
                               sqrt(vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]), sqrt(rel2),
                               rho[i] * unit_m / (0.6 * 1.66e-24),
                               0.7 * rho[i] * unit_m / 1.66e-24, dv, rho[i] * dv};
            CHECK_ROW(out[i], want[k], 0.0, names[k]);
        }
    }
    sk_table_free(t);
}

static void test_units(void)
{
    sk_table *t = cells();
    sk_units u;
    sk_units_from_table(&u, t);
    sk_error err;
    double f;
    CHECK_OK(sk_quantity_unit_factor(sk_quantity_find("v_phi"), &u, NULL, "km/s", &f, &err), &err);
    CHECK_CLOSE(f, 3.0e21 / 4.0e15 / 1e5, 1e-15);
    CHECK_OK(sk_quantity_unit_factor(sk_quantity_find("T"), &u, NULL, "K", &f, &err), &err);
    CHECK_CLOSE(f, sk_temperature_factor(&u, 0), 1e-15);
    CHECK_OK(sk_quantity_unit_factor(sk_quantity_find("R"), &u, NULL, "kpc", &f, &err), &err);
    CHECK_CLOSE(f, 3.0e21 / SK_CM_PER_KPC, 1e-15);
    CHECK_OK(sk_quantity_unit_factor(sk_quantity_find("j"), &u, NULL, "cgs", &f, &err), &err);
    CHECK_CLOSE(f, 3.0e21 * 3.0e21 / 4.0e15, 1e-15);
    CHECK_OK(sk_quantity_unit_factor(sk_quantity_find("phi"), &u, NULL, "deg", &f, &err), &err);
    CHECK_CLOSE(f, 180 / M_PI, 1e-15);
    CHECK(sk_quantity_unit_factor(sk_quantity_find("v_phi"), &u, NULL, "K", &f, &err) ==
          SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "km/s");
    CHECK(sk_quantity_unit_factor(sk_quantity_find("entropy"), &u, NULL, "cgs", &f, &err) ==
          SK_ERR_ARG);
    sk_table_free(t);
}

/* A consumer that keeps what it is handed, by row order. */
typedef struct sink {
    int ncols;
    char names[8][32];
    double v_phi[NCELLS + NCELLS];
    int64_t seen;
} sink;

static int sink_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    (void)nthreads, (void)err;
    sink *s = ctx;
    s->ncols = sk_table_ncols(schema);
    for (int j = 0; j < s->ncols && j < 8; j++)
        snprintf(s->names[j], sizeof s->names[j], "%s", sk_table_col(schema, j)->name);
    return SK_OK;
}

static int sink_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                      sk_error *err)
{
    (void)thread, (void)err;
    sink *s = ctx;
    const double *v = sk_table_find(batch, "v_phi")->data;
    for (int64_t i = 0; i < sk_table_nrows(batch); i++)
        s->v_phi[info->row + i] = v[i];
    s->seen += sk_table_nrows(batch);
    return SK_OK;
}

/* Rows [from, to) of t as a new table. */
static sk_table *slice(const sk_table *t, int64_t from, int64_t to)
{
    sk_table *s = sk_table_new(to - from);
    for (int j = 0; j < sk_table_ncols(t); j++) {
        const sk_column *c = sk_table_col(t, j);
        size_t w = sk_dtype_size(c->type);
        void *d = sk_table_add(s, c->name, c->type, NULL);
        memcpy(d, (const char *)c->data + from * w, (size_t)(to - from) * w);
    }
    sk_table_meta_copy(s, t);
    return s;
}

static void test_sets(void)
{
    sk_error err;
    sk_frame f = {.has_center = 1, .center = {0.5, 0.5, 0.5}};
    sk_derive_set *set;
    CHECK_OK(sk_derive_set_new(&f, NULL, &set, &err), &err);
    sk_selection sel;
    sk_selection_init(&sel);
    sk_selection_set_vars(&sel, "density,v_phi,r,T", &err);
    CHECK_OK(sk_derive_set_take_vars(set, &sel, 0, &err), &err);
    CHECK_EQ_INT(sk_derive_set_count(set), 3);
    CHECK_EQ_STR(sk_derive_set_name(set, 0), "v_phi");
    CHECK_EQ_INT(sel.nvars, 5);
    const char *want[] = {"density", "velocity_x", "velocity_y", "velocity_z", "pressure"};
    for (int v = 0; v < 5 && v < sel.nvars; v++)
        CHECK_EQ_STR(sel.vars[v], want[v]);

    /* the whole table: quantities added, helper columns dropped */
    sk_table *t = cells();
    double expect[NCELLS];
    CHECK_OK(sk_derive(t, "v_phi", &f, NULL, expect, &err), &err);
    sk_table *whole = slice(t, 0, NCELLS);
    CHECK_OK(sk_derive_set_apply(set, whole, &err), &err);
    CHECK(sk_table_find(whole, "velocity_x") == NULL && sk_table_find(whole, "pressure") == NULL);
    CHECK(sk_table_find(whole, "density") && sk_table_find(whole, "T") && sk_table_find(whole, "r"));

    /* a stream: two threads, batches of different sizes, the same values */
    sink s = {0};
    sk_consumer inner = {.ctx = &s, .begin = sink_begin, .batch = sink_batch};
    sk_consumer c = sk_derive_set_consumer(set, &inner);
    sk_table *schema = slice(t, 0, 0);
    CHECK_OK(c.begin(c.ctx, 2, schema, &err), &err);
    CHECK_EQ_INT(s.ncols, 4 + 1 + 3); /* keys, density, v_phi, r, T */
    CHECK_EQ_STR(s.names[5], "v_phi");
    int64_t cuts[] = {0, 7, 20, 60};
    int threads[] = {0, 1, 0}; /* thread 0 meets a larger batch second */
    for (int b = 0; b < 3; b++) {
        sk_table *part = slice(t, cuts[b], cuts[b + 1]);
        sk_batch_info info = {.index = b, .nbatches = 3, .row = cuts[b], .rows = NCELLS};
        CHECK_OK(c.batch(c.ctx, threads[b], part, &info, &err), &err);
        sk_table_free(part);
    }
    CHECK_EQ_INT(s.seen, NCELLS);
    for (int i = 0; i < NCELLS; i++)
        CHECK_MSG(s.v_phi[i] == expect[i], "row %d: %g vs %g", i, s.v_phi[i], expect[i]);

    /* a column the stream lacks: said at begin, before any row */
    sk_table_remove(schema, "velocity_y");
    CHECK(c.begin(c.ctx, 1, schema, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "'velocity_y'");
    sk_table_free(schema);
    sk_table_free(whole);
    sk_table_free(t);
    sk_selection_clear(&sel);
    sk_derive_set_free(set);
}

static void test_particle_sets(void)
{
    sk_error err;
    sk_frame f = {.has_center = 1};
    sk_derive_set *set;
    CHECK_OK(sk_derive_set_new(&f, NULL, &set, &err), &err);
    sk_selection sel;
    sk_selection_init(&sel);
    sk_selection_set_vars(&sel, "mass,v_r", &err);
    CHECK_OK(sk_derive_set_take_vars(set, &sel, 1, &err), &err);
    CHECK_EQ_INT(sk_derive_set_count(set), 1); /* mass stays a column of particles */
    CHECK_EQ_INT(sel.nvars, 7);
    CHECK_EQ_STR(sel.vars[0], "mass");
    CHECK_EQ_STR(sel.vars[1], "position_x");
    sk_selection_set_vars(&sel, "density,pressure", &err);
    CHECK_OK(sk_derive_set_take_vars(set, &sel, 0, &err), &err); /* no quantity: unchanged */
    CHECK_EQ_INT(sel.nvars, 2);
    sk_selection_clear(&sel);
    sk_derive_set_free(set);
}

static void test_refusals(void)
{
    sk_table *c = cells(), *p = particles();
    double out[NCELLS];
    sk_error err;
    CHECK(sk_derive(c, "v_phi", NULL, NULL, out, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "quantity 'v_phi' is taken about a centre");
    CHECK(sk_derive(c, "nope", NULL, NULL, out, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "unknown quantity 'nope' (there are: r, theta");
    CHECK(sk_derive(p, "T", NULL, NULL, out, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "'T' needs cells, not particles");
    CHECK(sk_derive(c, "B", NULL, NULL, out, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "B needs B_x/y/z_left");
    sk_frame bad = {.axis = {NAN, 0, 1}};
    CHECK(sk_derive(c, "v_z", &bad, NULL, out, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "no direction");
    sk_table_meta_set(c, "gamma", "none");
    CHECK(sk_derive(c, "cs", NULL, NULL, out, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "adiabatic index");
    sk_derive_set *set;
    CHECK_OK(sk_derive_set_new(NULL, NULL, &set, &err), &err);
    CHECK(sk_derive_set_add(set, "r", 0, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "about a centre");
    CHECK_OK(sk_derive_set_add(set, "T", 0, &err), &err);
    CHECK(sk_derive_set_add(set, "T", 0, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "twice");
    sk_derive_set_free(set);
    CHECK(sk_derive_set_new(&bad, NULL, &set, &err) == SK_ERR_ARG && set == NULL);
    sk_table_free(c);
    sk_table_free(p);
}

static void test_list(void)
{
    CHECK(sk_quantity_count() >= 34);
    for (int i = 0; i < sk_quantity_count(); i++) {
        const sk_quantity *q = sk_quantity_at(i);
        CHECK(sk_quantity_find(q->name) == q);
        CHECK(q->formula && q->formula[0] && sk_quantity_dim_name(q->dim));
        CHECK(q->cell_columns || q->particle_columns);
    }
    CHECK(sk_quantity_at(-1) == NULL && sk_quantity_at(sk_quantity_count()) == NULL);
    CHECK(sk_quantity_find("v_phi")->needs == (SK_NEEDS_CENTER | SK_NEEDS_AXIS | SK_NEEDS_BULK));
}

int main(void)
{
    test_frames();
    test_undefined_directions();
    test_gas();
    test_units();
    test_sets();
    test_particle_sets();
    test_refusals();
    test_list();
    return test_done();
}
