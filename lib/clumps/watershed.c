/* The watershed finder, following RAMSES's PHEW (clump_finder.f90 and
 * clump_merger.f90) so that its catalogues can be reproduced:
 *  - neighbours are the leaves touching a cell (faces, edges, corners);
 *  - each cell points to its densest neighbour if that one is denser than
 *    1.0001 times the cell (PHEW's margin), otherwise it is a peak; cells
 *    join the patch at the end of that path;
 *  - the saddle between two patches is the largest mean value of two
 *    touching cells, one in each;
 *  - merging goes in rounds: in each, every patch whose peak / highest
 *    saddle is below the relevance merges into the patch across that
 *    saddle when that one's peak is higher; the patches merged in a round
 *    hand their saddles to the patch they joined. Rounds repeat until one
 *    merges nothing.
 * The saddles left between the surviving clumps give their hierarchy
 * (watershed_tree.c). */
#include <stdlib.h>
#include <string.h>

#include "clumps_internal.h"
#include "snapkit/memory.h"

#define CL_PHEW_MARGIN 1.0001

typedef struct cl_edge {
    int64_t a, b; /* a < b, patch (peak) numbers */
    double s;
} cl_edge;

int cl_by_value_desc(const void *pa, const void *pb)
{
    const cl_ranked *a = pa, *b = pb;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int edge_cmp(const void *pa, const void *pb)
{
    const cl_edge *a = pa, *b = pb;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* Sort edges and keep the largest saddle of each pair; returns the count. */
static int64_t edges_reduce(cl_edge *e, int64_t n)
{
    qsort(e, (size_t)n, sizeof *e, edge_cmp);
    int64_t m = 0;
    for (int64_t k = 0; k < n; k++) {
        if (m && e[m - 1].a == e[k].a && e[m - 1].b == e[k].b) {
            if (e[k].s > e[m - 1].s)
                e[m - 1].s = e[k].s;
        } else {
            e[m++] = e[k];
        }
    }
    return m;
}

/* Each cell's patch (peak number, peaks numbered densest first). */
static int64_t patches(const cl_cells *c, const cl_graph *g, cl_ranked *order, int64_t *patch,
                       int64_t *peak_cell)
{
    int64_t n = c->n;
    const double *v = c->value;
    int64_t *best = patch; /* holds the densest neighbour until replaced */
#pragma omp parallel for schedule(static) num_threads(c->threads)
    for (int64_t i = 0; i < n; i++) {
        double dmax = v[i] * CL_PHEW_MARGIN;
        int64_t b = -1;
        for (int64_t e = g->off[i]; e < g->off[i + 1]; e++)
            if (v[g->nbr[e]] > dmax) {
                dmax = v[g->nbr[e]];
                b = g->nbr[e];
            }
        best[i] = b;
    }
    for (int64_t i = 0; i < n; i++)
        order[i] = (cl_ranked){v[i], i};
    qsort(order, (size_t)n, sizeof *order, cl_by_value_desc);
    int64_t npeaks = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t i = order[k].i;
        if (best[i] < 0) {
            peak_cell[npeaks] = i;
            patch[i] = npeaks++;
        } else {
            patch[i] = patch[best[i]]; /* denser, so assigned already */
        }
    }
    return npeaks;
}

static int64_t saddles(const cl_cells *c, const cl_graph *g, const int64_t *patch, cl_edge *e)
{
    int64_t m = 0;
    for (int64_t i = 0; i < c->n; i++)
        for (int64_t k = g->off[i]; k < g->off[i + 1]; k++) {
            int64_t j = g->nbr[k];
            if (j <= i || patch[j] == patch[i])
                continue;
            int64_t a = patch[i] < patch[j] ? patch[i] : patch[j];
            int64_t b = patch[i] ^ patch[j] ^ a;
            e[m++] = (cl_edge){a, b, 0.5 * (c->value[i] + c->value[j])};
        }
    return edges_reduce(e, m);
}

typedef struct cl_merge {
    int64_t np, ne;
    const double *pv; /* peak values, non-increasing */
    cl_edge *e;
    double *maxval;
    int64_t *maxloc, *newp, *root;
    uint8_t *alive;
} cl_merge;

static void highest_saddles(cl_merge *m)
{
    for (int64_t p = 0; p < m->np; p++) {
        m->maxval[p] = 0;
        m->maxloc[p] = -1;
    }
    for (int64_t k = 0; k < m->ne; k++)
        for (int side = 0; side < 2; side++) {
            int64_t p = side ? m->e[k].b : m->e[k].a, q = side ? m->e[k].a : m->e[k].b;
            if (m->e[k].s > m->maxval[p] || (m->e[k].s == m->maxval[p] && q < m->maxloc[p])) {
                m->maxval[p] = m->e[k].s;
                m->maxloc[p] = q;
            }
        }
}

/* One round; returns how many patches merged. */
static int64_t merge_round(cl_merge *m, double relevance, double threshold)
{
    highest_saddles(m);
    for (int64_t p = 0; p < m->np; p++)
        m->newp[p] = p;
    for (int moved = 1; moved;) {
        moved = 0;
        for (int64_t p = 0; p < m->np; p++) {
            if (!m->alive[p] || m->maxloc[p] < 0)
                continue;
            double rel = m->pv[p] / (m->maxval[p] > 0 ? m->maxval[p] : threshold);
            if (!(rel < relevance))
                continue;
            int64_t j = m->maxloc[p], to = m->newp[p];
            if (m->pv[j] > m->pv[p])
                to = m->newp[j];
            else if (m->pv[j] == m->pv[p])
                to = m->newp[j] < m->newp[p] ? m->newp[j] : m->newp[p];
            if (to != m->newp[p]) {
                m->newp[p] = to;
                moved = 1;
            }
        }
    }
    int64_t merged = 0;
    for (int64_t p = 0; p < m->np; p++) {
        int64_t t = m->newp[p];
        while (m->newp[t] != t)
            t = m->newp[t];
        m->newp[p] = t;
        if (m->alive[p] && t != p) {
            m->alive[p] = 0;
            merged++;
        }
    }
    for (int64_t p = 0; p < m->np; p++)
        m->root[p] = m->newp[m->root[p]];
    int64_t ne = 0;
    for (int64_t k = 0; k < m->ne; k++) {
        int64_t a = m->newp[m->e[k].a], b = m->newp[m->e[k].b];
        if (a == b)
            continue;
        m->e[ne++] = (cl_edge){a < b ? a : b, a < b ? b : a, m->e[k].s};
    }
    m->ne = edges_reduce(m->e, ne);
    return merged;
}

/* The saddles left between surviving patches, as (peak cell, peak cell,
 * value) triples for the hierarchy (watershed_tree.c). */
static int export_saddles(const cl_merge *m, const int64_t *peak_cell, cl_saddle **out,
                          int64_t *nout)
{
    *out = sk_malloc((size_t)(m->ne + 1) * sizeof **out);
    if (!*out)
        return -1;
    for (int64_t k = 0; k < m->ne; k++)
        (*out)[k] = (cl_saddle){peak_cell[m->e[k].a], peak_cell[m->e[k].b], m->e[k].s};
    *nout = m->ne;
    return 0;
}

int cl_find_watershed(const cl_cells *c, double relevance, double threshold, int64_t *label,
                      cl_saddle **sad, int64_t *nsad, sk_error *err)
{
    *sad = NULL;
    *nsad = 0;
    cl_graph g;
    int rc = cl_graph_build(c, 1, &g, err);
    if (rc != SK_OK)
        return rc;
    int64_t n = c->n, ne_max = g.off[n] / 2 + 1;
    cl_ranked *order = sk_malloc((size_t)(n + 1) * sizeof *order);
    int64_t *patch = sk_malloc((size_t)(n + 1) * sizeof *patch);
    int64_t *peak_cell = sk_malloc((size_t)(n + 1) * sizeof *peak_cell);
    cl_edge *e = sk_malloc((size_t)ne_max * sizeof *e);
    cl_merge m = {0};
    m.maxval = sk_malloc((size_t)(n + 1) * sizeof *m.maxval);
    m.maxloc = sk_malloc((size_t)(n + 1) * sizeof *m.maxloc);
    m.newp = sk_malloc((size_t)(n + 1) * sizeof *m.newp);
    m.root = sk_malloc((size_t)(n + 1) * sizeof *m.root);
    m.alive = sk_malloc((size_t)(n + 1));
    double *pv = sk_malloc((size_t)(n + 1) * sizeof *pv);
    if (!order || !patch || !peak_cell || !e || !m.maxval || !m.maxloc || !m.newp || !m.root ||
        !m.alive || !pv) {
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the watershed");
    } else {
        m.np = patches(c, &g, order, patch, peak_cell);
        for (int64_t p = 0; p < m.np; p++) {
            pv[p] = c->value[peak_cell[p]];
            m.root[p] = p;
            m.alive[p] = 1;
        }
        m.pv = pv;
        m.e = e;
        m.ne = saddles(c, &g, patch, e);
        while (merge_round(&m, relevance, threshold) > 0) {
        }
        for (int64_t i = 0; i < n; i++)
            label[i] = peak_cell[m.root[patch[i]]];
        if (export_saddles(&m, peak_cell, sad, nsad))
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the saddles");
    }
    sk_free(order);
    sk_free(patch);
    sk_free(peak_cell);
    sk_free(e);
    sk_free(m.maxval);
    sk_free(m.maxloc);
    sk_free(m.newp);
    sk_free(m.root);
    sk_free(m.alive);
    sk_free(pv);
    cl_graph_free(&g);
    return rc;
}
