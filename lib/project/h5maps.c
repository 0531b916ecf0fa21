/* Maps into an HDF5 file (sk_maps_write_h5): one (ny, nx) dataset per
 * map, named as the map, with its unit and what it holds; the image's
 * geometry and the projection's facts as the root's attributes. */
#include <string.h>

#include "export/h5arrays.h"
#include "project_internal.h"

static int geometry(sk_h5_file *f, const sk_maps *maps, sk_error *err)
{
    const sk_maps_info *in = &maps->info;
    int64_t root = h5_root(f);
    int rc = h5_attr_text(f, root, "kind", "snapkit maps", err);
    struct {
        const char *key;
        const double *v;
        int n;
    } nums[] = {{"extent", in->extent, 4},         {"center", in->center, 3},
                {"line_of_sight", in->los, 3},     {"right", in->right, 3},
                {"up", in->up, 3},                 {"pixel_size", &in->pixel_size, 1},
                {"pixel_size_cm", &in->pixel_size_cm, 1}, {"time", &in->time, 1},
                {"unit_l", &in->unit_l, 1},        {"unit_t", &in->unit_t, 1},
                {"selected_mass", &in->selected_mass, 1},
                {"projected_mass", &in->projected_mass, 1}};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0] && rc == SK_OK; k++)
        rc = h5_attr_numbers(f, root, nums[k].key, nums[k].v, nums[k].n, err);
    int64_t counts[4] = {in->axis, in->rows, in->selected, in->deposited};
    static const char *const count_keys[4] = {"axis", "rows", "selected", "deposited"};
    for (int k = 0; k < 4 && rc == SK_OK; k++)
        rc = h5_attr_int(f, root, count_keys[k], counts[k], err);
    const char *texts[][2] = {{"extent_unit", "code length"}, {"kernel", in->kernel},
                              {"weight", in->weight},         {"mode", in->mode},
                              {"cells_or_particles", in->kind}};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0] && rc == SK_OK; k++)
        rc = h5_attr_text(f, root, texts[k][0], texts[k][1], err);
    return rc;
}

static int one_map(sk_h5_file *f, const sk_maps *maps, int i, sk_error *err)
{
    const struct sk_map_entry *m = &maps->maps[i];
    int64_t dims[2] = {maps->ny, maps->nx}, dset;
    int rc = h5_array(f, h5_root(f), m->name, SK_FLOAT64, 2, dims, m->data, &dset, err);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "unit", m->unit, err);
    if (rc == SK_OK)
        rc = h5_attr_text(f, dset, "what", m->what, err);
    h5_close_dataset(dset);
    return rc;
}

int sk_maps_write_h5(const sk_maps *maps, const char *path, sk_error *err)
{
    sk_h5_options opt;
    sk_h5_options_init(&opt);
    opt.fsync = !maps->no_fsync;
    sk_h5_file *f;
    int rc = sk_h5_create(&f, path, SK_H5_TABLES, &opt, err);
    if (rc != SK_OK)
        return rc;
    rc = geometry(f, maps, err);
    for (int i = 0; i < maps->nmaps && rc == SK_OK; i++)
        rc = one_map(f, maps, i, err);
    if (rc != SK_OK) {
        sk_h5_abort(f);
        return rc;
    }
    return sk_h5_commit(f, err);
}
