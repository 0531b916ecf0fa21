/* Per-clump statistics (stats.c) and the catalogue built from them. */
#ifndef SNAPKIT_CLUMPS_STATS_H
#define SNAPKIT_CLUMPS_STATS_H

#include <stddef.h>

#include "clumps_internal.h"

typedef struct cl_phys {
    double boxlen, gamma, G;
    double tfactor; /* K per code p / rho, for the mean molecular weight asked */
} cl_phys;

typedef struct cl_stats {
    int64_t n_cells, first; /* first: smallest cell index, for ties */
    double mass, volume, com[3], peak, peak_pos[3], vel[3], sigma_v;
    double radius, e_kin, e_therm, e_grav, alpha_vir;
    double r_half;                /* half-mass radius */
    double bbox_lo[3], bbox_hi[3]; /* extent, positions nearest the reference point */
    double temperature;           /* mass-weighted mean, K */
    int bound;
    /* dendrogram: parent (structure, then catalogue id; -1 for a root),
     * depth, leaf, saddle and minimum value (set after cl_stats_compute) */
    int64_t parent, depth;
    int leaf;
    double saddle, minimum;
} cl_stats;

/* Statistics of clumps k = 0..nclumps-1 whose cells are
 * members[start[k] .. start[k+1]) (cell indices, ascending). */
int cl_stats_compute(const cl_cells *c, const sk_table *t, const int64_t *start,
                     const int64_t *members, int64_t nclumps, const cl_phys *ph, cl_stats *out,
                     sk_error *err);
/* e_grav of the clumps which[0..nk) by o->bound (direct or tree). */
int cl_stats_gravity(const cl_cells *c, const sk_table *t, const int64_t *start,
                     const int64_t *members, const int64_t *which, int64_t nk,
                     const sk_clumps_options *o, const cl_phys *ph, cl_stats *st,
                     sk_error *err);
/* Does the table have the column (or "velocity": all three)? */
int cl_stats_has(const sk_table *t, const char *what);

/* Clumps k = 0..nclumps-1 of labelled points (label: a representative
 * point, -1 for none): members[start[k] .. start[k+1]) ascending, and the
 * clump of each point (-1 for none), numbered by first member. */
typedef struct cl_group {
    int64_t nclumps;
    int64_t *start;   /* nclumps + 1 */
    int64_t *members; /* point indices, ascending within a clump */
    int64_t *clump;   /* clump of each point, -1 for none */
} cl_group;
int cl_group_build(int64_t n, const int64_t *label, cl_group *g);
/* The same from a union-find forest over every point: parent[i] <= i,
 * roots parent[r] == r the smallest point of their set (final labels of
 * that kind are a forest of depth one). */
int cl_group_forest(int64_t n, const int64_t *parent, cl_group *g);
void cl_group_free(cl_group *g);

/* qsort order of cl_stats pointers: mass, largest first; ties by first. */
int cl_by_mass(const void *a, const void *b);

/* A catalogue column: a member of cl_stats written as `type`. */
typedef struct cl_out {
    const char *name, *unit;
    sk_dtype type;
    size_t field; /* offset in cl_stats; SIZE_MAX for id (1..n) */
} cl_out;
#define D(name, member, unit) {name, unit, SK_FLOAT64, offsetof(cl_stats, member)}
int cl_write_cols(sk_table *t, const cl_out *cols, int ncols, cl_stats *const *rows, int64_t n,
                  sk_error *err);

/* The catalogue table of rows[0..n) (ordered already): the columns of the
 * finder, the table's metadata. */
int cl_build_table(const cl_cells *c, const sk_table *cells, const sk_clumps_options *o,
                   double threshold, double b, const cl_phys *ph, cl_stats *const *rows,
                   int64_t n, sk_table **out, sk_error *err);
/* The direct or tree e_grav of rows[0..kept) (members of st). */
int cl_catalogue_gravity(const cl_cells *c, const sk_table *cells, const int64_t *start,
                         const int64_t *members, const sk_clumps_options *o, const cl_phys *ph,
                         cl_stats *st, cl_stats *const *rows, int64_t kept, sk_error *err);

/* boxlen, gamma, the G of RAMSES's Poisson solver for this run, and the
 * temperature factor for mean molecular weight mu (<= 0: 1 / X). */
void cl_physics(const sk_table *t, double mu, cl_phys *ph);

/* A member's squared distance from the centre of mass and its mass. */
typedef struct cl_rm {
    double r2, m;
} cl_rm;
/* Sums over a clump's members run in blocks of CL_BLOCK members (in their
 * canonical order), the blocks' sums then added in block order: the same
 * bits whatever the threads, and a clump of one block is one plain sum. */
#define CL_BLOCK 4096

/* The half-mass radius: the smallest distance from the centre of mass
 * within which the members hold at least half of `mass` (v is reordered;
 * r2max: the largest r2 in v).
 * Members taken by increasing (r2, m); up to CL_BLOCK members, all of them
 * sorted; above, only the shell where the half is crossed (halfmass.c). */
double cl_half_mass_radius(cl_rm *v, int64_t n, double mass, double r2max, int threads);

/* --bound-only: keeps the bound rows of rows[0..n) in order; returns how
 * many. */
int64_t cl_keep_bound(cl_stats **rows, int64_t n);

/* Parent -1, depth 0: the columns of a flat catalogue's rows. */
void cl_stats_flat(cl_stats *st, int64_t n);
/* The self-energy of n points (x: 3 per point, m) by `method`
 * (SK_CLUMPS_BOUND_DIRECT or _TREE) in *e. 0, or -1 out of memory. */
int cl_egrav(int method, int64_t n, const double *x, const double *m, double eps, double G,
             double theta, int threads, double *e);

/* Gathers clump k's points: positions (3 each), masses, softening. */
typedef void (*cl_gather_fn)(const void *ctx, int64_t k, double *x, double *m, double *eps);
/* e_grav (and alpha_vir, bound) of the clumps which[0..nk) of st by
 * `method`; size[k]: clump k's point count. */
int cl_gravity(int method, double theta, double G, int threads, const int64_t *which,
               int64_t nk, const int64_t *size, cl_gather_fn gather, const void *ctx,
               cl_stats *st, sk_error *err);
/* The run's clumps.bound, clumps.theta, clumps.softening, clumps.e_grav. */
void cl_meta_bound(sk_table *t, const sk_clumps_options *o);

/* timing.statistics_seconds (the per-clump statistics, the ordering and
 * the table) and timing.gravity_seconds (direct or tree e_grav). */
void cl_meta_timing(sk_table *t, double statistics, double gravity);

/* clumps.linking_length, clumps.length_unit and clumps.b (code lengths). */
void cl_meta_fof(sk_table *t, const sk_clumps_options *o, double b);

#endif
