/* Projection output (FITS read back with cfitsio, .npy parsed by hand, PNG
 * decoded with libpng) and the one-line errors of bad input. */
#include <fitsio.h>
#include <png.h>
#include <unistd.h>

#include "check.h"
#include "core/atomicfile.h"
#include "core/testhooks.h"
#include "snapkit/util/colormap.h"
#include "snapkit/util/number.h"
#include "snapkit/store.h"
#include "project_helpers.h"
#include "project_tables.h"

static sk_maps *sample_maps(sk_table **t)
{
    sk_error e;
    *t = test_random_amr(13, 2, 5, 0.4, 2.0);
    sk_maps *m = test_project(*t, "sd,velocity_x,count", "axis=x;res=24;yrange=0 0.5", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    return m;
}

static void test_fits(const sk_maps *m, const char *dir)
{
    sk_error e;
    char path[512];
    snprintf(path, sizeof path, "%s/maps.fits", dir);
    char **files = NULL;
    int nfiles = 0;
    CHECK_OK(sk_maps_write(m, path, NULL, &files, &nfiles, &e), &e);
    CHECK_EQ_INT(nfiles, 1);
    for (int i = 0; i < nfiles; i++)
        sk_free(files[i]);
    sk_free(files);
    fitsfile *ff;
    int st = 0, nhdu = 0;
    fits_open_file(&ff, path, READONLY, &st);
    CHECK_EQ_INT(st, 0);
    if (st)
        return;
    fits_get_num_hdus(ff, &nhdu, &st);
    CHECK_EQ_INT(nhdu, 4);
    char value[FLEN_VALUE];
    fits_read_key(ff, TSTRING, "AXIS", value, NULL, &st);
    CHECK_EQ_STR(value, "x");
    double time = 0, pix = 0;
    fits_read_key(ff, TDOUBLE, "TIME", &time, NULL, &st);
    CHECK_CLOSE(time, 0.25, 0);
    const sk_maps_info *in = sk_maps_get_info(m);
    int nx = sk_maps_nx(m), ny = sk_maps_ny(m);
    for (int k = 0; k < 3; k++) {
        fits_movabs_hdu(ff, k + 2, NULL, &st);
        fits_read_key(ff, TSTRING, "EXTNAME", value, NULL, &st);
        CHECK_EQ_STR(value, sk_maps_name(m, k));
        fits_read_key(ff, TSTRING, "SKUNIT", value, NULL, &st);
        CHECK_EQ_STR(value, sk_maps_unit(m, k));
        if (strcmp(sk_maps_unit(m, k), "code") != 0) {
            fits_read_key(ff, TSTRING, "BUNIT", value, NULL, &st);
            CHECK_EQ_STR(value, sk_maps_unit(m, k)); /* count */
        }
        fits_read_key(ff, TDOUBLE, "PIXSIZE", &pix, NULL, &st);
        CHECK_CLOSE(pix, in->pixel_size, 0);
        double vmin = 0;
        fits_read_key(ff, TDOUBLE, "VMIN", &vmin, NULL, &st);
        CHECK_CLOSE(vmin, in->extent[2], 0);
        fits_read_key(ff, TSTRING, "CTYPE1", value, NULL, &st);
        CHECK_EQ_STR(value, "Y");
        fits_read_key(ff, TSTRING, "CUNIT1", value, NULL, &st);
        CHECK_EQ_STR(value, in->length_unit);
        fits_read_key(ff, TDOUBLE, "CDELT1A", &pix, NULL, &st);
        CHECK_CLOSE(pix, in->pixel_size, 0);
        long naxes[2] = {0, 0};
        int naxis = 0;
        fits_get_img_dim(ff, &naxis, &st);
        fits_get_img_size(ff, 2, naxes, &st);
        CHECK_EQ_INT(naxis, 2);
        CHECK_EQ_INT(naxes[0], nx);
        CHECK_EQ_INT(naxes[1], ny);
        double *back = calloc((size_t)nx * ny, sizeof *back);
        int anynull = 0;
        fits_read_img(ff, TDOUBLE, 1, (LONGLONG)nx * ny, NULL, back, &anynull, &st);
        const double *want = sk_maps_data(m, k);
        int64_t same = 0;
        for (int64_t i = 0; i < (int64_t)nx * ny; i++)
            same += (isnan(want[i]) && isnan(back[i])) || want[i] == back[i];
        CHECK_EQ_INT(same, (int64_t)nx * ny);
        free(back);
    }
    CHECK_EQ_INT(st, 0);
    fits_close_file(ff, &st);
}

static void test_npy(const sk_maps *m, const char *dir)
{
    sk_error e;
    char pattern[512], path[512];
    snprintf(pattern, sizeof pattern, "%s/map_{var}.npy", dir);
    char **files = NULL;
    int nfiles = 0;
    CHECK_OK(sk_maps_write(m, pattern, NULL, &files, &nfiles, &e), &e);
    CHECK_EQ_INT(nfiles, 3);
    snprintf(path, sizeof path, "%s/map_velocity_x.npy", dir);
    CHECK(nfiles == 3 && strcmp(files[1], path) == 0);
    for (int i = 0; i < nfiles; i++)
        sk_free(files[i]);
    sk_free(files);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    unsigned char head[10];
    CHECK_EQ_INT(fread(head, 1, 10, f), 10);
    CHECK(memcmp(head, "\x93NUMPY\x01\x00", 8) == 0);
    int hlen = head[8] | head[9] << 8;
    CHECK_EQ_INT((10 + hlen) % 64, 0);
    char dict[512] = "";
    CHECK_EQ_INT(fread(dict, 1, (size_t)hlen, f), hlen);
    char want_shape[64];
    snprintf(want_shape, sizeof want_shape, "'shape': (%d, %d)", sk_maps_ny(m), sk_maps_nx(m));
    CHECK_CONTAINS(dict, want_shape);
    CHECK_CONTAINS(dict, "'descr': '<f8'");
    CHECK_CONTAINS(dict, "'fortran_order': False");
    CHECK_EQ_INT(dict[hlen - 1], '\n');
    size_t n = (size_t)sk_maps_nx(m) * sk_maps_ny(m);
    double *back = malloc(n * sizeof *back);
    CHECK_EQ_INT(fread(back, sizeof *back, n, f), n);
    CHECK_EQ_INT(fgetc(f), EOF);
    fclose(f);
    const double *want = test_map(m, "velocity_x");
    size_t same = 0;
    for (size_t i = 0; i < n; i++)
        same += (isnan(want[i]) && isnan(back[i])) || want[i] == back[i];
    CHECK_EQ_INT(same, n);
    free(back);
    /* several maps without a pattern: one clear error */
    snprintf(path, sizeof path, "%s/maps.npy", dir);
    CHECK(sk_maps_write(m, path, NULL, NULL, NULL, &e) != SK_OK);
    CHECK_CONTAINS(e.message, "{var}");
    snprintf(path, sizeof path, "%s/maps.txt", dir);
    CHECK(sk_maps_write(m, path, NULL, NULL, NULL, &e) != SK_OK);
    CHECK_CONTAINS(e.message, "unknown output format");
}

/* Decode an RGBA PNG; returns the pixels (free them) or NULL. */
static unsigned char *read_png(const char *path, unsigned *w, unsigned *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        return NULL;
    img.format = PNG_FORMAT_RGBA;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, NULL, px, 0, NULL)) {
        free(px);
        return NULL;
    }
    *w = img.width;
    *h = img.height;
    return px;
}

