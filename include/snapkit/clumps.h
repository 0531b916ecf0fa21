/* snapkit/clumps.h - structures in the gas: clump finders on AMR cells and
 * their catalogue.
 *
 * The input is a cell table (int32 level, cx, cy, cz; the cell centre is
 * (c + 0.5) / 2^level in box units, its edge boxlen / 2^level) with the
 * field to threshold (default "density"). Cells at or above the threshold
 * are grouped into clumps; the catalogue has one row per clump, ids 1..n
 * ordered by mass (largest first). Results do not depend on the thread
 * count or on the order of the input rows.
 *
 *   sk_clumps_options o;
 *   sk_clumps_options_init(&o);
 *   o.threshold = 1.0;
 *   o.finder = SK_CLUMPS_WATERSHED;
 *   sk_table *cat;
 *   int32_t *ids = malloc(nrows * sizeof *ids);   (or NULL)
 *   sk_clumps_find(cells, &o, &cat, ids, &err);
 */
#ifndef SNAPKIT_CLUMPS_H
#define SNAPKIT_CLUMPS_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_clumps_finder {
    /* Cells above the threshold that share a face (at any level difference,
     * across the periodic boundary) are one clump. */
    SK_CLUMPS_FACES = 0,
    /* RAMSES's PHEW: each cell joins the peak patch of its densest
     * neighbour (face, edge or corner); patches whose peak / highest saddle
     * is below `relevance` merge into the denser patch across that saddle.
     * The catalogue is the merge tree of the surviving clumps by saddles
     * (leaves and branches, with parent and depth, as the dendrogram's). */
    SK_CLUMPS_WATERSHED = 1,
    /* Friends-of-friends: points (particles, or the centres of the cells
     * above the threshold) at a periodic distance of at most b are one
     * clump (b from linking_length and length_unit). */
    SK_CLUMPS_FOF = 2,
    /* astrodendro's dendrogram over face neighbours: cells, densest first,
     * grow leaves (local maxima); where a cell touches two or more
     * structures, the leaves among them that rise less than min_delta
     * above it or hold fewer than min_cells cells are merged, and two or
     * more remaining structures become the children of a new branch. The
     * catalogue holds every leaf and branch, with parent and depth. */
    SK_CLUMPS_DENDROGRAM = 3
} sk_clumps_finder;

/* How e_grav, the gravitational self-energy of a clump, is computed. */
typedef enum sk_clumps_bound {
    /* -3/5 G M^2 / R (a uniform sphere of the clump's radius): O(N). */
    SK_CLUMPS_BOUND_APPROX = 0,
    /* -G sum_{i<j} m_i m_j / sqrt(r_ij^2 + eps^2), exact: O(N^2). */
    SK_CLUMPS_BOUND_DIRECT = 1,
    /* The same sum by a Barnes-Hut octree (monopole, opening angle theta):
     * O(N log N). */
    SK_CLUMPS_BOUND_TREE = 2
} sk_clumps_bound;

typedef struct sk_clumps_options {
    const char *field;     /* column to threshold; NULL: "density" */
    double threshold;      /* cells with field >= threshold take part */
    const char *unit;      /* unit of threshold: NULL or "code", "g/cm3",
                            * "H/cm3" (both for the density only) */
    int finder;            /* sk_clumps_finder */
    double relevance;      /* watershed: peak / saddle ratio a clump needs */
    int64_t min_cells;     /* clumps with fewer cells (particles) are dropped (id 0) */
    int threads;           /* 0: the thread budget */
    double linking_length; /* fof: b in length_unit */
    const char *length_unit; /* fof: NULL or "mean-sep" (b = linking_length x boxlen /
                              * N^(1/3), N the points linked), "code", or a length:
                              * "kpc", "pc", "Mpc", "kpccm", ... */
    int bound;             /* sk_clumps_bound */
    double theta;          /* tree: opening angle (node size / distance) */
    double softening;      /* direct, tree: eps for particles in code lengths; 0: the
                            * finest cell, boxlen / 2^levelmax (cells: always the
                            * clump's smallest cell edge) */
    double min_delta;      /* dendrogram: the height a leaf must rise above the level
                            * where it merges (its peak minus the merging cell's value;
                            * for a leaf at the root, its peak minus its minimum) */
    double mu;             /* mean molecular weight of the temperature column; <= 0:
                            * 1 / X = 1 / 0.76 */
    int bound_only;        /* keep only the bound clumps (bound == 1) */
} sk_clumps_options;

/* Defaults: "density", threshold 0, code units, faces, relevance 2,
 * min_cells 1, threads 0, linking_length 0.2, "mean-sep", bound approx,
 * theta 0.5, softening 0, min_delta 0, mu 0 (1 / X), bound_only 0. */
