/* Internal pieces of the clump finders: the cells above the threshold in a
 * canonical order, AMR adjacency, the finders and the catalogue. */
#ifndef SNAPKIT_CLUMPS_INTERNAL_H
#define SNAPKIT_CLUMPS_INTERNAL_H

#include <stdint.h>

#include "snapkit/clumps.h"
#include "snapkit/table.h"

#define CL_MAX_LEVEL 30

typedef struct cl_key {
    int32_t level, x, y, z;
} cl_key;

/* Open addressing from a cell key to an index. */
typedef struct cl_hash {
    cl_key *keys;
    int64_t *vals; /* -1: empty slot */
    uint64_t mask;
} cl_hash;

/* A cell's density, velocity and pressure (0 where the table has no such
 * column), which the pick copies into cell order for the statistics while
 * it reads the cell's row anyway. */
typedef struct cl_gathered {
    double rho, v[3], p;
} cl_gathered;

/* The columns they come from: density, velocity_x, _y, _z, pressure;
 * NULL for none (the velocities only all three); f64 their data when
 * float64, else NULL (read through the column). */
typedef struct cl_payload {
    const sk_column *col[5];
    const double *f64[5];
} cl_payload;

/* A z run: cells s .. s + z1 - z0, of one level and column (x, y), one
 * above the other from z0 to z1 (the pick lists them in cell order for
 * the faces finder, which walks runs rather than cells). */
typedef struct cl_run {
    int32_t level, x, y, z0, z1;
    int64_t s;
} cl_run;

/* The cells at or above the threshold, sorted by (level, cx, cy, cz) so
 * that nothing downstream depends on the order of the input rows. */
typedef struct cl_cells {
    int64_t n;
    int64_t *row;      /* input row of each cell */
    cl_key *key;
    double *value;     /* the thresholded field */
    cl_gathered *got;  /* density, velocity and pressure of each cell */
    int64_t *label;    /* room for the finders' labels, a cell each; the pick
                        * leaves each z run (cells one above the other in a
                        * column) under its first cell, where faces starts */
    void *scratch;     /* 16 bytes a cell: the sort's buckets */
    cl_run *runs;      /* the z runs in cell order */
    int64_t nruns;
    int lmin, lmax;    /* levels present among these cells */
    cl_hash leaves;    /* key -> cell index (cl_cells_index) */
    cl_hash nodes;     /* coarser cells holding at least one of these cells */
    int threads;
} cl_cells;

/* A cell's neighbours, as a growing list of cell indices. */
typedef struct cl_list {
    int64_t *v;
    int n, cap;
} cl_list;

/* Neighbours of every cell in CSR form: cell i's are nbr[off[i] .. off[i+1]). */
typedef struct cl_graph {
    int64_t *off;
    int64_t *nbr;
} cl_graph;

/* Picks and sorts the cells into c->n, c->key, c->row, c->value and
 * c->got, and lists their z runs (c->runs; pick.c); col: the level, cx,
 * cy and cz columns; pay: got's columns. These, label and scratch are one
 * block (c->row its start): large enough, it comes back from the block
 * cache on the next search with its pages mapped. */
int cl_cells_pick(cl_cells *c, const sk_table *t, const sk_column *field, double threshold,
                  const int32_t *col[4], const cl_payload *pay, sk_error *err);
int cl_cells_build(cl_cells *c, const sk_table *t, const sk_column *field, double threshold,
                   int threads, sk_error *err);
/* The table's column of that name when numeric (not a category), or NULL. */
const sk_column *cl_float_col(const sk_table *t, const char *name);
/* The two hashes, for cl_neighbours and cl_graph_build (the faces finder
 * works on the sorted keys alone and does not build them). */
int cl_cells_index(cl_cells *c, sk_error *err);
void cl_cells_free(cl_cells *c);
int64_t cl_hash_get(const cl_hash *h, cl_key k);

/* Leaf cells touching cell i (faces only when `corners` is 0; faces, edges
 * and corners otherwise), sorted, without i itself. 0, or -1 out of memory. */
int cl_neighbours(const cl_cells *c, int64_t i, int corners, cl_list *out);
void cl_list_free(cl_list *l);

/* A concurrent union-find (fof.c) whose roots are always the smallest
 * index of their set, whatever the threads do: parent[i] <= i. */