static void test_png(const sk_maps *m, const char *dir)
{
    sk_error e;
    char path[512], side[600];
    snprintf(path, sizeof path, "%s/v.png", dir);
    int iv = sk_maps_find(m, "velocity_x");
    sk_image_options img = {.log_scale = 0};
    CHECK_OK(sk_maps_write_png(m, iv, path, &img, &e), &e);
    unsigned w = 0, h = 0;
    unsigned char *px = read_png(path, &w, &h);
    CHECK(px != NULL);
    if (!px)
        return;
    int nx = sk_maps_nx(m), ny = sk_maps_ny(m);
    CHECK_EQ_INT(w, nx);
    CHECK_EQ_INT(h, ny);
    const double *v = sk_maps_data(m, iv);
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < nx * ny; i++)
        if (!isnan(v[i])) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    /* PNG row 0 is the image's top: the last row of the map. */
    int checked = 0, bad = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const unsigned char *p = px + 4 * ((size_t)(ny - 1 - j) * nx + i);
            double x = v[(size_t)j * nx + i];
            if (isnan(x)) {
                bad += p[3] != 0;
                continue;
            }
            unsigned char rgb[3];
            sk_viridis((x - lo) / (hi - lo), rgb);
            bad += p[3] != 255 || memcmp(p, rgb, 3) != 0;
            checked++;
        }
    CHECK_EQ_INT(bad, 0);
    CHECK(checked > 0);
    free(px);
    snprintf(side, sizeof side, "%s.json", path);
    FILE *f = fopen(side, "r");
    CHECK(f != NULL);
    if (f) {
        char text[4096] = "";
        CHECK(fread(text, 1, sizeof text - 1, f) > 0);
        fclose(f);
        CHECK_CONTAINS(text, "\"scale\": \"linear\"");
        CHECK_CONTAINS(text, "\"colormap\": \"viridis\"");
        char vmin[64];
        char num[SK_NUMBER_BUFSIZE];
        sk_format_double(lo, num);
        snprintf(vmin, sizeof vmin, "\"vmin\": %s", num);
        CHECK_CONTAINS(text, vmin);
    }
    /* sd is drawn on a log scale by default */
    snprintf(path, sizeof path, "%s/sd.png", dir);
    CHECK_OK(sk_maps_write_png(m, sk_maps_find(m, "sd"), path, NULL, &e), &e);
    snprintf(side, sizeof side, "%s.json", path);
    f = fopen(side, "r");
    if (f) {
        char text[4096] = "";
        CHECK(fread(text, 1, sizeof text - 1, f) > 0);
        fclose(f);
        CHECK_CONTAINS(text, "\"scale\": \"log\"");
    }
    unsigned char lo_rgb[3], hi_rgb[3];
    sk_viridis(0, lo_rgb);
    sk_viridis(1, hi_rgb);
    CHECK(lo_rgb[0] == 68 && lo_rgb[1] == 1 && lo_rgb[2] == 84);
    CHECK(hi_rgb[0] == 253 && hi_rgb[1] == 231 && hi_rgb[2] == 37);
}

