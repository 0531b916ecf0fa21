/* Cell and particle tables built in memory for the projection tests:
 * uniform cubes, random AMR-like trees, random particles. */
#ifndef SNAPKIT_TEST_PROJECT_TABLES_H
#define SNAPKIT_TEST_PROJECT_TABLES_H

#include <math.h>
#include <stdint.h>

#include "snapkit/snapkit.h"

/* A small deterministic generator (splitmix64), uniform in [0, 1). */
static inline double test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

typedef struct test_cells {
    int64_t n, cap;
    int32_t *level, *cx, *cy, *cz;
} test_cells;

static inline void test_cells_push(test_cells *c, int l, int x, int y, int z)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->level = realloc(c->level, (size_t)c->cap * 4);
        c->cx = realloc(c->cx, (size_t)c->cap * 4);
        c->cy = realloc(c->cy, (size_t)c->cap * 4);
        c->cz = realloc(c->cz, (size_t)c->cap * 4);
    }
    c->level[c->n] = l;
    c->cx[c->n] = x;
    c->cy[c->n] = y;
    c->cz[c->n] = z;
    c->n++;
}

/* Leaves of a tree refined from `lmin` to at most `lmax`, each cell split
 * with probability p_refine. */
static inline void test_refine(test_cells *c, uint64_t *rng, int l, int x, int y, int z, int lmax,
                               double p_refine)
{
    if (l < lmax && test_rand(rng) < p_refine) {
        for (int k = 0; k < 8; k++)
            test_refine(c, rng, l + 1, 2 * x + (k & 1), 2 * y + ((k >> 1) & 1),
                        2 * z + (k >> 2), lmax, p_refine);
        return;
    }
    test_cells_push(c, l, x, y, z);
}

static inline void test_set_units(sk_table *t, double boxlen)
{
    sk_table_meta_set(t, "kind", "cells");
    sk_table_meta_set_double(t, "boxlen", boxlen);
    sk_table_meta_set_double(t, "unit_l", 3.0856775814913673e21);
    sk_table_meta_set_double(t, "unit_d", 6.767e-23);
    sk_table_meta_set_double(t, "unit_t", 4.7e14);
    sk_table_meta_set_double(t, "time", 0.25);
    sk_table_meta_set_double(t, "gamma", 5.0 / 3.0);
}

/* A table from the cells, with random hydro variables (density > 0,
 * pressure > 0, velocities either sign) and a constant column "const". */
static inline sk_table *test_cell_table(const test_cells *c, double boxlen, uint64_t seed)
{
    sk_error e;
    sk_table *t = sk_table_new(c->n);
    int32_t *cols[4] = {sk_table_add(t, "level", SK_INT32, &e), sk_table_add(t, "cx", SK_INT32, &e),
                        sk_table_add(t, "cy", SK_INT32, &e), sk_table_add(t, "cz", SK_INT32, &e)};
    const char *names[] = {"density", "velocity_x", "velocity_y", "velocity_z", "pressure", "const"};
    double *v[6];
    for (int k = 0; k < 6; k++)
        v[k] = sk_table_add(t, names[k], SK_FLOAT64, &e);
    uint64_t rng = seed;
    for (int64_t i = 0; i < c->n; i++) {
        cols[0][i] = c->level[i];
        cols[1][i] = c->cx[i];
        cols[2][i] = c->cy[i];
        cols[3][i] = c->cz[i];
        v[0][i] = 0.1 + 10 * test_rand(&rng);
        v[1][i] = test_rand(&rng) - 0.5;
        v[2][i] = test_rand(&rng) - 0.5;
        v[3][i] = test_rand(&rng) - 0.5;
        v[4][i] = 0.01 + test_rand(&rng);
        v[5][i] = 3.75;
    }
    test_set_units(t, boxlen);
    return t;
}

static inline sk_table *test_random_amr(uint64_t seed, int lmin, int lmax, double p_refine,
                                        double boxlen)
{
    test_cells c = {0};
    uint64_t rng = seed;
    int n = 1 << lmin;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++)
                test_refine(&c, &rng, lmin, x, y, z, lmax, p_refine);
    sk_table *t = test_cell_table(&c, boxlen, seed + 1);
    free(c.level);
    free(c.cx);
    free(c.cy);
    free(c.cz);
    return t;
}

/* Every cell of one level, density rho everywhere. */
static inline sk_table *test_uniform(int level, double boxlen, double rho)
{
    test_cells c = {0};
    int n = 1 << level;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++)
                test_cells_push(&c, level, x, y, z);
    sk_table *t = test_cell_table(&c, boxlen, 7);
    double *d = sk_table_find(t, "density")->data;
    for (int64_t i = 0; i < c.n; i++)
        d[i] = rho;
    free(c.level);
    free(c.cx);
    free(c.cy);
    free(c.cz);
    return t;
}

/* Random particles in [0, boxlen)^3: masses, velocities, family 1 or 2. */
static inline sk_table *test_particles(int64_t n, double boxlen, uint64_t seed)
{
    sk_error e;
    sk_table *t = sk_table_new(n);
    const char *names[] = {"position_x", "position_y", "position_z", "velocity_x", "mass"};
    double *v[5];
    for (int k = 0; k < 5; k++)
        v[k] = sk_table_add(t, names[k], SK_FLOAT64, &e);
    int8_t *fam = sk_table_add(t, "family", SK_INT8, &e);
    uint64_t rng = seed;
    for (int64_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            v[k][i] = boxlen * test_rand(&rng);
        v[3][i] = 2.5;
        v[4][i] = 1e-5 * (1 + test_rand(&rng));
        fam[i] = test_rand(&rng) < 0.4 ? 2 : 1;
    }
    test_set_units(t, boxlen);
    sk_table_meta_set(t, "kind", "particles");
    sk_table_meta_set(t, "levelmax", "6");
    return t;
}

/* Sum of density x volume over cells whose centre is in [lo, hi)^3 (box units). */
static inline double test_cell_mass(const sk_table *t, const double *lo, const double *hi)
{
    const int32_t *l = sk_table_find(t, "level")->data, *cx = sk_table_find(t, "cx")->data,
                  *cy = sk_table_find(t, "cy")->data, *cz = sk_table_find(t, "cz")->data;
    const double *d = sk_table_find(t, "density")->data;
    double L = sk_table_meta_double(t, "boxlen", 1), sum = 0;
    for (int64_t i = 0; i < sk_table_nrows(t); i++) {
        double s = ldexp(1.0, -l[i]);
        double b[3] = {(cx[i] + 0.5) * s, (cy[i] + 0.5) * s, (cz[i] + 0.5) * s};
        int in = 1;
        for (int k = 0; k < 3; k++)
            in &= !lo || (b[k] >= lo[k] && b[k] < hi[k]);
        if (in)
            sum += d[i] * pow(s * L, 3);
    }
    return sum;
}

#endif
