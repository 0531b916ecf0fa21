/* Per-clump statistics. Every sum runs over the clump's cells in canonical
 * order, by blocks of CL_BLOCK cells whose sums are then added in block
 * order, so the values are the same bits for any thread count and any
 * order of the input rows: clumps of one block one per thread, larger ones
 * with their blocks spread over the threads. The pick copied density,
 * velocity and pressure into cell order (c->got), so that these passes
 * walk memory in order rather than jump about the table. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"

typedef struct cl_cols {
    const sk_column *rho, *vel[3], *p;
} cl_cols;

/* d less the nearest whole number of boxes. Within half a box of the
 * reference that number is 0 (d / box rounds to at most 0.5, which rounds
 * to even, 0), the usual case, and d is returned without the division. */
static double wrap_delta(double d, double box)
{
    return fabs(d) < 0.5 * box ? d : d - box * nearbyint(d / box);
}

static void centre(const cl_cells *c, int64_t i, double box, double x[3])
{
    cl_key k = c->key[i];
    x[0] = ldexp(k.x + 0.5, -k.level) * box;
    x[1] = ldexp(k.y + 0.5, -k.level) * box;
    x[2] = ldexp(k.z + 0.5, -k.level) * box;
}

/* What one block of a clump's members adds up (sums in member order). */
typedef struct cl_part {
    double mass, volume, mx[3], mv[3], e_therm, pv, lo[3], hi[3], dxmin;
    double r2max, k2;
    int64_t peak; /* the block's first largest value */
} cl_part;

/* One clump: its members, the reference point (its peak cell's centre), the
 * centre of mass and bulk velocity offsets once known, the rm table. */
typedef struct cl_job {
    const cl_cells *c;
    const cl_phys *ph;
    const int64_t *cells;
    int64_t n;
    double ref[3], off[3], vel[3];
    double scale[CL_MAX_LEVEL + 1]; /* 2^-level */
    cl_rm *rm;
    const cl_gathered *got; /* per cell */
    int has_vel, has_p;     /* the table has them */
} cl_job;

static int64_t nblocks(int64_t n)
{
    return (n + CL_BLOCK - 1) / CL_BLOCK;
}

static void block_peak(const cl_job *j, int64_t b, cl_part *p)
{
    int64_t a1 = (b + 1) * CL_BLOCK < j->n ? (b + 1) * CL_BLOCK : j->n;
    const double *v = j->c->value;
    int64_t ip = j->cells[b * CL_BLOCK];
    for (int64_t a = b * CL_BLOCK + 1; a < a1; a++)
        if (v[j->cells[a]] > v[ip])
            ip = j->cells[a];
    p->peak = ip;
}

/* Masses, volumes, first moments, thermal energy and extent of block b. */
static void block_sums(const cl_job *j, int64_t b, cl_part *p)
{
    double box = j->ph->boxlen, g1 = j->ph->gamma - 1;
    int64_t a1 = (b + 1) * CL_BLOCK < j->n ? (b + 1) * CL_BLOCK : j->n;
    memset(p, 0, offsetof(cl_part, peak));
    p->dxmin = box;
    for (int d = 0; d < 3; d++) {
        p->lo[d] = INFINITY;
        p->hi[d] = -INFINITY;
    }
    for (int64_t a = b * CL_BLOCK; a < a1; a++) {
        int64_t i = j->cells[a];
        cl_key k = j->c->key[i];
        double s = j->scale[k.level], dx = s * box, vol = dx * dx * dx;
        const cl_gathered *g = &j->got[i];
        double m = g->rho * vol;
        double x[3] = {(k.x + 0.5) * s * box, (k.y + 0.5) * s * box, (k.z + 0.5) * s * box};
        p->dxmin = dx < p->dxmin ? dx : p->dxmin;
        p->mass += m;
        p->volume += vol;
        for (int d = 0; d < 3; d++) {
            double u = wrap_delta(x[d] - j->ref[d], box);
            double lo = j->ref[d] + u - 0.5 * dx, hi = j->ref[d] + u + 0.5 * dx;
            p->lo[d] = lo < p->lo[d] ? lo : p->lo[d]; /* finite: fmin without the call */
            p->hi[d] = hi > p->hi[d] ? hi : p->hi[d];
            p->mx[d] += m * u;
            if (j->has_vel)
                p->mv[d] += m * g->v[d];
        }
        if (j->has_p) {
            double pvol = g->p * vol;
            p->e_therm += pvol / g1;
            p->pv += pvol;
        }
    }
}

