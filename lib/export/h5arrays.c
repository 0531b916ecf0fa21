/* Whole arrays into HDF5 files (h5arrays.h). */
#include "export/h5arrays.h"

#include <stdio.h>
#include <string.h>

#include "export/h5export_internal.h"

int64_t h5_root(const sk_h5_file *f)
{
    return f->file;
}

static int failed(sk_h5_file *f, const char *what, const char *name, sk_error *err)
{
    char text[192];
    snprintf(text, sizeof text, "cannot write %s %s", what, name);
    return h5lib_fail(err, f->path, text);
}

int h5_group(sk_h5_file *f, int64_t loc, const char *name, int64_t *out, sk_error *err)
{
    *out = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (*out < 0) {
        h5lib_keep();
        return failed(f, "the group", name, err);
    }
    return SK_OK;
}

void h5_close_group(int64_t group)
{
    if (group >= 0)
        H5Gclose(group);
}

void h5_close_dataset(int64_t dset)
{
    if (dset >= 0)
        H5Dclose(dset);
}

/* Chunks of at most 64 values along each of the last two dimensions (a
 * map's tiles) and one along the others. */
static hid_t creation(const sk_h5_file *f, int rank, const hsize_t *dims, hsize_t count)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl < 0 || count <= H5_CONTIGUOUS_MAX || f->opt.gzip == 0)
        return dcpl;
    hsize_t chunk[3];
    for (int d = 0; d < rank; d++)
        chunk[d] = d >= rank - 2 ? (dims[d] < 64 ? dims[d] : 64) : 1;
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
        H5Pset_deflate(dcpl, (unsigned)f->opt.gzip) < 0) {
        H5Pclose(dcpl);
        return -1;
    }
    return dcpl;
}

int h5_array(sk_h5_file *f, int64_t loc, const char *name, sk_dtype type, int rank,
             const int64_t *dims, const void *data, int64_t *out, sk_error *err)
{
    int rc = h5lib_load(f->path, err);
    if (rc != SK_OK)
        return rc;
    if (out)
        *out = -1;
    if (rank < 1 || rank > 3)
        return sk_fail(err, SK_ERR_ARG, f->path, -1, "%s: %d dimensions (1..3)", name, rank);
    hsize_t d[3], count = 1;
    for (int k = 0; k < rank; k++)
        count *= d[k] = (hsize_t)dims[k];
    hid_t t = h5lib_type(type);
    hid_t space = H5Screate_simple(rank, d, NULL);
    hid_t dcpl = space >= 0 ? creation(f, rank, d, count) : -1;
    hid_t dset = dcpl >= 0 && t >= 0 ? H5Dcreate2(loc, name, t, space, H5P_DEFAULT, dcpl,
                                                 H5P_DEFAULT)
                                     : -1;
    int ok = dset >= 0 && (count == 0 || H5Dwrite(dset, t, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                                 data) >= 0);
    if (!ok)
        h5lib_keep();
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (ok && out) {
        *out = dset;
        return SK_OK;
    }
    if (dset >= 0)
        H5Dclose(dset);
    return ok ? SK_OK : failed(f, "the dataset", name, err);
}

int h5_attr_text(sk_h5_file *f, int64_t obj, const char *key, const char *value, sk_error *err)
{
    return h5x_attr_string(obj, key, value) < 0 ? failed(f, "the attribute", key, err) : SK_OK;
}

int h5_attr_numbers(sk_h5_file *f, int64_t obj, const char *key, const double *values, int n,
                    sk_error *err)
{
    return h5x_attr_doubles(obj, key, values, n) < 0 ? failed(f, "the attribute", key, err)
                                                      : SK_OK;
}

int h5_attr_int(sk_h5_file *f, int64_t obj, const char *key, int64_t value, sk_error *err)
{
    return h5x_attr_int64s(obj, key, &value, 1) < 0 ? failed(f, "the attribute", key, err)
                                                     : SK_OK;
}

/* Column j of t with its unit and labels. */
static int table_column(sk_h5_file *f, const sk_table *t, int j, sk_error *err)
{
    const sk_column *c = sk_table_col(t, j);
    int64_t n = sk_table_nrows(t), dset;
    int rc = h5_array(f, h5_root(f), c->name, c->type, 1, &n, c->data, &dset, err);
    char key[160];
    snprintf(key, sizeof key, "units.%s", c->name);
    const char *unit = sk_table_meta_get(t, key);
    if (rc == SK_OK && unit)
        rc = h5_attr_text(f, dset, "unit", unit, err);
    if (rc == SK_OK && c->type == SK_CATEGORY &&
        h5x_attr_strings(dset, "labels", (const char *const *)c->labels, c->nlabels) < 0)
        rc = failed(f, "the labels of", c->name, err);
    h5_close_dataset(dset);
    return rc;
}

/* The table's metadata but the columns' units (its own "kind" as
 * "table_kind"), and kind. */
static int table_meta(sk_h5_file *f, const sk_table *t, const char *kind, sk_error *err)
{
    sk_table *meta = sk_table_new(0);
    if (!meta)
        return sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
    int rc = SK_OK;
    for (int k = 0; k < sk_table_meta_count(t) && rc == SK_OK; k++) {
        const char *key = sk_table_meta_key(t, k);
        if (!strcmp(key, "kind")) /* the root's kind is the file's */
            key = "table_kind";
        if (strncmp(key, "units.", 6) && sk_table_meta_set(meta, key, sk_table_meta_value(t, k)))
            rc = sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
    }
    if (rc == SK_OK && h5x_attr_meta(h5_root(f), meta) < 0)
        rc = failed(f, "the attributes of", "the table", err);
    sk_table_free(meta);
    return rc == SK_OK ? h5_attr_text(f, h5_root(f), "kind", kind, err) : rc;
}

int sk_h5_write_table(const char *path, const sk_table *t, const char *kind,
                      const sk_h5_options *opt, sk_error *err)
{
    sk_h5_file *f;
    int rc = sk_h5_create(&f, path, SK_H5_TABLES, opt, err);
    if (rc != SK_OK)
        return rc;
    rc = table_meta(f, t, kind ? kind : "snapkit table", err);
    for (int j = 0; j < sk_table_ncols(t) && rc == SK_OK; j++)
        rc = table_column(f, t, j, err);
    if (rc != SK_OK) {
        sk_h5_abort(f);
        return rc;
    }
    return sk_h5_commit(f, err);
}
