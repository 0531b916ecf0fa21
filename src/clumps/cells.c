/* The cells at or above the threshold, in canonical order, and two hash
 * tables over them: the leaves themselves and every coarser cell that holds
 * one of them (so that adjacency can tell "refined" from "absent"). */
#include <math.h>
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

static int key_cmp(const cl_key *a, const cl_key *b)
{
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return 0;
}

typedef struct cl_sortrec {
    cl_key key;
    int64_t row;
} cl_sortrec;

static int rec_cmp(const void *pa, const void *pb)
{
    const cl_sortrec *a = pa, *b = pb;
    int c = key_cmp(&a->key, &b->key);
    return c ? c : (a->row < b->row ? -1 : a->row > b->row);
}

/* (level, x, y, z) in one 64-bit word with the same order, for levels up
 * to 19 (indices below 2^19). */
typedef struct cl_packed {
    uint64_t k;
    int64_t row;
} cl_packed;

static uint64_t pack(cl_key k)
{
    return (uint64_t)k.level << 57 | (uint64_t)k.x << 38 | (uint64_t)k.y << 19 | (uint64_t)k.z;
}

static cl_key unpack(uint64_t k)
{
    const uint64_t m = (1u << 19) - 1;
    return (cl_key){(int32_t)(k >> 57), (int32_t)(k >> 38 & m), (int32_t)(k >> 19 & m),
                    (int32_t)(k & m)};
}

/* LSD radix sort by the packed key (stable: equal keys stay in row
 * order, as rec_cmp orders them), several times faster than qsort on the
 * million cells of a large clump search. Returns -1 out of memory. */
static int radix_sort(cl_sortrec *rec, int64_t n)
{
    cl_packed *a = sk_malloc((size_t)(n + 1) * sizeof *a), *b = sk_malloc((size_t)(n + 1) * sizeof *b);
    if (!a || !b) {
        sk_free(a);
        sk_free(b);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        a[i] = (cl_packed){pack(rec[i].key), rec[i].row};
    for (int shift = 0; shift < 64; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++)
            count[(a[i].k >> shift & 255) + 1]++;
        if (count[(a[0].k >> shift & 255) + 1] == n)
            continue; /* this byte is the same everywhere */
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++)
            b[count[a[i].k >> shift & 255]++] = a[i];
        cl_packed *t = a;
        a = b;
        b = t;
    }
    for (int64_t i = 0; i < n; i++)
        rec[i] = (cl_sortrec){unpack(a[i].k), a[i].row};
    sk_free(a);
    sk_free(b);
    return 0;
}

static double value_at(const sk_column *f, int64_t r)
{
    return f->type == SK_FLOAT64 ? ((const double *)f->data)[r] : sk_column_get_double(f, r);
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

/* Collect, check and sort the cells at or above the threshold. */
static int collect(cl_cells *c, const sk_table *t, const sk_column *field, double threshold,
                   cl_sortrec **out, sk_error *err)
{
    const int32_t *lv = int_column(t, "level", err), *cx = int_column(t, "cx", err);
    const int32_t *cy = int_column(t, "cy", err), *cz = int_column(t, "cz", err);
    if (!lv || !cx || !cy || !cz)
        return SK_ERR_ARG;
    int64_t nrows = sk_table_nrows(t), n = 0;
    for (int64_t r = 0; r < nrows; r++) {
        double v = value_at(field, r);
        if (isnan(v))
            return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                           "clumps: field '%s' is NaN at row %lld (level %d, cell %d %d %d)",
                           field->name, (long long)r, lv[r], cx[r], cy[r], cz[r]);
        if (v >= threshold)
            n++;
    }
    cl_sortrec *rec = sk_malloc((size_t)(n ? n : 1) * sizeof *rec);
    if (!rec)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for %lld cells",
                       (long long)n);
    n = 0;
    int top = 0;
    for (int64_t r = 0; r < nrows; r++) {
        if (!(value_at(field, r) >= threshold))
            continue;
        int32_t l = lv[r];
        int64_t side = l >= 0 && l <= CL_MAX_LEVEL ? (int64_t)1 << l : 0;
        if (!side || cx[r] < 0 || cy[r] < 0 || cz[r] < 0 || cx[r] >= side || cy[r] >= side ||
            cz[r] >= side) {
            sk_free(rec);
            return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                           "clumps: row %lld: level %d, cell %d %d %d is outside the box",
                           (long long)r, l, cx[r], cy[r], cz[r]);
        }
        rec[n].key = (cl_key){l, cx[r], cy[r], cz[r]};
        rec[n++].row = r;
        top = l > top ? l : top;
    }
    if (n < 2 || top > 19 || radix_sort(rec, n))
        qsort(rec, (size_t)n, sizeof *rec, rec_cmp);
    for (int64_t i = 1; i < n; i++)
        if (!key_cmp(&rec[i].key, &rec[i - 1].key)) {
            int64_t a = rec[i - 1].row, b = rec[i].row;
            sk_free(rec);
            return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                           "clumps: rows %lld and %lld are the same cell", (long long)a,
                           (long long)b);
        }
    c->n = n;
    *out = rec;
    return SK_OK;
}

static int build_hashes(cl_cells *c, sk_error *err)
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

int cl_cells_build(cl_cells *c, const sk_table *t, const sk_column *field, double threshold,
                   int threads, sk_error *err)
{
    memset(c, 0, sizeof *c);
    c->threads = threads;
    cl_sortrec *rec = NULL;
    int rc = collect(c, t, field, threshold, &rec, err);
    if (rc != SK_OK)
        return rc;
    int64_t n = c->n;
    c->row = sk_malloc((size_t)(n ? n : 1) * sizeof *c->row);
    c->key = sk_malloc((size_t)(n ? n : 1) * sizeof *c->key);
    c->value = sk_malloc((size_t)(n ? n : 1) * sizeof *c->value);
    if (!c->row || !c->key || !c->value) {
        sk_free(rec);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for %lld cells",
                       (long long)n);
    }
    c->lmin = CL_MAX_LEVEL;
    c->lmax = 0;
    for (int64_t i = 0; i < n; i++) {
        c->row[i] = rec[i].row;
        c->key[i] = rec[i].key;
        c->value[i] = value_at(field, rec[i].row);
        if (rec[i].key.level < c->lmin)
            c->lmin = rec[i].key.level;
        if (rec[i].key.level > c->lmax)
            c->lmax = rec[i].key.level;
    }
    sk_free(rec);
    return build_hashes(c, err);
}

void cl_cells_free(cl_cells *c)
{
    sk_free(c->row);
    sk_free(c->key);
    sk_free(c->value);
    hash_free(&c->leaves);
    hash_free(&c->nodes);
    memset(c, 0, sizeof *c);
}
