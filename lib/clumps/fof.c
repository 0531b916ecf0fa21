/* Friends-of-friends on points in a periodic box: a cell list (cells at
 * least b wide, so friends are in the same or an adjacent cell) whose
 * cells are split into sub-cells whose points are all friends, and a
 * concurrent union-find. A dense clump costs its occupied sub-cells, not
 * its pairs of points (a plain cell list compares every pair in a cell).
 *
 * The union-find always hangs the larger root under the smaller one with a
 * compare-and-swap, so parent[i] <= i at all times and each group's root
 * is its smallest index: the labels are the same whatever the threads and
 * the order of the unions. Path halving only ever replaces a parent by one
 * of its ancestors, which keeps the forest acyclic under concurrent use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clumps_internal.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"

int64_t cl_uf_find(int64_t *p, int64_t i)
{
    for (;;) {
        int64_t q = __atomic_load_n(&p[i], __ATOMIC_RELAXED);
        if (q == i)
            return i;
        int64_t g = __atomic_load_n(&p[q], __ATOMIC_RELAXED);
        if (g != q)
            __atomic_store_n(&p[i], g, __ATOMIC_RELAXED);
        i = q;
    }
}

void cl_uf_unite(int64_t *p, int64_t a, int64_t b)
{
    for (;;) {
        a = cl_uf_find(p, a);
        b = cl_uf_find(p, b);
        if (a == b)
            return;
        if (a > b) {
            int64_t t = a;
            a = b;
            b = t;
        }
        int64_t expected = b;
        if (__atomic_compare_exchange_n(&p[b], &expected, a, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return;
    }
}

/* Two grids. Coarse cells (a dense array, at least b wide, at most about
 * 2N of them) hold the points, so friends are in the same or one of the
 * 26 adjacent coarse cells. Each coarse cell is split into s^3 sub-cells
 * whose diagonal is below b, so the points of a sub-cell are all friends
 * and are united in O(k); two sub-cells are joined by the first friendly
 * pair found between them, and not looked at once joined. Sparse points
 * cost what a plain cell list costs (a sub-cell per point); a dense clump
 * costs its sub-cells, not its pairs of points. */
typedef struct fof_grid {
    int64_t ng;       /* coarse cells per side */
    int64_t s;        /* sub-cells per coarse cell side */
    int whole;        /* 1: a sub-cell's points are all friends (s was not capped) */
    double w;         /* sub-cell edge */
    int64_t *cstart;  /* ng^3 + 1: coarse cell c's runs are cstart[c] .. cstart[c+1) */
    int64_t nruns;    /* occupied sub-cells, in (coarse, sub) order */
    int64_t *rstart;  /* nruns + 1: run r is sorted points rstart[r] .. rstart[r+1) */
    int32_t *rsub;    /* nruns x 3: global sub-cell coordinates of each run */
    int64_t *idx;     /* point index, ascending within a run */
    double *p;        /* 3 per sorted point, wrapped into [0, box) */
} fof_grid;

#define FOF_MAX_SUB 64

static double wrap(double x, double box)
{
    x -= box * floor(x / box);
    return x < box ? x : 0.0; /* -tiny + box rounds to box */
}

static int64_t cell_of(double x, double box, int64_t ng)
{
    int64_t c = (int64_t)(x / box * (double)ng);
    return c < 0 ? 0 : c >= ng ? ng - 1 : c;
}

/* Coarse cells no narrower than b, and not many more than points (memory). */
static int64_t grid_side(int64_t n, double box, double b)
{
    double side = floor(box / b);
    double most = cbrt(2.0 * (double)n + 8.0);
    if (side > most)
        side = most;
    if (side > 1024)
        side = 1024;
    return side < 1 ? 1 : (int64_t)side;
}

typedef struct fof_rec {
    uint64_t key; /* coarse cell x s^3 + sub-cell */
    int64_t i;
} fof_rec;

