/* The dendrogram finder: astrodendro's Dendrogram.compute (dendrogram.py,
 * pruning.py) over the cells above the threshold and their face
 * neighbours (the AMR adjacency of the other finders: level jumps,
 * periodic box).
 *
 * Cells go densest first (equal values: canonical order). A cell touching
 * no structure starts a leaf; touching one, it joins it (its topmost
 * ancestor). Touching two or more, the leaves among them that are not
 * independent (peak - value < min_delta, fewer than min_cells cells, or
 * peak == value) are merged into what the cell joins: the one remaining
 * structure, a new branch over two or more remaining ones, or (none
 * remaining) the last merged leaf. At the end, root leaves that are not
 * independent (peak - minimum < min_delta or too few cells) are dropped.
 * These are astrodendro's rules step for step, so min_delta and min_cells
 * mean what its min_delta and min_npix mean. */
#include <stdlib.h>
#include <string.h>

#include "clumps_internal.h"
#include "snapkit/memory.h"

typedef struct cl_dendro {
    const cl_cells *c;
    double min_delta;
    int64_t min_cells, ns;
    int64_t *top;    /* union-find towards the structure a structure is part of */
    int64_t *alias;  /* a merged leaf: the structure it was merged into; else itself */
    int64_t *parent, *npix;
    double *vmax, *vmin, *made_at;
    uint8_t *leaf;
    int64_t *owner;  /* per cell, -1 until its turn */
} cl_dendro;

static int64_t top_of(cl_dendro *d, int64_t s)
{
    while (d->top[s] != s) {
        d->top[s] = d->top[d->top[s]];
        s = d->top[s];
    }
    return s;
}

static int64_t new_structure(cl_dendro *d, int leaf, double v)
{
    int64_t s = d->ns++;
    d->top[s] = d->alias[s] = s;
    d->parent[s] = -1;
    d->npix[s] = 0;
    d->vmax[s] = d->vmin[s] = d->made_at[s] = v;
    d->leaf[s] = (uint8_t)leaf;
    return s;
}

static void add_cell(cl_dendro *d, int64_t s, int64_t i, double v)
{
    d->owner[i] = s;
    d->npix[s]++;
    d->vmax[s] = v > d->vmax[s] ? v : d->vmax[s];
    d->vmin[s] = v < d->vmin[s] ? v : d->vmin[s];
}

/* astrodendro's is_independent(structure, value=v) with min_delta and
 * min_npix; at the end (no value) a root leaf is tested on its own range. */