/* Second moments of block b about the centre of mass and bulk velocity;
 * fills the block's rows of the rm table. */
static void block_spread(const cl_job *j, int64_t b, cl_part *p)
{
    double box = j->ph->boxlen;
    int64_t a1 = (b + 1) * CL_BLOCK < j->n ? (b + 1) * CL_BLOCK : j->n;
    p->r2max = 0;
    p->k2 = 0;
    for (int64_t a = b * CL_BLOCK; a < a1; a++) {
        const cl_gathered *g = &j->got[j->cells[a]];
        cl_key k = j->c->key[j->cells[a]];
        double s = j->scale[k.level], dx = s * box, r2 = 0, u2 = 0;
        double m = g->rho * dx * dx * dx;
        double x[3] = {(k.x + 0.5) * s * box, (k.y + 0.5) * s * box, (k.z + 0.5) * s * box};
        for (int d = 0; d < 3; d++) {
            double q = wrap_delta(x[d] - j->ref[d], box) - j->off[d];
            r2 += q * q;
            if (j->has_vel) {
                double u = g->v[d] - j->vel[d];
                u2 += u * u;
            }
        }
        p->r2max = r2 > p->r2max ? r2 : p->r2max;
        p->k2 += m * u2;
        j->rm[a] = (cl_rm){r2, m};
    }
}

typedef void (*block_fn)(const cl_job *j, int64_t b, cl_part *p);

/* fn on every block of the job: in parallel when the clump is large (the
 * blocks, and so the sums, are the same either way). */
