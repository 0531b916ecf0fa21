/* Gravitational self-energy of one clump: the exact pairwise sum (direct)
 * or a Barnes-Hut tree (monopole), both Plummer-softened:
 *   E = -G sum_{i<j} m_i m_j / sqrt(r_ij^2 + eps^2) = 1/2 sum_i m_i phi_i.
 * Both compute one partial sum per point (a row of pairs, or phi_i) in a
 * fixed order, in parallel over points, then add the partial sums in point
 * order: the same bits for any thread count. */
#include <math.h>
#include <string.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"

/* sum_{j>i} m_j / sqrt(r_ij^2 + eps^2) */
static double direct_row(int64_t n, const double *x, const double *m, double eps2, int64_t i)
{
    double s = 0;
    const double *xi = x + 3 * i;
    for (int64_t j = i + 1; j < n; j++) {
        double dx = x[3 * j] - xi[0], dy = x[3 * j + 1] - xi[1], dz = x[3 * j + 2] - xi[2];
        s += m[j] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
    }
    return m[i] * s;
}

/* An octree node: a cube (centre c, half-edge h) holding points
 * idx[start .. start+count); its mass and centre of mass; children
 * first_child .. first_child + nchild - 1, none for a leaf. */
typedef struct bh_node {
    double c[3], h, com[3], mass;
    int64_t start, count, first_child;
    int nchild;
} bh_node;

typedef struct bh_tree {
    bh_node *node;
    int64_t nnode, cap;
    int64_t *idx;
    const double *x, *m;
} bh_tree;

#define BH_LEAF 8
#define BH_DEPTH 48

static int64_t bh_add(bh_tree *t, const double c[3], double h, int64_t start, int64_t count)
{
    if (t->nnode == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 64;
        bh_node *nn = sk_realloc(t->node, (size_t)cap * sizeof *nn);
        if (!nn)
            return -1;
        t->node = nn;
        t->cap = cap;
    }
    bh_node *b = &t->node[t->nnode];
    memset(b, 0, sizeof *b);
    memcpy(b->c, c, sizeof b->c);
    b->h = h;
    b->start = start;
    b->count = count;
    double mx[3] = {0, 0, 0};
    for (int64_t a = start; a < start + count; a++) {
        int64_t i = t->idx[a];
        b->mass += t->m[i];
        for (int d = 0; d < 3; d++)
            mx[d] += t->m[i] * t->x[3 * i + d];
    }
    for (int d = 0; d < 3; d++)
        b->com[d] = b->mass > 0 ? mx[d] / b->mass : c[d];
    return t->nnode++;
}

static int octant(const double *p, const double c[3])
{
    return (p[0] >= c[0]) | (p[1] >= c[1]) << 1 | (p[2] >= c[2]) << 2;
}

/* Split node k into its non-empty octants (stable: points keep their
 * order within an octant), recursively. 0, or -1 out of memory. */
static int bh_split(bh_tree *t, int64_t k, int depth, int64_t *tmp)
{
    bh_node b = t->node[k];
    if (b.count <= BH_LEAF || depth >= BH_DEPTH)
        return 0;
    int64_t cnt[8] = {0}, off[8];
    for (int64_t a = b.start; a < b.start + b.count; a++)
        cnt[octant(t->x + 3 * t->idx[a], b.c)]++;
    off[0] = 0;
    for (int o = 1; o < 8; o++)
        off[o] = off[o - 1] + cnt[o - 1];
    for (int64_t a = b.start; a < b.start + b.count; a++)
        tmp[off[octant(t->x + 3 * t->idx[a], b.c)]++] = t->idx[a];
    memcpy(t->idx + b.start, tmp, (size_t)b.count * sizeof *tmp);
    int64_t first = -1, s = b.start;
    int nchild = 0;
    for (int o = 0; o < 8; o++) {
        if (!cnt[o])
            continue;
        double c[3], q = 0.5 * b.h;
        for (int d = 0; d < 3; d++)
            c[d] = b.c[d] + (o >> d & 1 ? q : -q);
        int64_t ch = bh_add(t, c, q, s, cnt[o]);
        if (ch < 0)
            return -1;
        first = first < 0 ? ch : first;
        nchild++;
        s += cnt[o];
    }
    t->node[k].first_child = first;
    t->node[k].nchild = nchild;
    /* children are consecutive; recurse after all are added */
    for (int a = 0; a < nchild; a++)
        if (bh_split(t, first + a, depth + 1, tmp))
            return -1;
    return 0;
}

static int bh_build(bh_tree *t, int64_t n, const double *x, const double *m)
{
    memset(t, 0, sizeof *t);
    t->x = x;
    t->m = m;
    t->idx = sk_malloc((size_t)(n + 1) * sizeof *t->idx);
    int64_t *tmp = sk_malloc((size_t)(n + 1) * sizeof *tmp);
    double lo[3] = {x[0], x[1], x[2]}, hi[3] = {x[0], x[1], x[2]}, c[3], h = 0;
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], x[3 * i + d]);
            hi[d] = fmax(hi[d], x[3 * i + d]);
        }
    for (int d = 0; d < 3; d++) {
        c[d] = 0.5 * (lo[d] + hi[d]);
        h = fmax(h, 0.5 * (hi[d] - lo[d]));
    }
    int rc = t->idx && tmp ? 0 : -1;
    for (int64_t i = 0; !rc && i < n; i++)
        t->idx[i] = i;
    /* a little wider so that no point sits on the far faces */
    if (!rc && bh_add(t, c, h * (1 + 1e-9) + 1e-300, 0, n) < 0)
        rc = -1;
    if (!rc)
        rc = bh_split(t, 0, 0, tmp);
    sk_free(tmp);
    return rc;
}

