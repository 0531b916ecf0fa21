/* The faces finder: connected components of the face-adjacency graph.
 * Linking always hangs the larger root under the smaller one, so each
 * component's root is its smallest cell index whatever the order of the
 * unions and the threads. The forest is left as it is (parent[i] <= i):
 * the catalogue resolves it in the pass that numbers the clumps.
 *
 * No hash and no neighbour graph: the cells are sorted by (level, x, y, z),
 * so a column of one level (fixed x, y) is a stretch of cells by z, made
 * of z runs (cells one above the other), which the pick (pick.c) has
 * already linked under their first cell and listed in order (c->runs).
 * The walk goes over the runs, never the cells (on the bench's `out`,
 * 735k cells make 17k runs, 0.5 MB): the columns beside a run, (x + 1, y)
 * say, come in the same order too and are found by a finger search from
 * where the last one was, then walked over the run's z range; a coarser
 * leaf is found as the run holding it. Every contact is seen exactly once from one side:
 *  - two cells of one level: from the lower one, through its upper face:
 *    the run unites with each run of the +x and the +y column that
 *    overlaps its z range, and with the cell above its top across the
 *    periodic boundary;
 *  - a cell and a coarser one: from the finer cell, through the face that
 *    leaves its oct (the +x face when x is odd, the -x face when it is
 *    even), when no same-level cell is there: the coarser leaf, if any,
 *    is the first leaf among the ancestors of the cell across that face.
 *    Along x and y, these are the gaps of the column on that side over the
 *    run's z range; along z, the run's two ends.
 * Faces inside an oct never lead to a coarser cell (the parent there is
 * the cell's own parent, refined). */
#include <string.h>

#include "clumps_internal.h"

/* Runs of one level are c->runs[lo .. hi). */
typedef struct run_range {
    int64_t lo, hi;
} run_range;

/* Does run a end before position t, (x, y, z1) < (x, y, z) (t's level
 * being a's)? Within a column the runs are apart and in order, so the
 * first run that does not end before t holds t, or is past it. */
static int ends_before(const cl_run *a, cl_key t)
{
    if (a->x != t.x)
        return a->x < t.x;
    if (a->y != t.y)
        return a->y < t.y;
    return a->z1 < t.z;
}

/* The first run q in [r.lo, r.hi) that does not end before t, searched
 * outwards from the finger *f (the last answer, usually a step or two
 * away) by galloping, then by halves; *f is left there. */
static int64_t seek(const cl_run *run, run_range r, int64_t *f, cl_key t)
{
    int64_t p = *f < r.lo ? r.lo : (*f > r.hi ? r.hi : *f), lo, hi, step = 1;
    if (p < r.hi && ends_before(&run[p], t)) { /* forwards */
        lo = hi = p + 1;
        while (hi < r.hi && ends_before(&run[hi], t)) {
            lo = hi + 1;
            hi = p + (step <<= 1);
            hi = hi < r.hi ? hi : r.hi;
        }
    } else { /* backwards: the answer is at or before p */
        lo = hi = p;
        while (lo > r.lo && !ends_before(&run[lo - 1], t)) {
            hi = lo - 1;
            lo = p - (step <<= 1);
            lo = lo > r.lo ? lo : r.lo;
        }
    }
    while (lo < hi) { /* run[lo - 1] ends before t, run[hi] does not */
        int64_t mid = lo + (hi - lo) / 2;
        if (ends_before(&run[mid], t))
            lo = mid + 1;
        else
            hi = mid;
    }
    *f = lo;
    return lo;
}

/* The run of r holding position t, or -1. */
static int64_t holding(const cl_run *run, run_range r, int64_t *f, cl_key t)
{
    int64_t q = seek(run, r, f, t);
    return q < r.hi && run[q].x == t.x && run[q].y == t.y && run[q].z0 <= t.z ? q : -1;
}

typedef struct faces_ctx {
    const cl_run *run;
    run_range lev[CL_MAX_LEVEL + 1];
    int lmin;
    int64_t *parent;
} faces_ctx;

/* The first run of level l or above. */
static int64_t first_of_level(const cl_cells *c, int l)
{
    int64_t lo = 0, hi = c->nruns;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c->runs[mid].level < l)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A walker's fingers: same level, per axis x and y, upwards and
 * downwards, and along z for the periodic wrap; coarser levels. */
typedef struct fingers {
    int64_t up[2], down[2], wrap, coarse[CL_MAX_LEVEL + 1];
} fingers;

/* k with coordinate a (x or y) set to v, built whole: writing one field
 * of a key in memory and then reading it whole stalls the load (no
 * forwarding from a narrower store). */
static cl_key with_coord(cl_key k, int a, int32_t v)
{
    return (cl_key){k.level, a == 0 ? v : k.x, a == 1 ? v : k.y, k.z};
}

