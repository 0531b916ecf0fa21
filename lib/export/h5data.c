/* Growing datasets and attributes, shared by the HDF5 table and VTKHDF
 * writers. */
#include "export/h5export_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/derive.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"

/* Chunks of at most this many bytes (h5chunks.c holds one a column while
 * it fills, and compresses a batch's chunks at once). */
#define H5X_CHUNK_BYTES (256 * 1024)

int64_t h5x_chunk_rows(const sk_h5_file *f, hid_t type, hsize_t width)
{
    int64_t row = (int64_t)(H5Tget_size(type) * (width ? width : 1));
    int64_t rows = f->opt.chunk_rows;
    if (rows * row > H5X_CHUNK_BYTES)
        rows = H5X_CHUNK_BYTES / row ? H5X_CHUNK_BYTES / row : 1;
    return rows;
}

int h5x_stream_dataset(h5_component *c, h5_stream_col *s, hid_t loc, const char *name,
                       hid_t type, hsize_t width)
{
    hid_t d = h5x_dataset(c->file, loc, name, type, width);
    if (h5s_init(s, d, type, width, h5x_chunk_rows(c->file, type, width)) < 0) {
        if (d >= 0)
            H5Dclose(d);
        return -1;
    }
    return 0;
}

hid_t h5x_dataset(const sk_h5_file *f, hid_t loc, const char *name, hid_t type, hsize_t width)
{
    int rank = width ? 2 : 1;
    hsize_t zero[2] = {0, width}, max[2] = {H5S_UNLIMITED, width};
    hsize_t chunk[2] = {(hsize_t)h5x_chunk_rows(f, type, width), width};
    hid_t space = H5Screate_simple(rank, zero, max);
    hid_t dcpl = space >= 0 ? H5Pcreate(H5P_DATASET_CREATE) : -1;
    int ok = dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
             H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0;
    if (ok && f->opt.gzip > 0)
        ok = H5Pset_shuffle(dcpl) >= 0 && H5Pset_deflate(dcpl, (unsigned)f->opt.gzip) >= 0;
    hid_t dset = ok ? H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
    if (dset < 0)
        h5lib_keep();
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return dset;
}

