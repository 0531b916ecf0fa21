/* Maps as one FITS file: an empty primary HDU with the projection's
 * description, then one float64 image extension per map (written by
 * fitslib.c: built in memory, on disk whole or not at all). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export/fitslib.h"
#include "project_internal.h"
#include "snapkit/snapkit.h"

static void key_double(fitsfile *ff, const char *key, double v, const char *comment, int *st)
{
    if (isfinite(v))
        fits_write_key_dbl(ff, key, v, -17, comment, st);
    else
        fits_write_key_null(ff, key, comment, st);
}

static void key_vector(fitsfile *ff, const char *prefix, const double *v, const char *what,
                       int *st)
{
    static const char axes[] = "XYZ";
    for (int k = 0; k < 3; k++) {
        char key[16], comment[72];
        snprintf(key, sizeof key, "%s%c", prefix, axes[k]);
        snprintf(comment, sizeof comment, "%s, %c component", what, axes[k] + 'x' - 'X');
        key_double(ff, key, v[k], comment, st);
    }
}

/* The projection's description, in the primary header and every image. */
static void geometry_keys(fitsfile *ff, const sk_maps *maps, int *st)
{
    const sk_maps_info *in = &maps->info;
    static const char *const axes[] = {"x", "y", "z"};
    char creator[64];
    snprintf(creator, sizeof creator, "snapkit %s", sk_version());
    fits_write_key_str(ff, "CREATOR", creator, "program that made the maps", st);
    fits_write_key_str(ff, "SKKIND", in->kind, "projected table: cells or particles", st);
    fits_write_key_str(ff, "AXIS", in->axis >= 0 ? axes[in->axis] : "direction",
                       "line of sight: an axis, or DIR* below", st);
    key_vector(ff, "DIR", in->los, "line of sight (unit vector)", st);
    key_vector(ff, "RIGHT", in->right, "image first axis (unit vector)", st);
    key_vector(ff, "UP", in->up, "image second axis (unit vector)", st);
    key_vector(ff, "CENTER", in->center, "centre [code length]", st);
    key_double(ff, "UMIN", in->extent[0], "image first axis low edge [code length]", st);
    key_double(ff, "UMAX", in->extent[1], "image first axis high edge [code length]", st);
    key_double(ff, "VMIN", in->extent[2], "image second axis low edge [code length]", st);
    key_double(ff, "VMAX", in->extent[3], "image second axis high edge [code length]", st);
    key_double(ff, "PIXSIZE", in->pixel_size, "pixel size [code length]", st);
    key_double(ff, "PIXCM", in->pixel_size_cm, "pixel size [cm]", st);
    key_double(ff, "TIME", in->time, "snapshot time [code time]", st);
    key_double(ff, "UNIT_L", in->unit_l, "cm per code length", st);
    key_double(ff, "UNIT_T", in->unit_t, "s per code time", st);
    fits_write_key_str(ff, "WEIGHT", in->weight, "weight of the means", st);
    fits_write_key_str(ff, "MODE", in->mode, "mean or sum along the line of sight", st);
    fits_write_key_str(ff, "KERNEL", in->kernel, "deposit kernel", st);
    LONGLONG selected = in->selected, deposited = in->deposited;
    fits_write_key(ff, TLONGLONG, "NSELECT", &selected, "rows selected", st);
    fits_write_key(ff, TLONGLONG, "NDEPOSIT", &deposited, "rows that reached the image", st);
}

/* cm per length unit of sk_maps_info.length_unit; 0 when unknown. */
static double cm_per_unit(const char *name)
{
    double cm = 0;
    sk_error e;
    return sk_length_unit_cm(name, &cm, &e) == SK_OK ? cm : 0;
}

/* Two linear world coordinate systems, pixel 1 at the first pixel's centre:
 * the primary one in info.length_unit (CUNIT), the alternate one (key A) in
 * code lengths. */
