/* The cells at or above the threshold, in canonical order (sort.c), and,
 * for the finders that walk a neighbour graph, two hash tables over them:
 * the leaves themselves and every coarser cell that holds one of them (so
 * that adjacency can tell "refined" from "absent"). */
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

/* The table's rows in stretches, one per thread, for the two passes that
 * pick the cells: each stretch's cells go at its own place, in row order. */
#define MAX_SLICES 64
typedef struct cl_slices {
    int n;
    int64_t rows;
    int64_t at[MAX_SLICES + 1]; /* first cell of each stretch; at[n]: all cells */
} cl_slices;

static int64_t slice_row(const cl_slices *sl, int s)
{
    return sl->rows * s / sl->n;
}

static double field_at(const sk_column *field, const double *f, int64_t r)
{
    return f ? f[r] : sk_column_get_double(field, r);
}

/* The rows at or above the threshold: how many in each stretch, and their
 * top level; the first NaN row is an error. */
static int count_rows(const sk_table *t, const sk_column *field, double threshold,
                      const int32_t *col[4], int threads, cl_slices *sl, int *top, sk_error *err)
{
    sl->rows = sk_table_nrows(t);
    sl->n = sl->rows > 65536 ? (threads < MAX_SLICES ? threads : MAX_SLICES) : 1;
    int64_t nan_row = -1;
    int32_t most = 0;
    const double *f = field->type == SK_FLOAT64 ? field->data : NULL;
#pragma omp parallel for schedule(static, 1) num_threads(sl->n) reduction(max : most)
    for (int s = 0; s < sl->n; s++) {
        int64_t k = 0, bad = -1;
        for (int64_t r = slice_row(sl, s); r < slice_row(sl, s + 1); r++) {
            double v = field_at(field, f, r);
            if (v >= threshold) {
                k++;
                most = col[0][r] > most ? col[0][r] : most;
            } else if (isnan(v) && bad < 0) {
                bad = r;
            }
        }
        sl->at[s + 1] = k;
        if (bad >= 0) {
#pragma omp critical(cl_nan_row)
            nan_row = nan_row < 0 || bad < nan_row ? bad : nan_row;
        }
    }
    if (nan_row >= 0)
        return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                       "clumps: field '%s' is NaN at row %lld (level %d, cell %d %d %d)",
                       field->name, (long long)nan_row, col[0][nan_row], col[1][nan_row],
                       col[2][nan_row], col[3][nan_row]);
    sl->at[0] = 0;
    for (int s = 0; s < sl->n; s++)
        sl->at[s + 1] += sl->at[s];
    *top = most;
    return SK_OK;
}

static int outside(int64_t r, cl_key k, sk_error *err)
{
    return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                   "clumps: row %lld: level %d, cell %d %d %d is outside the box", (long long)r,
                   k.level, k.x, k.y, k.z);
}

static int in_box(cl_key k)
{
    int64_t side = k.level >= 0 && k.level <= CL_MAX_LEVEL ? (int64_t)1 << k.level : 0;
    return side && k.x >= 0 && k.y >= 0 && k.z >= 0 && k.x < side && k.y < side && k.z < side;
}

static int bits_for(int64_t v)
{
    int b = 1;
    while (b < 63 && ((int64_t)1 << b) <= v)
        b++;
    return b;
}

/* Cell i (i < n) is the same as cell i - 1: the error naming both rows. */
static int duplicates(const cl_cells *c, int64_t i, sk_error *err)
{
    if (i >= c->n)
        return SK_OK;
    int64_t a = c->row[i - 1], b = c->row[i];
    return sk_fail(err, SK_ERR_FORMAT, NULL, -1, "clumps: rows %lld and %lld are the same cell",
                   (long long)(a < b ? a : b), (long long)(a < b ? b : a));
}

/* The cells' keys, rows and values in canonical order into c->key, c->row
 * and c->value: packed and radix sorted (key and row in one word when they
 * fit, else two), or (levels too deep to pack) by qsort. */
static int sort_cells(cl_cells *c, const sk_column *field, double threshold, int top,
                      const int32_t *col[4], const cl_slices *sl, sk_error *err)
{
    int64_t n = c->n, bad_row = -1;
    const double *f = field->type == SK_FLOAT64 ? field->data : NULL;
    int bits = cl_pack_bits(top), keybits = 3 * bits + bits_for(top);
    int rowbits = bits_for(sl->rows), w = keybits + rowbits <= 64 ? 1 : 2;
    int lo = w == 1 ? rowbits : 0;
    uint64_t *p = bits >= 0 ? sk_malloc((size_t)(n + 1) * (size_t)w * sizeof *p) : NULL;
    cl_sortrec *rec = bits < 0 ? sk_malloc((size_t)(n + 1) * sizeof *rec) : NULL;
    if (!p && !rec)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for %lld cells",
                       (long long)n);
