/* From labelled cells to the catalogue table and the per-row ids: group
 * the cells of each clump, drop small ones, order by mass (largest first;
 * ties by the clump's first cell in canonical order), write the columns. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"

int cl_group_build(int64_t n, const int64_t *label, cl_group *g)
{
    memset(g, 0, sizeof *g);
    int64_t *of = sk_malloc((size_t)(n + 1) * sizeof *of);
    g->clump = sk_malloc((size_t)(n + 1) * sizeof *g->clump);
    g->members = sk_malloc((size_t)(n + 1) * sizeof *g->members);
    if (!of || !g->clump || !g->members) {
        sk_free(of);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        of[i] = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = label[i];
        if (r < 0) {
            g->clump[i] = -1;
            continue;
        }
        if (of[r] < 0)
            of[r] = g->nclumps++;
        g->clump[i] = of[r];
    }
    sk_free(of);
    g->start = sk_calloc((size_t)g->nclumps + 2, sizeof *g->start);
    if (!g->start)
        return -1;
    for (int64_t i = 0; i < n; i++)
        if (g->clump[i] >= 0)
            g->start[g->clump[i] + 2]++;
    for (int64_t k = 0; k < g->nclumps; k++)
        g->start[k + 2] += g->start[k + 1];
    for (int64_t i = 0; i < n; i++)
        if (g->clump[i] >= 0)
            g->members[g->start[g->clump[i] + 1]++] = i;
    return 0;
}

int cl_group_forest(int64_t n, const int64_t *parent, cl_group *g)
{
    memset(g, 0, sizeof *g);
    g->clump = sk_malloc((size_t)(n + 1) * sizeof *g->clump);
    g->members = sk_malloc((size_t)(n + 1) * sizeof *g->members);
    if (!g->clump || !g->members)
        return -1;
    /* In point order a parent comes first, so its clump is known by then:
     * one pass numbers the roots, resolves every chain and counts the
     * members (into `members`, free until the last pass; a clump's first
     * point is its root, which starts its count). */
    int64_t *count = g->members, last = -1, run = 0; /* run: points of clump last */
    for (int64_t i = 0; i < n; i++) {
        int64_t p = parent[i], k = p == i ? g->nclumps : g->clump[p];
        g->clump[i] = k;
        if (k != last) { /* counted a run at a time: no chain of increments */
            if (last >= 0)
                count[last] += run;
            if (p == i)
                count[g->nclumps++] = 0;
            last = k;
            run = 0;
        }
        run++;
    }
    if (last >= 0)
        count[last] += run;
    g->start = sk_malloc((size_t)(g->nclumps + 2) * sizeof *g->start);
    if (!g->start)
        return -1;
    g->start[0] = g->start[1] = 0;
    for (int64_t k = 0; k < g->nclumps; k++)
        g->start[k + 2] = g->start[k + 1] + count[k];
    for (int64_t i = 0; i < n;) { /* a run of points of one clump at a time */
        int64_t k = g->clump[i], at = g->start[k + 1];
        for (; i < n && g->clump[i] == k; i++)
            g->members[at++] = i;
        g->start[k + 1] = at;
    }
    return 0;
}

void cl_group_free(cl_group *g)
{
    sk_free(g->start);
    sk_free(g->members);
    sk_free(g->clump);
}

int64_t cl_keep_bound(cl_stats **rows, int64_t n)
{
    int64_t kept = 0;
    for (int64_t r = 0; r < n; r++)
        if (rows[r]->bound)
            rows[kept++] = rows[r];
    return kept;
}

void cl_stats_flat(cl_stats *st, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        st[k].parent = -1;
        st[k].depth = 0;
    }
}

int cl_by_mass(const void *pa, const void *pb)
{
    const cl_stats *a = *(const cl_stats *const *)pa, *b = *(const cl_stats *const *)pb;
    if (a->mass != b->mass)
        return a->mass > b->mass ? -1 : 1;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    /* a dendrogram's parent and child can share both (zero densities) */
    return a->n_cells > b->n_cells ? -1 : a->n_cells < b->n_cells;
}


