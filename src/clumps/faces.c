/* The faces finder: connected components of the face-adjacency graph.
 * Linking always hangs the larger root under the smaller one, so each
 * component's root is its smallest cell index whatever the order of the
 * unions and the threads. The forest is left as it is (parent[i] <= i):
 * the catalogue resolves it in the pass that numbers the clumps.
 *
 * No hash and no neighbour graph: the cells are sorted by (level, x, y, z),
 * so walking them in order, the same-level cell across a face, (x + 1, y,
 * z) say, moves forward through the level's cells too and is found by a
 * finger search from where the previous one was (usually a step or two).
 * Every contact is then seen exactly once from one side:
 *  - two cells of one level: from the lower one, through its upper face;
 *  - a cell and a coarser one: from the finer cell, through the face that
 *    leaves its oct (the +x face when x is odd, the -x face when it is
 *    even), when no same-level cell is there: the coarser leaf, if any,
 *    is the first leaf among the ancestors of the cell across that face.
 * One pass over the cells, in chunks over the threads, finds both.
 * Faces inside an oct never lead to a coarser cell (the parent there is
 * the cell's own parent, refined). */
#include <string.h>

#include "clumps_internal.h"

/* Cells of one level are c->key[lo .. hi). */
typedef struct level_range {
    int64_t lo, hi;
} level_range;

/* (x, y, z) order within a level. */
static int xyz_less(const cl_key *a, const cl_key *b)
{
    if (a->x != b->x)
        return a->x < b->x;
    if (a->y != b->y)
        return a->y < b->y;
    return a->z < b->z;
}

/* seek's search: outwards from p by galloping (a far target at a
 * logarithmic cost), then by halves. */
static int64_t gallop(const cl_key *key, level_range r, int64_t p, int64_t *f, cl_key t)
{
    int64_t lo, hi;
    if (p < r.hi && xyz_less(&key[p], &t)) { /* forwards: key[p] < t */
        int64_t step = 1;
        lo = p + 1;
        hi = p + 1;
        while (hi < r.hi && xyz_less(&key[hi], &t)) {
            lo = hi + 1;
            hi = p + (step <<= 1);
            hi = hi < r.hi ? hi : r.hi;
        }
    } else { /* backwards: the answer is at or before p */
        int64_t step = 1;
        hi = p;
        lo = p;
        while (lo > r.lo && !xyz_less(&key[lo - 1], &t)) {
            hi = lo - 1;
            lo = p - (step <<= 1);
            lo = lo > r.lo ? lo : r.lo;
        }
    }
    while (lo < hi) { /* key[lo - 1] < t <= key[hi] */
        int64_t mid = lo + (hi - lo) / 2;
        if (xyz_less(&key[mid], &t))
            lo = mid + 1;
        else
            hi = mid;
    }
    *f = lo;
    return lo < r.hi && !xyz_less(&t, &key[lo]) ? lo : -1;
}

/* First q in [r.lo, r.hi) with key[q] >= t, searching from the finger *f
 * (the last answer), then the cell there or -1. */
static inline int64_t seek(const cl_key *key, level_range r, int64_t *f, cl_key t)
{
    int64_t p = *f < r.lo ? r.lo : (*f > r.hi ? r.hi : *f);
    if (p + 1 < r.hi && key[p + 1].z == t.z && key[p + 1].y == t.y && key[p + 1].x == t.x) {
        *f = p + 1; /* one step on from the last: the usual case */
        return p + 1;
    }
    return gallop(key, r, p, f, t);
}

typedef struct faces_ctx {
    const cl_cells *c;
    level_range lev[CL_MAX_LEVEL + 1];
    int64_t *parent;
} faces_ctx;

/* The first cell of level l or above. */
static int64_t first_of_level(const cl_cells *c, int l)
{
    int64_t lo = 0, hi = c->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c->key[mid].level < l)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A walker's fingers: same level, per axis, upwards and downwards;
 * coarser levels. prev[a]: the cell found across the upper face a of the
 * cell walked last, -2 for none (so that prev[a] + 1 is never a cell). */
typedef struct fingers {
    int64_t up[3], down[3], coarse[CL_MAX_LEVEL + 1], prev[3];
} fingers;

static int32_t coord(cl_key k, int a)
{
    return a == 0 ? k.x : a == 1 ? k.y : k.z;
}