#pragma omp parallel for schedule(static, 1) num_threads(sl->n)
    for (int s = 0; s < sl->n; s++) {
        int64_t i = sl->at[s], bad = -1;
        for (int64_t r = slice_row(sl, s); r < slice_row(sl, s + 1); r++) {
            if (!(field_at(field, f, r) >= threshold))
                continue;
            cl_key k = {col[0][r], col[1][r], col[2][r], col[3][r]};
            if (!in_box(k) && bad < 0)
                bad = r;
            if (rec)
                rec[i] = (cl_sortrec){k, r};
            else if (w == 1)
                p[i] = (in_box(k) ? cl_pack(k, bits) : 0) << rowbits | (uint64_t)r;
            else
                p[2 * i] = in_box(k) ? cl_pack(k, bits) : 0, p[2 * i + 1] = (uint64_t)r;
            i++;
        }
        if (bad >= 0) {
#pragma omp critical(cl_bad_row)
            bad_row = bad_row < 0 || bad < bad_row ? bad : bad_row;
        }
    }
    if (bad_row >= 0) {
        sk_free(p);
        sk_free(rec);
        return outside(bad_row, (cl_key){col[0][bad_row], col[1][bad_row], col[2][bad_row],
                                         col[3][bad_row]}, err);
    }
    int64_t dup = n; /* the first cell equal to the one before, if any */
    if (rec) {
        qsort(rec, (size_t)n, sizeof *rec, rec_cmp);
        for (int64_t i = 0; i < n; i++) {
            c->key[i] = rec[i].key;
            c->row[i] = rec[i].row;
            c->value[i] = field_at(field, f, rec[i].row);
            if (i && dup == n && !key_cmp(&rec[i].key, &rec[i - 1].key))
                dup = i;
        }
        sk_free(rec);
        return duplicates(c, dup, err);
    }
    if (cl_radix_sort(&p, n, w, lo, lo + keybits, c->threads)) {
        sk_free(p);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for %lld cells",
                       (long long)n);
    }
    uint64_t rowmask = ((uint64_t)1 << rowbits) - 1;
#pragma omp parallel for schedule(dynamic, 16384) num_threads(c->threads) reduction(min : dup)
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = w == 1 ? p[i] >> rowbits : p[2 * i];
        c->key[i] = cl_unpack(k, bits);
        c->row[i] = (int64_t)(w == 1 ? p[i] & rowmask : p[2 * i + 1]);
        if (f && i + 16 < n) /* rows in file order: far apart */
            __builtin_prefetch(f + (w == 1 ? p[i + 16] & rowmask : p[2 * (i + 16) + 1]));
        c->value[i] = field_at(field, f, c->row[i]);
        if (i && k == (w == 1 ? p[i - 1] >> rowbits : p[2 * (i - 1)]) && i < dup)
            dup = i;
    }
    sk_free(p);
    return duplicates(c, dup, err);
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
    int top = 0;
    cl_slices sl;
    int rc = count_rows(t, field, threshold, col, threads, &sl, &top, err);
    if (rc != SK_OK)
        return rc;
    int64_t n = c->n = sl.at[sl.n];
    c->row = sk_malloc((size_t)(n ? n : 1) * sizeof *c->row);
    c->key = sk_malloc((size_t)(n ? n : 1) * sizeof *c->key);
    c->value = sk_malloc((size_t)(n ? n : 1) * sizeof *c->value);
    if (!c->row || !c->key || !c->value)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for %lld cells",
                       (long long)n);
    if ((rc = sort_cells(c, field, threshold, top, col, &sl, err)) != SK_OK)
        return rc;
    /* sorted by level first */
    c->lmin = n ? c->key[0].level : CL_MAX_LEVEL;
    c->lmax = n ? c->key[n - 1].level : 0;
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
    sk_free(c->row);
    sk_free(c->key);
    sk_free(c->value);
    hash_free(&c->leaves);
    hash_free(&c->nodes);
    memset(c, 0, sizeof *c);
}