static int independent(const cl_dendro *d, int64_t s, const double *v)
{
    double base = v ? *v : d->vmin[s];
    return d->vmax[s] - base >= d->min_delta && d->npix[s] >= d->min_cells;
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The distinct topmost structures around cell i, ascending: 0 or count. */
static int64_t adjacent(cl_dendro *d, const cl_graph *g, int64_t i, int64_t *adj)
{
    int64_t n = 0;
    for (int64_t e = g->off[i]; e < g->off[i + 1]; e++) {
        int64_t o = d->owner[g->nbr[e]];
        if (o >= 0)
            adj[n++] = top_of(d, o);
    }
    qsort(adj, (size_t)n, sizeof *adj, cmp_i64);
    int64_t m = 0;
    for (int64_t k = 0; k < n; k++)
        if (!m || adj[m - 1] != adj[k])
            adj[m++] = adj[k];
    return m;
}

static void merge_leaf(cl_dendro *d, int64_t m, int64_t into)
{
    d->top[m] = d->alias[m] = into;
    d->npix[into] += d->npix[m];
    d->vmax[into] = d->vmax[m] > d->vmax[into] ? d->vmax[m] : d->vmax[into];
    d->vmin[into] = d->vmin[m] < d->vmin[into] ? d->vmin[m] : d->vmin[into];
}

/* A cell touching na >= 2 structures adj[] (ascending): split them into the
 * leaves to merge (moved to the end of adj) and the rest. */
static void join_many(cl_dendro *d, int64_t i, double v, int64_t *adj, int64_t na,
                      int64_t *merge)
{
    int64_t nk = 0, nm = 0;
    for (int64_t k = 0; k < na; k++) {
        int64_t s = adj[k];
        if (d->leaf[s] && (d->vmax[s] == v || !independent(d, s, &v)))
            merge[nm++] = s;
        else
            adj[nk++] = s;
    }
    int64_t into;
    if (nk == 0) {
        into = merge[--nm]; /* astrodendro: merge.pop(), the last by number */
    } else if (nk == 1) {
        into = adj[0];
    } else {
        into = new_structure(d, 0, v);
        for (int64_t k = 0; k < nk; k++)
            d->parent[adj[k]] = d->top[adj[k]] = into;
    }
    add_cell(d, into, i, v);
    for (int64_t k = 0; k < nm; k++)
        merge_leaf(d, merge[k], into);
}

/* Drop root leaves that are not independent; number the structures left
 * 0..n-1 (creation order) into t. */
static int finish(cl_dendro *d, cl_tree *t)
{
    int64_t *num = sk_malloc((size_t)(d->ns + 1) * sizeof *num);
    if (!num)
        return -1;
    int64_t n = 0;
    for (int64_t s = 0; s < d->ns; s++) {
        int alive = d->alias[s] == s;
        if (alive && d->leaf[s] && d->parent[s] < 0 && !independent(d, s, NULL))
            alive = 0, d->alias[s] = -1;
        num[s] = alive ? n++ : -1;
    }
    t->n = n;
    t->parent = sk_malloc((size_t)(n + 1) * sizeof *t->parent);
    t->leaf = sk_malloc((size_t)(n + 1));
    t->saddle = sk_malloc((size_t)(n + 1) * sizeof *t->saddle);
    if (!t->parent || !t->leaf || !t->saddle) {
        sk_free(num);
        return -1;
    }
    for (int64_t s = 0; s < d->ns; s++) {
        if (num[s] < 0)
            continue;
        int64_t p = d->parent[s];
        t->parent[num[s]] = p >= 0 ? num[p] : -1;
        t->leaf[num[s]] = d->leaf[s];
        t->saddle[num[s]] = p >= 0 ? d->made_at[p] : d->vmin[s];
    }
    for (int64_t i = 0; i < d->c->n; i++) {
        int64_t s = d->owner[i];
        while (s >= 0 && d->alias[s] != s)
            s = d->alias[s];
        t->owner[i] = s >= 0 ? num[s] : -1;
    }
    sk_free(num);
    return 0;
}

static void dendro_free(cl_dendro *d)
{
    sk_free(d->top);
    sk_free(d->alias);
    sk_free(d->parent);
    sk_free(d->npix);
    sk_free(d->vmax);
    sk_free(d->vmin);
    sk_free(d->made_at);
    sk_free(d->leaf);
    sk_free(d->owner);
}

static int dendro_alloc(cl_dendro *d, int64_t n)
{
    size_t m = (size_t)(n + 1);
    d->top = sk_malloc(m * sizeof *d->top);
    d->alias = sk_malloc(m * sizeof *d->alias);
    d->parent = sk_malloc(m * sizeof *d->parent);
    d->npix = sk_malloc(m * sizeof *d->npix);
    d->vmax = sk_malloc(m * sizeof *d->vmax);
    d->vmin = sk_malloc(m * sizeof *d->vmin);
    d->made_at = sk_malloc(m * sizeof *d->made_at);
    d->leaf = sk_malloc(m);
    d->owner = sk_malloc(m * sizeof *d->owner);
    return d->top && d->alias && d->parent && d->npix && d->vmax && d->vmin && d->made_at &&
                   d->leaf && d->owner
               ? 0
               : -1;
}

static void sweep(cl_dendro *d, const cl_graph *g, const cl_ranked *order, int64_t *adj,
                  int64_t *merge)
{
    for (int64_t k = 0; k < d->c->n; k++) {
        int64_t i = order[k].i;
        double v = order[k].v;
        int64_t na = adjacent(d, g, i, adj);
        if (na == 0)
            add_cell(d, new_structure(d, 1, v), i, v);
        else if (na == 1)
            add_cell(d, adj[0], i, v);
        else
            join_many(d, i, v, adj, na, merge);
    }
}

int cl_find_dendrogram(const cl_cells *c, double min_delta, int64_t min_cells, cl_tree *t,
                       sk_error *err)
{
    memset(t, 0, sizeof *t);
    cl_graph g;
    int rc = cl_graph_build(c, 0, &g, err);
    if (rc != SK_OK)
        return rc;
    int64_t n = c->n, maxdeg = 1;
    for (int64_t i = 0; i < n; i++)
        maxdeg = g.off[i + 1] - g.off[i] > maxdeg ? g.off[i + 1] - g.off[i] : maxdeg;
    cl_dendro d = {.c = c, .min_delta = min_delta, .min_cells = min_cells};
    cl_ranked *order = sk_malloc((size_t)(n + 1) * sizeof *order);
    int64_t *adj = sk_malloc((size_t)maxdeg * sizeof *adj);
    int64_t *merge = sk_malloc((size_t)maxdeg * sizeof *merge);
    t->owner = sk_malloc((size_t)(n + 1) * sizeof *t->owner);
    if (!order || !adj || !merge || !t->owner || dendro_alloc(&d, n)) {
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the dendrogram");
    } else {
        for (int64_t i = 0; i < n; i++) {
            order[i] = (cl_ranked){c->value[i], i};
            d.owner[i] = -1;
        }
        qsort(order, (size_t)n, sizeof *order, cl_by_value_desc);
        sweep(&d, &g, order, adj, merge);
        if (finish(&d, t))
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the dendrogram");
    }
    sk_free(order);
    sk_free(adj);
    sk_free(merge);
    dendro_free(&d);
    cl_graph_free(&g);
    if (rc != SK_OK)
        cl_tree_free(t);
    return rc;
}

void cl_tree_free(cl_tree *t)
{
    sk_free(t->parent);
    sk_free(t->leaf);
    sk_free(t->saddle);
    sk_free(t->owner);
    memset(t, 0, sizeof *t);
}
