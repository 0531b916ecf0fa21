/* A phase diagram into an HDF5 file (snapkit/phase.h): "values" (nx, ny),
 * as the .npy, and "x_edges", "y_edges"; the quantities, their units, the
 * weight, the log flags and the row counts as attributes. */
#include "export/h5arrays.h"
#include "phase_internal.h"

static int axis(sk_h5_file *f, const sk_phase *ph, int a, sk_error *err)
{
    int64_t n = ph->bins[a].n + 1, dset;
    int rc = h5_array(f, h5_root(f), a ? "y_edges" : "x_edges", SK_FLOAT64, 1, &n,
                      ph->edges[a], &dset, err);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "quantity", sk_phase_name(ph, a), err);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "unit", ph->q[a].unit, err);
    if (rc == SK_OK)
        rc = h5_attr_int(f, dset, "log", ph->log[a], err);
    h5_close_dataset(dset);
    return rc;
}

static int values(sk_h5_file *f, const sk_phase *ph, sk_error *err)
{
    int64_t dims[2] = {ph->bins[0].n, ph->bins[1].n}, dset;
    int rc = h5_array(f, h5_root(f), "values", SK_FLOAT64, 2, dims, ph->values, &dset, err);
    const char *weight = sk_weight_name((sk_weight)ph->opt.weight);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "quantity", sk_phase_name(ph, 2), err);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "unit", ph->q[2].unit, err);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "what", ph->opt.weight ? "weighted mean per bin"
                                                         : "sum per bin", err);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "weight", weight, err);
    h5_close_dataset(dset);
    return rc;
}

int phase_write_h5(const sk_phase *ph, const char *path, int fsync, sk_error *err)
{
    sk_h5_options opt;
    sk_h5_options_init(&opt);
    opt.fsync = fsync;
    sk_h5_file *f;
    int rc = sk_h5_create(&f, path, SK_H5_TABLES, &opt, err);
    if (rc != SK_OK)
        return rc;
    int64_t root = h5_root(f);
    rc = h5_attr_text(f, root, "kind", "snapkit phase diagram", err);
    if (rc == SK_OK)
        rc = h5_attr_int(f, root, "rows", ph->rows, err);
    if (rc == SK_OK)
        rc = h5_attr_int(f, root, "binned", ph->binned, err);
    for (int a = 0; a < 2 && rc == SK_OK; a++)
        rc = axis(f, ph, a, err);
    if (rc == SK_OK)
        rc = values(f, ph, err);
    if (rc != SK_OK) {
        sk_h5_abort(f);
        return rc;
    }
    return sk_h5_commit(f, err);
}