static int rec_cmp(const void *pa, const void *pb)
{
    const fof_rec *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static uint64_t point_key(const fof_grid *g, const int32_t sub[3])
{
    uint64_t c = 0, q = 0;
    for (int d = 0; d < 3; d++) {
        c = c * (uint64_t)g->ng + (uint64_t)(sub[d] / g->s);
        q = q * (uint64_t)g->s + (uint64_t)(sub[d] % g->s);
    }
    return c * (uint64_t)(g->s * g->s * g->s) + q;
}

static int grid_alloc(fof_grid *g, int64_t n)
{
    int64_t ncell = g->ng * g->ng * g->ng;
    g->cstart = sk_calloc((size_t)ncell + 1, sizeof *g->cstart);
    g->rstart = sk_malloc((size_t)(n + 2) * sizeof *g->rstart);
    g->rsub = sk_malloc((size_t)(3 * n + 3) * sizeof *g->rsub);
    g->idx = sk_malloc((size_t)(n + 1) * sizeof *g->idx);
    g->p = sk_malloc((size_t)(3 * n + 3) * sizeof *g->p);
    return g->cstart && g->rstart && g->rsub && g->idx && g->p ? 0 : -1;
}

/* Points into coarse cells by a counting sort (as a plain cell list), then
 * each coarse cell's few points by sub-cell; runs are the sub-cells. */
static int sort_points(const fof_grid *g, int64_t n, const double *const xyz[3], double box,
                       fof_rec *rec)
{
    int64_t ncell = g->ng * g->ng * g->ng, side = g->ng * g->s;
    uint64_t s3 = (uint64_t)(g->s * g->s * g->s);
    int64_t *at = sk_calloc((size_t)ncell + 1, sizeof *at);
    if (!at)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        int32_t sub[3];
        for (int d = 0; d < 3; d++)
            sub[d] = (int32_t)cell_of(wrap(xyz[d][i], box), box, side);
        uint64_t key = point_key(g, sub);
        at[key / s3 + 1]++;
        rec[n + i] = (fof_rec){key, i}; /* the second half holds them unsorted */
    }
    for (int64_t c = 0; c < ncell; c++)
        at[c + 1] += at[c];
    for (int64_t i = 0; i < n; i++)
        rec[at[rec[n + i].key / s3]++] = rec[n + i];
    /* at[c] is now the end of cell c: sort within each cell */
    for (int64_t c = 0, from = 0; c < ncell; from = at[c++])
        if (at[c] - from > 1)
            qsort(rec + from, (size_t)(at[c] - from), sizeof *rec, rec_cmp);
    sk_free(at);
    return 0;
}

static int grid_build(fof_grid *g, int64_t n, const double *const xyz[3], double box, double b)
{
    memset(g, 0, sizeof *g);
    g->ng = grid_side(n, box, b);
    /* sub-cells: edge box / (ng s) with sqrt(3) x edge below b */
    double s = floor(sqrt(3.0) * box / ((double)g->ng * b)) + 1;
    g->s = s > FOF_MAX_SUB ? FOF_MAX_SUB : (int64_t)s;
    g->w = box / (double)(g->ng * g->s);
    g->whole = sqrt(3.0) * g->w < b;
    fof_rec *rec = sk_malloc((size_t)(2 * n + 1) * sizeof *rec);
    if (!rec || grid_alloc(g, n) || sort_points(g, n, xyz, box, rec)) {
        sk_free(rec);
        return -1;
    }
    int64_t side = g->ng * g->s;
    uint64_t s3 = (uint64_t)(g->s * g->s * g->s);
    for (int64_t k = 0; k < n; k++) {
        int64_t i = rec[k].i;
        if (k == 0 || rec[k].key != rec[k - 1].key) {
            int64_t r = g->nruns++;
            g->rstart[r] = k;
            g->cstart[rec[k].key / s3 + 1]++;
            for (int d = 0; d < 3; d++)
                g->rsub[3 * r + d] = (int32_t)cell_of(wrap(xyz[d][i], box), box, side);
        }
        g->idx[k] = i;
        for (int d = 0; d < 3; d++)
            g->p[3 * k + d] = wrap(xyz[d][i], box);
    }
    g->rstart[g->nruns] = n;
    for (int64_t c = 0; c < g->ng * g->ng * g->ng; c++)
        g->cstart[c + 1] += g->cstart[c];
    sk_free(rec);
    return 0;
}

