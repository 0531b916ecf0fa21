/* A component as a VTK unstructured grid in the VTKHDF format, version
 * 1.0 (SK_H5_VTKHDF): cells as voxels, particles as vertices. */
#include "export/h5export_internal.h"

#include <math.h>
#include <string.h>

enum { VTK_VERTEX = 1, VTK_LINE = 3, VTK_PIXEL = 8, VTK_VOXEL = 11 };

static const char *const k_cell_columns[] = {"level", "cx", "cy", "cz"};
static const char *const k_positions[] = {"position_x", "position_y", "position_z"};

/* Is the table cells (0), particles (1), or neither (-1, err set)? */
static int table_kind(h5_component *c, const sk_table *schema, sk_error *err)
{
    const char *kind = sk_table_meta_get(schema, "kind");
    int cells = kind && !strcmp(kind, "cells"), particles = kind && !strcmp(kind, "particles");
    for (int k = 0; k <= c->ndim && cells; k++) /* level, then one index an axis */
        cells = sk_table_find(schema, k_cell_columns[k]) != NULL;
    for (int k = 0; k < 3 && particles; k++)
        particles = sk_table_find(schema, k_positions[k]) != NULL;
    if (cells || particles)
        return particles;
    sk_fail(err, SK_ERR_ARG, c->file->path, -1,
            "%s is neither cells (level, cx, cy, cz as ndim has them) nor particles (position_x, _y, _z): a "
            ".vtkhdf file holds one of those",
            c->name);
    return -1;
}

static int create_grid(h5_component *c, const sk_table *schema, sk_error *err)
{
    c->group = H5Gcreate2(c->file->file, "VTKHDF", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int64_t version[2] = {1, 0};
    if (c->group < 0 || h5x_attr_int64s(c->group, "Version", version, 2) < 0 ||
        h5x_attr_string(c->group, "Type", "UnstructuredGrid") < 0 ||
        h5x_attr_meta(c->group, schema) < 0)
        return h5x_fail(c, "the VTKHDF group", NULL, err);
    static const char *const names[4] = {"Points", "Connectivity", "Offsets", "Types"};
    const hid_t types[4] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_INT64, H5T_NATIVE_INT64,
                            H5T_NATIVE_UINT8};
    for (int k = 0; k < 4; k++)
        if (h5x_stream_dataset(c, &c->grid[k], c->group, names[k], types[k], k == 0 ? 3 : 0) < 0)
            return h5x_fail(c, "the grid's", names[k], err);
    /* the offsets begin with 0: the first cell's start */
    memset(c->grid[2].stage, 0, sizeof(int64_t));
    c->grid[2].staged = 1;
    const char *data = c->particles ? "PointData" : "CellData";
    c->data = H5Gcreate2(c->group, data, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (c->data < 0)
        return h5x_fail(c, "the group", data, err);
    return SK_OK;
}

int h5_vtk_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    h5_component *c = ctx;
    c->threads = nthreads;
    int rc = h5lib_load(c->file->path, err);
    if (rc != SK_OK)
        return rc;
    c->begun = 1;
    c->ndim = (int)sk_table_meta_double(schema, "ndim", 3);
    if (c->ndim < 1 || c->ndim > 3)
        c->ndim = 3;
    if ((c->particles = table_kind(c, schema, err)) < 0)
        return SK_ERR_ARG;
    c->corners = c->particles ? 1 : 1 << c->ndim;
    c->boxlen = sk_table_meta_double(schema, "boxlen", 1);
    if ((rc = create_grid(c, schema, err)) != SK_OK ||
        (rc = h5x_take_columns(c, schema, err)) != SK_OK)
        return rc;
    for (int i = 0; i < c->ncols; i++) {
        const sk_column *col = sk_table_col(schema, i);
        if (h5x_stream_dataset(c, &c->cols[i], c->data, col->name, h5lib_type(col->type), 0) <
                0 ||
            h5x_attr_units(c->cols[i].dset, col->name, schema) < 0)
            return h5x_fail(c, "the array", col->name, err);
    }
    return SK_OK;
}

