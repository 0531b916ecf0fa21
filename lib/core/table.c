/* Columnar tables: an array of columns, each one sk_malloc block, plus
 * ordered string metadata. Small and linear: tables have tens of columns and
 * metadata keys, so look-ups scan. */
#include "snapkit/table.h"
#include "core/table_rows.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/util/number.h"

struct sk_table {
    int64_t nrows;
    int ncols, cap_cols;
    sk_column *cols;
    int nmeta, cap_meta;
    char **keys, **values;
};

static const struct {
    sk_dtype type;
    const char *name;
    size_t size;
} k_types[] = {
    {SK_INT8, "int8", 1},     {SK_UINT8, "uint8", 1},     {SK_INT16, "int16", 2},
    {SK_UINT16, "uint16", 2}, {SK_INT32, "int32", 4},     {SK_UINT32, "uint32", 4},
    {SK_INT64, "int64", 8},   {SK_UINT64, "uint64", 8},   {SK_FLOAT32, "float32", 4},
    {SK_FLOAT64, "float64", 8}, {SK_CATEGORY, "category", 4},
};
#define NTYPES (sizeof k_types / sizeof k_types[0])

size_t sk_dtype_size(sk_dtype type)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (k_types[i].type == type)
            return k_types[i].size;
    return 0;
}

const char *sk_dtype_name(sk_dtype type)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (k_types[i].type == type)
            return k_types[i].name;
    return "unknown";
}

sk_dtype sk_dtype_from_name(const char *name)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (strcmp(k_types[i].name, name) == 0)
            return k_types[i].type;
    return (sk_dtype)0;
}

int sk_dtype_is_integer(sk_dtype type)
{
    return type >= SK_INT8 && type <= SK_UINT64;
}

int sk_dtype_is_float(sk_dtype type)
{
    return type == SK_FLOAT32 || type == SK_FLOAT64;
}

sk_table *sk_table_new(int64_t nrows)
{
    if (nrows < 0)
        return NULL;
    sk_table *t = sk_calloc(1, sizeof *t);
    if (t)
        t->nrows = nrows;
    return t;
}

static void free_labels(sk_column *c)
{
    for (int32_t i = 0; i < c->nlabels; i++)
        sk_free(c->labels[i]);
    sk_free(c->labels);
    c->labels = NULL;
    c->nlabels = 0;
}

static void free_column(sk_column *c)
{
    sk_free(c->name);
    sk_free(c->data);
    free_labels(c);
}

void sk_table_free(sk_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->ncols; i++)
        free_column(&t->cols[i]);
    sk_free(t->cols);
    for (int i = 0; i < t->nmeta; i++) {
        sk_free(t->keys[i]);
        sk_free(t->values[i]);
    }
    sk_free(t->keys);
    sk_free(t->values);
    sk_free(t);
}

int64_t sk_table_nrows(const sk_table *t) { return t->nrows; }
int sk_table_ncols(const sk_table *t) { return t->ncols; }

sk_column *sk_table_col(const sk_table *t, int i)
{
    return (i >= 0 && i < t->ncols) ? &t->cols[i] : NULL;
}

int sk_table_index(const sk_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i].name, name) == 0)
            return i;
    return -1;
}

sk_column *sk_table_find(const sk_table *t, const char *name)
{
    return sk_table_col(t, sk_table_index(t, name));
}

int sk_table_add_owned(sk_table *t, const char *name, sk_dtype type, void *data,
                       sk_error *err)
{
    if (sk_dtype_size(type) == 0) {
        sk_free(data);
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "column %s: unknown type %d", name, (int)type);
    }
    if (sk_table_index(t, name) >= 0) {
        sk_free(data);
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "column %s is already in the table", name);
    }
    if (t->ncols == t->cap_cols) {
        int cap = t->cap_cols ? 2 * t->cap_cols : 16;
        sk_column *cols = sk_realloc(t->cols, (size_t)cap * sizeof *cols);
        if (!cols) {
            sk_free(data);
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory adding column %s", name);
        }
        t->cols = cols;
        t->cap_cols = cap;
    }
    char *copy = sk_strdup(name);
    if (!copy) {
        sk_free(data);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory adding column %s", name);
    }
    t->cols[t->ncols++] = (sk_column){.name = copy, .type = type, .data = data};
    return SK_OK;
}

