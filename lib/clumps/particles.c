/* Clumps of particles: friends-of-friends over every row of a particle
 * table, and their catalogue. Sums run over each group's particles in
 * ascending row order, one group per thread, so the catalogue is the same
 * bits for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"

typedef struct cl_parts {
    int64_t n;
    double *pos[3], *vel[3], *mass; /* vel[0] NULL without velocities */
    double box, soft;
} cl_parts;

static void parts_free(cl_parts *p)
{
    for (int d = 0; d < 3; d++) {
        sk_free(p->pos[d]);
        sk_free(p->vel[d]);
    }
    sk_free(p->mass);
}

static double *column(const sk_table *t, const char *name, int64_t n)
{
    const sk_column *col = sk_table_find(t, name);
    if (!col || col->type == SK_CATEGORY)
        return NULL;
    double *v = sk_malloc((size_t)(n + 1) * sizeof *v);
    for (int64_t i = 0; v && i < n; i++)
        v[i] = sk_column_get_double(col, i);
    return v;
}

/* The softening of the particles' gravity: RAMSES's force resolution, the
 * finest cell (boxlen / 2^levelmax); without levelmax, a twentieth of the
 * mean separation. It is also the least radius of a group. */
static double softening(const sk_table *t, double box, int64_t n)
{
    double lmax = sk_table_meta_double(t, "levelmax", -1);
    if (lmax >= 0 && lmax <= 60)
        return ldexp(box, -(int)lmax);
    return 0.05 * box / cbrt((double)(n > 0 ? n : 1));
}

