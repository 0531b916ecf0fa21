/* A component as a group of column datasets (SK_H5_TABLES). */
#include "export/h5export_internal.h"

#include <string.h>

#include "snapkit/memory.h"

int h5_table_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    h5_component *c = ctx;
    sk_h5_file *f = c->file;
    int rc = h5lib_load(f->path, err);
    if (rc != SK_OK)
        return rc;
    c->begun = 1;
    c->threads = nthreads;
    c->group = H5Gcreate2(f->file, c->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (c->group < 0 || h5x_attr_meta(c->group, schema) < 0)
        return h5x_fail(c, "the group and metadata", NULL, err);
    if ((rc = h5x_take_columns(c, schema, err)) != SK_OK)
        return rc;
    for (int i = 0; i < c->ncols; i++) {
        const sk_column *col = sk_table_col(schema, i);
        if (h5x_stream_dataset(c, &c->cols[i], c->group, col->name, h5lib_type(col->type), 0) <
                0 ||
            h5x_attr_units(c->cols[i].dset, col->name, schema) < 0 ||
            (col->type == SK_CATEGORY &&
             h5x_attr_strings(c->cols[i].dset, "labels", (const char *const *)col->labels,
                              col->nlabels) < 0))
            return h5x_fail(c, "the column", col->name, err);
    }
    return SK_OK;
}

/* The batch's columns, in the schema's order, onto the datasets. */
int h5x_append_columns(h5_component *c, const sk_table *batch, sk_error *err)
{
    int64_t n = sk_table_nrows(batch);
    h5_stream_col **cols = sk_malloc(((size_t)c->ncols + 1) * sizeof *cols);
    const void **data = sk_malloc(((size_t)c->ncols + 1) * sizeof *data);
    int64_t *rows = sk_malloc(((size_t)c->ncols + 1) * sizeof *rows);
    int rc = cols && data && rows ? SK_OK
                                  : sk_fail(err, SK_ERR_NOMEM, c->file->path, -1, "out of memory");
    for (int i = 0; i < c->ncols && rc == SK_OK; i++) {
        const sk_column *col = sk_table_find(batch, c->names[i]);
        if (!col)
            rc = sk_fail(err, SK_ERR_ARG, c->file->path, -1, "a batch of %s lacks the column %s",
                         c->name, c->names[i]);
        else {
            cols[i] = &c->cols[i];
            data[i] = col->data;
            rows[i] = n;
        }
    }
    if (rc == SK_OK)
        rc = h5s_append(c, cols, data, rows, c->ncols, err);
    sk_free(cols);
    sk_free(data);
    sk_free(rows);
    return rc;
}

int h5_table_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                   sk_error *err)
{
    (void)thread;
    (void)info;
    h5_component *c = ctx;
    int rc = h5lib_load(c->file->path, err);
    if (rc == SK_OK)
        rc = h5x_append_columns(c, batch, err);
    if (rc == SK_OK)
        c->rows += sk_table_nrows(batch);
    return rc;
}

int h5_table_finish(h5_component *c, sk_error *err)
{
    for (int i = 0; i < c->ncols; i++) {
        int rc = h5s_finish(c, &c->cols[i], err);
        if (rc != SK_OK)
            return rc;
    }
    if (h5x_attr_int64s(c->group, "rows", &c->rows, 1) < 0)
        return h5x_fail(c, "the row count", NULL, err);
    return SK_OK;
}