void *sk_table_add(sk_table *t, const char *name, sk_dtype type, sk_error *err)
{
    size_t size = sk_dtype_size(type);
    void *data = sk_malloc((size_t)t->nrows * (size ? size : 1));
    if (!data) {
        sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column %s (%lld rows)", name,
                (long long)t->nrows);
        return NULL;
    }
    if (sk_table_add_owned(t, name, type, data, err) != SK_OK)
        return NULL;
    return data;
}

int sk_table_set_labels(sk_table *t, const char *name, const char *const *labels,
                        int32_t nlabels, sk_error *err)
{
    sk_column *c = sk_table_find(t, name);
    if (!c || c->type != SK_CATEGORY)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no category column %s", name);
    free_labels(c);
    c->labels = sk_calloc((size_t)(nlabels > 0 ? nlabels : 1), sizeof *c->labels);
    if (!c->labels)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for labels of %s", name);
    for (int32_t i = 0; i < nlabels; i++) {
        c->labels[i] = sk_strdup(labels[i]);
        if (!c->labels[i]) {
            c->nlabels = i;
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for labels of %s", name);
        }
    }
    c->nlabels = nlabels;
    return SK_OK;
}

int sk_table_remove(sk_table *t, const char *name)
{
    int i = sk_table_index(t, name);
    if (i < 0)
        return SK_ERR_ARG;
    free_column(&t->cols[i]);
    memmove(&t->cols[i], &t->cols[i + 1], (size_t)(t->ncols - i - 1) * sizeof *t->cols);
    t->ncols--;
    return SK_OK;
}

int sk_table_rename(sk_table *t, const char *from, const char *to, sk_error *err)
{
    sk_column *c = sk_table_find(t, from);
    if (!c)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no column %s", from);
    if (strcmp(from, to) == 0)
        return SK_OK;
    if (sk_table_find(t, to))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "column %s is already in the table", to);
    char *copy = sk_strdup(to);
    if (!copy)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    sk_free(c->name);
    c->name = copy;
    return SK_OK;
}

static void shrink_column(sk_column *c, int64_t nrows)
{
    size_t bytes = (size_t)nrows * sk_dtype_size(c->type);
    void *data = sk_realloc(c->data, bytes ? bytes : 1);
    if (data) /* keeping the larger block on failure is harmless */
        c->data = data;
}

int64_t sk_table_filter(sk_table *t, const uint8_t *keep)
{
    int64_t kept = 0;
    for (int64_t i = 0; i < t->nrows; i++)
        kept += keep[i] != 0;
    for (int j = 0; j < t->ncols; j++) {
        sk_column *c = &t->cols[j];
        size_t size = sk_dtype_size(c->type);
        unsigned char *d = c->data;
        int64_t w = 0;
        for (int64_t i = 0; i < t->nrows; i++) {
            if (!keep[i])
                continue;
            if (w != i)
                memcpy(d + (size_t)w * size, d + (size_t)i * size, size);
            w++;
        }
        shrink_column(c, kept);
    }
    t->nrows = kept;
    return kept;
}

int sk_table_truncate(sk_table *t, int64_t nrows, sk_error *err)
{
    if (nrows < 0 || nrows > t->nrows)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "cannot truncate %lld rows to %lld",
                       (long long)t->nrows, (long long)nrows);
    for (int j = 0; j < t->ncols; j++)
        shrink_column(&t->cols[j], nrows);
    t->nrows = nrows;
    return SK_OK;
}