static int parts_load(cl_parts *p, const sk_table *t, double soft, sk_error *err)
{
    memset(p, 0, sizeof *p);
    p->n = sk_table_nrows(t);
    p->box = sk_table_meta_double(t, "boxlen", 1.0);
    p->soft = soft > 0 ? soft : softening(t, p->box, p->n);
    const char *pn[3] = {"position_x", "position_y", "position_z"};
    const char *vn[3] = {"velocity_x", "velocity_y", "velocity_z"};
    for (int d = 0; d < 3; d++)
        if (!sk_table_find(t, pn[d]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: the particles have no %s",
                           pn[d]);
    if (!sk_table_find(t, "mass"))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: the particles have no mass column");
    int nomem = !(p->mass = column(t, "mass", p->n));
    for (int d = 0; d < 3; d++)
        nomem |= !(p->pos[d] = column(t, pn[d], p->n));
    if (cl_stats_has(t, "velocity"))
        for (int d = 0; d < 3; d++)
            nomem |= !(p->vel[d] = column(t, vn[d], p->n));
    if (nomem)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the particles");
    return SK_OK;
}

static double wrap_delta(double d, double box)
{
    return d - box * nearbyint(d / box);
}

/* Positions are taken nearest the group's first particle (its smallest
 * row): right for any group less than half the box across. */
static int group_stats(const cl_parts *p, const int64_t *mem, int64_t n, const cl_phys *ph,
                       cl_stats *s)
{
    memset(s, 0, sizeof *s);
    cl_rm *rm = sk_malloc((size_t)(n + 1) * sizeof *rm);
    if (!rm)
        return -1;
    s->n_cells = n;
    s->first = mem[0];
    s->parent = -1;
    double ref[3], mx[3] = {0, 0, 0}, mv[3] = {0, 0, 0}, off[3], box = p->box;
    for (int d = 0; d < 3; d++) {
        ref[d] = p->pos[d][mem[0]];
        s->bbox_lo[d] = s->bbox_hi[d] = ref[d];
    }
    for (int64_t a = 0; a < n; a++) {
        int64_t i = mem[a];
        double m = p->mass[i];
        s->mass += m;
        for (int d = 0; d < 3; d++) {
            double u = wrap_delta(p->pos[d][i] - ref[d], box);
            s->bbox_lo[d] = fmin(s->bbox_lo[d], ref[d] + u);
            s->bbox_hi[d] = fmax(s->bbox_hi[d], ref[d] + u);
            mx[d] += m * u;
            if (p->vel[0])
                mv[d] += m * p->vel[d][i];
        }
    }
    for (int d = 0; d < 3; d++) {
        off[d] = s->mass > 0 ? mx[d] / s->mass : 0;
        s->com[d] = ref[d] + off[d];
        s->com[d] -= box * floor(s->com[d] / box);
        s->vel[d] = s->mass > 0 ? mv[d] / s->mass : 0;
    }
    double r2max = 0, k2 = 0;
    for (int64_t a = 0; a < n; a++) {
        int64_t i = mem[a];
        double r2 = 0, u2 = 0;
        for (int d = 0; d < 3; d++) {
            double q = wrap_delta(p->pos[d][i] - ref[d], box) - off[d];
            r2 += q * q;
            if (p->vel[0]) {
                double u = p->vel[d][i] - s->vel[d];
                u2 += u * u;
            }
        }
        r2max = r2 > r2max ? r2 : r2max;
        k2 += p->mass[i] * u2;
        rm[a] = (cl_rm){r2, p->mass[i]};
    }
    s->radius = fmax(sqrt(r2max), p->soft);
    s->r_half = cl_half_mass_radius(rm, n, s->mass, r2max, 1); /* haloes: one a thread */
    sk_free(rm);
    s->sigma_v = s->mass > 0 ? sqrt(k2 / s->mass) : 0;
    s->e_kin = 0.5 * k2;
    s->e_grav = -0.6 * ph->G * s->mass * s->mass / s->radius;
    s->alpha_vir = s->e_grav != 0 ? 2 * s->e_kin / fabs(s->e_grav) : 0;
    s->bound = s->e_kin < fabs(s->e_grav);
    return 0;
}

static const cl_out k_base[] = {
    {"id", "", SK_INT32, SIZE_MAX},
    {"parent", "", SK_INT64, offsetof(cl_stats, parent)},
    {"depth", "", SK_INT64, offsetof(cl_stats, depth)},
    {"n_particles", "", SK_INT64, offsetof(cl_stats, n_cells)},
    D("mass", mass, "code mass"),
    D("x", com[0], "code length"),
    D("y", com[1], "code length"),
    D("z", com[2], "code length"),
    D("radius", radius, "code length"),
    D("r_half", r_half, "code length"),
    D("bbox_xmin", bbox_lo[0], "code length"),
    D("bbox_xmax", bbox_hi[0], "code length"),
    D("bbox_ymin", bbox_lo[1], "code length"),
    D("bbox_ymax", bbox_hi[1], "code length"),
    D("bbox_zmin", bbox_lo[2], "code length"),
    D("bbox_zmax", bbox_hi[2], "code length")};
static const cl_out k_vel[] = {
    D("vx", vel[0], "code velocity"),
    D("vy", vel[1], "code velocity"),
    D("vz", vel[2], "code velocity"),
    D("sigma_v", sigma_v, "code velocity"),
    D("e_kin", e_kin, "code energy"),
    D("e_grav", e_grav, "code energy"),
    D("alpha_vir", alpha_vir, ""),
    {"bound", "", SK_UINT8, offsetof(cl_stats, bound)}};
static const cl_out k_grav[] = {D("e_grav", e_grav, "code energy")};

static void write_meta(sk_table *t, const sk_table *parts, const sk_clumps_options *o,
                       const cl_parts *p, double b, const cl_phys *ph)
{
    sk_table_meta_copy(t, parts);
    sk_units u;
    sk_units_from_table(&u, parts);
    sk_table_meta_set(t, "kind", "clumps");
    sk_table_meta_set(t, "component", "clumps");
    sk_table_meta_set(t, "clumps.points", "particles");
    sk_table_meta_set(t, "clumps.finder", "fof");
    cl_meta_fof(t, o, b);
    sk_table_meta_setf(t, "clumps.particles", "%lld", (long long)p->n);
    sk_table_meta_setf(t, "clumps.min_members", "%lld", (long long)o->min_cells);
    sk_table_meta_set(t, "clumps.hierarchy", "flat");
    sk_table_meta_set(t, "clumps.bound_only", o->bound_only ? "1" : "0");
    sk_table_meta_set_double(t, "clumps.G", ph->G);
    sk_table_meta_set_double(t, "clumps.softening", p->soft);
    cl_meta_bound(t, o);
    sk_table_meta_set_double(t, "unit_m", u.unit_m);
    sk_table_meta_set_double(t, "unit_v", u.unit_v);
    sk_table_meta_set_double(t, "unit_energy", u.unit_m * u.unit_v * u.unit_v);
}

static int build_table(const sk_table *parts, const sk_clumps_options *o, const cl_parts *p,
                       double b, const cl_phys *ph, cl_stats *const *rows, int64_t n,
                       sk_table **out, sk_error *err)
{
    sk_table *t = sk_table_new(n);
    if (!t)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the catalogue");
    int rc = cl_write_cols(t, k_base, (int)(sizeof k_base / sizeof *k_base), rows, n, err);
    if (rc == SK_OK)
        rc = p->vel[0] ? cl_write_cols(t, k_vel, 8, rows, n, err)
                       : cl_write_cols(t, k_grav, 1, rows, n, err);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    write_meta(t, parts, o, p, b, ph);
    *out = t;
    return SK_OK;
}

typedef struct gather_ctx {
    const cl_parts *p;
    const cl_group *g;
} gather_ctx;

/* Group k's positions relative to its first particle, the nearest
 * images as for the centre of mass. */
static void gather(const void *ctx, int64_t k, double *x, double *m, double *eps)
{
    const gather_ctx *c = ctx;
    const cl_parts *p = c->p;
    const int64_t *mem = c->g->members + c->g->start[k];
    int64_t n = c->g->start[k + 1] - c->g->start[k];
    for (int64_t a = 0; a < n; a++) {
        for (int d = 0; d < 3; d++)
            x[3 * a + d] = wrap_delta(p->pos[d][mem[a]] - p->pos[d][mem[0]], p->box);
        m[a] = p->mass[mem[a]];
    }
    *eps = p->soft;
}

static int gravity(const sk_clumps_options *o, const cl_parts *p, const cl_group *g,
                   const cl_phys *ph, int threads, cl_stats *st, cl_stats *const *rows,
                   int64_t kept, sk_error *err)
{
    int64_t *which = sk_malloc((size_t)(kept + 1) * sizeof *which);
    int64_t *size = sk_malloc((size_t)(g->nclumps + 1) * sizeof *size);
    int rc = which && size ? SK_OK
                           : sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                                     "clumps: out of memory for the gravitational energies");
    for (int64_t r = 0; rc == SK_OK && r < kept; r++)
        which[r] = rows[r] - st;
    for (int64_t k = 0; rc == SK_OK && k < g->nclumps; k++)
        size[k] = g->start[k + 1] - g->start[k];
    gather_ctx ctx = {p, g};
    if (rc == SK_OK)
        rc = cl_gravity(o->bound, o->theta, ph->G, threads, which, kept, size, gather, &ctx, st,
                        err);
    sk_free(which);
    sk_free(size);
    return rc;
}

