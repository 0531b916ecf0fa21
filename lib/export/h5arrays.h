/* Whole arrays into HDF5 files (maps, profiles, phase diagrams): the
 * writers of those results open an sk_h5_file (snapkit/h5export.h: made
 * whole or not at all), put their arrays and attributes at its root or in
 * groups, and commit it. Arrays of more than H5_CONTIGUOUS_MAX values are
 * chunked and deflated (filters every HDF5 build has, so h5py reads them
 * without plugins); smaller ones are stored contiguous. Ids are HDF5's
 * (hid_t, a 64-bit integer). */
#ifndef SNAPKIT_EXPORT_H5ARRAYS_H
#define SNAPKIT_EXPORT_H5ARRAYS_H

#include <stdint.h>

#include "snapkit/h5export.h"
#include "snapkit/table.h"

enum { H5_CONTIGUOUS_MAX = 4096 };

/* The file's root group. */
int64_t h5_root(const sk_h5_file *f);
/* A group `name` under loc (h5_root's, or a group's), closed by
 * h5_close_group. SK_ERR_IO naming the file when HDF5 fails. */
int h5_group(sk_h5_file *f, int64_t loc, const char *name, int64_t *out, sk_error *err);
void h5_close_group(int64_t group);
/* A dataset `name` under loc of `rank` (1..3) dimensions dims, C order,
 * from data: SK_FLOAT64, SK_INT64 or SK_INT32 values. With out, the
 * dataset stays open for attributes (h5_close_dataset); else closed. */
int h5_array(sk_h5_file *f, int64_t loc, const char *name, sk_dtype type, int rank,
             const int64_t *dims, const void *data, int64_t *out, sk_error *err);
void h5_close_dataset(int64_t dset);
/* Attributes of an open group or dataset. */
int h5_attr_text(sk_h5_file *f, int64_t obj, const char *key, const char *value, sk_error *err);
int h5_attr_numbers(sk_h5_file *f, int64_t obj, const char *key, const double *values, int n,
                    sk_error *err);
int h5_attr_int(sk_h5_file *f, int64_t obj, const char *key, int64_t value, sk_error *err);
static inline int h5_attr_number(sk_h5_file *f, int64_t obj, const char *key, double value,
                                 sk_error *err)
{
    return h5_attr_numbers(f, obj, key, &value, 1, err);
}

#endif
