/* One map as a NumPy .npy file (format version 1.0): the magic, a header
 * dict padded so the data starts on a 64-byte boundary, then ny rows of nx
 * little-endian float64 values. */
#include "core/atomicfile.h"
#include "project_internal.h"
#include "snapkit/util/npy.h"

int sk_maps_write_npy(const sk_maps *maps, int i, const char *path, sk_error *err)
{
    const double *data = sk_maps_data(maps, i);
    if (!data)
        return sk_fail(err, SK_ERR_ARG, path, -1, "no map %d to write", i);
    const int64_t shape[2] = {maps->ny, maps->nx};
    int was = atomic_scope_fsync(!maps->no_fsync);
    int rc = sk_npy_write(path, "<f8", sizeof *data, shape, 2, data, err);
    atomic_scope_fsync(was);
    return rc;
}
