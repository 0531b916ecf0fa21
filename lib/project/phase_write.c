/* Phase diagrams written: JSON, .npy and FITS (snapkit/phase.h); HDF5 in
 * phase_h5.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/atomicfile.h"
#include "export/fitslib.h"
#include "phase_internal.h"
#include "snapkit/memory.h"
#include "snapkit/snapkit.h"
#include "snapkit/util/npy.h"

static void json_edges(sk_json *j, const char *key, const sk_phase *ph, int a)
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int i = 0; i <= ph->bins[a].n; i++)
        sk_json_double(j, ph->edges[a][i]);
    sk_json_array_end(j);
}

void sk_phase_json(const sk_phase *ph, sk_json *j)
{
    static const char *const keys[3][2] = {{"x", "x_unit"}, {"y", "y_unit"}, {"z", "z_unit"}};
    sk_json_object_begin(j);
    for (int k = 0; k < 3; k++) {
        sk_json_kv_string(j, keys[k][0], sk_phase_name(ph, k));
        sk_json_kv_string(j, keys[k][1], ph->q[k].unit);
    }
    sk_json_kv_string(j, "weight", sk_weight_name((sk_weight)ph->opt.weight));
    sk_json_key(j, "x_log");
    sk_json_bool(j, ph->log[0]);
    sk_json_key(j, "y_log");
    sk_json_bool(j, ph->log[1]);
    json_edges(j, "x_edges", ph, 0);
    json_edges(j, "y_edges", ph, 1);
    sk_json_key(j, "values");
    sk_json_array_begin(j);
    int nx = ph->bins[0].n, ny = ph->bins[1].n;
    for (int i = 0; i < nx; i++) {
        sk_json_array_begin(j);
        for (int k = 0; k < ny; k++) {
            double v = ph->values[(size_t)i * (size_t)ny + (size_t)k];
            if (isfinite(v))
                sk_json_double(j, v);
            else
                sk_json_null(j);
        }
        sk_json_array_end(j);
    }
    sk_json_array_end(j);
    sk_json_kv_int(j, "rows", ph->rows);
    sk_json_kv_int(j, "binned", ph->binned);
    sk_json_object_end(j);
}

static int write_json(const sk_phase *ph, const char *path, int fsync, sk_error *err)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_phase_json(ph, &j);
    const char *text = sk_json_text(&j);
    sk_atomic_file *f = NULL;
    int rc = text ? sk_atomic_open(&f, path, err)
                  : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK) {
        sk_atomic_set_fsync(f, fsync);
        rc = sk_atomic_write(f, text, strlen(text), err);
    }
    if (rc == SK_OK)
        rc = sk_atomic_write(f, "\n", 1, err);
    if (rc == SK_OK)
        rc = sk_atomic_commit(f, err);
    else if (f)
        sk_atomic_abort(f);
    sk_json_free(&j);
    return rc;
}

static int write_npy(const sk_phase *ph, const char *path, int fsync, sk_error *err)
{
    const int64_t shape[2] = {ph->bins[0].n, ph->bins[1].n};
    int was = atomic_scope_fsync(fsync);
    int rc = sk_npy_write(path, "<f8", sizeof(double), shape, 2, ph->values, err);
    atomic_scope_fsync(was);
    return rc;
}

static const char *fits_unit(const char *unit)
{
    if (!strcmp(unit, "code"))
        return NULL;
    if (!strcmp(unit, "1"))
        return "";
    if (!strcmp(unit, "Ba"))
        return "erg/cm3";
    return unit;
}

/* One axis: its WCS (in the value, or its log10 on a log axis) and keys. */
static void fits_axis(fitsfile *ff, const sk_phase *ph, int a, int *st)
{
    const sk_bins *b = &ph->bins[a];
    const char *name = ph->q[a].name, *unit = ph->q[a].unit, *p = a ? "Y" : "X";
    char key[24], val[72];
    snprintf(key, sizeof key, "CTYPE%d", a + 1);
    snprintf(val, sizeof val, b->log ? "log10(%.50s)" : "%.50s", name);
    fits_write_key_str(ff, key, val, "binned quantity", st);
    snprintf(key, sizeof key, "CUNIT%d", a + 1);
    const char *fu = fits_unit(unit);
    if (fu && *fu)
        fits_write_key_str(ff, key, fu, b->log ? "unit of the quantity (not of its log)"
                                                : "unit of the quantity", st);
    snprintf(key, sizeof key, "CRPIX%d", a + 1);
    fits_write_key_dbl(ff, key, 0.5, -17, "the low edge of the first bin", st);
    snprintf(key, sizeof key, "CRVAL%d", a + 1);
    fits_write_key_dbl(ff, key, b->start, -17, b->log ? "log10 of the low edge" : "low edge", st);
    snprintf(key, sizeof key, "CDELT%d", a + 1);
    fits_write_key_dbl(ff, key, b->step, -17, b->log ? "bin width in log10" : "bin width", st);
    snprintf(key, sizeof key, "%sNAME", p);
    fits_write_key_str(ff, key, name, "quantity of this axis", st);
    snprintf(key, sizeof key, "%sUNIT", p);
    fits_write_key_str(ff, key, unit, "its unit as snapkit names it", st);
    snprintf(key, sizeof key, "%sLOG", p);
    fits_write_key(ff, TLOGICAL, key, &(int){b->log}, "bins equal in log10", st);
    snprintf(key, sizeof key, "%sMIN", p);
    fits_write_key_dbl(ff, key, b->lo, -17, "low edge of the first bin", st);
    snprintf(key, sizeof key, "%sMAX", p);
    fits_write_key_dbl(ff, key, b->hi, -17, "high edge of the last bin", st);
    snprintf(key, sizeof key, "%sNBINS", p);
    fits_write_key(ff, TINT, key, (void *)&b->n, "bins", st);
}