static void bh_free(bh_tree *t)
{
    sk_free(t->node);
    sk_free(t->idx);
}

/* sum over the others of m / sqrt(d^2 + eps^2) at point i: a node is
 * taken whole when its size 2h over the distance to its centre of mass is
 * below theta; leaves that are not taken whole are summed point by point.
 * An explicit stack, depth-first in child order: a fixed order per i. */
static double bh_phi(const bh_tree *t, int64_t i, double theta2, double eps2)
{
    const double *xi = t->x + 3 * i;
    int64_t stack[8 * BH_DEPTH + 8];
    int top = 0;
    double s = 0;
    stack[top++] = 0;
    while (top) {
        const bh_node *b = &t->node[stack[--top]];
        double dx = b->com[0] - xi[0], dy = b->com[1] - xi[1], dz = b->com[2] - xi[2];
        double d2 = dx * dx + dy * dy + dz * dz, size = 2 * b->h;
        int inside = fabs(xi[0] - b->c[0]) <= b->h && fabs(xi[1] - b->c[1]) <= b->h &&
                     fabs(xi[2] - b->c[2]) <= b->h;
        if (!inside && size * size < theta2 * d2) {
            s += b->mass / sqrt(d2 + eps2);
        } else if (b->nchild == 0) {
            for (int64_t a = b->start; a < b->start + b->count; a++) {
                int64_t j = t->idx[a];
                if (j == i)
                    continue;
                double ex = t->x[3 * j] - xi[0], ey = t->x[3 * j + 1] - xi[1],
                       ez = t->x[3 * j + 2] - xi[2];
                s += t->m[j] / sqrt(ex * ex + ey * ey + ez * ez + eps2);
            }
        } else {
            for (int c = b->nchild - 1; c >= 0; c--)
                stack[top++] = b->first_child + c;
        }
    }
    return s;
}

int cl_egrav(int method, int64_t n, const double *x, const double *m, double eps, double G,
             double theta, int threads, double *e)
{
    *e = 0;
    if (n < 2)
        return 0;
    double *part = sk_malloc((size_t)n * sizeof *part), eps2 = eps * eps;
    if (!part)
        return -1;
    bh_tree t;
    if (method == SK_CLUMPS_BOUND_TREE && bh_build(&t, n, x, m)) {
        bh_free(&t);
        sk_free(part);
        return -1;
    }
    if (method == SK_CLUMPS_BOUND_TREE) {
        double theta2 = theta * theta;
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads)
        for (int64_t i = 0; i < n; i++)
            part[i] = 0.5 * m[i] * bh_phi(&t, i, theta2, eps2);
        bh_free(&t);
    } else {
        /* rows shrink with i: small dynamic chunks balance them */
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
        for (int64_t i = 0; i < n; i++)
            part[i] = direct_row(n, x, m, eps2, i);
    }
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += part[i];
    sk_free(part);
    *e = -G * s;
    return 0;
}

static void set_egrav(cl_stats *s, double e)
{
    s->e_grav = e;
    s->alpha_vir = e != 0 ? 2 * s->e_kin / fabs(e) : 0;
    s->bound = s->e_kin + s->e_therm < fabs(e);
}

/* One clump, its points gathered into fresh buffers. */
static int one(int method, double theta, double G, int threads, int64_t k, int64_t n,
               cl_gather_fn gather, const void *ctx, cl_stats *s)
{
    double *x = sk_malloc((size_t)(4 * n + 4) * sizeof *x), eps = 0, e;
    if (!x)
        return -1;
    gather(ctx, k, x, x + 3 * n, &eps);
    int rc = cl_egrav(method, n, x, x + 3 * n, eps, G, theta, threads, &e);
    if (!rc)
        set_egrav(s, e);
    sk_free(x);
    return rc;
}

/* Clumps of many points use every thread each, one after the other; the
 * others run one per thread. Each clump's sum is the same either way. */
#define CL_BIG 4096

int cl_gravity(int method, double theta, double G, int threads, const int64_t *which,
               int64_t nk, const int64_t *size, cl_gather_fn gather, const void *ctx,
               cl_stats *st, sk_error *err)
{
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(| : failed)
    for (int64_t a = 0; a < nk; a++) {
        int64_t k = which[a];
        if (size[k] < CL_BIG)
            failed |= one(method, theta, G, 1, k, size[k], gather, ctx, &st[k]);
    }
    for (int64_t a = 0; !failed && a < nk; a++) {
        int64_t k = which[a];
        if (size[k] >= CL_BIG)
            failed |= one(method, theta, G, threads, k, size[k], gather, ctx, &st[k]);
    }
    return failed ? sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                            "clumps: out of memory for the gravitational energies")
                  : SK_OK;
}

void cl_meta_bound(sk_table *t, const sk_clumps_options *o)
{
    sk_table_meta_set(t, "clumps.bound", sk_clumps_bound_name(o->bound));
    if (o->bound == SK_CLUMPS_BOUND_TREE)
        sk_table_meta_set_double(t, "clumps.theta", o->theta);
    sk_table_meta_set(t, "clumps.e_grav",
                      o->bound == SK_CLUMPS_BOUND_APPROX
                          ? "approx: -3/5 G M^2 / R"
                          : o->bound == SK_CLUMPS_BOUND_DIRECT
                                ? "direct: -G sum_{i<j} m_i m_j / sqrt(r_ij^2 + eps^2)"
                                : "tree: Barnes-Hut (monopole) estimate of the direct sum");
}