/* The corners of each cell (2^ndim points, x varying fastest) into pts. */
static void cell_points(const h5_component *c, const sk_table *batch, double *pts)
{
    const int32_t *idx[4];
    for (int k = 0; k <= c->ndim; k++)
        idx[k] = sk_table_find(batch, k_cell_columns[k])->data;
    int64_t n = sk_table_nrows(batch);
    for (int64_t i = 0; i < n; i++) {
        double dx = ldexp(c->boxlen, -idx[0][i]);
        double lo[3] = {idx[1][i] * dx, c->ndim > 1 ? idx[2][i] * dx : 0,
                        c->ndim > 2 ? idx[3][i] * dx : 0};
        for (int k = 0; k < c->corners; k++)
            for (int a = 0; a < 3; a++)
                *pts++ = lo[a] + (a < c->ndim && (k >> a & 1) ? dx : 0);
    }
}

static void particle_points(const sk_table *batch, double *pts)
{
    int64_t n = sk_table_nrows(batch);
    for (int a = 0; a < 3; a++) {
        const sk_column *col = sk_table_find(batch, k_positions[a]);
        for (int64_t i = 0; i < n; i++)
            pts[3 * i + a] = col->type == SK_FLOAT64 ? ((const double *)col->data)[i]
                                                     : sk_column_get_double(col, i);
    }
}

/* The batch's points, connectivity, offsets and cell types. */
static int write_grid(h5_component *c, const sk_table *batch, sk_error *err)
{
    int64_t n = sk_table_nrows(batch), np = n * c->corners;
    size_t bytes = (size_t)np * (3 * sizeof(double) + sizeof(int64_t)) +
                   (size_t)n * (sizeof(int64_t) + 1);
    double *pts = h5x_scratch(c, bytes);
    if (!pts)
        return sk_fail(err, SK_ERR_NOMEM, c->file->path, -1, "out of memory");
    int64_t *conn = (int64_t *)(pts + 3 * np), *off = conn + np;
    uint8_t *types = (uint8_t *)(off + n);
    if (c->particles)
        particle_points(batch, pts);
    else
        cell_points(c, batch, pts);
    int64_t first = c->rows * c->corners;
    for (int64_t j = 0; j < np; j++)
        conn[j] = first + j;
    static const uint8_t k_type[4] = {VTK_VERTEX, VTK_LINE, VTK_PIXEL, VTK_VOXEL};
    for (int64_t i = 0; i < n; i++) {
        off[i] = first + (i + 1) * c->corners;
        types[i] = k_type[c->particles ? 0 : c->ndim];
    }
    h5_stream_col *cols[4] = {&c->grid[0], &c->grid[1], &c->grid[2], &c->grid[3]};
    const void *data[4] = {pts, conn, off, types};
    const int64_t rows[4] = {np, np, n, n};
    return h5s_append(c, cols, data, rows, 4, err);
}

int h5_vtk_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                 sk_error *err)
{
    (void)thread;
    (void)info;
    h5_component *c = ctx;
    int rc = h5lib_load(c->file->path, err);
    if (rc == SK_OK)
        rc = write_grid(c, batch, err);
    if (rc != SK_OK)
        return rc;
    if ((rc = h5x_append_columns(c, batch, err)) != SK_OK)
        return rc;
    c->rows += sk_table_nrows(batch);
    return SK_OK;
}

int h5_vtk_finish(h5_component *c, sk_error *err)
{
    for (int i = 0; i < c->ncols + 4; i++) {
        int rc = h5s_finish(c, i < 4 ? &c->grid[i] : &c->cols[i - 4], err);
        if (rc != SK_OK)
            return rc;
    }
    /* One piece: its counts. */
    const char *names[] = {"NumberOfPoints", "NumberOfCells", "NumberOfConnectivityIds"};
    int64_t counts[] = {c->rows * c->corners, c->rows, c->rows * c->corners};
    for (int k = 0; k < 3; k++) {
        hid_t d = h5x_dataset(c->file, c->group, names[k], H5T_NATIVE_INT64, 0);
        int bad = d < 0 || h5x_append(d, H5T_NATIVE_INT64, 0, 1, 0, &counts[k]) < 0;
        if (d >= 0)
            H5Dclose(d);
        if (bad)
            return h5x_fail(c, "the count", names[k], err);
    }
    return SK_OK;
}
