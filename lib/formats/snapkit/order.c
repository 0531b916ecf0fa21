/* File order. Rows are sorted by the Hilbert key of their position on the
 * finest grid: a cell at level l < L covers the key range that starts at its
 * own level-l key shifted by 3 (L - l) bits, so leaves of every level
 * interleave along one curve and each chunk is a compact piece of space.
 * Hilbert rather than Morton: consecutive Hilbert keys are always face
 * neighbours, so chunk bounding boxes are tighter and a region meets fewer
 * chunks, and it is RAMSES's own domain order. */
#include "formats/snapkit/order.h"

#include <stdio.h>
#include <string.h>

#include "snapkit/util/hilbert.h"
#include "snapkit/memory.h"
#include "snapkit/store.h"
#include "formats/snapkit/format.h"

static int int32_col(const sk_table *t, const char *name)
{
    int i = sk_table_index(t, name);
    return i >= 0 && sk_table_col(t, i)->type == SK_INT32 ? i : -1;
}

static int float_col(const sk_table *t, const char *name)
{
    int i = sk_table_index(t, name);
    return i >= 0 && sk_dtype_is_float(sk_table_col(t, i)->type) ? i : -1;
}

int st_point_columns(const sk_table *t, int idx[3])
{
    static const char *const fallback[3] = {"position_x", "position_y", "position_z"};
    const char *list = sk_table_meta_get(t, "position_columns");
    for (int a = 0; a < 3; a++) {
        char name[256];
        const char *comma = list ? strchr(list, ',') : NULL;
        size_t n = list ? (comma ? (size_t)(comma - list) : strlen(list)) : 0;
        if (list && n < sizeof name) {
            memcpy(name, list, n);
            name[n] = '\0';
            list = comma ? comma + 1 : list + n;
        } else {
            snprintf(name, sizeof name, "%s", list ? "" : fallback[a]);
        }
        idx[a] = float_col(t, name);
    }
    return idx[0] >= 0 && idx[1] >= 0 && idx[2] >= 0;
}

int st_cell_dims(const sk_table *t)
{
    if (int32_col(t, "level") < 0 || int32_col(t, "cx") < 0)
        return 0;
    int cy = int32_col(t, "cy") >= 0, cz = int32_col(t, "cz") >= 0;
    if (cy && cz)
        return 3;
    double ndim = sk_table_meta_double(t, "ndim", 3.0);
    if (cy && !cz && ndim == 2.0)
        return 2;
    if (!cy && !cz && ndim == 1.0)
        return 1;
    return 0;
}

void st_geometry_detect(const sk_table *t, st_geometry *g)
{
    memset(g, 0, sizeof *g);
    g->kind = SK_STORE_ROWS;
    g->refined = -1;
    g->level = int32_col(t, "level");
    g->cx = int32_col(t, "cx");
    g->cy = int32_col(t, "cy");
    g->cz = int32_col(t, "cz");
    int points = st_point_columns(t, g->pos);
    g->boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    if (!(g->boxlen > 0))
        g->boxlen = 1.0;
    g->dims = st_cell_dims(t);
    if (g->dims) {
        g->kind = SK_STORE_CELLS;
        int r = sk_table_index(t, "refined");
        if (r >= 0 && sk_table_col(t, r)->type == SK_UINT8)
            g->refined = r;
    } else if (points) {
        g->kind = SK_STORE_POINTS;
    }
}

void st_order_free(st_order *o)
{
    sk_free(o->perm);
    sk_free(o->start);
    sk_free(o->kind);
    memset(o, 0, sizeof *o);
}

/* Stable LSD radix sort of (key, idx) by the low `bits` bits of key, 8 bits
 * a pass; passes where every key has the same digit are skipped. */
static void radix_sort(uint64_t *key, int64_t *idx, int64_t n, int bits, uint64_t *tk,
                       int64_t *ti)
{
    uint64_t *k0 = key, *k1 = tk;
    int64_t *i0 = idx, *i1 = ti;
    for (int shift = 0; shift < bits; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t r = 0; r < n; r++)
            count[((k0[r] >> shift) & 0xff) + 1]++;
        int single = 0;
        for (int d = 1; d <= 256; d++)
            single |= count[d] == n;
        if (single)
            continue;
        for (int d = 1; d <= 256; d++)
            count[d] += count[d - 1];
        for (int64_t r = 0; r < n; r++) {
            int64_t at = count[(k0[r] >> shift) & 0xff]++;
            k1[at] = k0[r];
            i1[at] = i0[r];
        }
        uint64_t *kt = k0;
        k0 = k1;
        k1 = kt;
        int64_t *it = i0;
        i0 = i1;
        i1 = it;
    }
    if (k0 != key) {
        memcpy(key, k0, (size_t)n * sizeof *key);
        memcpy(idx, i0, (size_t)n * sizeof *idx);
    }
}

