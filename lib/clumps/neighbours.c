/* Exact AMR adjacency from (level, cx, cy, cz). The neighbour of a cell in
 * a direction is a leaf at the same level, the coarser leaf holding that
 * position, or the finer leaves of that block that touch the cell; the box
 * is periodic at every level. "Absent" (below the threshold) and "refined"
 * are told apart by the node hash of cl_cells. */
#include <stdlib.h>
#include <string.h>

#include "clumps_internal.h"
#include "snapkit/memory.h"

static int list_add(cl_list *l, int64_t v)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        int64_t *nv = sk_realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = v;
    return 0;
}

void cl_list_free(cl_list *l)
{
    sk_free(l->v);
    memset(l, 0, sizeof *l);
}

static int32_t wrap(int64_t c, int level)
{
    int64_t side = (int64_t)1 << level;
    return (int32_t)(((c % side) + side) % side);
}

/* The finer leaves inside block k that touch the cell on the side -d. */
static int descend(const cl_cells *c, cl_key k, const int d[3], int64_t self, cl_list *out)
{
    if (k.level >= c->lmax)
        return 0;
    int lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = d[a] < 0 ? 1 : 0; /* a block on the cell's low side touches it with its high half */
        hi[a] = d[a] > 0 ? 0 : 1;
    }
    for (int bz = lo[2]; bz <= hi[2]; bz++)
        for (int by = lo[1]; by <= hi[1]; by++)
            for (int bx = lo[0]; bx <= hi[0]; bx++) {
                cl_key ch = {k.level + 1, 2 * k.x + bx, 2 * k.y + by, 2 * k.z + bz};
                int64_t j = cl_hash_get(&c->leaves, ch);
                if (j >= 0) {
                    if (j != self && list_add(out, j))
                        return -1;
                } else if (cl_hash_get(&c->nodes, ch) >= 0 && descend(c, ch, d, self, out)) {
                    return -1;
                }
            }
    return 0;
}

static int direction(const cl_cells *c, int64_t i, const int d[3], cl_list *out)
{
    cl_key me = c->key[i];
    int l = me.level;
    cl_key k = {l, wrap((int64_t)me.x + d[0], l), wrap((int64_t)me.y + d[1], l),
                wrap((int64_t)me.z + d[2], l)};
    int64_t j = cl_hash_get(&c->leaves, k);
    if (j >= 0)
        return j != i ? list_add(out, j) : 0;
    if (cl_hash_get(&c->nodes, k) >= 0)
        return descend(c, k, d, i, out);
    for (int up = l - 1; up >= c->lmin; up--) {
        int s = l - up;
        cl_key q = {up, k.x >> s, k.y >> s, k.z >> s};
        j = cl_hash_get(&c->leaves, q);
        if (j >= 0)
            return j != i ? list_add(out, j) : 0;
        if (cl_hash_get(&c->nodes, q) >= 0)
            return 0; /* refined, and none of its leaves is at this position */
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int cl_neighbours(const cl_cells *c, int64_t i, int corners, cl_list *out)
{
    out->n = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nz = (dx != 0) + (dy != 0) + (dz != 0);
                if (nz == 0 || (!corners && nz != 1))
                    continue;
                int d[3] = {dx, dy, dz};
                if (direction(c, i, d, out))
                    return -1;
            }
    qsort(out->v, (size_t)out->n, sizeof *out->v, cmp_i64);
    int m = 0;
    for (int a = 0; a < out->n; a++)
        if (m == 0 || out->v[a] != out->v[m - 1])
            out->v[m++] = out->v[a];
    out->n = m;
    return 0;
}

/* Two passes over the cells (count, then fill), each in parallel. */
int cl_graph_build(const cl_cells *c, int corners, cl_graph *g, sk_error *err)
{
    int64_t n = c->n;
    memset(g, 0, sizeof *g);
    g->off = sk_calloc((size_t)n + 1, sizeof *g->off);
    if (!g->off)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for neighbours");
    int failed = 0;
    for (int pass = 0; pass < 2 && !failed; pass++) {
#pragma omp parallel num_threads(c->threads) reduction(| : failed)
        {
            cl_list l = {0};
#pragma omp for schedule(dynamic, 1024)
            for (int64_t i = 0; i < n; i++) {
                if (failed || cl_neighbours(c, i, corners, &l)) {
                    failed = 1;
                    continue;
                }
                if (pass == 0)
                    g->off[i + 1] = l.n;
                else
                    memcpy(g->nbr + g->off[i], l.v, (size_t)l.n * sizeof *l.v);
            }
            cl_list_free(&l);
        }
        if (pass == 0 && !failed) {
            for (int64_t i = 0; i < n; i++)
                g->off[i + 1] += g->off[i];
            g->nbr = sk_malloc((size_t)(g->off[n] ? g->off[n] : 1) * sizeof *g->nbr);
            failed = !g->nbr;
        }
    }
    if (failed) {
        cl_graph_free(g);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for neighbours");
    }
    return SK_OK;
}

void cl_graph_free(cl_graph *g)
{
    sk_free(g->off);
    sk_free(g->nbr);
    memset(g, 0, sizeof *g);
}