static void build(fitsfile *ff, const void *ctx, int *st)
{
    const sk_phase *ph = ctx;
    int nx = ph->bins[0].n, ny = ph->bins[1].n;
    size_t cells = (size_t)nx * (size_t)ny;
    double *img = sk_malloc(cells * sizeof *img);
    if (!img) {
        *st = MEMORY_ALLOCATION;
        return;
    }
    for (int i = 0; i < nx; i++) /* FITS axis 1 (fastest) is x */
        for (int j = 0; j < ny; j++)
            img[(size_t)j * (size_t)nx + (size_t)i] = ph->values[(size_t)i * (size_t)ny + (size_t)j];
    long naxes[2] = {nx, ny};
    fits_create_img(ff, DOUBLE_IMG, 2, naxes, st);
    char creator[64];
    snprintf(creator, sizeof creator, "snapkit %s", sk_version());
    fits_write_key_str(ff, "CREATOR", creator, "program that made the phase diagram", st);
    for (int a = 0; a < 2; a++)
        fits_axis(ff, ph, a, st);
    fits_write_key_str(ff, "ZNAME", ph->q[2].name, "quantity of the values", st);
    const char *bu = fits_unit(ph->q[2].unit);
    if (bu && *bu)
        fits_write_key_str(ff, "BUNIT", bu, "unit of the values", st);
    fits_write_key_str(ff, "ZUNIT", ph->q[2].unit, "its unit as snapkit names it", st);
    fits_write_key_str(ff, "WEIGHT", sk_weight_name((sk_weight)ph->opt.weight),
                       ph->opt.weight ? "values: weighted mean of ZNAME" : "values: sum of ZNAME",
                       st);
    LONGLONG rows = ph->rows, binned = ph->binned;
    fits_write_key(ff, TLONGLONG, "NROWS", &rows, "rows streamed", st);
    fits_write_key(ff, TLONGLONG, "NBINNED", &binned, "rows inside the bins", st);
    fits_write_img(ff, TDOUBLE, 1, (LONGLONG)cells, img, st);
    sk_free(img);
}

int phase_write_fits(const sk_phase *ph, const char *path, int fsync, sk_error *err)
{
    return fitslib_write(path, build, ph, fsync, "phase diagram", err);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

int sk_phase_write(const sk_phase *ph, const char *path, int fsync, sk_error *err)
{
    if (!ph->values)
        return sk_fail(err, SK_ERR_ARG, path, -1, "the phase diagram is not finished");
    if (ends_with(path, ".npy"))
        return write_npy(ph, path, fsync, err);
    if (ends_with(path, ".fits") || ends_with(path, ".fit"))
        return phase_write_fits(ph, path, fsync, err);
    if (ends_with(path, ".json"))
        return write_json(ph, path, fsync, err);
    if (ends_with(path, ".h5") || ends_with(path, ".hdf5"))
        return phase_write_h5(ph, path, fsync, err);
    return sk_fail(err, SK_ERR_ARG, path, -1, "a phase diagram is written as .npy, .fits, .h5 "
                   "or .json (figures: .png, .svg, .pdf from the command line)");
}