int64_t sk_table_bytes(const sk_table *t)
{
    int64_t bytes = 0;
    for (int j = 0; j < t->ncols; j++)
        bytes += t->nrows * (int64_t)sk_dtype_size(t->cols[j].type);
    return bytes;
}

static int meta_index(const sk_table *t, const char *key)
{
    for (int i = 0; i < t->nmeta; i++)
        if (strcmp(t->keys[i], key) == 0)
            return i;
    return -1;
}

int sk_table_meta_set(sk_table *t, const char *key, const char *value)
{
    char *v = sk_strdup(value ? value : "");
    if (!v)
        return SK_ERR_NOMEM;
    int i = meta_index(t, key);
    if (i >= 0) {
        sk_free(t->values[i]);
        t->values[i] = v;
        return SK_OK;
    }
    if (t->nmeta == t->cap_meta) {
        int cap = t->cap_meta ? 2 * t->cap_meta : 32;
        char **k = sk_realloc(t->keys, (size_t)cap * sizeof *k);
        if (k)
            t->keys = k;
        char **vs = k ? sk_realloc(t->values, (size_t)cap * sizeof *vs) : NULL;
        if (!vs) {
            sk_free(v);
            return SK_ERR_NOMEM;
        }
        t->values = vs;
        t->cap_meta = cap;
    }
    char *k = sk_strdup(key);
    if (!k) {
        sk_free(v);
        return SK_ERR_NOMEM;
    }
    t->keys[t->nmeta] = k;
    t->values[t->nmeta] = v;
    t->nmeta++;
    return SK_OK;
}

int sk_table_meta_setf(sk_table *t, const char *key, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return sk_table_meta_set(t, key, buf);
}

int sk_table_meta_set_double(sk_table *t, const char *key, double value)
{
    char buf[SK_NUMBER_BUFSIZE];
    sk_format_double(value, buf);
    return sk_table_meta_set(t, key, buf);
}

const char *sk_table_meta_get(const sk_table *t, const char *key)
{
    int i = meta_index(t, key);
    return i >= 0 ? t->values[i] : NULL;
}

double sk_table_meta_double(const sk_table *t, const char *key, double fallback)
{
    const char *v = sk_table_meta_get(t, key);
    double out;
    const char *stop;
    if (!v || !sk_parse_double(v, v + strlen(v), &out, &stop))
        return fallback;
    return out;
}

int sk_table_meta_count(const sk_table *t) { return t->nmeta; }

const char *sk_table_meta_key(const sk_table *t, int i)
{
    return (i >= 0 && i < t->nmeta) ? t->keys[i] : NULL;
}

const char *sk_table_meta_value(const sk_table *t, int i)
{
    return (i >= 0 && i < t->nmeta) ? t->values[i] : NULL;
}

int sk_table_meta_copy(sk_table *dst, const sk_table *src)
{
    for (int i = 0; i < src->nmeta; i++) {
        int rc = sk_table_meta_set(dst, src->keys[i], src->values[i]);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

double sk_column_get_double(const sk_column *c, int64_t i)
{
    switch (c->type) {
    case SK_INT8: return ((const int8_t *)c->data)[i];
    case SK_UINT8: return ((const uint8_t *)c->data)[i];
    case SK_INT16: return ((const int16_t *)c->data)[i];
    case SK_UINT16: return ((const uint16_t *)c->data)[i];
    case SK_INT32: return ((const int32_t *)c->data)[i];
    case SK_CATEGORY: return ((const int32_t *)c->data)[i];
    case SK_UINT32: return ((const uint32_t *)c->data)[i];
    case SK_INT64: return (double)((const int64_t *)c->data)[i];
    case SK_UINT64: return (double)((const uint64_t *)c->data)[i];
    case SK_FLOAT32: return ((const float *)c->data)[i];
    case SK_FLOAT64: return ((const double *)c->data)[i];
    }
    return 0.0;
}

void tb_set_nrows(sk_table *t, int64_t nrows)
{
    t->nrows = nrows;
}
