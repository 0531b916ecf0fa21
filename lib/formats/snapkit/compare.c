/* Comparing two tables as sets of rows, bit for bit. Readers return rows in
 * different orders (RAMSES per CPU file, the compact file along the curve),
 * so both sides are sorted into one canonical order first: cells by
 * (level, cx, cy, cz), which is unique, then every column by its bits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/util/number.h"
#include "snapkit/store.h"

typedef struct order_ctx {
    const sk_table *t;
    int key[4];
    int nkey;
} order_ctx;

static uint64_t bits_at(const sk_column *c, int64_t i)
{
    size_t size = sk_dtype_size(c->type);
    uint64_t v = 0;
    memcpy(&v, (const uint8_t *)c->data + (size_t)i * size, size);
    return v;
}

static int compare_rows(const void *pa, const void *pb, void *arg)
{
    const order_ctx *o = arg;
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    for (int k = 0; k < o->nkey; k++) {
        const int32_t *v = sk_table_col(o->t, o->key[k])->data;
        if (v[a] != v[b])
            return v[a] < v[b] ? -1 : 1;
    }
    for (int j = 0; j < sk_table_ncols(o->t); j++) {
        const sk_column *c = sk_table_col(o->t, j);
        uint64_t x = bits_at(c, a), y = bits_at(c, b);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static int64_t *canonical(const sk_table *t, order_ctx *o)
{
    int64_t n = sk_table_nrows(t);
    int64_t *perm = sk_malloc((size_t)n * sizeof *perm + 1);
    if (!perm)
        return NULL;
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    o->t = t;
    o->nkey = 0;
    static const char *const keys[4] = {"level", "cx", "cy", "cz"};
    for (int k = 0; k < 4; k++) {
        const sk_column *c = sk_table_find(t, keys[k]);
        if (!c || c->type != SK_INT32) {
            o->nkey = 0;
            break;
        }
        o->key[o->nkey++] = sk_table_index(t, keys[k]);
    }
    qsort_r(perm, (size_t)n, sizeof *perm, compare_rows, o);
    return perm;
}

static void value_text(const sk_column *c, int64_t i, char *buf, size_t n)
{
    char num[SK_NUMBER_BUFSIZE];
    if (sk_dtype_is_float(c->type)) {
        sk_format_double(sk_column_get_double(c, i), num);
        snprintf(buf, n, "%s", num);
    } else if (c->type == SK_UINT64) {
        snprintf(buf, n, "%llu", (unsigned long long)((const uint64_t *)c->data)[i]);
    } else if (c->type == SK_INT64) {
        snprintf(buf, n, "%lld", (long long)((const int64_t *)c->data)[i]);
    } else {
        snprintf(buf, n, "%.0f", sk_column_get_double(c, i));
    }
}

static void describe_row(const sk_table *t, const order_ctx *o, int64_t row, int64_t rank,
                         char *buf, size_t n)
{
    if (o->nkey == 4) {
        const int32_t *v[4];
        for (int k = 0; k < 4; k++)
            v[k] = sk_table_col(t, o->key[k])->data;
        snprintf(buf, n, "cell level %d, cx %d, cy %d, cz %d", v[0][row], v[1][row], v[2][row],
                 v[3][row]);
    } else {
        snprintf(buf, n, "row %lld in sorted order", (long long)rank);
    }
}

static int same_schema(const sk_table *a, const sk_table *b, char *why, size_t n)
{
    if (sk_table_ncols(a) != sk_table_ncols(b)) {
        snprintf(why, n, "%d columns vs %d", sk_table_ncols(a), sk_table_ncols(b));
        return 0;
    }
    for (int j = 0; j < sk_table_ncols(a); j++) {
        const sk_column *x = sk_table_col(a, j), *y = sk_table_col(b, j);
        if (strcmp(x->name, y->name) != 0 || x->type != y->type) {
            snprintf(why, n, "column %d is %s (%s) vs %s (%s)", j + 1, x->name,
                     sk_dtype_name(x->type), y->name, sk_dtype_name(y->type));
            return 0;
        }
        int labels = x->nlabels == y->nlabels;
        for (int32_t k = 0; labels && k < x->nlabels; k++)
            labels = strcmp(x->labels[k], y->labels[k]) == 0;
        if (!labels) {
            snprintf(why, n, "column %s has different labels", x->name);
            return 0;
        }
    }
    if (sk_table_nrows(a) != sk_table_nrows(b)) {
        snprintf(why, n, "%lld rows vs %lld", (long long)sk_table_nrows(a),
                 (long long)sk_table_nrows(b));
        return 0;
    }
    return 1;
}

static int same_values(const sk_table *a, const sk_table *b, const int64_t *pa, const int64_t *pb,
                       const order_ctx *oa, char *why, size_t n)
{
    for (int64_t r = 0; r < sk_table_nrows(a); r++) {
        for (int j = 0; j < sk_table_ncols(a); j++) {
            const sk_column *x = sk_table_col(a, j), *y = sk_table_col(b, j);
            if (bits_at(x, pa[r]) == bits_at(y, pb[r]))
                continue;
            char where[128], va[64], vb[64];
            describe_row(a, oa, pa[r], r, where, sizeof where);
            value_text(x, pa[r], va, sizeof va);
            value_text(y, pb[r], vb, sizeof vb);
            snprintf(why, n, "%s: %s is %s vs %s", where, x->name, va, vb);
            return 0;
        }
    }
    return 1;
}

int sk_tables_same_rows(const sk_table *a, const sk_table *b, int *equal, char *why,
                        size_t why_size, sk_error *err)
{
    char scratch[8];
    if (!why) {
        why = scratch;
        why_size = sizeof scratch;
    }
    why[0] = '\0';
    *equal = same_schema(a, b, why, why_size);
    if (!*equal)
        return SK_OK;
    order_ctx oa, ob;
    int64_t *pa = canonical(a, &oa), *pb = pa ? canonical(b, &ob) : NULL;
    if (!pa || !pb) {
        sk_free(pa);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory comparing tables");
    }
    *equal = same_values(a, b, pa, pb, &oa, why, why_size);
    sk_free(pa);
    sk_free(pb);
    return SK_OK;
}