/* The run holding the leaf over the level-l position t from a coarser
 * level, or -1; *next: the first z at level l past that leaf (the
 * positions up to it have the same coarser leaf, leaves not overlapping),
 * or when none, past t's sibling in z (whose ancestors are t's). */
static int64_t coarser_leaf(const faces_ctx *x, cl_key t, fingers *f, int64_t *next)
{
    for (int up = t.level - 1; up >= x->lmin; up--) {
        int s = t.level - up;
        cl_key q = {up, t.x >> s, t.y >> s, t.z >> s};
        int64_t j = holding(x->run, x->lev[up], &f->coarse[up], q);
        if (j >= 0) {
            *next = ((int64_t)x->run[j].z1 + 1) << s;
            return j;
        }
    }
    *next = ((int64_t)(t.z >> 1) + 1) << 1;
    return -1;
}

/* Cell s's (a run's first) contacts with coarser leaves across the
 * positions t with z from z0 to z1, where no same-level cell is. */
static void coarse_span(const faces_ctx *x, int64_t s, cl_key t, int64_t z0, int64_t z1,
                        fingers *f)
{
    int64_t last = -1;
    for (int64_t z = z0, next; z <= z1; z = next) {
        int64_t k = coarser_leaf(x, (cl_key){t.level, t.x, t.y, (int32_t)z}, f, &next);
        if (k >= 0 && k != last)
            cl_uf_unite(x->parent, s, x->run[k].s);
        last = k >= 0 ? k : last;
    }
}

/* The runs of column (t.x, t.y) of level range r over z from t.z to z1:
 * when `unite`, cell s unites with each; when `gaps`, with the coarser
 * leaves across the positions where there are none. */
static void column(const faces_ctx *x, run_range r, int64_t *finger, cl_key t, int32_t z1,
                   int64_t s, int unite, int gaps, fingers *f)
{
    const cl_run *run = x->run;
    int64_t q = seek(run, r, finger, t), at = t.z;
    for (; q < r.hi && run[q].x == t.x && run[q].y == t.y && run[q].z0 <= z1; q++) {
        if (unite)
            cl_uf_unite(x->parent, s, run[q].s);
        if (gaps && run[q].z0 > at)
            coarse_span(x, s, t, at, run[q].z0 - 1, f);
        at = (int64_t)run[q].z1 + 1;
    }
    if (gaps && at <= z1)
        coarse_span(x, s, t, at, z1, f);
    *finger = q > *finger ? q - 1 : q; /* the last may reach the next run's range */
}

/* The contacts of run i (see the top). */
static void link_run(const faces_ctx *x, int64_t i, fingers *f)
{
    const cl_run *R = &x->run[i];
    cl_key k = {R->level, R->x, R->y, R->z0};
    run_range r = x->lev[k.level];
    int32_t side_1 = (int32_t)(((int64_t)1 << k.level) - 1), z1 = R->z1;
    int64_t s = R->s;
    int coarser = k.level > x->lmin;
    if (side_1 == 0)
        return; /* level 0: one cell, the whole box */
    for (int a = 0; a < 2; a++) {
        int32_t v = a == 0 ? k.x : k.y;
        column(x, r, &f->up[a], with_coord(k, a, v == side_1 ? 0 : v + 1), z1, s, 1,
               coarser && v & 1, f);
        if (coarser && !(v & 1))
            column(x, r, &f->down[a], with_coord(k, a, v == 0 ? side_1 : v - 1), z1, s, 0, 1,
                   f);
    }
    /* along z: the cell above the top across the boundary, and the ends'
     * faces that leave their octs (no same-level cell there, or the run
     * would go on) */
    cl_key top = {k.level, k.x, k.y, z1 == side_1 ? 0 : z1 + 1};
    int64_t j = z1 == side_1 ? holding(x->run, r, &f->wrap, top) : -1;
    if (j >= 0)
        cl_uf_unite(x->parent, s, x->run[j].s);
    else if (coarser && z1 & 1)
        coarse_span(x, s, top, top.z, top.z, f);
    if (coarser && !(k.z & 1)) {
        cl_key below = {k.level, k.x, k.y, k.z == 0 ? side_1 : k.z - 1};
        if (k.z != 0 || holding(x->run, r, &f->wrap, below) < 0)
            coarse_span(x, s, below, below.z, below.z, f);
    }
}

int cl_find_faces(const cl_cells *c, int64_t *label, sk_error *err)
{
    (void)err;
    faces_ctx x = {.run = c->runs, .lmin = c->lmin, .parent = label};
    for (int l = 0; l <= CL_MAX_LEVEL; l++) /* sorted by level first */
        x.lev[l] = (run_range){first_of_level(c, l), first_of_level(c, l + 1)};
    /* label is c->label: the pick left each z run under its first cell */
#pragma omp parallel num_threads(c->threads)
    {
        fingers f;
        memset(&f, 0, sizeof f);
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < c->nruns; i++)
            link_run(&x, i, &f);
    }
    return SK_OK;
}