SK_API void sk_clumps_options_init(sk_clumps_options *o);

/* "faces", "watershed", "fof", "dendrogram"; NULL for another value. */
SK_API const char *sk_clumps_finder_name(int finder);
/* Inverse of sk_clumps_finder_name: the finder, or -1 when unknown. */
SK_API int sk_clumps_finder_from_name(const char *name);

/* "approx", "direct", "tree"; NULL for another value. */
SK_API const char *sk_clumps_bound_name(int bound);
/* Inverse of sk_clumps_bound_name: the method, or -1 when unknown. */
SK_API int sk_clumps_bound_from_name(const char *name);

/* Find clumps in `cells` and return their catalogue in *catalogue (the
 * caller frees it with sk_table_free). ids, when not NULL, receives one
 * int32 per input row: the row's clump id, 0 when in none. A threshold
 * above every value gives an empty catalogue (0 rows, SK_OK). Errors:
 * SK_ERR_ARG for a missing column or unit, SK_ERR_FORMAT for NaN in the
 * field. Catalogue columns (code units; units.<column> in the metadata):
 * id, parent (int64, -1), depth (int64, 0), n_cells, mass, volume, x, y,
 * z (centre of mass), radius, r_half (half-mass radius), peak, peak_x,
 * peak_y, peak_z (the peak cell's value and centre), bbox_xmin, bbox_xmax,
 * ... bbox_zmax (the cells' extent, positions nearest the peak cell); with
 * pressure temperature (mass-weighted mean, K, mean molecular weight
 * o->mu); with velocities
 * vx, vy, vz (bulk), sigma_v (mass-weighted 3-D dispersion), e_kin (in
 * the centre-of-mass frame); with pressure e_therm = p V / (gamma - 1);
 * e_grav (o->bound): approx -3/5 G M^2 / R (R: largest distance of a cell centre from the
 * centre of mass, at least half the smallest cell edge; G as the run's
 * Poisson solver used: 1 in code units, 3 omega_m aexp / (8 pi) when
 * cosmological), or the softened pairwise sum (direct or tree; positions
 * as for the centre of mass), alpha_vir = 2 e_kin / |e_grav| (0 when
 * e_grav is 0: one member), bound (uint8: e_kin +
 * e_therm < |e_grav|). o->bound_only keeps the bound rows only (it needs
 * velocities; in a hierarchy, parents become the nearest bound ancestor).
 *
 * The dendrogram's catalogue has one row per structure (leaves and
 * branches; a branch's statistics cover its whole subtree) and, after id,
 * the columns parent (int64: the parent's id, -1 for a root), depth (int64:
 * 0 for a root), leaf (uint8), saddle (the value of the cell where the
 * structure joins its parent; a root's minimum) and minimum (its smallest
 * value); ids give each cell's leaf (0: in no leaf, a branch's own cell or
 * below the threshold). The watershed's catalogue has the same columns:
 * its leaves are the surviving clumps, its branches join two trees at a
 * saddle (highest first), a root's saddle is its minimum.
 *
 * A particle table (meta kind "particles", or position_x/y/z and no level
 * column) takes the fof finder only, over all its rows (no threshold):
 * columns id, parent, depth, n_particles, mass, x, y, z (centre of mass,
 * positions taken nearest the group's first particle), radius (largest
 * distance from the centre of mass, at least the softening), r_half, the
 * bbox_* columns, and with velocities vx, vy, vz,
 * sigma_v, e_kin, e_grav, alpha_vir, bound (e_kin < |e_grav|); ids has one
 * int32 per particle. */
SK_API int sk_clumps_find(const sk_table *cells, const sk_clumps_options *o, sk_table **catalogue,
                          int32_t *ids, sk_error *err);

/* sk_clumps_find under MPI (snapkit/util/mpi.h), collective over
 * MPI_COMM_WORLD: every rank passes its share of the table
 * (sk_read_options.share_rank) and the same options; the cells at or above
 * the threshold (every particle for fof on particles) are gathered to
 * rank 0 (sk_mpi_gather_rows), which finds the clumps: rank 0's
 * *catalogue is one process's catalogue of the whole table, the others'
 * NULL. Rank 0 holds the cells above the threshold, which the finder needs
 * anyway. ids, when not NULL (on every rank or none), receives one int32
 * per row of this rank's share: the id sk_clumps_find of the whole table
 * gives that row (rank 0 sends each rank the ids of the rows it sent; the
 * rows below the threshold are in no clump: 0), so the shares' ids in rank
 * order are one process's (sk_mpi_gather_int32 joins them). Every rank
 * returns the same status and error. Without MPI running: sk_clumps_find. */
SK_API int sk_clumps_find_ranks(const sk_table *share, const sk_clumps_options *o,
                                sk_table **catalogue, int32_t *ids, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
