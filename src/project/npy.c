/* One map as a NumPy .npy file (format version 1.0): the magic, a header
 * dict padded so the data starts on a 64-byte boundary, then ny rows of nx
 * little-endian float64 values. */
#include <stdio.h>
#include <string.h>

#include "project_internal.h"
#include "snapkit/atomicfile.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy writer writes '<f8' data as it is in memory: little-endian only"
#endif

int sk_maps_write_npy(const sk_maps *maps, int i, const char *path, sk_error *err)
{
    const double *data = sk_maps_data(maps, i);
    if (!data)
        return sk_fail(err, SK_ERR_ARG, path, -1, "no map %d to write", i);
    char dict[128];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }",
                     maps->ny, maps->nx);
    /* magic (6) + version (2) + length (2) + dict + padding + '\n' */
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    unsigned char head[256];
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    unsigned hlen = (unsigned)(padded - 10);
    head[8] = (unsigned char)(hlen & 0xff);
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + 10, dict, (size_t)n);
    memset(head + 10 + n, ' ', padded - total);
    head[padded - 1] = '\n';
    sk_atomic_file *f;
    int rc = sk_atomic_open(&f, path, err);
    if (rc != SK_OK)
        return rc;
    rc = sk_atomic_write(f, head, padded, err);
    if (rc == SK_OK)
        rc = sk_atomic_write(f, data, (size_t)maps->nx * (size_t)maps->ny * sizeof(double), err);
    if (rc != SK_OK) {
        sk_atomic_abort(f);
        return rc;
    }
    return sk_atomic_commit(f, err);
}