static void grid_free(fof_grid *g)
{
    sk_free(g->cstart);
    sk_free(g->rstart);
    sk_free(g->rsub);
    sk_free(g->idx);
    sk_free(g->p);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct coarse cells around cell c (itself included): fewer than
 * 27 when the grid has fewer than 3 cells a side. */
static int around(const fof_grid *g, int64_t c, int64_t out[27])
{
    int64_t ng = g->ng, cz = c % ng, cy = c / ng % ng, cx = c / (ng * ng);
    int n = 0;
    for (int a = -1; a <= 1; a++)
        for (int b = -1; b <= 1; b++)
            for (int d = -1; d <= 1; d++)
                out[n++] = ((cx + a + ng) % ng * ng + (cy + b + ng) % ng) * ng +
                           (cz + d + ng) % ng;
    if (ng >= 3)
        return n; /* all distinct */
    qsort(out, 27, sizeof *out, cmp_i64);
    int m = 0;
    for (int k = 0; k < n; k++)
        if (m == 0 || out[k] != out[m - 1])
            out[m++] = out[k];
    return m;
}

static double dist2(const double *a, const double *b, double box)
{
    double s = 0;
    for (int d = 0; d < 3; d++) {
        double q = fabs(a[d] - b[d]); /* both in [0, box) */
        q = q > 0.5 * box ? box - q : q;
        s += q * q;
    }
    return s;
}

/* The smallest distance squared between the boxes of two sub-cells
 * (periodic, from their nearest-image offset). */
static double gap2(const fof_grid *g, int64_t r, int64_t e)
{
    int64_t side = g->ng * g->s;
    double s = 0;
    for (int d = 0; d < 3; d++) {
        int64_t q = llabs((int64_t)g->rsub[3 * r + d] - g->rsub[3 * e + d]);
        q = q > side - q ? side - q : q;
        double gap = (double)(q > 0 ? q - 1 : 0) * g->w;
        s += gap * gap;
    }
    return s;
}

/* Unite the friends between runs r and e (r != e). When each run is one
 * group already (whole), one friendly pair joins them: stop there, and
 * skip runs found joined. */
static void link_runs(const fof_grid *g, int64_t r, int64_t e, double box, double b2,
                      int64_t *parent)
{
    if (gap2(g, r, e) > b2)
        return;
    if (g->whole && cl_uf_find(parent, g->idx[g->rstart[r]]) ==
                        cl_uf_find(parent, g->idx[g->rstart[e]]))
        return;
    for (int64_t s = g->rstart[r]; s < g->rstart[r + 1]; s++)
        for (int64_t t = g->rstart[e]; t < g->rstart[e + 1]; t++)
            if (dist2(g->p + 3 * s, g->p + 3 * t, box) <= b2) {
                cl_uf_unite(parent, g->idx[s], g->idx[t]);
                if (g->whole)
                    return;
            }
}

/* Within a run: all friends when the sub-cell's diagonal is below b. */
static void link_inside(const fof_grid *g, int64_t r, double box, double b2, int64_t *parent)
{
    for (int64_t s = g->rstart[r]; s < g->rstart[r + 1]; s++) {
        if (g->whole) {
            cl_uf_unite(parent, g->idx[g->rstart[r]], g->idx[s]);
            continue;
        }
        for (int64_t t = s + 1; t < g->rstart[r + 1]; t++)
            if (dist2(g->p + 3 * s, g->p + 3 * t, box) <= b2)
                cl_uf_unite(parent, g->idx[s], g->idx[t]);
    }
}

/* Every run of coarse cell c against itself, the later runs of c, and the
 * runs of the adjacent coarse cells numbered above c (each pair once). */
static void link_cell(const fof_grid *g, int64_t c, double box, double b2, int64_t *parent)
{
    int64_t nb[27];
    int m = around(g, c, nb);
    for (int64_t r = g->cstart[c]; r < g->cstart[c + 1]; r++) {
        link_inside(g, r, box, b2, parent);
        for (int k = 0; k < m; k++) {
            if (nb[k] < c)
                continue;
            for (int64_t e = nb[k] == c ? r + 1 : g->cstart[nb[k]]; e < g->cstart[nb[k] + 1]; e++)
                link_runs(g, r, e, box, b2, parent);
        }
    }
}

int cl_fof(int64_t n, const double *const xyz[3], double box, double b, int threads,
           int64_t *label, sk_error *err)
{
    if (!(b > 0) || !(box > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: fof needs a positive linking length (b = %g) and box (%g)", b,
                       box);
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++)
            if (!isfinite(xyz[d][i]))
                return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                               "clumps: point %lld has a non-finite position",
                               (long long)i);
    fof_grid g;
    if (grid_build(&g, n, xyz, box, b)) {
        grid_free(&g);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the fof grid");
    }
    for (int64_t i = 0; i < n; i++)
        label[i] = i;
    int64_t ncell = g.ng * g.ng * g.ng;
    double b2 = b * b;
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
    for (int64_t c = 0; c < ncell; c++)
        if (g.cstart[c] < g.cstart[c + 1])
            link_cell(&g, c, box, b2, label);
    for (int64_t i = 0; i < n; i++)
        label[i] = cl_uf_find(label, i);
    grid_free(&g);
    return SK_OK;
}

int cl_linking_length(const sk_table *t, const sk_clumps_options *o, int64_t n, double *b,
                      sk_error *err)
{
    const char *unit = o->length_unit && *o->length_unit ? o->length_unit : "mean-sep";
    double ll = o->linking_length, box = sk_table_meta_double(t, "boxlen", 1.0);
    if (!(ll > 0) || !isfinite(ll))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the linking length must be positive (%g)", ll);
    if (!strcmp(unit, "mean-sep")) {
        /* The mean separation of the points linked: boxlen / N^(1/3). */
        *b = ll * box / cbrt((double)(n > 0 ? n : 1));
        return SK_OK;
    }
    if (!strcmp(unit, "code")) {
        *b = ll;
        return SK_OK;
    }
    sk_units u;
    sk_units_from_table(&u, t);
    double cm;
    int rc = sk_length_unit_cm_at(&u, unit, &cm, err);
    if (rc != SK_OK)
        return rc;
    *b = ll * cm / u.unit_l;
    return SK_OK;
}

int cl_find_fof_cells(const cl_cells *c, double box, double b, int64_t *label, sk_error *err)
{
    double *p = sk_malloc((size_t)(3 * c->n + 3) * sizeof *p);
    if (!p)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for cell centres");
    const double *xyz[3] = {p, p + c->n, p + 2 * c->n};
    for (int64_t i = 0; i < c->n; i++) {
        cl_key k = c->key[i];
        p[i] = ldexp(k.x + 0.5, -k.level) * box;
        p[c->n + i] = ldexp(k.y + 0.5, -k.level) * box;
        p[2 * c->n + i] = ldexp(k.z + 0.5, -k.level) * box;
    }
    int rc = cl_fof(c->n, xyz, box, b, c->threads, label, err);
    sk_free(p);
    return rc;
}
