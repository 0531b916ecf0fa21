/* The faces finder: connected components of the face-adjacency graph.
 * Linking always hangs the larger root under the smaller one, so each
 * component's label is its smallest cell index whatever the order of the
 * unions and the threads.
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
 *    This second phase runs once the first has marked which cells have a
 *    same-level cell across that face.
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

/* A walker's fingers: same level, per axis; coarser levels. */
typedef struct fingers {
    int64_t up[3], coarse[CL_MAX_LEVEL + 1];
} fingers;

static int32_t *axis(cl_key *k, int a)
{
    return a == 0 ? &k->x : a == 1 ? &k->y : &k->z;
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

/* Phase 1: cell i and the same-level cells across its upper faces. When
 * that face leaves the oct (odd coordinate), both cells have a same-level
 * cell across their oct-leaving face: marked in out[3 * cell + axis]
 * (each byte is written by one cell only, no race). */
static void link_same(const faces_ctx *x, int64_t i, fingers *f, uint8_t *out)
{
    const cl_cells *c = x->c;
    cl_key me = c->key[i];
    level_range r = x->lev[me.level];
    int32_t side_1 = (int32_t)(((int64_t)1 << me.level) - 1);
    for (int a = 0; a < 3; a++) {
        int32_t v = *axis(&me, a);
        cl_key t = me;
        *axis(&t, a) = v == side_1 ? 0 : v + 1;
        int64_t j = a == 2 && i + 1 < r.hi && c->key[i + 1].z == t.z && c->key[i + 1].y == t.y &&
                            c->key[i + 1].x == t.x
                        ? i + 1 /* the next cell, most often */
                        : seek(c->key, r, &f->up[a], t);
        if (j < 0 || j == i)
            continue;
        cl_uf_unite(x->parent, i, j);
        if (v & 1)
            out[3 * i + a] = out[3 * j + a] = 1;
    }
}

/* Phase 2: a cell with no same-level cell across an oct-leaving face and
 * the coarser leaf there, if any. */
static void link_coarser(const faces_ctx *x, int64_t i, fingers *f, const uint8_t *out)
{
    cl_key me = x->c->key[i];
    if (me.level == x->c->lmin)
        return;
    int32_t side_1 = (int32_t)(((int64_t)1 << me.level) - 1);
    for (int a = 0; a < 3; a++) {
        if (out[3 * i + a])
            continue;
        int32_t v = *axis(&me, a);
        cl_key t = me;
        if (v & 1)
            *axis(&t, a) = v == side_1 ? 0 : v + 1;
        else
            *axis(&t, a) = v == 0 ? side_1 : v - 1;
        int64_t j = coarser_leaf(x, t, f);
        if (j >= 0)
            cl_uf_unite(x->parent, i, j);
    }
}

int cl_find_faces(const cl_cells *c, int64_t *label, sk_error *err)
{
    (void)err;
    uint8_t *out = c->scratch; /* 16 bytes a cell, free once the cells are sorted */
    memset(out, 0, (size_t)c->n * 3);
    faces_ctx x = {.c = c, .parent = label};
    for (int l = 0; l <= CL_MAX_LEVEL; l++) /* sorted by level first */
        x.lev[l] = (level_range){first_of_level(c, l), first_of_level(c, l + 1)};
#pragma omp parallel for schedule(static) num_threads(c->threads)
    for (int64_t i = 0; i < c->n; i++)
        label[i] = i;
    const int64_t chunk = 4096;
    int64_t nchunks = (c->n + chunk - 1) / chunk;
    for (int phase = 0; phase < 2; phase++) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->threads)
        for (int64_t k = 0; k < nchunks; k++) {
            fingers f;
            memset(&f, 0, sizeof f);
            int64_t end = (k + 1) * chunk < c->n ? (k + 1) * chunk : c->n;
            for (int64_t i = k * chunk; i < end; i++) {
                if (phase == 0)
                    link_same(&x, i, &f, out);
                else
                    link_coarser(&x, i, &f, out);
            }
        }
    }
#pragma omp parallel for schedule(static) num_threads(c->threads)
    for (int64_t i = 0; i < c->n; i++)
        __atomic_store_n(&label[i], cl_uf_find(label, i), __ATOMIC_RELAXED);
    return SK_OK;
}
