/* Per-clump statistics. Every sum runs over the clump's cells in canonical
 * order, one clump per thread, so the values are the same bits for any
 * thread count and any order of the input rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"

typedef struct cl_cols {
    const sk_column *rho, *vel[3], *p;
} cl_cols;

static double wrap_delta(double d, double box)
{
    return d - box * nearbyint(d / box);
}

static void centre(const cl_cells *c, int64_t i, double box, double x[3])
{
    cl_key k = c->key[i];
    x[0] = ldexp(k.x + 0.5, -k.level) * box;
    x[1] = ldexp(k.y + 0.5, -k.level) * box;
    x[2] = ldexp(k.z + 0.5, -k.level) * box;
}

static int by_r2(const void *pa, const void *pb)
{
    const cl_rm *a = pa, *b = pb;
    if (a->r2 != b->r2)
        return a->r2 < b->r2 ? -1 : 1;
    return a->m < b->m ? -1 : a->m > b->m;
}

double cl_half_mass_radius(cl_rm *v, int64_t n, double mass)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, by_r2);
    double cum = 0;
    for (int64_t k = 0; k < n; k++) {
        cum += v[k].m;
        if (cum >= 0.5 * mass)
            return sqrt(v[k].r2);
    }
    return sqrt(v[n - 1].r2); /* rounding kept cum below half of mass */
}

/* The cell's extent, at its image nearest ref, into the bounding box. */
static void grow_bbox(cl_stats *s, const double x[3], const double ref[3], double dx,
                      double box)
{
    for (int d = 0; d < 3; d++) {
        double u = ref[d] + wrap_delta(x[d] - ref[d], box);
        s->bbox_lo[d] = fmin(s->bbox_lo[d], u - 0.5 * dx);
        s->bbox_hi[d] = fmax(s->bbox_hi[d], u + 0.5 * dx);
    }
}

/* 0, or -1 out of memory (for the half-mass radius's sort). */
static int clump_stats(const cl_cells *c, const cl_cols *cols, const int64_t *cells, int64_t n,
                       const cl_phys *ph, cl_stats *s)
{
    memset(s, 0, sizeof *s);
    cl_rm *rm = sk_malloc((size_t)(n + 1) * sizeof *rm);
    if (!rm)
        return -1;
    for (int d = 0; d < 3; d++) {
        s->bbox_lo[d] = INFINITY;
        s->bbox_hi[d] = -INFINITY;
    }
    double pv = 0;
    s->n_cells = n;
    s->first = cells[0];
    int64_t ip = cells[0];
    for (int64_t a = 1; a < n; a++)
        if (c->value[cells[a]] > c->value[ip])
            ip = cells[a];
    double ref[3], box = ph->boxlen, mx[3] = {0, 0, 0}, mv[3] = {0, 0, 0}, dxmin = box;
    centre(c, ip, box, ref);
    s->peak = c->value[ip];
    memcpy(s->peak_pos, ref, sizeof ref);
    for (int64_t a = 0; a < n; a++) {
        int64_t i = cells[a], r = c->row[i];
        double dx = ldexp(box, -c->key[i].level), vol = dx * dx * dx, x[3];
        double m = sk_column_get_double(cols->rho, r) * vol;
        dxmin = dx < dxmin ? dx : dxmin;
        centre(c, i, box, x);
        grow_bbox(s, x, ref, dx, box);
        s->mass += m;
        s->volume += vol;
        for (int d = 0; d < 3; d++) {
            mx[d] += m * wrap_delta(x[d] - ref[d], box);
            if (cols->vel[0])
                mv[d] += m * sk_column_get_double(cols->vel[d], r);
        }
        if (cols->p) {
            double pvol = sk_column_get_double(cols->p, r) * vol;
            s->e_therm += pvol / (ph->gamma - 1);
            pv += pvol;
        }
    }
    /* sum m T / M with T = tfactor p / rho and m = rho V */
    s->temperature = s->mass > 0 ? ph->tfactor * pv / s->mass : 0;
    double off[3];
    for (int d = 0; d < 3; d++) {
        off[d] = s->mass > 0 ? mx[d] / s->mass : 0;
        s->com[d] = ref[d] + off[d];
        s->com[d] -= box * floor(s->com[d] / box);
        s->vel[d] = s->mass > 0 ? mv[d] / s->mass : 0;
    }
    double r2max = 0, k2 = 0;
    for (int64_t a = 0; a < n; a++) {
        int64_t i = cells[a], r = c->row[i];
        double dx = ldexp(box, -c->key[i].level), x[3], r2 = 0, u2 = 0;
        double m = sk_column_get_double(cols->rho, r) * dx * dx * dx;
        centre(c, i, box, x);
        for (int d = 0; d < 3; d++) {
            double q = wrap_delta(x[d] - ref[d], box) - off[d];
            r2 += q * q;
            if (cols->vel[0]) {
                double u = sk_column_get_double(cols->vel[d], r) - s->vel[d];
                u2 += u * u;
            }
        }
        r2max = r2 > r2max ? r2 : r2max;
        k2 += m * u2;
        rm[a] = (cl_rm){r2, m};
    }
    s->radius = fmax(sqrt(r2max), 0.5 * dxmin);
    s->r_half = cl_half_mass_radius(rm, n, s->mass);
    sk_free(rm);
    s->sigma_v = s->mass > 0 ? sqrt(k2 / s->mass) : 0;
    s->e_kin = 0.5 * k2;
    s->e_grav = -0.6 * ph->G * s->mass * s->mass / s->radius;
    s->alpha_vir = 2 * s->e_kin / fabs(s->e_grav);
    s->bound = s->e_kin + s->e_therm < fabs(s->e_grav);
    return 0;
}