static const cl_out k_base[] = {
    {"id", "", SK_INT32, SIZE_MAX},
    {"n_cells", "", SK_INT64, offsetof(cl_stats, n_cells)},
    D("mass", mass, "code mass"),
    D("volume", volume, "code length^3"),
    D("x", com[0], "code length"),
    D("y", com[1], "code length"),
    D("z", com[2], "code length"),
    D("radius", radius, "code length"),
    D("r_half", r_half, "code length"),
    D("peak", peak, "field code units"),
    D("peak_x", peak_pos[0], "code length"),
    D("peak_y", peak_pos[1], "code length"),
    D("peak_z", peak_pos[2], "code length"),
    D("bbox_xmin", bbox_lo[0], "code length"),
    D("bbox_xmax", bbox_hi[0], "code length"),
    D("bbox_ymin", bbox_lo[1], "code length"),
    D("bbox_ymax", bbox_hi[1], "code length"),
    D("bbox_zmin", bbox_lo[2], "code length"),
    D("bbox_zmax", bbox_hi[2], "code length")};
#define NCOLS(a) ((int)(sizeof(a) / sizeof *(a)))
static const cl_out k_tree[] = {
    {"parent", "", SK_INT64, offsetof(cl_stats, parent)},
    {"depth", "", SK_INT64, offsetof(cl_stats, depth)},
    {"leaf", "", SK_UINT8, offsetof(cl_stats, leaf)},
    D("saddle", saddle, "field code units"),
    D("minimum", minimum, "field code units")};
static const cl_out k_vel[] = {
    D("vx", vel[0], "code velocity"),
    D("vy", vel[1], "code velocity"),
    D("vz", vel[2], "code velocity"),
    D("sigma_v", sigma_v, "code velocity"),
    D("e_kin", e_kin, "code energy")};
static const cl_out k_therm[] = {D("temperature", temperature, "K"),
                                  D("e_therm", e_therm, "code energy")};
static const cl_out k_grav[] = {D("e_grav", e_grav, "code energy")};
static const cl_out k_vir[] = {
    D("alpha_vir", alpha_vir, ""),
    {"bound", "", SK_UINT8, offsetof(cl_stats, bound)}};

int cl_write_cols(sk_table *t, const cl_out *cols, int ncols, cl_stats *const *rows,
                      int64_t n, sk_error *err)
{
    for (int k = 0; k < ncols; k++) {
        void *data = sk_table_add(t, cols[k].name, cols[k].type, err);
        if (!data)
            return err ? err->code : SK_ERR_NOMEM;
        char key[64];
        snprintf(key, sizeof key, "units.%s", cols[k].name);
        sk_table_meta_set(t, key, cols[k].unit);
        for (int64_t i = 0; i < n; i++) {
            const char *s = (const char *)rows[i] + cols[k].field;
            if (cols[k].field == SIZE_MAX)
                ((int32_t *)data)[i] = (int32_t)(i + 1);
            else if (cols[k].type == SK_INT64)
                ((int64_t *)data)[i] = *(const int64_t *)s;
            else if (cols[k].type == SK_UINT8)
                ((uint8_t *)data)[i] = (uint8_t)*(const int *)s;
            else
                ((double *)data)[i] = *(const double *)s;
        }
    }
    return SK_OK;
}

