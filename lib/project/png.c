/* One map coloured in viridis, as a PNG picture (written by
 * lib/export/png.c) or as a picture the caller draws from it (a figure),
 * with a JSON sidecar that records the quantity, unit, scale and value
 * range of the colours. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export/png.h"
#include "project_internal.h"
#include "snapkit/util/colormap.h"
#include "snapkit/util/json.h"
#include "core/atomicfile.h"
#include "snapkit/memory.h"

typedef struct colour_scale {
    int log;
    double vmin, vmax;
} colour_scale;

static int choose_scale(const sk_maps *maps, int i, const sk_image_options *img,
                        colour_scale *cs, sk_error *err, const char *path)
{
    const struct sk_map_entry *m = &maps->maps[i];
    proj_range r;
    proj_map_range(maps, i, &r);
    double lo = r.lo, hi = r.hi, plo = r.plo, phi = r.phi;
    int log_scale = img ? img->log_scale : -1;
    if (log_scale < 0)
        log_scale = proj_dim_positive(m->dim) && lo >= 0 && phi > 0;
    cs->log = log_scale;
    if (img && img->has_range) {
        if (!isfinite(img->vmin) || !isfinite(img->vmax))
            return sk_fail(err, SK_ERR_ARG, path, -1,
                           "the colour range %g..%g: the ends must be finite numbers", img->vmin,
                           img->vmax);
        cs->vmin = img->vmin;
        cs->vmax = img->vmax;
    } else {
        cs->vmin = log_scale ? plo : lo;
        cs->vmax = log_scale ? phi : hi;
    }
    if (cs->log && !(cs->vmin > 0))
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "a log scale needs a positive value range, and map '%s' has no positive "
                       "value", m->name);
    if (isnan(cs->vmin) || isnan(cs->vmax)) { /* an empty map: all one colour */
        cs->vmin = 0;
        cs->vmax = 1;
    }
    if (!(cs->vmin <= cs->vmax))
        return sk_fail(err, SK_ERR_ARG, path, -1, "the colour range %g..%g is empty", cs->vmin,
                       cs->vmax);
    return SK_OK;
}

static void colour(const colour_scale *cs, double v, unsigned char *rgba)
{
    if (isnan(v)) {
        memset(rgba, 0, 4);
        return;
    }
    double t;
    if (cs->vmax == cs->vmin)
        t = 0.5;
    else if (cs->log)
        t = v > 0 ? log(v / cs->vmin) / log(cs->vmax / cs->vmin) : 0;
    else
        t = (v - cs->vmin) / (cs->vmax - cs->vmin);
    sk_viridis(t, rgba);
    rgba[3] = 255;
}

typedef struct map_rows {
    const sk_maps *maps;
    const struct sk_map_entry *m;
    const colour_scale *cs;
} map_rows;

/* PNG rows run top to bottom; the image's second axis runs upwards. */
static void fill_row(void *ctx, int row, unsigned char *rgba)
{
    const map_rows *mr = ctx;
    int nx = mr->maps->nx;
    const double *src = mr->m->data + (size_t)(mr->maps->ny - 1 - row) * (size_t)nx;
    for (int i = 0; i < nx; i++)
        colour(mr->cs, src[i], rgba + 4 * (size_t)i);
}

static int write_sidecar(const sk_maps *maps, const struct sk_map_entry *m,
                         const colour_scale *cs, const char *png_path, int figure, sk_error *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s.json", png_path) >= (int)sizeof path)
        return sk_fail(err, SK_ERR_ARG, png_path, -1, "path too long");
    sk_json j;
    sk_json_init(&j, 1);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "image", png_path);
    sk_json_key(&j, "figure");
    sk_json_bool(&j, figure);
    sk_json_kv_string(&j, "quantity", m->name);
    sk_json_kv_string(&j, "unit", m->unit);
    sk_json_kv_string(&j, "what", m->what);
    sk_json_kv_string(&j, "colormap", "viridis");
    sk_json_kv_string(&j, "scale", cs->log ? "log" : "linear");
    sk_json_kv_double(&j, "vmin", cs->vmin);
    sk_json_kv_double(&j, "vmax", cs->vmax);
    sk_json_kv_string(&j, "no_data", "transparent");
    sk_json_kv_int(&j, "nx", maps->nx);
    sk_json_kv_int(&j, "ny", maps->ny);
    sk_json_key(&j, "extent");
    sk_json_array_begin(&j);
    for (int k = 0; k < 4; k++)
        sk_json_double(&j, maps->info.extent[k]);
    sk_json_array_end(&j);
    sk_json_kv_string(&j, "extent_unit", "code length");
    sk_json_object_end(&j);
    sk_atomic_file *f;
    int rc = j.failed ? sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory")
                      : sk_atomic_open(&f, path, err);
    if (rc == SK_OK) {
        sk_atomic_set_fsync(f, !maps->no_fsync);
        rc = sk_atomic_write(f, sk_json_text(&j), j.len, err);
        if (rc == SK_OK)
            rc = sk_atomic_write(f, "\n", 1, err);
        rc = rc == SK_OK ? sk_atomic_commit(f, err) : (sk_atomic_abort(f), rc);
    }
    sk_json_free(&j);
    return rc;
}

int sk_maps_write_png(const sk_maps *maps, int i, const char *path, const sk_image_options *img,
                      sk_error *err)
{
    if (i < 0 || i >= maps->nmaps)
        return sk_fail(err, SK_ERR_ARG, path, -1, "no map %d to write", i);
    const struct sk_map_entry *m = &maps->maps[i];
    colour_scale cs;
    int rc = choose_scale(maps, i, img, &cs, err, path);
    if (rc != SK_OK)
        return rc;
    map_rows mr = {.maps = maps, .m = m, .cs = &cs};
    rc = export_png_write(path, maps->nx, maps->ny, fill_row, &mr, !maps->no_fsync, err);
    if (rc == SK_OK)
        rc = write_sidecar(maps, m, &cs, path, 0, err);
    return rc;
}

int proj_write_picture(const sk_maps *maps, int i, const char *path, const sk_image_options *img,
                       sk_picture_writer writer, void *ctx, sk_error *err)
{
    if (i < 0 || i >= maps->nmaps)
        return sk_fail(err, SK_ERR_ARG, path, -1, "no map %d to write", i);
    const struct sk_map_entry *m = &maps->maps[i];
    colour_scale cs;
    int rc = choose_scale(maps, i, img, &cs, err, path);
    if (rc != SK_OK)
        return rc;
    size_t nx = (size_t)maps->nx, ny = (size_t)maps->ny;
    unsigned char *rgba = sk_malloc(4 * nx * ny);
    if (!rgba)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for a %zu x %zu picture",
                       nx, ny);
    map_rows mr = {.maps = maps, .m = m, .cs = &cs};
    for (size_t r = 0; r < ny; r++)
        fill_row(&mr, (int)r, rgba + 4 * r * nx);
    sk_picture pic = {.maps = maps, .index = i, .log_scale = cs.log, .vmin = cs.vmin,
                      .vmax = cs.vmax, .rgba = rgba};
    rc = writer(ctx, &pic, path, err);
    sk_free(rgba);
    if (rc == SK_OK)
        rc = write_sidecar(maps, m, &cs, path, 1, err);
    return rc;
}
