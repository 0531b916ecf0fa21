/* HDF5 files written whole or not at all (snapkit/h5export.h): HDF5
 * writes into sk_atomic's temporary file, and the file is renamed into
 * place once HDF5 has closed it. */
#include "export/h5export_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "snapkit/memory.h"

static const struct {
    const char *ext;
    sk_h5_format format;
} k_extensions[] = {{".h5", SK_H5_TABLES}, {".hdf5", SK_H5_TABLES}, {".vtkhdf", SK_H5_VTKHDF}};

int sk_h5_format_of(const char *path, sk_h5_format *out, sk_error *err)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof k_extensions / sizeof k_extensions[0]; i++) {
        size_t m = strlen(k_extensions[i].ext);
        if (n > m && !strcasecmp(path + n - m, k_extensions[i].ext)) {
            *out = k_extensions[i].format;
            return SK_OK;
        }
    }
    return sk_fail(err, SK_ERR_ARG, path, -1,
                   "unknown output format: the name must end in .h5 or .hdf5 (HDF5 tables) or "
                   ".vtkhdf (VTK, for ParaView)");
}

void sk_h5_options_init(sk_h5_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->gzip = 4;
    opt->chunk_rows = 65536;
    opt->fsync = 1;
}

/* HDF5 opens files by name (and resolves it: an unnamed file's /proc
 * link will not do), so the temporary file gets one. */
static int open_hdf5(sk_h5_file *f, sk_error *err)
{
    const char *name;
    int rc = atomic_name(f->atomic, &name, err);
    if (rc != SK_OK)
        return rc;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* The file is ours alone: no lock (some filesystems refuse them). */
    if (fapl >= 0 && H5Pset_file_locking(fapl, 0, 1) >= 0)
        f->file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f->file < 0)
        h5lib_keep();
    if (fapl >= 0)
        H5Pclose(fapl);
    if (f->file < 0)
        return h5lib_fail(err, f->path, "cannot create the HDF5 file");
    return SK_OK;
}

int sk_h5_create(sk_h5_file **out, const char *path, sk_h5_format format,
                 const sk_h5_options *opt, sk_error *err)
{
    *out = NULL;
    sk_h5_options o;
    if (opt)
        o = *opt;
    else
        sk_h5_options_init(&o);
    if (o.gzip < 0 || o.gzip > 9 || o.chunk_rows < 1)
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "the deflate level must be 0..9 and the chunk rows positive (%d, %lld)",
                       o.gzip, (long long)o.chunk_rows);
    if (format != SK_H5_TABLES && format != SK_H5_VTKHDF)
        return sk_fail(err, SK_ERR_ARG, path, -1, "unknown HDF5 format %d", (int)format);
    int rc = h5lib_load(path, err);
    if (rc != SK_OK)
        return rc;
    sk_h5_file *f = sk_calloc(1, sizeof *f);
    if (!f || !(f->path = sk_strdup(path))) {
        sk_free(f);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    f->format = format;
    f->opt = o;
    f->file = -1;
    rc = sk_atomic_open(&f->atomic, path, err);
    if (rc == SK_OK) {
        sk_atomic_set_fsync(f->atomic, o.fsync);
        rc = open_hdf5(f, err);
    }
    if (rc != SK_OK) {
        sk_h5_abort(f);
        return rc;
    }
    *out = f;
    return SK_OK;
}

int sk_h5_set_attribute(sk_h5_file *f, const char *key, const char *value, sk_error *err)
{
    int rc = h5lib_load(f->path, err);
    if (rc == SK_OK && h5x_attr_string(f->file, key, value) < 0)
        rc = h5lib_fail(err, f->path, "cannot write the file's attributes");
    return rc;
}

int64_t sk_h5_rows(const sk_h5_file *f)
{
    return f->rows + (f->current ? f->current->rows : 0);
}

void h5_component_free(h5_component *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ncols; i++) {
        if (c->cols[i].dset >= 0)
            H5Dclose(c->cols[i].dset);
        h5s_free(&c->cols[i]);
        sk_free(c->names[i]);
    }
    for (int k = 0; k < 4; k++) {
        if (c->grid[k].dset >= 0)
            H5Dclose(c->grid[k].dset);
        h5s_free(&c->grid[k]);
    }
    if (c->data >= 0)
        H5Gclose(c->data);
    if (c->group >= 0)
        H5Gclose(c->group);
    sk_free(c->names);
    sk_free(c->cols);
    sk_free(c->scratch);
    sk_free(c);
}

