/* The watershed's hierarchy: a merge tree of the surviving clumps by their
 * saddles. RAMSES's PHEW builds its haloes the same way (clumps joined
 * across saddles above saddle_threshold, highest first); here every saddle
 * counts, so each connected set of clumps becomes one tree whose root
 * covers it all. The leaves are the clumps (the cells they own); a branch
 * owns no cell of its own, its statistics cover its subtree. Structures are
 * numbered leaves first (by first cell), then branches as they are made, so
 * a parent always comes after its children (cl_catalogue_tree relies on
 * it). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"

typedef struct leaf_saddle {
    int64_t a, b; /* leaves */
    double s;
} leaf_saddle;

/* Highest saddle first; equal values by leaves, so nothing depends on the
 * order the saddles were found in. */
static int by_saddle_desc(const void *pa, const void *pb)
{
    const leaf_saddle *a = pa, *b = pb;
    if (a->s != b->s)
        return a->s > b->s ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static int64_t uf_find(int64_t *up, int64_t i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* Leaves: the clumps of g with at least min_cells cells; leafof[k] is
 * clump k's leaf, -1 when dropped. Returns the leaf count. */
static int64_t number_leaves(const cl_group *g, int64_t min_cells, int64_t *leafof)
{
    int64_t nl = 0;
    for (int64_t k = 0; k < g->nclumps; k++)
        leafof[k] = g->start[k + 1] - g->start[k] >= min_cells ? nl++ : -1;
    return nl;
}

/* The branches, from the saddles between kept leaves (e: ne of them,
 * sorted); t->n grows from the leaf count. */
static void join(cl_tree *t, const leaf_saddle *e, int64_t ne, int64_t *up, int64_t *node)
{
    for (int64_t k = 0; k < ne; k++) {
        int64_t ra = uf_find(up, e[k].a), rb = uf_find(up, e[k].b);
        if (ra == rb)
            continue; /* already one tree: a lower saddle inside it */
        int64_t s = t->n++;
        t->parent[node[ra]] = t->parent[node[rb]] = s;
        t->saddle[node[ra]] = t->saddle[node[rb]] = e[k].s;
        t->parent[s] = -1;
        t->leaf[s] = 0;
        if (rb < ra) {
            int64_t x = ra;
            ra = rb;
            rb = x;
        }
        up[rb] = ra;
        node[ra] = s;
    }
}

/* Roots' saddle: the smallest value in their tree (as the dendrogram). */
static int root_minima(const cl_cells *c, cl_tree *t)
{
    double *lo = sk_malloc((size_t)(t->n + 1) * sizeof *lo);
    if (!lo)
        return 0;
    for (int64_t s = 0; s < t->n; s++)
        lo[s] = INFINITY;
    for (int64_t i = 0; i < c->n; i++)
        if (t->owner[i] >= 0 && c->value[i] < lo[t->owner[i]])
            lo[t->owner[i]] = c->value[i];
    for (int64_t s = 0; s < t->n; s++) {
        int64_t p = t->parent[s];
        if (p < 0)
            t->saddle[s] = lo[s];
        else if (lo[s] < lo[p])
            lo[p] = lo[s];
    }
    sk_free(lo);
    return 1;
}

int cl_watershed_tree(const cl_cells *c, const int64_t *label, const cl_saddle *sad,
                      int64_t nsad, int64_t min_cells, cl_tree *t, sk_error *err)
{
    cl_group g;
    int64_t *leafof = NULL, *up = NULL, *node = NULL;
    leaf_saddle *e = NULL;
    memset(t, 0, sizeof *t);
    int ok = cl_group_build(c->n, label, &g) == 0;
    if (ok) {
        int64_t m = 2 * g.nclumps + 1;
        leafof = sk_malloc((size_t)m * sizeof *leafof);
        up = sk_malloc((size_t)m * sizeof *up);
        node = sk_malloc((size_t)m * sizeof *node);
        e = sk_malloc((size_t)(nsad + 1) * sizeof *e);
        t->parent = sk_malloc((size_t)m * sizeof *t->parent);
        t->leaf = sk_malloc((size_t)m);
        t->saddle = sk_malloc((size_t)m * sizeof *t->saddle);
        t->owner = sk_malloc((size_t)(c->n + 1) * sizeof *t->owner);
        ok = leafof && up && node && e && t->parent && t->leaf && t->saddle && t->owner;
    }
    if (ok) {
        t->n = number_leaves(&g, min_cells, leafof);
        for (int64_t s = 0; s < t->n; s++) {
            t->parent[s] = -1;
            t->leaf[s] = 1;
            up[s] = node[s] = s;
        }
        for (int64_t i = 0; i < c->n; i++)
            t->owner[i] = g.clump[i] >= 0 ? leafof[g.clump[i]] : -1;
        int64_t ne = 0;
        for (int64_t k = 0; k < nsad; k++) {
            int64_t a = t->owner[sad[k].a], b = t->owner[sad[k].b];
            if (a >= 0 && b >= 0 && a != b)
                e[ne++] = (leaf_saddle){a < b ? a : b, a < b ? b : a, sad[k].s};
        }
        qsort(e, (size_t)ne, sizeof *e, by_saddle_desc);
        join(t, e, ne, up, node);
        ok = root_minima(c, t);
    }
    cl_group_free(&g);
    sk_free(leafof);
    sk_free(up);
    sk_free(node);
    sk_free(e);
    if (ok)
        return SK_OK;
    cl_tree_free(t);
    return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the hierarchy");
}