static void each_block(const cl_job *j, block_fn fn, cl_part *parts)
{
    int64_t nb = nblocks(j->n);
    if (nb < 2) {
        fn(j, 0, parts);
        return;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(j->c->threads)
    for (int64_t b = 0; b < nb; b++)
        fn(j, b, &parts[b]);
}

/* Block partial sums merged in block order: the result depends on the
 * members alone, not on the threads. */
static void merge_sums(const cl_part *parts, int64_t nb, cl_part *t)
{
    *t = parts[0];
    for (int64_t b = 1; b < nb; b++) {
        const cl_part *p = &parts[b];
        t->mass += p->mass;
        t->volume += p->volume;
        t->e_therm += p->e_therm;
        t->pv += p->pv;
        t->dxmin = p->dxmin < t->dxmin ? p->dxmin : t->dxmin;
        for (int d = 0; d < 3; d++) {
            t->mx[d] += p->mx[d];
            t->mv[d] += p->mv[d];
            t->lo[d] = fmin(t->lo[d], p->lo[d]);
            t->hi[d] = fmax(t->hi[d], p->hi[d]);
        }
    }
}

/* The statistics of one clump (its blocks in parallel when several). 0, or
 * -1 out of memory. */
static int clump_stats(const cl_cells *c, const cl_gathered *got, const cl_cols *cols,
                       const int64_t *cells, int64_t n, const cl_phys *ph, cl_stats *s)
{
    memset(s, 0, sizeof *s);
    int64_t nb = nblocks(n);
    cl_part one, *parts = nb > 1 ? sk_malloc((size_t)nb * sizeof *parts) : &one;
    cl_job j = {.c = c, .ph = ph, .cells = cells, .n = n, .got = got,
                .has_vel = cols->vel[0] != NULL, .has_p = cols->p != NULL};
    j.rm = sk_malloc((size_t)(n + 1) * sizeof *j.rm);
    if (!parts || !j.rm) {
        if (parts != &one)
            sk_free(parts);
        sk_free(j.rm);
        return -1;
    }
    for (int l = 0; l <= CL_MAX_LEVEL; l++)
        j.scale[l] = ldexp(1.0, -l);
    double box = ph->boxlen;
    s->n_cells = n;
    s->first = cells[0];
    each_block(&j, block_peak, parts);
    int64_t ip = parts[0].peak;
    for (int64_t b = 1; b < nb; b++)
        if (c->value[parts[b].peak] > c->value[ip])
            ip = parts[b].peak;
    centre(c, ip, box, j.ref);
    s->peak = c->value[ip];
    memcpy(s->peak_pos, j.ref, sizeof j.ref);
    each_block(&j, block_sums, parts);
    cl_part t;
    merge_sums(parts, nb, &t);
    s->mass = t.mass;
    s->volume = t.volume;
    s->e_therm = t.e_therm;
    memcpy(s->bbox_lo, t.lo, sizeof t.lo);
    memcpy(s->bbox_hi, t.hi, sizeof t.hi);
    /* sum m T / M with T = tfactor p / rho and m = rho V */
    s->temperature = s->mass > 0 ? ph->tfactor * t.pv / s->mass : 0;
    for (int d = 0; d < 3; d++) {
        j.off[d] = s->mass > 0 ? t.mx[d] / s->mass : 0;
        s->com[d] = j.ref[d] + j.off[d];
        s->com[d] -= box * floor(s->com[d] / box);
        s->vel[d] = j.vel[d] = s->mass > 0 ? t.mv[d] / s->mass : 0;
    }
    each_block(&j, block_spread, parts);
    double r2max = 0, k2 = 0;
    for (int64_t b = 0; b < nb; b++) {
        r2max = parts[b].r2max > r2max ? parts[b].r2max : r2max;
        k2 += parts[b].k2;
    }
    s->radius = fmax(sqrt(r2max), 0.5 * t.dxmin);
    s->r_half = cl_half_mass_radius(j.rm, n, s->mass, r2max, c->threads);
    sk_free(j.rm);
    if (parts != &one)
        sk_free(parts);
    s->sigma_v = s->mass > 0 ? sqrt(k2 / s->mass) : 0;
    s->e_kin = 0.5 * k2;
    s->e_grav = -0.6 * ph->G * s->mass * s->mass / s->radius;
    s->alpha_vir = 2 * s->e_kin / fabs(s->e_grav);
    s->bound = s->e_kin + s->e_therm < fabs(s->e_grav);
    return 0;
}

int cl_stats_compute(const cl_cells *c, const sk_table *t, const int64_t *start,
                     const int64_t *members, int64_t nclumps, const cl_phys *ph, cl_stats *out,
                     sk_error *err)
{
    cl_cols cols = {.rho = cl_float_col(t, "density"), .p = cl_float_col(t, "pressure")};
    if (!cols.rho)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the cell table has no density column, needed for masses");
    const char *vn[3] = {"velocity_x", "velocity_y", "velocity_z"};
    for (int d = 0; d < 3; d++)
        cols.vel[d] = cl_float_col(t, vn[d]);
    if (!cols.vel[0] || !cols.vel[1] || !cols.vel[2])
        cols.vel[0] = cols.vel[1] = cols.vel[2] = NULL;
    const cl_gathered *got = c->got;
    /* Clumps of one block, one per thread; larger ones one after the
     * other, each with its blocks spread over the threads. */
    int failed = 0, small = 0;
    for (int64_t k = 0; k < nclumps && !small; k++)
        small = start[k + 1] - start[k] <= CL_BLOCK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->threads) reduction(| : failed) \
    if (small)
    for (int64_t k = 0; k < nclumps; k++)
        if (start[k + 1] - start[k] <= CL_BLOCK)
            failed |= clump_stats(c, got, &cols, members + start[k], start[k + 1] - start[k],
                                  ph, &out[k]) != 0;
    for (int64_t k = 0; k < nclumps && !failed; k++)
        if (start[k + 1] - start[k] > CL_BLOCK)
            failed |= clump_stats(c, got, &cols, members + start[k], start[k + 1] - start[k],
                                  ph, &out[k]) != 0;
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
        return cl_float_col(t, "velocity_x") && cl_float_col(t, "velocity_y") &&
               cl_float_col(t, "velocity_z");
    return cl_float_col(t, what) != NULL;
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
    gather_ctx g = {c, cl_float_col(t, "density"), start, members, ph->boxlen};
    int rc = cl_gravity(o->bound, o->theta, ph->G, c->threads, which, nk, size, gather, &g, st,
                        err);
    sk_free(size);
    return rc;
}