static void wcs_keys(fitsfile *ff, const sk_maps *maps, int *st)
{
    const sk_maps_info *in = &maps->info;
    static const char *const names[] = {"X", "Y", "Z"};
    static const int image_axes[3][2] = {{1, 2}, {2, 0}, {0, 1}};
    double cm = cm_per_unit(in->length_unit);
    double scale = cm > 0 && isfinite(in->unit_l) && in->unit_l > 0 ? in->unit_l / cm : NAN;
    const char *cunit = strcmp(in->length_unit, "au") == 0 ? "AU" : in->length_unit;
    for (int alt = 0; alt < 2; alt++) {
        const char *k = alt ? "A" : "";
        double f = alt ? 1.0 : scale;
        const char *u = alt ? "code length" : in->length_unit;
        char key[16], comment[72];
        if (!alt && !isfinite(f))
            continue; /* no physical length: the code-length system only */
        snprintf(key, sizeof key, "WCSNAME%s", k);
        fits_write_key_str(ff, key, alt ? "code" : "physical",
                           alt ? "image axes in code lengths" : "image axes in CUNIT", st);
        for (int a = 0; a < 2; a++) {
            const char *type = in->axis >= 0 ? names[image_axes[in->axis][a]] : a ? "UP" : "RIGHT";
            snprintf(key, sizeof key, "CTYPE%d%s", a + 1, k);
            fits_write_key_str(ff, key, type, in->axis >= 0 ? "box axis" : "image axis", st);
            if (!alt) {
                snprintf(key, sizeof key, "CUNIT%d", a + 1);
                fits_write_key_str(ff, key, cunit, "unit of the image axes", st);
            }
            snprintf(key, sizeof key, "CRPIX%d%s", a + 1, k);
            fits_write_key_dbl(ff, key, 1.0, -17, "reference pixel: the first", st);
            snprintf(key, sizeof key, "CRVAL%d%s", a + 1, k);
            snprintf(comment, sizeof comment, "centre of the first pixel [%s]", u);
            key_double(ff, key, (in->extent[2 * a] + 0.5 * in->pixel_size) * f, comment, st);
            snprintf(key, sizeof key, "CDELT%d%s", a + 1, k);
            snprintf(comment, sizeof comment, "pixel size [%s]", u);
            key_double(ff, key, in->pixel_size * f, comment, st);
        }
    }
}

static void write_image(fitsfile *ff, const sk_maps *maps, int i, int *st)
{
    const struct sk_map_entry *m = &maps->maps[i];
    long naxes[2] = {maps->nx, maps->ny};
    char ubuf[40];
    const char *bunit = fitslib_unit(m->unit, ubuf, sizeof ubuf);
    fits_create_img(ff, DOUBLE_IMG, 2, naxes, st);
    fits_write_key_str(ff, "EXTNAME", m->name, "quantity", st);
    if (bunit)
        fits_write_key_str(ff, "BUNIT", bunit, "unit of the values", st);
    fits_write_key_str(ff, "SKUNIT", m->unit, "unit as snapkit names it (code: code units)",
                       st);
    fits_write_key_str(ff, "CONTENT", m->what, "what the values are", st);
    wcs_keys(ff, maps, st);
    geometry_keys(ff, maps, st);
    fits_write_img(ff, TDOUBLE, 1, (LONGLONG)maps->nx * maps->ny, m->data, st);
}

/* The primary HDU with the description, then one image per map. */
static void build_maps(fitsfile *ff, const void *ctx, int *st)
{
    const sk_maps *maps = ctx;
    fits_create_img(ff, DOUBLE_IMG, 0, NULL, st);
    geometry_keys(ff, maps, st);
    fits_write_comment(ff, "One image extension per quantity (EXTNAME), values in BUNIT", st);
    fits_write_comment(ff, "(code units when BUNIT is absent: see SKUNIT, UNIT_L, UNIT_T).", st);
    for (int i = 0; i < maps->nmaps && !*st; i++)
        write_image(ff, maps, i, st);
}

int sk_maps_write_fits(const sk_maps *maps, const char *path, sk_error *err)
{
    return fitslib_write(path, build_maps, maps, !maps->no_fsync, "maps", err);
}
