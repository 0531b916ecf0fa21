/* A cube as one FITS file: an empty primary HDU with the cube's
 * description, then one 3-D float64 image per quantity (fitslib.c: built
 * in memory, on disk whole or not at all). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cube_internal.h"
#include "export/fitslib.h"
#include "snapkit/snapkit.h"

static void describe(fitsfile *ff, const sk_cube *c, int *st)
{
    char creator[64];
    snprintf(creator, sizeof creator, "snapkit %s", sk_version());
    fits_write_key_str(ff, "CREATOR", creator, "program that made the cube", st);
    fits_write_key(ff, TINT, "LEVEL", (void *)&c->level, "AMR level of the grid cells", st);
    fits_write_key_str(ff, "WEIGHT", c->weight_mass ? "mass" : "volume",
                       "weight of the means (density: volume)", st);
    fits_write_key_dbl(ff, "BOXLEN", c->boxlen, -17, "box size [code length]", st);
    if (isfinite(c->unit_l) && c->unit_l > 0)
        fits_write_key_dbl(ff, "UNIT_L", c->unit_l, -17, "cm per code length", st);
    LONGLONG rows = c->rows, dep = c->deposited, empty = c->empty;
    fits_write_key(ff, TLONGLONG, "NROWS", &rows, "cells read", st);
    fits_write_key(ff, TLONGLONG, "NDEPOSIT", &dep, "cells that reached the cube", st);
    fits_write_key(ff, TLONGLONG, "NEMPTY", &empty, "grid cells no cell reached (NaN)", st);
}

/* Linear axes, pixel 1 at the first cell's centre: in the length unit,
 * and (key A) in code lengths. */
static void wcs(fitsfile *ff, const sk_cube *c, int *st)
{
    double cm = 0;
    sk_error e;
    int physical = strcmp(c->length_unit, "code") != 0 &&
                   sk_length_unit_cm(c->length_unit, &cm, &e) == SK_OK && cm > 0;
    for (int alt = physical ? 0 : 1; alt < 2; alt++) {
        const char *k = alt ? "A" : "";
        double f = alt ? 1.0 : c->unit_l / cm;
        char key[16], comment[72];
        snprintf(key, sizeof key, "WCSNAME%s", k);
        fits_write_key_str(ff, key, alt ? "code" : "physical",
                           alt ? "axes in code lengths" : "axes in CUNIT", st);
        for (int a = 0; a < 3; a++) {
            double size = ldexp(c->boxlen, -c->level);
            snprintf(key, sizeof key, "CTYPE%d%s", a + 1, k);
            fits_write_key_str(ff, key, a == 0 ? "X" : a == 1 ? "Y" : "Z", "box axis", st);
            snprintf(key, sizeof key, "CUNIT%d%s", a + 1, k);
            fits_write_key_str(ff, key, alt ? "code" : c->length_unit, "unit of the axis", st);
            snprintf(key, sizeof key, "CRPIX%d%s", a + 1, k);
            fits_write_key_dbl(ff, key, 1.0, -17, "reference pixel: the first", st);
            snprintf(key, sizeof key, "CRVAL%d%s", a + 1, k);
            snprintf(comment, sizeof comment, "centre of the first cell");
            fits_write_key_dbl(ff, key, (sk_cube_edge(c, a, 0) + 0.5 * size) * f, -17, comment,
                               st);
            snprintf(key, sizeof key, "CDELT%d%s", a + 1, k);
            fits_write_key_dbl(ff, key, size * f, -17, "cell size", st);
        }
    }
}

static void build(fitsfile *ff, const void *ctx, int *st)
{
    const sk_cube *c = ctx;
    fits_create_img(ff, DOUBLE_IMG, 0, NULL, st);
    describe(ff, c, st);
    fits_write_comment(ff, "One 3-D image extension per quantity (EXTNAME), values in BUNIT", st);
    fits_write_comment(ff, "(code units when BUNIT is absent); NaN where no cell reached.", st);
    long naxes[3] = {(long)c->n[0], (long)c->n[1], (long)c->n[2]};
    for (int i = 0; i < c->nq && !*st; i++) {
        char ubuf[40];
        const char *bunit = fitslib_unit(c->units[i], ubuf, sizeof ubuf);
        fits_create_img(ff, DOUBLE_IMG, 3, naxes, st);
        fits_write_key_str(ff, "EXTNAME", c->names[i], "quantity", st);
        if (bunit)
            fits_write_key_str(ff, "BUNIT", bunit, "unit of the values", st);
        fits_write_key_str(ff, "SKUNIT", c->units[i], "unit as snapkit names it", st);
        wcs(ff, c, st);
        describe(ff, c, st);
        fits_write_img(ff, TDOUBLE, 1, (LONGLONG)naxes[0] * naxes[1] * naxes[2],
                       (void *)sk_cube_data(c, i), st);
    }
}

int cube_write_fits(const sk_cube *cube, const char *path, sk_error *err)
{
    return fitslib_write(path, build, cube, !cube->no_fsync, "cube", err);
}