static uint64_t cell_key(int32_t level, uint32_t x, uint32_t y, uint32_t z, int bits)
{
    if (level <= bits)
        return sk_hilbert3d(x, y, z, level) << (3 * (bits - level));
    int drop = level - bits;
    return sk_hilbert3d(x >> drop, y >> drop, z >> drop, bits);
}

static double float_at(const sk_column *c, int64_t i)
{
    return c->type == SK_FLOAT32 ? (double)((const float *)c->data)[i]
                                 : ((const double *)c->data)[i];
}

/* Keys of the rows listed in idx[0..n). */
static int make_keys(const sk_table *t, const st_geometry *g, const int64_t *idx, int64_t n,
                     int bits, uint64_t *key, sk_error *err)
{
    if (g->kind == SK_STORE_POINTS) {
        const sk_column *p[3];
        for (int a = 0; a < 3; a++)
            p[a] = sk_table_col(t, g->pos[a]);
#pragma omp parallel for schedule(static)
        for (int64_t r = 0; r < n; r++)
            key[r] = sk_hilbert3d_point(float_at(p[0], idx[r]) / g->boxlen,
                                        float_at(p[1], idx[r]) / g->boxlen,
                                        float_at(p[2], idx[r]) / g->boxlen, bits);
        return SK_OK;
    }
    const int32_t *lv = sk_table_col(t, g->level)->data;
    const int32_t *cx = sk_table_col(t, g->cx)->data;
    const int32_t *cy = g->dims >= 2 ? sk_table_col(t, g->cy)->data : NULL;
    const int32_t *cz = g->dims == 3 ? sk_table_col(t, g->cz)->data : NULL;
    int64_t bad = -1;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < n; r++) {
        int64_t i = idx[r];
        int32_t l = lv[i];
        int64_t side = l >= 0 && l <= 31 ? (int64_t)1 << l : 0;
        /* 1-D and 2-D cells sit at index 0 of the missing axes. */
        int32_t y = cy ? cy[i] : 0, z = cz ? cz[i] : 0;
        if (cx[i] < 0 || cx[i] >= side || y < 0 || y >= side || z < 0 || z >= side) {
#pragma omp critical(st_order_bad)
            if (bad < 0 || i < bad)
                bad = i;
            key[r] = 0;
            continue;
        }
        key[r] = cell_key(l, (uint32_t)cx[i], (uint32_t)y, (uint32_t)z, bits);
    }
    if (bad >= 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "row %lld: cell level %d, cx %d, cy %d, cz %d is not a cell (indices run "
                       "0..2^level-1, levels 0..31)",
                       (long long)bad, lv[bad], cx[bad], cy ? cy[bad] : 0, cz ? cz[bad] : 0);
    return SK_OK;
}

int st_order_keys(const sk_table *t, const st_geometry *g, const int64_t *idx, int64_t n,
                  int bits, uint64_t *key, sk_error *err)
{
    return make_keys(t, g, idx, n, bits, key, err);
}

/* Sort idx[0..n) along the curve. */
static int sort_rows(const sk_table *t, const st_geometry *g, int64_t *idx, int64_t n, int bits,
                     uint64_t ends[2], sk_error *err)
{
    uint64_t *key = sk_malloc((size_t)n * sizeof *key + 1);
    uint64_t *tk = sk_malloc((size_t)n * sizeof *tk + 1);
    int64_t *ti = sk_malloc((size_t)n * sizeof *ti + 1);
    int rc = key && tk && ti ? SK_OK
                             : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory ordering %lld rows",
                                       (long long)n);
    if (rc == SK_OK)
        rc = make_keys(t, g, idx, n, bits, key, err);
    if (rc == SK_OK)
        radix_sort(key, idx, n, 3 * bits, tk, ti);
    if (rc == SK_OK && ends && n > 0) {
        ends[0] = key[0];
        ends[1] = key[n - 1];
    }
    sk_free(key);
    sk_free(tk);
    sk_free(ti);
    return rc;
}

void st_batch_order_free(st_batch_order *b)
{
    sk_free(b->idx);
    sk_free(b->ti);
    sk_free(b->key);
    sk_free(b->tk);
    memset(b, 0, sizeof *b);
}

/* Room for n rows: the buffers grow to the largest batch and stay. */
static int batch_room(st_batch_order *b, int64_t n, sk_error *err)
{
    if (n <= b->cap)
        return SK_OK;
    st_batch_order_free(b);
    size_t m = (size_t)n + 1;
    b->idx = sk_malloc(m * sizeof *b->idx);
    b->ti = sk_malloc(m * sizeof *b->ti);
    b->key = sk_malloc(m * sizeof *b->key);
    b->tk = sk_malloc(m * sizeof *b->tk);
    if (!b->idx || !b->ti || !b->key || !b->tk) {
        st_batch_order_free(b);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory ordering %lld rows",
                       (long long)n);
    }
    b->cap = n;
    return SK_OK;
}

