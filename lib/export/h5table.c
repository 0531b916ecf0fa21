/* A component as a group of column datasets (SK_H5_TABLES). */
#include "export/h5export_internal.h"

#include <string.h>

int h5_table_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    (void)nthreads;
    h5_component *c = ctx;
    sk_h5_file *f = c->file;
    int rc = h5lib_load(f->path, err);
    if (rc != SK_OK)
        return rc;
    c->begun = 1;
    c->group = H5Gcreate2(f->file, c->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (c->group < 0 || h5x_attr_meta(c->group, schema) < 0)
        return h5x_fail(c, "the group and metadata", NULL, err);
    if ((rc = h5x_take_columns(c, schema, err)) != SK_OK)
        return rc;
    for (int i = 0; i < c->ncols; i++) {
        const sk_column *col = sk_table_col(schema, i);
        c->dsets[i] = h5x_dataset(f, c->group, col->name, h5lib_type(col->type), 0);
        if (c->dsets[i] < 0 || h5x_attr_units(c->dsets[i], col->name, schema) < 0 ||
            (col->type == SK_CATEGORY &&
             h5x_attr_strings(c->dsets[i], "labels", (const char *const *)col->labels,
                              col->nlabels) < 0))
            return h5x_fail(c, "the column", col->name, err);
    }
    return SK_OK;
}

int h5_table_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                   sk_error *err)
{
    (void)thread;
    (void)info;
    h5_component *c = ctx;
    int rc = h5lib_load(c->file->path, err);
    if (rc != SK_OK)
        return rc;
    int64_t n = sk_table_nrows(batch);
    for (int i = 0; i < c->ncols; i++) {
        const sk_column *col = sk_table_find(batch, c->names[i]);
        if (!col)
            return sk_fail(err, SK_ERR_ARG, c->file->path, -1,
                           "a batch of %s lacks the column %s", c->name, c->names[i]);
        if (h5x_append(c->dsets[i], h5lib_type(col->type), c->rows, n, 0, col->data) < 0)
            return h5x_fail(c, "the column", col->name, err);
    }
    c->rows += n;
    return SK_OK;
}

int h5_table_finish(h5_component *c, sk_error *err)
{
    if (h5x_attr_int64s(c->group, "rows", &c->rows, 1) < 0)
        return h5x_fail(c, "the row count", NULL, err);
    return SK_OK;
}