static const sk_column *float_col(const sk_table *t, const char *name)
{
    const sk_column *col = sk_table_find(t, name);
    return col && col->type != SK_CATEGORY ? col : NULL;
}

int cl_stats_compute(const cl_cells *c, const sk_table *t, const int64_t *start,
                     const int64_t *members, int64_t nclumps, const cl_phys *ph, cl_stats *out,
                     sk_error *err)
{
    cl_cols cols = {.rho = float_col(t, "density"), .p = float_col(t, "pressure")};
    if (!cols.rho)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the cell table has no density column, needed for masses");
    const char *vn[3] = {"velocity_x", "velocity_y", "velocity_z"};
    for (int d = 0; d < 3; d++)
        cols.vel[d] = float_col(t, vn[d]);
    if (!cols.vel[0] || !cols.vel[1] || !cols.vel[2])
        cols.vel[0] = cols.vel[1] = cols.vel[2] = NULL;
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->threads) reduction(| : failed)
    for (int64_t k = 0; k < nclumps; k++)
        failed |= clump_stats(c, &cols, members + start[k], start[k + 1] - start[k], ph,
                              &out[k]) != 0;
    if (failed)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                       "clumps: out of memory for the half-mass radii");
    return SK_OK;
}

int cl_stats_has_velocity(const sk_table *t)
{
    return cl_stats_has(t, "velocity");
}

int cl_stats_has(const sk_table *t, const char *what)
{
    if (!strcmp(what, "velocity"))
        return float_col(t, "velocity_x") && float_col(t, "velocity_y") &&
               float_col(t, "velocity_z");
    return float_col(t, what) != NULL;
}

typedef struct gather_ctx {
    const cl_cells *c;
    const sk_column *rho;
    const int64_t *start, *members;
    double box;
} gather_ctx;

/* Clump k's cell centres relative to its peak cell (nearest images, as for
 * the centre of mass), masses, and eps: its smallest cell edge. */
static void gather(const void *ctx, int64_t k, double *x, double *m, double *eps)
{
    const gather_ctx *g = ctx;
    const int64_t *cells = g->members + g->start[k];
    int64_t n = g->start[k + 1] - g->start[k], ip = cells[0];
    for (int64_t a = 1; a < n; a++)
        if (g->c->value[cells[a]] > g->c->value[ip])
            ip = cells[a];
    double ref[3];
    centre(g->c, ip, g->box, ref);
    *eps = g->box;
    for (int64_t a = 0; a < n; a++) {
        int64_t i = cells[a];
        double dx = ldexp(g->box, -g->c->key[i].level), p[3];
        centre(g->c, i, g->box, p);
        for (int d = 0; d < 3; d++)
            x[3 * a + d] = wrap_delta(p[d] - ref[d], g->box);
        m[a] = sk_column_get_double(g->rho, g->c->row[i]) * dx * dx * dx;
        *eps = dx < *eps ? dx : *eps;
    }
}

int cl_stats_gravity(const cl_cells *c, const sk_table *t, const int64_t *start,
                     const int64_t *members, const int64_t *which, int64_t nk,
                     const sk_clumps_options *o, const cl_phys *ph, cl_stats *st, sk_error *err)
{
    int64_t nclumps = 0;
    for (int64_t a = 0; a < nk; a++)
        nclumps = which[a] + 1 > nclumps ? which[a] + 1 : nclumps;
    int64_t *size = sk_malloc((size_t)(nclumps + 1) * sizeof *size);
    if (!size)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                       "clumps: out of memory for the gravitational energies");
    for (int64_t k = 0; k < nclumps; k++)
        size[k] = start[k + 1] - start[k];
    gather_ctx g = {c, float_col(t, "density"), start, members, ph->boxlen};
    int rc = cl_gravity(o->bound, o->theta, ph->G, c->threads, which, nk, size, gather, &g, st,
                        err);
    sk_free(size);
    return rc;
}
