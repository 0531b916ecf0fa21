/* The cells at or above the threshold, in canonical order (pick.c), and,
 * for the finders that walk a neighbour graph, two hash tables over them:
 * the leaves themselves and every coarser cell that holds one of them (so
 * that adjacency can tell "refined" from "absent"). */
#include <stdlib.h>
#include <string.h>

#include "clumps_internal.h"
#include "snapkit/memory.h"

static uint64_t key_hash(cl_key k)
{
    uint64_t h = (uint64_t)(uint32_t)k.x | (uint64_t)(uint32_t)k.y << 32;
    h ^= ((uint64_t)(uint32_t)k.z | (uint64_t)(uint32_t)k.level << 32) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 32);
}

static int key_eq(cl_key a, cl_key b)
{
    return a.level == b.level && a.x == b.x && a.y == b.y && a.z == b.z;
}

static int hash_init(cl_hash *h, int64_t n)
{
    uint64_t cap = 16;
    while (cap < (uint64_t)n * 2)
        cap <<= 1;
    h->mask = cap - 1;
    h->keys = sk_malloc(cap * sizeof *h->keys);
    h->vals = sk_malloc(cap * sizeof *h->vals);
    if (!h->keys || !h->vals)
        return -1;
    for (uint64_t s = 0; s < cap; s++)
        h->vals[s] = -1;
    return 0;
}

static void hash_free(cl_hash *h)
{
    sk_free(h->keys);
    sk_free(h->vals);
    memset(h, 0, sizeof *h);
}

/* Insert k -> v; returns the value already there, or -1 when k was new. */
static int64_t hash_put(cl_hash *h, cl_key k, int64_t v)
{
    for (uint64_t s = key_hash(k) & h->mask;; s = (s + 1) & h->mask) {
        if (h->vals[s] < 0) {
            h->keys[s] = k;
            h->vals[s] = v;
            return -1;
        }
        if (key_eq(h->keys[s], k))
            return h->vals[s];
    }
}

int64_t cl_hash_get(const cl_hash *h, cl_key k)
{
    for (uint64_t s = key_hash(k) & h->mask;; s = (s + 1) & h->mask) {
        if (h->vals[s] < 0)
            return -1;
        if (key_eq(h->keys[s], k))
            return h->vals[s];
    }
}

static const int32_t *int_column(const sk_table *t, const char *name, sk_error *err)
{
    const sk_column *c = sk_table_find(t, name);
    if (!c || c->type != SK_INT32) {
        sk_fail(err, SK_ERR_ARG, NULL, -1,
                "clumps: the cell table has no int32 column '%s' (a hydro read gives level, cx, "
                "cy, cz)", name);
        return NULL;
    }
    return c->data;
}

const sk_column *cl_float_col(const sk_table *t, const char *name)
{
    const sk_column *col = sk_table_find(t, name);
    return col && col->type != SK_CATEGORY ? col : NULL;
}

/* The statistics' columns (cl_gathered), the velocities only all three. */
static void payload(const sk_table *t, cl_payload *pay)
{
    static const char *names[5] = {"density", "velocity_x", "velocity_y", "velocity_z",
                                   "pressure"};
    for (int k = 0; k < 5; k++)
        pay->col[k] = cl_float_col(t, names[k]);
    if (!pay->col[1] || !pay->col[2] || !pay->col[3])
        pay->col[1] = pay->col[2] = pay->col[3] = NULL;
    for (int k = 0; k < 5; k++)
        pay->f64[k] = pay->col[k] && pay->col[k]->type == SK_FLOAT64 ? pay->col[k]->data : NULL;
}

int cl_cells_build(cl_cells *c, const sk_table *t, const sk_column *field, double threshold,
                   int threads, sk_error *err)
{
    memset(c, 0, sizeof *c);
    c->threads = threads;
    const int32_t *col[4] = {int_column(t, "level", err), int_column(t, "cx", err),
                             int_column(t, "cy", err), int_column(t, "cz", err)};
    if (!col[0] || !col[1] || !col[2] || !col[3])
        return SK_ERR_ARG;
    cl_payload pay;
    payload(t, &pay);
    int rc = cl_cells_pick(c, t, field, threshold, col, &pay, err);
    if (rc != SK_OK)
        return rc;
    /* sorted by level first */
    c->lmin = c->n ? c->key[0].level : CL_MAX_LEVEL;
    c->lmax = c->n ? c->key[c->n - 1].level : 0;
    return SK_OK;
}

int cl_cells_index(cl_cells *c, sk_error *err)
{
    if (hash_init(&c->leaves, c->n) || hash_init(&c->nodes, c->n))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for the cell index");
    for (int64_t i = 0; i < c->n; i++)
        hash_put(&c->leaves, c->key[i], i);
    /* Nodes grow with the tree's depth: start from n and rehash as needed. */
    int64_t count = 0;
    for (int64_t i = 0; i < c->n; i++) {
        cl_key k = c->key[i];
        while (k.level > 0) {
            k = (cl_key){k.level - 1, k.x >> 1, k.y >> 1, k.z >> 1};
            if ((uint64_t)(count + 1) * 2 > c->nodes.mask + 1) {
                cl_hash bigger;
                if (hash_init(&bigger, (count + 1) * 2))
                    return sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                                   "clumps: out of memory for the cell index");
                for (uint64_t s = 0; s <= c->nodes.mask; s++)
                    if (c->nodes.vals[s] >= 0)
                        hash_put(&bigger, c->nodes.keys[s], c->nodes.vals[s]);
                hash_free(&c->nodes);
                c->nodes = bigger;
            }
            if (hash_put(&c->nodes, k, 0) >= 0)
                break; /* its ancestors are in already */
            count++;
        }
    }
    return SK_OK;
}

void cl_cells_free(cl_cells *c)
{
    sk_free(c->row); /* and the rest of its block (pick.c) */
    sk_free(c->runs);
    hash_free(&c->leaves);
    hash_free(&c->nodes);
    memset(c, 0, sizeof *c);
}
