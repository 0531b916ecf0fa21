#include "snapkit/util/npy.h"

#include <stdio.h>
#include <string.h>

#include "snapkit/util/atomicfile.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy writer writes data as it is in memory: little-endian only"
#endif

int sk_npy_write(const char *path, const char *descr, size_t elem_size, const int64_t *shape,
                 int ndim, const void *data, sk_error *err)
{
    if (ndim < 1 || ndim > 4)
        return sk_fail(err, SK_ERR_ARG, path, -1, ".npy of %d dimensions", ndim);
    char dims[128] = "";
    size_t k = 0, count = 1;
    for (int d = 0; d < ndim; d++) {
        k += (size_t)snprintf(dims + k, sizeof dims - k, "%lld,%s", (long long)shape[d],
                              d + 1 < ndim ? " " : "");
        count *= (size_t)shape[d];
    }
    if (ndim > 1)
        dims[k - 1] = '\0'; /* (ny, nx) without the trailing comma a 1-tuple needs */
    char dict[192];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr, dims);
    /* magic (6) + version (2) + length (2) + dict + padding + '\n' */
    size_t total = 10 + (size_t)n + 1, padded = (total + 63) / 64 * 64;
    unsigned char head[320];
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (unsigned char)((padded - 10) & 0xff);
    head[9] = (unsigned char)((padded - 10) >> 8);
    memcpy(head + 10, dict, (size_t)n);
    memset(head + 10 + n, ' ', padded - total);
    head[padded - 1] = '\n';
    sk_atomic_file *f;
    int rc = sk_atomic_open(&f, path, err);
    if (rc != SK_OK)
        return rc;
    rc = sk_atomic_write(f, head, padded, err);
    if (rc == SK_OK && count > 0)
        rc = sk_atomic_write(f, data, count * elem_size, err);
    if (rc != SK_OK) {
        sk_atomic_abort(f);
        return rc;
    }
    return sk_atomic_commit(f, err);
}
