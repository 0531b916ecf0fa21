/* Tables built for the compact-file tests: an adaptive octree of cells
 * refined around a shell (with its refined cells), gravity on the same
 * cells, particles in a box of length 2, atoms with a category column; and
 * the brute-force filters the reads are checked against. */
#ifndef SNAPKIT_TEST_STORE_TABLES_H
#define SNAPKIT_TEST_STORE_TABLES_H

#include "check.h"
#include "snapkit/snapkit.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static inline double uniform(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) / 9007199254740992.0;
}

/* ---- building tables ---- */

typedef struct cells {
    int64_t n, cap;
    int32_t *level, *cx, *cy, *cz;
    uint8_t *refined;
} cells;

static inline void push(cells *c, int l, int x, int y, int z, int refined)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->level = realloc(c->level, (size_t)c->cap * 4);
        c->cx = realloc(c->cx, (size_t)c->cap * 4);
        c->cy = realloc(c->cy, (size_t)c->cap * 4);
        c->cz = realloc(c->cz, (size_t)c->cap * 4);
        c->refined = realloc(c->refined, (size_t)c->cap);
    }
    c->level[c->n] = l;
    c->cx[c->n] = x;
    c->cy[c->n] = y;
    c->cz[c->n] = z;
    c->refined[c->n] = (uint8_t)refined;
    c->n++;
}

static inline void cells_free(cells *c)
{
    free(c->level);
    free(c->cx);
    free(c->cy);
    free(c->cz);
    free(c->refined);
}

/* Refine towards a shell of radius 0.3 around the centre, as a blast would. */
static inline void build(cells *c, int l, int x, int y, int z, int lmin, int lmax)
{
    double s = ldexp(1.0, -l);
    double dx = (x + 0.5) * s - 0.5, dy = (y + 0.5) * s - 0.5, dz = (z + 0.5) * s - 0.5;
    double r = sqrt(dx * dx + dy * dy + dz * dz);
    int refine = l < lmin || (l < lmax && fabs(r - 0.3) < 1.5 * s && uniform() < 0.9);
    push(c, l, x, y, z, refine);
    if (!refine)
        return;
    for (int k = 0; k < 8; k++)
        build(c, l + 1, 2 * x + (k & 1), 2 * y + ((k >> 1) & 1), 2 * z + (k >> 2), lmin, lmax);
}

static inline void add_meta(sk_table *t, const char *component, const char *kind)
{
    sk_table_meta_set(t, "kind", kind);
    sk_table_meta_set(t, "component", component);
    sk_table_meta_set(t, "boxlen", kind[0] == 'p' ? "2" : "1");
    sk_table_meta_set(t, "unit_l", "3.0856775814913673e+21");
    sk_table_meta_set(t, "time", "0.10688083778214801");
    sk_table_meta_set(t, "ramses.info.ncpu", "8");
    sk_table_meta_set(t, "ramses.namelist", "&RUN_PARAMS\nhydro=.true.\n/\n");
    sk_table_meta_set(t, "selection.lmax", "0");
}

/* Cells below level 2 are not kept at all (as RAMSES's levels under
 * levelmin hold no leaves); refined cells from level 2 on are kept. */
static inline sk_table *cell_table(const cells *c, const char *component, int with_refined)
{
    int64_t n = 0;
    for (int64_t i = 0; i < c->n; i++)
        n += c->level[i] >= 2 && (with_refined || !c->refined[i]);
    sk_table *t = sk_table_new(n);
    sk_error e;
    int32_t *lv = sk_table_add(t, "level", SK_INT32, &e);
    int32_t *x = sk_table_add(t, "cx", SK_INT32, &e);
    int32_t *y = sk_table_add(t, "cy", SK_INT32, &e);
    int32_t *z = sk_table_add(t, "cz", SK_INT32, &e);
    int hydro = component[0] == 'h';
    static const char *const hv[] = {"density", "velocity_x", "velocity_y", "velocity_z",
                                     "pressure"};
    static const char *const gv[] = {"potential", "acceleration_x", "acceleration_y",
                                     "acceleration_z"};
    int nv = hydro ? 5 : 4;
    double *v[5];
    for (int k = 0; k < nv; k++)
        v[k] = sk_table_add(t, hydro ? hv[k] : gv[k], SK_FLOAT64, &e);
    uint8_t *ref = with_refined ? sk_table_add(t, "refined", SK_UINT8, &e) : NULL;
    int64_t w = 0;
    for (int64_t i = 0; i < c->n; i++) {
        if (c->level[i] < 2 || (!with_refined && c->refined[i]))
            continue;
        lv[w] = c->level[i];
        x[w] = c->cx[i];
        y[w] = c->cy[i];
        z[w] = c->cz[i];
        double s = ldexp(1.0, -c->level[i]);
        double px = (c->cx[i] + 0.5) * s, py = (c->cy[i] + 0.5) * s, pz = (c->cz[i] + 0.5) * s;
        double r = sqrt((px - .5) * (px - .5) + (py - .5) * (py - .5) + (pz - .5) * (pz - .5));
        for (int k = 0; k < nv; k++)
            v[k][w] = (r < 0.3 ? 1.0 + k : 0.1 * k) + (c->refined[i] ? 1e-3 : 0.0) +
                      (k == 4 ? 1e-5 * px : 0.0);
        if (ref)
            ref[w] = c->refined[i];
        w++;
    }
    add_meta(t, component, "cells");
    return t;
}

