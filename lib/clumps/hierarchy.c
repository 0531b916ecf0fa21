/* The catalogue of a hierarchy (dendrogram, watershed): one row per
 * structure, a branch's statistics over its whole subtree (so a child's
 * cells are a subset of its parent's and a branch's n_cells is its own
 * cells plus its children's), ids 1..n
 * by mass as for the other finders (a parent is heavier than any child, so
 * its id is smaller), parent ids and depths, and each cell's leaf. */
#include <stdlib.h>
#include <string.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"

/* Subtree members in CSR form: structure s's cells are
 * members[start[s] .. start[s+1]), ascending. A cell is listed under its
 * owner and every ancestor of it. */
static int subtrees(const cl_cells *c, const cl_tree *t, int64_t **pstart, int64_t **pmembers)
{
    int64_t *start = sk_calloc((size_t)t->n + 2, sizeof *start), *members = NULL;
    if (!start)
        return -1;
    for (int64_t i = 0; i < c->n; i++)
        for (int64_t s = t->owner[i]; s >= 0; s = t->parent[s])
            start[s + 2]++;
    for (int64_t s = 0; s < t->n; s++)
        start[s + 2] += start[s + 1];
    members = sk_malloc((size_t)(start[t->n + 1] + 1) * sizeof *members);
    if (!members) {
        sk_free(start);
        return -1;
    }
    for (int64_t i = 0; i < c->n; i++)
        for (int64_t s = t->owner[i]; s >= 0; s = t->parent[s])
            members[start[s + 1]++] = i;
    *pstart = start;
    *pmembers = members;
    return 0;
}

/* parent (as a structure), depth, leaf, saddle, minimum of every row; a
 * parent is made after its children, so depths go from the last. */
static void tree_columns(const cl_cells *c, const cl_tree *t, const int64_t *start,
                         const int64_t *members, cl_stats *st)
{
    for (int64_t s = t->n - 1; s >= 0; s--) {
        int64_t p = t->parent[s];
        st[s].parent = p;
        st[s].depth = p >= 0 ? st[p].depth + 1 : 0;
        st[s].leaf = t->leaf[s];
        st[s].saddle = t->saddle[s];
        double lo = c->value[members[start[s]]];
        for (int64_t a = start[s]; a < start[s + 1]; a++)
            lo = c->value[members[a]] < lo ? c->value[members[a]] : lo;
        st[s].minimum = lo;
    }
}

static void leaf_ids(const cl_cells *c, const sk_table *cells, const cl_tree *t,
                     const int64_t *idof, int32_t *ids)
{
    memset(ids, 0, (size_t)sk_table_nrows(cells) * sizeof *ids);
    for (int64_t i = 0; i < c->n; i++) {
        int64_t s = t->owner[i];
        if (s >= 0 && t->leaf[s])
            ids[c->row[i]] = (int32_t)idof[s];
    }
}

/* --bound-only: each bound structure's parent becomes its nearest bound
 * ancestor and its depth is recounted (parents come after children, so
 * from the last); rows keeps the bound ones. Returns how many. */
static int64_t prune_unbound(cl_stats *st, cl_stats **rows, int64_t n)
{
    for (int64_t s = n - 1; s >= 0; s--) {
        int64_t p = st[s].parent;
        while (p >= 0 && !st[p].bound)
            p = st[p].parent; /* p > s, relinked already: its nearest bound ancestor */
        st[s].parent = p;
    }
    for (int64_t s = n - 1; s >= 0; s--)
        st[s].depth = st[s].parent >= 0 ? st[st[s].parent].depth + 1 : 0;
    return cl_keep_bound(rows, n);
}

int cl_catalogue_tree(const cl_cells *c, const sk_table *cells, const cl_tree *tree,
                      const sk_clumps_options *o, double threshold, sk_table **out,
                      int32_t *ids, sk_error *err)
{
    int64_t n = tree->n, *start = NULL, *members = NULL;
    cl_phys ph;
    cl_physics(cells, o->mu, &ph);
    cl_stats *st = sk_malloc((size_t)(n + 1) * sizeof *st);
    cl_stats **rows = sk_malloc((size_t)(n + 1) * sizeof *rows);
    int64_t *idof = sk_malloc((size_t)(n + 1) * sizeof *idof);
    int rc = SK_OK;
    if (!st || !rows || !idof || subtrees(c, tree, &start, &members))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the catalogue");
    double t0 = cl_now(), t1 = t0, t2 = t0;
    if (rc == SK_OK)
        rc = cl_stats_compute(c, cells, start, members, n, &ph, st, err);
    if (rc == SK_OK) {
        tree_columns(c, tree, start, members, st);
        for (int64_t s = 0; s < n; s++)
            rows[s] = &st[s];
        t1 = cl_now();
        if (o->bound != SK_CLUMPS_BOUND_APPROX)
            rc = cl_catalogue_gravity(c, cells, start, members, o, &ph, st, rows, n, err);
        t2 = cl_now();
    }
    int64_t kept = n;
    if (rc == SK_OK) {
        if (o->bound_only)
            kept = prune_unbound(st, rows, n);
        qsort(rows, (size_t)kept, sizeof *rows, cl_by_mass);
        memset(idof, 0, (size_t)(n + 1) * sizeof *idof);
        for (int64_t r = 0; r < kept; r++)
            idof[rows[r] - st] = r + 1;
        for (int64_t s = 0; s < n; s++)
            st[s].parent = st[s].parent >= 0 ? idof[st[s].parent] : -1;
        rc = cl_build_table(c, cells, o, threshold, 0, &ph, rows, kept, out, err);
    }
    if (rc == SK_OK)
        cl_meta_timing(*out, t1 - t0 + (cl_now() - t2), t2 - t1);
    if (rc == SK_OK && ids)
        leaf_ids(c, cells, tree, idof, ids);
    sk_free(st);
    sk_free(rows);
    sk_free(idof);
    sk_free(start);
    sk_free(members);
    return rc;
}