int h5x_append(hid_t dset, hid_t type, int64_t at, int64_t n, hsize_t width, const void *data)
{
    int rank = width ? 2 : 1;
    hsize_t size[2] = {(hsize_t)(at + n), width}, start[2] = {(hsize_t)at, 0},
            count[2] = {(hsize_t)n, width};
    if (H5Dset_extent(dset, size) < 0)
        return h5lib_keep(), -1;
    hid_t file_space = H5Dget_space(dset);
    hid_t mem_space = file_space >= 0 ? H5Screate_simple(rank, count, NULL) : -1;
    int rc = -1;
    if (mem_space >= 0 &&
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
        rc = H5Dwrite(dset, type, mem_space, file_space, H5P_DEFAULT, data) < 0 ? -1 : 0;
    if (rc < 0)
        h5lib_keep();
    if (mem_space >= 0)
        H5Sclose(mem_space);
    if (file_space >= 0)
        H5Sclose(file_space);
    return rc;
}

/* An attribute of `type` over `space`, written from data. */
static int attr_write(hid_t loc, const char *key, hid_t type, hid_t space, const void *data)
{
    if (space < 0)
        return -1;
    hid_t a = H5Acreate2(loc, key, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, type, data) >= 0 ? 0 : -1;
    if (rc < 0)
        h5lib_keep();
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc;
}

/* A fixed-length string type of n bytes (n >= 1). */
static hid_t string_type(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && H5Tset_size(t, n) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

int h5x_attr_string(hid_t loc, const char *key, const char *value)
{
    size_t n = strlen(value);
    hid_t t = string_type(n ? n : 1);
    if (t < 0)
        return -1;
    int rc = attr_write(loc, key, t, H5Screate(H5S_SCALAR), n ? value : " ");
    H5Tclose(t);
    return rc;
}

int h5x_attr_double(hid_t loc, const char *key, double value)
{
    return attr_write(loc, key, H5T_NATIVE_DOUBLE, H5Screate(H5S_SCALAR), &value);
}

int h5x_attr_doubles(hid_t loc, const char *key, const double *values, int n)
{
    hsize_t dim = (hsize_t)n;
    hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
    return attr_write(loc, key, H5T_NATIVE_DOUBLE, space, values);
}

int h5x_attr_int64s(hid_t loc, const char *key, const int64_t *values, int n)
{
    hsize_t dim = (hsize_t)n;
    hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
    return attr_write(loc, key, H5T_NATIVE_INT64, space, values);
}

int h5x_attr_strings(hid_t loc, const char *key, const char *const *values, int n)
{
    size_t width = 1;
    for (int i = 0; i < n; i++)
        if (strlen(values[i]) > width)
            width = strlen(values[i]);
    char *block = sk_calloc((size_t)(n ? n : 1), width);
    hid_t t = block ? string_type(width) : -1;
    if (t < 0) {
        sk_free(block);
        return -1;
    }
    for (int i = 0; i < n; i++)
        memcpy(block + (size_t)i * width, values[i], strlen(values[i]));
    hsize_t dim = (hsize_t)n;
    int rc = attr_write(loc, key, t, H5Screate_simple(1, &dim, NULL), block);
    H5Tclose(t);
    sk_free(block);
    return rc;
}

/* A metadata value as a number: an integer (*is_int) or a double. 0 when
 * it is text. */
static int as_number(const char *v, int *is_int, int64_t *i, double *d)
{
    if (!(*v == '-' || *v == '+' || *v == '.' || (*v >= '0' && *v <= '9')))
        return 0;
    char *end;
    errno = 0;
    *d = strtod(v, &end);
    if (*end || end == v || !isfinite(*d))
        return 0;
    *is_int = !strpbrk(v, ".eE");
    if (*is_int) {
        long long x = strtoll(v, &end, 10);
        *is_int = !*end && errno == 0;
        *i = x;
    }
    return 1;
}

int h5x_attr_meta(hid_t loc, const sk_table *table)
{
    for (int k = 0; k < sk_table_meta_count(table); k++) {
        const char *key = sk_table_meta_key(table, k), *v = sk_table_meta_value(table, k);
        int is_int = 0;
        int64_t i = 0;
        double d = 0;
        int rc = !as_number(v, &is_int, &i, &d) ? h5x_attr_string(loc, key, v)
                 : is_int                     ? h5x_attr_int64s(loc, key, &i, 1)
                                              : h5x_attr_double(loc, key, d);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The code unit of a column as read, from its name: the CGS unit and the
 * factor to it. 0 when not known. */
static int column_unit(const char *name, const sk_units *u, const char **cgs, double *factor)
{
    static const char *const velocities[] = {"velocity_x", "velocity_y", "velocity_z"};
    static const char *const positions[] = {"position_x", "position_y", "position_z"};
    for (int k = 0; k < 3; k++) {
        if (!strcmp(name, velocities[k]))
            return *cgs = "cm/s", *factor = u->unit_v, 1;
        if (!strcmp(name, positions[k]))
            return *cgs = "cm", *factor = u->unit_l, 1;
    }
    if (!strcmp(name, "density"))
        return *cgs = "g/cm3", *factor = u->unit_d, 1;
    if (!strcmp(name, "pressure"))
        return *cgs = "erg/cm3", *factor = u->unit_p, 1;
    if (!strcmp(name, "potential"))
        return *cgs = "cm2/s2", *factor = u->unit_v * u->unit_v, 1;
    if (!strncmp(name, "B_", 2) && (strstr(name, "_left") || strstr(name, "_right"))) {
        sk_error e;
        return sk_quantity_unit_factor(sk_quantity_find("B"), u, NULL, "cgs", factor, &e) ==
                   SK_OK ? (*cgs = "G", 1) : 0;
    }
    return 0;
}

int h5x_attr_units(hid_t dset, const char *column, const sk_table *schema)
{
    if (h5x_attr_string(dset, "unit", "code") < 0)
        return -1;
    sk_units u;
    sk_units_from_table(&u, schema);
    const char *cgs = NULL;
    double factor = 0;
    const sk_quantity *q = sk_quantity_find(column);
    sk_error e;
    int known = column_unit(column, &u, &cgs, &factor);
    if (!known && q && q->cgs_unit &&
        sk_quantity_unit_factor(q, &u, NULL, "cgs", &factor, &e) == SK_OK) {
        cgs = q->cgs_unit;
        known = 1;
    }
    if (!known)
        return 0;
    return h5x_attr_string(dset, "cgs_unit", cgs) < 0 || h5x_attr_double(dset, "to_cgs", factor) < 0
               ? -1
               : 0;
}