static inline sk_table *particle_table(int64_t n)
{
    sk_table *t = sk_table_new(n);
    sk_error e;
    static const char *const f[] = {"position_x", "position_y", "position_z", "velocity_x",
                                    "mass"};
    double *d[5];
    for (int k = 0; k < 5; k++)
        d[k] = sk_table_add(t, f[k], SK_FLOAT64, &e);
    int32_t *id = sk_table_add(t, "identity", SK_INT32, &e);
    int8_t *fam = sk_table_add(t, "family", SK_INT8, &e);
    int64_t *big = sk_table_add(t, "big_id", SK_INT64, &e);
    for (int64_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            d[a][i] = 2.0 * (0.5 + 0.15 * (uniform() + uniform() + uniform() - 1.5));
        d[3][i] = uniform() - 0.5;
        d[4][i] = i % 3 ? 1.5e-5 : 3e-5;
        id[i] = (int32_t)(i % 2000) + 1;
        fam[i] = i < 2000 ? 1 : 2;
        big[i] = 1000000000000LL + (int64_t)(uniform() * 100000);
    }
    d[3][7] = NAN;
    add_meta(t, "particles", "particles");
    return t;
}

static inline sk_table *atom_table(int64_t n)
{
    sk_table *t = sk_table_new(n);
    sk_error e;
    int64_t *id = sk_table_add(t, "id", SK_INT64, &e);
    int32_t *el = sk_table_add(t, "element", SK_CATEGORY, &e);
    float *x = sk_table_add(t, "x", SK_FLOAT32, &e);
    uint16_t *q = sk_table_add(t, "q", SK_UINT16, &e);
    for (int64_t i = 0; i < n; i++) {
        id[i] = n - i;
        el[i] = (int32_t)(i % 3);
        x[i] = (float)(i * 0.25);
        q[i] = (uint16_t)(65535 - i % 7);
    }
    static const char *const labels[3] = {"Cu", "Ni", "O"};
    sk_table_set_labels(t, "element", labels, 3, &e);
    sk_table_meta_set(t, "kind", "atoms");
    sk_table_meta_set(t, "component", "atoms");
    return t;
}

/* A copy of t keeping the rows keep[] marks (all when keep is NULL) and
 * the columns for which drop() is false. */
static inline sk_table *filtered(const sk_table *t, const uint8_t *keep, const char *drop)
{
    sk_table *c = sk_table_new(sk_table_nrows(t));
    sk_error e;
    for (int j = 0; j < sk_table_ncols(t); j++) {
        const sk_column *col = sk_table_col(t, j);
        if (drop && strcmp(col->name, drop) == 0)
            continue;
        void *d = sk_table_add(c, col->name, col->type, &e);
        memcpy(d, col->data, (size_t)sk_table_nrows(t) * sk_dtype_size(col->type));
        if (col->type == SK_CATEGORY)
            sk_table_set_labels(c, col->name, (const char *const *)col->labels, col->nlabels, &e);
    }
    sk_table_meta_copy(c, t);
    if (keep)
        sk_table_filter(c, keep);
    return c;
}

static inline void check_same(const sk_table *got, const sk_table *want, const char *what)
{
    int equal = 0;
    char why[512];
    sk_error e;
    CHECK_OK(sk_tables_same_rows(got, want, &equal, why, sizeof why, &e), &e);
    CHECK_MSG(equal, "%s: %s", what, why);
}

/* Brute force: which cells of a table with a `refined` column an lmax / box
 * read keeps (refined ones stand in at exactly lmax). */
static inline uint8_t *expect_cells(const sk_table *t, int lmax, const double lo[3], const double hi[3],
                             int with_refined)
{
    int64_t n = sk_table_nrows(t);
    uint8_t *keep = malloc((size_t)n + 1);
    const int32_t *l = sk_table_find(t, "level")->data;
    const int32_t *c[3] = {sk_table_find(t, "cx")->data, sk_table_find(t, "cy")->data,
                           sk_table_find(t, "cz")->data};
    const sk_column *rc = sk_table_find(t, "refined");
    const uint8_t *ref = rc ? rc->data : NULL;
    for (int64_t i = 0; i < n; i++) {
        int ok;
        if (with_refined || !ref || !ref[i])
            ok = !lmax || l[i] <= lmax;
        else
            ok = lmax && l[i] == lmax;
        for (int a = 0; a < 3 && ok && lo; a++) {
            double x = (c[a][i] + 0.5) / (double)(1 << l[i]);
            ok = x >= lo[a] && x < hi[a];
        }
        keep[i] = (uint8_t)ok;
    }
    return keep;
}

static inline const char *tmp_path(const char *dir, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", dir, name);
    return buf;
}

static inline sk_table *read_table(sk_store *s, const char *name, const sk_selection *sel,
                            int with_refined, int threads, sk_read_stats *stats)
{
    sk_error e;
    sk_table *t = NULL;
    sk_read_options opt = {.threads = threads, .with_refined = with_refined};
    sk_read_stats local;
    int rc = sk_store_read(s, name, sel, &opt, &t, stats ? stats : &local, &e);
    CHECK_OK(rc, &e);
    return t;
}

static inline int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

#endif
