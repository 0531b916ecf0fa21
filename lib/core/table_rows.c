/* Batch tables reused by stream stages (table_rows.h). */
#include <string.h>

#include "core/table_rows.h"

sk_table *tb_like(const sk_table *templ, int64_t nrows, sk_error *err)
{
    sk_table *t = sk_table_new(nrows);
    if (!t) {
        sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        return NULL;
    }
    for (int j = 0; j < sk_table_ncols(templ); j++) {
        const sk_column *c = sk_table_col(templ, j);
        if (!sk_table_add(t, c->name, c->type, err)) {
            sk_table_free(t);
            return NULL;
        }
    }
    return t;
}

int tb_copy_column(sk_table *out, sk_column *dst, const sk_column *src, int64_t n,
                   const double *keep, sk_error *err)
{
    if (src->type != dst->type)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "column '%s' changed type within the stream",
                       dst->name);
    size_t size = sk_dtype_size(src->type);
    if (!keep) {
        memcpy(dst->data, src->data, (size_t)n * size);
    } else {
        const char *from = src->data;
        char *to = dst->data;
        for (int64_t i = 0, k = 0; i < n; i++)
            if (keep[i] > 0)
                memcpy(to + (size_t)k++ * size, from + (size_t)i * size, size);
    }
    if (src->type != SK_CATEGORY)
        return SK_OK;
    return sk_table_set_labels(out, dst->name, (const char *const *)src->labels, src->nlabels,
                               err);
}