static void write_meta(sk_table *t, const sk_table *cells, const sk_clumps_options *o,
                       double threshold, double b, const cl_phys *ph, int64_t above)
{
    sk_table_meta_copy(t, cells);
    sk_units u;
    sk_units_from_table(&u, cells);
    sk_table_meta_set(t, "kind", "clumps");
    sk_table_meta_set(t, "component", "clumps");
    sk_table_meta_set(t, "clumps.finder", sk_clumps_finder_name(o->finder));
    sk_table_meta_set(t, "clumps.field", o->field ? o->field : "density");
    sk_table_meta_set_double(t, "clumps.threshold", threshold);
    sk_table_meta_set_double(t, "clumps.threshold_given", o->threshold);
    sk_table_meta_set(t, "clumps.threshold_unit", o->unit ? o->unit : "code");
    if (o->finder == SK_CLUMPS_WATERSHED)
        sk_table_meta_set_double(t, "clumps.relevance", o->relevance);
    sk_table_meta_set(t, "clumps.bound_only", o->bound_only ? "1" : "0");
    if (o->finder == SK_CLUMPS_FOF)
        cl_meta_fof(t, o, b);
    sk_table_meta_setf(t, "clumps.min_cells", "%lld", (long long)o->min_cells);
    sk_table_meta_setf(t, "clumps.cells_above", "%lld", (long long)above);
    if (o->finder == SK_CLUMPS_DENDROGRAM) {
        sk_table_meta_set(t, "clumps.hierarchy", "dendrogram");
        sk_table_meta_set_double(t, "clumps.min_delta", o->min_delta);
    } else if (o->finder == SK_CLUMPS_WATERSHED) {
        sk_table_meta_set(t, "clumps.hierarchy", "saddles");
    } else {
        sk_table_meta_set(t, "clumps.hierarchy", "flat");
    }
    sk_table_meta_set_double(t, "clumps.G", ph->G);
    sk_table_meta_set_double(t, "clumps.gamma", ph->gamma);
    sk_table_meta_set_double(t, "clumps.mu", o->mu > 0 ? o->mu : 1.0 / SK_HYDROGEN_FRACTION);
    cl_meta_bound(t, o);
    sk_table_meta_set_double(t, "unit_m", u.unit_m);
    sk_table_meta_set_double(t, "unit_v", u.unit_v);
    sk_table_meta_set_double(t, "unit_energy", u.unit_m * u.unit_v * u.unit_v);
}

void cl_physics(const sk_table *cells, double mu, cl_phys *ph)
{
    sk_units u;
    sk_units_from_table(&u, cells);
    ph->tfactor = sk_temperature_factor(&u, mu);
    ph->boxlen = sk_table_meta_double(cells, "boxlen", 1.0);
    ph->gamma = sk_table_meta_double(cells, "gamma", 5.0 / 3.0);
    if (!(ph->gamma > 1))
        ph->gamma = 5.0 / 3.0;
    /* What RAMSES's Poisson solver uses (factG in its sources). */
    ph->G = 1.0;
    if (sk_table_meta_double(cells, "cosmological", 0) == 1)
        ph->G = 3.0 / (8.0 * M_PI) * sk_table_meta_double(cells, "omega_m", 1) *
                sk_table_meta_double(cells, "aexp", 1);
}

int cl_build_table(const cl_cells *c, const sk_table *cells, const sk_clumps_options *o,
                   double threshold, double b, const cl_phys *ph, cl_stats *const *rows,
                   int64_t n, sk_table **out, sk_error *err)
{
    sk_table *t = sk_table_new(n);
    if (!t)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the catalogue");
    int vel = cl_stats_has(cells, "velocity");
    int tree = o->finder == SK_CLUMPS_DENDROGRAM || o->finder == SK_CLUMPS_WATERSHED;
    int rc = cl_write_cols(t, k_base, 1, rows, n, err);
    if (rc == SK_OK) /* flat: parent and depth only (-1, 0) */
        rc = cl_write_cols(t, k_tree, tree ? NCOLS(k_tree) : 2, rows, n, err);
    if (rc == SK_OK)
        rc = cl_write_cols(t, k_base + 1, NCOLS(k_base) - 1, rows, n, err);
    if (rc == SK_OK && vel)
        rc = cl_write_cols(t, k_vel, NCOLS(k_vel), rows, n, err);
    if (rc == SK_OK && cl_stats_has(cells, "pressure"))
        rc = cl_write_cols(t, k_therm, NCOLS(k_therm), rows, n, err);
    if (rc == SK_OK)
        rc = cl_write_cols(t, k_grav, 1, rows, n, err);
    if (rc == SK_OK && vel)
        rc = cl_write_cols(t, k_vir, 2, rows, n, err);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    write_meta(t, cells, o, threshold, b, ph, c->n);
    *out = t;
    return SK_OK;
}