/* Stats of every group, the kept ones ordered, the table and the ids. */
static int catalogue(const sk_table *parts, const sk_clumps_options *o, const cl_parts *p,
                     double b, int threads, const cl_group *g, sk_table **out, int32_t *ids,
                     sk_error *err)
{
    cl_phys ph;
    cl_physics(parts, o->mu, &ph);
    cl_stats *st = sk_malloc((size_t)(g->nclumps + 1) * sizeof *st);
    cl_stats **rows = sk_malloc((size_t)(g->nclumps + 1) * sizeof *rows);
    int64_t *idof = sk_calloc((size_t)g->nclumps + 1, sizeof *idof);
    int rc = st && rows && idof ? SK_OK
                                : sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                                          "clumps: out of memory for the catalogue");
    int64_t kept = 0;
    if (rc == SK_OK) {
        /* Only the groups kept: most are small at a short linking length. */
        for (int64_t k = 0; k < g->nclumps; k++)
            if (g->start[k + 1] - g->start[k] >= o->min_cells)
                rows[kept++] = &st[k];
        int failed = 0;
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads) reduction(| : failed)
        for (int64_t r = 0; r < kept; r++) {
            int64_t k = rows[r] - st;
            failed |= group_stats(p, g->members + g->start[k], g->start[k + 1] - g->start[k],
                                  &ph, &st[k]) != 0;
        }
        if (failed)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                         "clumps: out of memory for the half-mass radii");
        if (rc == SK_OK && o->bound != SK_CLUMPS_BOUND_APPROX)
            rc = gravity(o, p, g, &ph, threads, st, rows, kept, err);
        if (o->bound_only)
            kept = cl_keep_bound(rows, kept);
        qsort(rows, (size_t)kept, sizeof *rows, cl_by_mass);
        if (rc == SK_OK)
            rc = build_table(parts, o, p, b, &ph, rows, kept, out, err);
    }
    if (rc == SK_OK && ids) {
        for (int64_t r = 0; r < kept; r++)
            idof[rows[r] - st] = r + 1;
        for (int64_t i = 0; i < p->n; i++)
            ids[i] = (int32_t)idof[g->clump[i]];
    }
    sk_free(st);
    sk_free(rows);
    sk_free(idof);
    return rc;
}

int cl_find_particles(const sk_table *parts, const sk_clumps_options *o, int threads,
                      sk_table **out, int32_t *ids, sk_error *err)
{
    cl_parts p;
    int rc = parts_load(&p, parts, o->softening, err);
    double b = 0;
    if (rc == SK_OK)
        rc = cl_linking_length(parts, o, p.n, &b, err);
    int64_t *label = rc == SK_OK ? sk_malloc((size_t)(p.n + 1) * sizeof *label) : NULL;
    if (rc == SK_OK && !label)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for labels");
    if (rc == SK_OK)
        rc = cl_fof(p.n, (const double *const *)p.pos, p.box, b, threads, label, err);
    cl_group g = {0};
    if (rc == SK_OK && cl_group_build(p.n, label, &g))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the groups");
    if (rc == SK_OK)
        rc = catalogue(parts, o, &p, b, threads, &g, out, ids, err);
    cl_group_free(&g);
    sk_free(label);
    parts_free(&p);
    return rc;
}