static void test_errors(void)
{
    sk_error e;
    sk_project_options opt;
    sk_table *t = test_uniform(3, 1.0, 1.0);
    CHECK(test_project(t, "sd,nope", "", &e) == NULL);
    CHECK_CONTAINS(e.message, "unknown quantity 'nope'");
    CHECK_CONTAINS(e.message, "density");
    CHECK(test_project(t, "sd,sd", "", &e) == NULL);
    CHECK_CONTAINS(e.message, "asked twice");
    sk_project_options_init(&opt);
    CHECK(sk_project_options_set(&opt, "res", "0", &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "res must be between 1");
    CHECK(sk_project_options_set(&opt, "bogus", "1", &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "unknown projection option 'bogus'");
    CHECK(sk_project_options_set(&opt, "kernel", "gauss", &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "exact, overlap, cic, ngp");
    CHECK(test_project(t, "sd,T", "res=100000", &e) == NULL);
    CHECK_EQ_INT(e.code, SK_ERR_RANGE);
    CHECK_CONTAINS(e.message, "a 100000 x 100000 map of 2 quantities needs 320.0 GB");
    CHECK_CONTAINS(e.message, "memory budget of 4.3 GB");
    CHECK(test_project(t, "sd", "res=64;memory_budget=1k", &e) == NULL);
    CHECK_CONTAINS(e.message, "needs 65.5 kB");
    CHECK(test_project(t, "sd", "xrange=0.2 0.2001", &e) == NULL);
    CHECK_EQ_INT(e.code, SK_ERR_EMPTY);
    CHECK_CONTAINS(e.message, "selection holds none of the table's 512 cells");
    CHECK(test_project(t, "sd", "direction=0 0 0", &e) == NULL);
    CHECK_CONTAINS(e.message, "direction (0, 0, 0) has zero length");
    CHECK(test_project(t, "sd", "direction=1 1 0;up=2 2 0", &e) == NULL);
    CHECK_CONTAINS(e.message, "along the line of sight");
    CHECK(test_project(t, "cs", "gamma=0", &e) == NULL);
    CHECK(test_project(t, "sd", "pixel=0", &e) == NULL);
    CHECK_CONTAINS(e.message, "pixel must be above zero");
    sk_table *g = sk_table_new(1);
    sk_table_add(g, "x", SK_FLOAT64, &e);
    CHECK(test_project(g, "sd", "", &e) == NULL);
    CHECK_CONTAINS(e.message, "neither cells");
    sk_table_free(g);
    /* a density-free table projects volume-weighted means and counts */
    sk_table_remove(t, "density");
    CHECK(test_project(t, "sd", "", &e) == NULL);
    CHECK_CONTAINS(e.message, "needs the column 'density'");
    sk_maps *m = test_project(t, "velocity_x,count", "weight=volume;res=8", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m)
        CHECK_CLOSE(test_map(m, "count")[3], 8, 0);
    sk_maps_free(m);
    sk_table_free(t);
}

/* Pixel size in a length unit: Mera's rounding to a whole number of
 * pixels across the box, and windows widened to whole pixels. */
static void test_pixel_size(void)
{
    sk_error e;
    sk_table *t = test_uniform(3, 1.0, 1.0);
    /* unit_l is one kpc: a 0.3 kpc pixel -> ceil(1/0.3) = 4 across */
    sk_maps *m = test_project(t, "sd", "pixel=0.3;unit=kpc", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        CHECK_EQ_INT(sk_maps_nx(m), 4);
        CHECK_CLOSE(sk_maps_get_info(m)->pixel_size, 0.25, 1e-15);
        sk_maps_free(m);
    }
    m = test_project(t, "sd", "res=10;xrange=0.31 0.69;yrange=0.25 0.5", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        const sk_maps_info *in = sk_maps_get_info(m);
        CHECK_EQ_INT(sk_maps_nx(m), 4);
        CHECK_EQ_INT(sk_maps_ny(m), 3);
        CHECK_CLOSE(in->extent[0], 0.3, 1e-15);
        CHECK_CLOSE(in->extent[1], 0.7, 1e-15);
        CHECK_CLOSE(in->extent[2], 0.2, 1e-15);
        CHECK_CLOSE(in->extent[3], 0.5, 1e-15);
        sk_maps_free(m);
    }
    /* a region reaching past the box is cut to the box */
    m = test_project(t, "sd", "res=10;xrange=0.9 1.3;yrange=-5 0.2", &e);
    CHECK_MSG(m != NULL, "%s", e.message);
    if (m) {
        const sk_maps_info *in = sk_maps_get_info(m);
        CHECK_EQ_INT(sk_maps_nx(m), 1);
        CHECK_EQ_INT(sk_maps_ny(m), 2);
        CHECK_CLOSE(in->extent[1], 1.0, 1e-15);
        CHECK_CLOSE(in->extent[2], 0.0, 0);
        sk_maps_free(m);
    }
    sk_table_free(t);
}

/* cfitsio reads a memory buffer given to fits_create_memfile as a file
 * already there: a recycled block that held an earlier FITS file put that
 * file's HDUs before the new ones (CI saw a map's name find the previous
 * map). The block the writer asks for is recycled here on purpose: the
 * allocator hands back the block just freed, holding an old FITS file. */
static void test_fits_on_recycled_memory(const sk_maps *m, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/recycled.fits", dir);
    char old[512];
    snprintf(old, sizeof old, "%s/maps.fits", dir);
    FILE *f = fopen(old, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    size_t size = 4 * 2880;
    char *block = sk_malloc(size);
    CHECK(block != NULL && fread(block, 1, size, f) == size);
    fclose(f);
    sk_free(block);
    sk_error e;
    CHECK_OK(sk_maps_write(m, path, NULL, NULL, NULL, &e), &e);
    fitsfile *ff;
    int st = 0, nhdu = 0;
    fits_open_file(&ff, path, READONLY, &st);
    fits_get_num_hdus(ff, &nhdu, &st);
    CHECK_EQ_INT(st, 0);
    CHECK_EQ_INT(nhdu, 1 + sk_maps_count(m));
    fits_close_file(ff, &st);
}

/* Maps are flushed before their rename unless told not to, in every
 * format (the flushes counted inside the library); a .snapkit file always
 * is, whatever the thread's setting. */
static void test_fsync(sk_maps *m, const sk_table *cells, const char *dir)
{
    sk_error e;
    char fits[128], npy[128], png[128], store[128];
    snprintf(fits, sizeof fits, "%s/durable.fits", dir);
    snprintf(npy, sizeof npy, "%s/durable_{var}.npy", dir);
    snprintf(png, sizeof png, "%s/durable_{var}.png", dir);
    snprintf(store, sizeof store, "%s/durable.snapkit", dir);
    const char *paths[] = {fits, npy, png};
    int64_t files[] = {1, 3, 6}; /* three maps; each png has its .json */
    for (int on = 1; on >= 0; on--) {
        sk_maps_set_fsync(m, on);
        for (int k = 0; k < 3; k++) {
            int64_t before = atomic_fsync_calls();
            CHECK_OK(sk_maps_write(m, paths[k], NULL, NULL, NULL, &e), &e);
            CHECK_MSG(atomic_fsync_calls() - before == (on ? files[k] : 0), "%s fsync %d: %lld",
                      paths[k], on, (long long)(atomic_fsync_calls() - before));
        }
    }
    sk_maps_set_fsync(m, 1);
    int was = atomic_scope_fsync(0);
    int64_t before = atomic_fsync_calls();
    sk_store_writer *w = NULL;
    CHECK_OK(sk_store_writer_open(&w, store, NULL, &e), &e);
    if (w) {
        CHECK_OK(sk_store_writer_add(w, "hydro", cells, &e), &e);
        CHECK_OK(sk_store_writer_commit(w, NULL, &e), &e);
    }
    CHECK_EQ_INT(atomic_fsync_calls() - before, 1);
    atomic_scope_fsync(was);
}

int main(void)
{
    char dir[64];
    CHECK(test_tmpdir(dir, sizeof dir) != NULL);
    sk_table *t = NULL;
    sk_maps *m = sample_maps(&t);
    if (m) {
        test_fits(m, dir);
        test_fits_on_recycled_memory(m, dir);
        test_npy(m, dir);
        test_png(m, dir);
        test_fsync(m, t, dir);
    }
    sk_maps_free(m);
    sk_table_free(t);
    test_errors();
    test_pixel_size();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
    return test_done();
}