/* k with coordinate a set to v, built whole: writing one field of a key
 * in memory and then reading it whole stalls the load (no forwarding from
 * a narrower store; perf put a fifth of the walk's samples there). */
static cl_key with_coord(cl_key k, int a, int32_t v)
{
    return (cl_key){k.level, a == 0 ? v : k.x, a == 1 ? v : k.y, a == 2 ? v : k.z};
}

/* The leaf holding the level-l position k from a coarser level, or -1. */
static int64_t coarser_leaf(const faces_ctx *x, cl_key k, fingers *f)
{
    for (int up = k.level - 1; up >= x->c->lmin; up--) {
        int s = k.level - up;
        cl_key q = {up, k.x >> s, k.y >> s, k.z >> s};
        int64_t j = seek(x->c->key, x->lev[up], &f->coarse[up], q);
        if (j >= 0)
            return j;
    }
    return -1;
}

/* Is cell i the one above cell i - 1 in z (same level and column)? Then
 * (x, y, z + 1), when present, is always the cell after i in the order. */
static inline int z_next(const cl_key *key, int64_t i)
{
    return i > 0 && key[i].z == key[i - 1].z + 1 && key[i].y == key[i - 1].y &&
           key[i].x == key[i - 1].x && key[i].level == key[i - 1].level;
}

/* Cell i's contacts: the same-level cells across its three upper faces,
 * and, across each oct-leaving face (+a when the coordinate is odd, -a when
 * even) with no same-level cell there, the coarser leaf. The -a cell is
 * found by a second finger, so one pass does both. A z run (cells one
 * above the other) is linked from the start (the pick, pick.c), so the +z
 * contact inside it needs no union; nor does a +x or +y contact that
 * continues the last cell's (the cell after the one found for i - 1 is in
 * that one's run, and i - 1 is in i's). Few unions are left: where runs
 * start, wrap around the box or meet a coarser cell. */
static void link_cell(const faces_ctx *x, int64_t i, fingers *f)
{
    const cl_key *key = x->c->key;
    cl_key me = key[i];
    level_range r = x->lev[me.level];
    int32_t side_1 = (int32_t)(((int64_t)1 << me.level) - 1);
    if (side_1 == 0)
        return; /* level 0: one cell, the whole box */
    int in_run = z_next(key, i);
    for (int a = 0; a < 3; a++) {
        int32_t v = coord(me, a);
        cl_key t = with_coord(me, a, v == side_1 ? 0 : v + 1);
        int64_t j;
        if (a == 2 && v != side_1) {
            j = i + 1 < r.hi && z_next(key, i + 1) ? i + 1 : -1;
        } else {
            j = seek(key, r, &f->up[a], t);
            int64_t cont = f->prev[a] + 1; /* never a cell after none (-2) */
            if (j >= 0 && !(a < 2 && in_run && j == cont))
                cl_uf_unite(x->parent, i, j);
            f->prev[a] = j >= 0 ? j : -2;
        }
        if (me.level == x->c->lmin || (v & 1 && j >= 0))
            continue;
        if (!(v & 1)) {
            t = with_coord(me, a, v == 0 ? side_1 : v - 1);
            if (a == 2 && v != 0 ? in_run : seek(key, r, &f->down[a], t) >= 0)
                continue; /* a same-level cell, linked to i from its side */
        }
        int64_t k = coarser_leaf(x, t, f);
        if (k >= 0)
            cl_uf_unite(x->parent, i, k);
    }
}

int cl_find_faces(const cl_cells *c, int64_t *label, sk_error *err)
{
    (void)err;
    faces_ctx x = {.c = c, .parent = label};
    for (int l = 0; l <= CL_MAX_LEVEL; l++) /* sorted by level first */
        x.lev[l] = (level_range){first_of_level(c, l), first_of_level(c, l + 1)};
    const int64_t chunk = 4096;
    int64_t nchunks = (c->n + chunk - 1) / chunk;
    /* label is c->label: the pick left each z run under its first cell */
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->threads)
    for (int64_t k = 0; k < nchunks; k++) {
        fingers f;
        memset(&f, 0, sizeof f);
        f.prev[0] = f.prev[1] = -2;
        int64_t end = (k + 1) * chunk < c->n ? (k + 1) * chunk : c->n;
        for (int64_t i = k * chunk; i < end; i++)
            link_cell(&x, i, &f);
    }
    return SK_OK;
}