int64_t cl_uf_find(int64_t *parent, int64_t i);
void cl_uf_unite(int64_t *parent, int64_t a, int64_t b);
int cl_graph_build(const cl_cells *c, int corners, cl_graph *g, sk_error *err);
void cl_graph_free(cl_graph *g);

/* Finders: label[i] for every cell, equal labels for one clump, labels
 * being cell indices (the clump's representative). faces takes c->label
 * as the pick left it and leaves a union-find forest instead: label[i] <=
 * i, the root of each clump its smallest cell (cl_catalogue takes either). */
int cl_find_faces(const cl_cells *c, int64_t *label, sk_error *err);
/* A saddle between two watershed clumps: their representative cells (the
 * labels) and the saddle value (PHEW's: the largest mean of two touching
 * cells, one in each). */
typedef struct cl_saddle {
    int64_t a, b;
    double s;
} cl_saddle;
/* Also returns, in *sad (caller frees with sk_free), the highest saddle
 * between each pair of touching surviving clumps. */
int cl_find_watershed(const cl_cells *c, double relevance, double threshold, int64_t *label,
                      cl_saddle **sad, int64_t *nsad, sk_error *err);

/* A cell's value and index; cl_by_value_desc orders them by value, largest
 * first, equal values by index (so ties never depend on the input order). */
typedef struct cl_ranked {
    double v;
    int64_t i;
} cl_ranked;
int cl_by_value_desc(const void *a, const void *b);

/* The dendrogram's structures, numbered in the order they were made
 * (a parent after its children). */
typedef struct cl_tree {
    int64_t n;       /* structures */
    int64_t *parent; /* structure, -1 for a root */
    uint8_t *leaf;
    double *saddle;  /* value of the cell that made the parent (roots: minimum) */
    int64_t *owner;  /* per cell: the structure whose own cell it is, -1 for none */
} cl_tree;
int cl_find_dendrogram(const cl_cells *c, double min_delta, int64_t min_cells, cl_tree *t,
                       sk_error *err);
void cl_tree_free(cl_tree *t);
/* The watershed's hierarchy: the surviving clumps of at least min_cells
 * cells are the leaves; going down the saddles from the highest, each one
 * joining two different trees makes a branch, their parent, whose saddle
 * value is theirs. Roots' saddle: their minimum value. */
int cl_watershed_tree(const cl_cells *c, const int64_t *label, const cl_saddle *sad,
                      int64_t nsad, int64_t min_cells, cl_tree *t, sk_error *err);

/* Friends-of-friends over n points xyz[0..2][i] (code lengths) in a
 * periodic box: label[i] = the smallest index of i's group. Points at a
 * periodic distance of at most b are friends. */
int cl_fof(int64_t n, const double *const xyz[3], double box, double b, int threads,
           int64_t *label, sk_error *err);
/* b in code lengths from o->linking_length and o->length_unit for n points. */
int cl_linking_length(const sk_table *t, const sk_clumps_options *o, int64_t n, double *b,
                      sk_error *err);
/* fof over the cells of c, by their centres. */
int cl_find_fof_cells(const cl_cells *c, double box, double b, int64_t *label, sk_error *err);

/* The whole particle path (particles.c): fof and the catalogue. */
int cl_find_particles(const sk_table *parts, const sk_clumps_options *o, int threads,
                      sk_table **out, int32_t *ids, sk_error *err);

/* Does the table have velocity_x, velocity_y and velocity_z (numeric)? */
int cl_stats_has_velocity(const sk_table *t);

/* Monotonic seconds, for the phase times a catalogue records in its
 * metadata (timing.find_seconds, timing.statistics_seconds,
 * timing.gravity_seconds), which `snapkit bench clumps` reads. */
double cl_now(void);

/* The catalogue of the labelled cells, label a union-find forest (faces)
 * or labels that are each clump's smallest cell (fof); ids (input rows)
 * when not NULL.
 * b: the fof linking length in code lengths (0 for the other finders). */
int cl_catalogue(const cl_cells *c, const sk_table *cells, const int64_t *label,
                 const sk_clumps_options *o, double threshold, double b, sk_table **out,
                 int32_t *ids, sk_error *err);

/* The dendrogram's catalogue: one row per structure (subtree statistics),
 * parent, depth, leaf, saddle, minimum; ids: each cell's leaf. */
int cl_catalogue_tree(const cl_cells *c, const sk_table *cells, const cl_tree *tree,
                      const sk_clumps_options *o, double threshold, sk_table **out,
                      int32_t *ids, sk_error *err);

#endif