/* Finish the current component (its counts and attributes). */
static int finish_current(sk_h5_file *f, sk_error *err)
{
    h5_component *c = f->current;
    if (!c)
        return SK_OK;
    int rc = SK_OK;
    if (!c->begun)
        rc = sk_fail(err, SK_ERR_ARG, f->path, -1,
                     "the component %s was never streamed into the file", c->name);
    else if (f->format == SK_H5_VTKHDF)
        rc = h5_vtk_finish(c, err);
    else
        rc = h5_table_finish(c, err);
    f->rows += c->rows;
    h5_component_free(c);
    f->current = NULL;
    return rc;
}

int sk_h5_component(sk_h5_file *f, const char *component, sk_consumer *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = h5lib_load(f->path, err);
    if (rc == SK_OK)
        rc = finish_current(f, err);
    if (rc != SK_OK)
        return rc;
    if (f->format == SK_H5_VTKHDF && f->ncomponents > 0)
        return sk_fail(err, SK_ERR_ARG, f->path, -1,
                       "a .vtkhdf file holds one component (%s); write %s to a file of its own",
                       f->done[0], component);
    if (!component[0] || strlen(component) >= sizeof f->done[0] || strchr(component, '/') ||
        f->ncomponents == (int)(sizeof f->done / sizeof f->done[0]))
        return sk_fail(err, SK_ERR_ARG, f->path, -1, "cannot write a component named '%s'",
                       component);
    for (int i = 0; i < f->ncomponents; i++)
        if (!strcmp(f->done[i], component))
            return sk_fail(err, SK_ERR_ARG, f->path, -1, "the component %s is given twice",
                           component);
    h5_component *c = sk_calloc(1, sizeof *c);
    if (!c)
        return sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
    c->file = f;
    snprintf(c->name, sizeof c->name, "%s", component);
    c->group = c->data = -1;
    for (int k = 0; k < 4; k++)
        c->grid[k].dset = -1;
    snprintf(f->done[f->ncomponents++], sizeof f->done[0], "%s", component);
    f->current = c;
    int vtk = f->format == SK_H5_VTKHDF;
    *out = (sk_consumer){.ctx = c,
                         .begin = vtk ? h5_vtk_begin : h5_table_begin,
                         .batch = vtk ? h5_vtk_batch : h5_table_batch,
                         .ordered = 1};
    return SK_OK;
}

int sk_h5_commit(sk_h5_file *f, sk_error *err)
{
    int rc = h5lib_load(f->path, err);
    if (rc == SK_OK)
        rc = finish_current(f, err);
    if (rc != SK_OK) {
        sk_h5_abort(f);
        return rc;
    }
    herr_t closed = H5Fclose(f->file);
    f->file = -1;
    if (closed < 0) {
        rc = h5lib_fail(err, f->path, "cannot close the HDF5 file");
        sk_h5_abort(f);
        return rc;
    }
    rc = sk_atomic_commit(f->atomic, err);
    f->atomic = NULL;
    sk_h5_abort(f);
    return rc;
}

void sk_h5_abort(sk_h5_file *f)
{
    if (!f)
        return;
    h5_component_free(f->current);
    if (f->file >= 0) {
        H5Fclose(f->file);
        H5Eclear2(H5E_DEFAULT);
    }
    sk_atomic_abort(f->atomic);
    sk_free(f->path);
    sk_free(f);
}

int h5x_fail(h5_component *c, const char *what, const char *name, sk_error *err)
{
    char text[256];
    snprintf(text, sizeof text, "cannot write %s%s%s of %s", what, name ? " " : "",
             name ? name : "", c->name);
    return h5lib_fail(err, c->file->path, text);
}

void *h5x_scratch(h5_component *c, size_t n)
{
    if (n <= c->scratch_bytes)
        return c->scratch;
    void *p = sk_realloc(c->scratch, n);
    if (!p)
        return NULL;
    c->scratch = p;
    c->scratch_bytes = n;
    return p;
}

int h5x_take_columns(h5_component *c, const sk_table *schema, sk_error *err)
{
    int n = sk_table_ncols(schema);
    c->names = sk_calloc((size_t)n + 1, sizeof *c->names);
    c->cols = sk_calloc((size_t)n + 1, sizeof *c->cols);
    if (!c->names || !c->cols)
        return sk_fail(err, SK_ERR_NOMEM, c->file->path, -1, "out of memory");
    for (int i = 0; i < n; i++) {
        c->cols[i].dset = -1;
        if (!(c->names[i] = sk_strdup(sk_table_col(schema, i)->name)))
            return sk_fail(err, SK_ERR_NOMEM, c->file->path, -1, "out of memory");
        c->ncols = i + 1;
    }
    return SK_OK;
}