int cl_catalogue_gravity(const cl_cells *c, const sk_table *cells, const int64_t *start,
                         const int64_t *members, const sk_clumps_options *o, const cl_phys *ph,
                         cl_stats *st, cl_stats *const *rows, int64_t kept, sk_error *err)
{
    int64_t *which = sk_malloc((size_t)(kept + 1) * sizeof *which);
    if (!which)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                       "clumps: out of memory for the gravitational energies");
    for (int64_t r = 0; r < kept; r++)
        which[r] = rows[r] - st;
    int rc = cl_stats_gravity(c, cells, start, members, which, kept, o, ph, st, err);
    sk_free(which);
    return rc;
}

int cl_catalogue(const cl_cells *c, const sk_table *cells, const int64_t *label,
                 const sk_clumps_options *o, double threshold, double b, sk_table **out,
                 int32_t *ids, sk_error *err)
{
    cl_group g;
    if (cl_group_forest(c->n, label, &g)) {
        cl_group_free(&g);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the catalogue");
    }
    cl_phys ph;
    cl_physics(cells, o->mu, &ph);
    cl_stats *st = sk_malloc((size_t)(g.nclumps + 1) * sizeof *st);
    cl_stats **rows = sk_malloc((size_t)(g.nclumps + 1) * sizeof *rows);
    int rc = st && rows ? SK_OK
                        : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the catalogue");
    double t0 = cl_now(), t1 = t0, t2 = t0;
    if (rc == SK_OK)
        rc = cl_stats_compute(c, cells, g.start, g.members, g.nclumps, &ph, st, err);
    int64_t kept = 0;
    if (rc == SK_OK) {
        cl_stats_flat(st, g.nclumps);
        for (int64_t k = 0; k < g.nclumps; k++)
            if (st[k].n_cells >= o->min_cells)
                rows[kept++] = &st[k];
        t1 = cl_now();
        if (o->bound != SK_CLUMPS_BOUND_APPROX)
            rc = cl_catalogue_gravity(c, cells, g.start, g.members, o, &ph, st, rows, kept, err);
        t2 = cl_now();
        if (o->bound_only)
            kept = cl_keep_bound(rows, kept);
        qsort(rows, (size_t)kept, sizeof *rows, cl_by_mass);
        if (rc == SK_OK)
            rc = cl_build_table(c, cells, o, threshold, b, &ph, rows, kept, out, err);
    }
    if (rc == SK_OK)
        cl_meta_timing(*out, t1 - t0 + (cl_now() - t2), t2 - t1);
    if (rc == SK_OK && ids) {
        int64_t *idof = sk_calloc((size_t)g.nclumps + 1, sizeof *idof);
        if (!idof) {
            sk_table_free(*out);
            *out = NULL;
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the ids");
        } else {
            for (int64_t r = 0; r < kept; r++)
                idof[rows[r] - st] = r + 1;
            memset(ids, 0, (size_t)sk_table_nrows(cells) * sizeof *ids);
            for (int64_t i = 0; i < c->n; i++)
                if (g.clump[i] >= 0)
                    ids[c->row[i]] = (int32_t)idof[g.clump[i]];
            sk_free(idof);
        }
    }
    sk_free(st);
    sk_free(rows);
    cl_group_free(&g);
    return rc;
}

void cl_meta_timing(sk_table *t, double statistics, double gravity)
{
    sk_table_meta_set_double(t, "timing.statistics_seconds", statistics);
    sk_table_meta_set_double(t, "timing.gravity_seconds", gravity);
}

void cl_meta_fof(sk_table *t, const sk_clumps_options *o, double b)
{
    sk_table_meta_set_double(t, "clumps.linking_length", o->linking_length);
    sk_table_meta_set(t, "clumps.length_unit",
                      o->length_unit && *o->length_unit ? o->length_unit : "mean-sep");
    sk_table_meta_set_double(t, "clumps.b", b);
}