int st_batch_order_sort(st_batch_order *b, const sk_table *t, const st_geometry *g,
                        sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    int rc = batch_room(b, n, err);
    if (rc != SK_OK)
        return rc;
    for (int64_t i = 0; i < n; i++) {
        b->idx[i] = i;
        b->key[i] = 0;
    }
    if (g->kind == SK_STORE_ROWS || n == 0)
        return SK_OK;
    int bits = SK_HILBERT_MAX_BITS;
    rc = make_keys(t, g, b->idx, n, bits, b->key, err);
    if (rc == SK_OK)
        radix_sort(b->key, b->idx, n, 3 * bits, b->tk, b->ti);
    return rc;
}

/* Stable counting sort of idx by cell level (refined cells go level by level). */
static int group_by_level(const int32_t *lv, int64_t *idx, int64_t n, sk_error *err)
{
    int64_t *tmp = sk_malloc((size_t)n * sizeof *tmp + 1);
    if (!tmp)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int64_t count[34] = {0};
    for (int64_t r = 0; r < n; r++)
        count[lv[idx[r]] + 1]++;
    for (int l = 1; l < 34; l++)
        count[l] += count[l - 1];
    for (int64_t r = 0; r < n; r++)
        tmp[count[lv[idx[r]]]++] = idx[r];
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
    sk_free(tmp);
    return SK_OK;
}

static int finest_level(const sk_table *t, const st_geometry *g)
{
    const int32_t *lv = sk_table_col(t, g->level)->data;
    int32_t top = 0;
    for (int64_t i = 0; i < sk_table_nrows(t); i++)
        if (lv[i] > top)
            top = lv[i];
    return top;
}

/* Cut file rows [from, to) of one kind into chunks of at most chunk_rows;
 * refined rows also start a chunk at every change of level. */
static void cut(st_order *o, int64_t from, int64_t to, uint8_t kind, int64_t chunk_rows,
                const int32_t *lv)
{
    int64_t begin = from;
    for (int64_t r = from; r <= to; r++) {
        int boundary = r == to || r - begin == chunk_rows ||
                       (kind == ST_KIND_REFINED && lv[o->perm[r]] != lv[o->perm[begin]]);
        if (!boundary || r == begin)
            continue;
        o->start[o->nchunks] = begin;
        o->kind[o->nchunks] = kind;
        o->nchunks++;
        begin = r;
    }
}

int st_order_plan(const sk_table *t, const st_geometry *g, int64_t chunk_rows, st_order *o,
                  sk_error *err)
{
    return st_order_plan_bits(t, g, chunk_rows, 0, o, err);
}

int st_order_plan_bits(const sk_table *t, const st_geometry *g, int64_t chunk_rows, int bits,
                       st_order *o, sk_error *err)
{
    memset(o, 0, sizeof *o);
    int64_t n = sk_table_nrows(t);
    o->nrows = n;
    o->perm = sk_malloc((size_t)n * sizeof *o->perm + 1);
    /* Refined chunks can split at every level change: at most 32 more. */
    int64_t max_chunks = n / chunk_rows + 2 + 34;
    o->start = sk_malloc((size_t)(max_chunks + 1) * sizeof *o->start);
    o->kind = sk_malloc((size_t)max_chunks);
    if (!o->perm || !o->start || !o->kind) {
        st_order_free(o);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory ordering %lld rows",
                       (long long)n);
    }
    const uint8_t *refined = g->refined >= 0 ? sk_table_col(t, g->refined)->data : NULL;
    int64_t nleaf = 0, nref = 0;
    for (int64_t i = 0; i < n; i++)
        if (!refined || !refined[i])
            o->perm[nleaf++] = i;
    for (int64_t i = 0; refined && i < n; i++)
        if (refined[i])
            o->perm[nleaf + nref++] = i;
    int rc = SK_OK;
    const int32_t *lv = g->kind == SK_STORE_CELLS ? sk_table_col(t, g->level)->data : NULL;
    if (g->kind == SK_STORE_CELLS) {
        int top = finest_level(t, g);
        o->curve_bits = top < 1 ? 1 : top > SK_HILBERT_MAX_BITS ? SK_HILBERT_MAX_BITS : top;
        if (bits > 0)
            o->curve_bits = bits;
    } else if (g->kind == SK_STORE_POINTS) {
        o->curve_bits = SK_HILBERT_MAX_BITS;
    }
    if (o->curve_bits) {
        rc = sort_rows(t, g, o->perm, nleaf, o->curve_bits, o->key_ends, err);
        if (rc == SK_OK && nref)
            rc = sort_rows(t, g, o->perm + nleaf, nref, o->curve_bits, NULL, err);
        if (rc == SK_OK && nref)
            rc = group_by_level(lv, o->perm + nleaf, nref, err);
    }
    if (rc != SK_OK) {
        st_order_free(o);
        return rc;
    }
    cut(o, 0, nleaf, ST_KIND_ROWS, chunk_rows, lv);
    cut(o, nleaf, n, ST_KIND_REFINED, chunk_rows, lv);
    o->start[o->nchunks] = n;
    return SK_OK;
}
