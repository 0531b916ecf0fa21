/* A projection map as a figure: the map, axes in a length unit, a colour
 * bar and a title, laid out around the map's own size. */
#include "figure/map.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figure/figure.h"
#include "figure/plot.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"

#define SECONDS_PER_YEAR 3.15576e7 /* Julian year */

static void duration(double s, char *buf, size_t n)
{
    double yr = s / SECONDS_PER_YEAR;
    if (fabs(yr) >= 1e9)
        snprintf(buf, n, "%.3g Gyr", yr / 1e9);
    else if (fabs(yr) >= 1e6)
        snprintf(buf, n, "%.3g Myr", yr / 1e6);
    else if (fabs(yr) >= 1e3)
        snprintf(buf, n, "%.3g kyr", yr / 1e3);
    else
        snprintf(buf, n, "%.3g yr", yr);
}

double skf_cosmic_age(double a, double h0, double omega_m, double omega_l, double omega_k)
{
    /* t = 1/H0 * integral_0^a da' / (a' E(a')), with a' = u^2 so that the
     * integrand 2 u^2 / sqrt(Om + Ok u^2 + OL u^6) is smooth at 0. */
    if (!(a > 0) || !(h0 > 0))
        return NAN;
    enum { N = 2000 };
    double top = sqrt(a), h = top / N, sum = 0;
    for (int k = 0; k <= N; k++) {
        double u = k * h, u2 = u * u;
        double e = omega_m + omega_k * u2 + omega_l * u2 * u2 * u2;
        double f = e > 0 ? 2 * u2 / sqrt(e) : 0;
        sum += f * (k == 0 || k == N ? 1 : k % 2 ? 4 : 2);
    }
    double hubble_time = SK_CM_PER_MPC / (h0 * SK_CM_PER_KM);
    return hubble_time * sum * h / 3;
}

void skf_map_style_init(skf_map_style *s, const sk_table *t, const char *length_unit)
{
    memset(s, 0, sizeof *s);
    snprintf(s->length_unit, sizeof s->length_unit, "%s", length_unit ? length_unit : "");
    s->boxlen = sk_table_meta_double(t, "boxlen", 1);
    double ul = sk_table_meta_double(t, "unit_l", 1), ud = sk_table_meta_double(t, "unit_d", 1);
    double ut = sk_table_meta_double(t, "unit_t", 1);
    int physical = !(ul == 1 && ud == 1 && ut == 1);
    s->unit_l = physical ? ul : 0;
    double time = sk_table_meta_double(t, "time", NAN);
    double aexp = sk_table_meta_double(t, "aexp", NAN), h0 = sk_table_meta_double(t, "H0", NAN);
    /* yt's rule: a run is cosmological unless time >= 0, H0 = 1 and aexp = 1. */
    int cosmological = isfinite(aexp) && isfinite(h0) && aexp > 0 &&
                       !(!(time < 0) && h0 == 1 && aexp == 1);
    char age[48];
    if (cosmological) {
        double om = sk_table_meta_double(t, "omega_m", NAN);
        double ol = sk_table_meta_double(t, "omega_l", NAN);
        double ok = sk_table_meta_double(t, "omega_k", 1 - om - ol);
        double z = 1 / aexp - 1, sec = skf_cosmic_age(aexp, h0, om, ol, ok);
        int n = snprintf(s->time, sizeof s->time, "z = %.*f", fabs(z) < 0.01 ? 4 : 2,
                         fabs(z) < 5e-5 ? 0.0 : z);
        if (isfinite(sec)) {
            duration(sec, age, sizeof age);
            snprintf(s->time + n, sizeof s->time - (size_t)n, ", t = %s", age);
        }
    } else if (isfinite(time) && physical) {
        duration(time * ut, age, sizeof age);
        snprintf(s->time, sizeof s->time, "t = %s", age);
    } else if (isfinite(time)) {
        snprintf(s->time, sizeof s->time, "t = %.4g (code units)", time);
    }
}

/* ------------------------------------------------------------- labels */

/* Code lengths per axis unit, and the unit's name on the axes. */
static double axis_unit(const skf_map_style *s, const sk_maps_info *in, char *name, size_t n)
{
    const char *u = s->length_unit;
    double ul = in->unit_l > 0 ? in->unit_l : 1, cm;
    if (!strcmp(u, "standard")) {
        snprintf(name, n, "box units");
        return s->boxlen > 0 ? s->boxlen : 1;
    }
    if (*u && strcmp(u, "code") && sk_length_unit_cm(u, &cm, NULL) == SK_OK) {
        snprintf(name, n, "%s", u);
        return cm / ul;
    }
    if (!*u && s->unit_l > 0) {
        static const char *const units[] = {"cm", "km", "au", "pc", "kpc", "Mpc"};
        double width = (in->extent[1] - in->extent[0]) * ul;
        int pick = 0;
        for (int k = 1; k < 6; k++)
            if (sk_length_unit_cm(units[k], &cm, NULL) == SK_OK && width >= cm)
                pick = k;
        sk_length_unit_cm(units[pick], &cm, NULL);
        snprintf(name, n, "%s", units[pick]);
        return cm / ul;
    }
    snprintf(name, n, "code length");
    return 1;
}

/* Append text to buf[n] at *len. */
static void add(char *buf, size_t n, size_t *len, const char *text)
{
    if (*len < n)
        *len += (size_t)snprintf(buf + *len, n - *len, "%s", text);
}

/* A unit as typeset: "Msun/pc2" -> "M☉/pc²", "cm-3" -> "cm⁻³". */
static void pretty_unit(const char *u, char *buf, size_t n)
{
    static const char *const sup[] = {"\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3",
                                      "\xe2\x81\xb4", "\xe2\x81\xb5", "\xe2\x81\xb6",
                                      "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9"};
    size_t len = 0;
    buf[0] = '\0';
    for (const char *p = u; *p;) {
        if (!strncmp(p, "Msun", 4)) {
            add(buf, n, &len, "M\xe2\x98\x89");
            p += 4;
        } else if (p > u && isalpha((unsigned char)p[-1]) &&
                   (isdigit((unsigned char)*p) ||
                    (*p == '-' && isdigit((unsigned char)p[1])))) {
            for (; *p == '-' || isdigit((unsigned char)*p); p++)
                add(buf, n, &len, *p == '-' ? "\xe2\x81\xbb" : sup[*p - '0']);
        } else {
            char c[2] = {*p++, '\0'};
            add(buf, n, &len, c);
        }
    }
}

/* "Surface density [M☉/pc²]": the quantity's name in words and its unit. */
static void quantity_label(const char *name, const char *what, const char *unit, char *buf,
                           size_t n)
{
    static const struct {
        const char *name, *words;
    } k_words[] = {
        {"sd", "Surface density"}, {"mass", "Mass"},         {"T", "Temperature"},
        {"temperature", "Temperature"}, {"cs", "Sound speed"}, {"v", "Speed"},
        {"density", "Density"},     {"rho", "Density"},     {"pressure", "Pressure"},
        {"p", "Pressure"},          {"vx", "Velocity x"},   {"vy", "Velocity y"},
        {"vz", "Velocity z"},       {"velocity_x", "Velocity x"},
        {"velocity_y", "Velocity y"}, {"velocity_z", "Velocity z"},
        {"metallicity", "Metallicity"},
    };
    char words[96] = "";
    for (size_t k = 0; k < sizeof k_words / sizeof k_words[0]; k++)
        if (!strcmp(name, k_words[k].name))
            snprintf(words, sizeof words, "%s", k_words[k].words);
    if (!words[0] && (!strcmp(name, "weight") || !strcmp(name, "count")))
        snprintf(words, sizeof words, "%s", what);
    if (!words[0]) { /* a column: "passive_scalar_1" -> "Passive scalar 1" */
        snprintf(words, sizeof words, "%s", name);
        for (char *c = words; *c; c++)
            if (*c == '_')
                *c = ' ';
    }
    words[0] = (char)toupper((unsigned char)words[0]);
    char typeset[64];
    if (!strcmp(unit, "nH")) {
        snprintf(words, sizeof words, "Hydrogen number density");
        pretty_unit("cm-3", typeset, sizeof typeset);
    } else if (!strcmp(unit, "code")) {
        snprintf(typeset, sizeof typeset, "code units");
    } else {
        pretty_unit(unit, typeset, sizeof typeset);
    }
    if (!strcmp(unit, "count") || !typeset[0])
        snprintf(buf, n, "%s", words);
    else
        snprintf(buf, n, "%s [%s]", words, typeset);
}

/* "sd: surface density along z"; a slice's "density: slice at z = 0.4 kpc"
 * (per: code lengths per axis unit, as the axes divide by it). */
static void projection_label(const sk_maps *maps, int i, double per, const char *unit,
                             char *buf, size_t n)
{
    const sk_maps_info *in = sk_maps_get_info(maps);
    char along[96];
    if (!strcmp(in->mode, "slice") && in->axis >= 0) { /* "density: slice at z = 0.4" */
        snprintf(buf, n, "%s: slice at %c = %.6g %s", sk_maps_name(maps, i), "xyz"[in->axis],
                 in->center[in->axis] / per, unit);
        return;
    }
    if (!strcmp(in->mode, "slice")) {
        snprintf(buf, n, "%s: slice normal to (%.3g, %.3g, %.3g)", sk_maps_name(maps, i),
                 in->los[0], in->los[1], in->los[2]);
        return;
    }
    if (in->axis >= 0)
        snprintf(along, sizeof along, "along %c", "xyz"[in->axis]);
    else
        snprintf(along, sizeof along, "along (%.3g, %.3g, %.3g)", in->los[0], in->los[1],
                 in->los[2]);
    snprintf(buf, n, "%s: %s %s", sk_maps_name(maps, i), sk_maps_what(maps, i), along);
}

/* Axis titles: the image axes of an axis-aligned map are box axes. */
static void axis_titles(const sk_maps_info *in, const char *unit, char *xt, char *yt, size_t n)
{
    static const char uv[3][2] = {{'y', 'z'}, {'z', 'x'}, {'x', 'y'}};
    if (in->axis >= 0) {
        snprintf(xt, n, "%c [%s]", uv[in->axis][0], unit);
        snprintf(yt, n, "%c [%s]", uv[in->axis][1], unit);
    } else {
        snprintf(xt, n, "image x, from the centre [%s]", unit);
        snprintf(yt, n, "image y, from the centre [%s]", unit);
    }
}

/* ------------------------------------------------------------- drawing */

/* The bare picture's pixels as a cairo image (premultiplied ARGB). */
static cairo_surface_t *map_image(const sk_picture *pic, int nx, int ny)
{
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, nx, ny);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS)
        return img;
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (int r = 0; r < ny; r++) {
        uint32_t *row = (uint32_t *)(void *)(data + (size_t)r * (size_t)stride);
        const unsigned char *src = pic->rgba + 4 * (size_t)r * (size_t)nx;
        for (int c = 0; c < nx; c++, src += 4) /* alpha is 0 or 255: no premultiplying */
            row[c] = src[3] ? 0xFF000000u | (uint32_t)src[0] << 16 | (uint32_t)src[1] << 8 | src[2]
                            : 0;
    }
    cairo_surface_mark_dirty(img);
    return img;
}

/* A map of one row (a 1-D output's profile) drawn as a curve: the value
 * against x, on the map's colour range (log10 of it on a log scale). */
static int profile_figure(const skf_map_style *st, const sk_picture *pic, const char *path,
                          skf_format fmt, sk_error *err)
{
    const sk_maps *maps = pic->maps;
    const sk_maps_info *in = sk_maps_get_info(maps);
    int nx = sk_maps_nx(maps);
    const double *v = sk_maps_data(maps, pic->index);
    double *x = sk_malloc(sizeof *x * (size_t)nx + 1), *y = sk_malloc(sizeof *y * (size_t)nx + 1);
    if (!x || !y) {
        sk_free(x);
        sk_free(y);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    char unit[32], xt[96], yt[96], label[192], sub[192], ytitle[220];
    double per = axis_unit(st, in, unit, sizeof unit);
    axis_titles(in, unit, xt, yt, sizeof xt);
    quantity_label(sk_maps_name(maps, pic->index), sk_maps_what(maps, pic->index),
                   sk_maps_unit(maps, pic->index), label, sizeof label);
    projection_label(maps, pic->index, per, unit, sub, sizeof sub);
    snprintf(ytitle, sizeof ytitle, pic->log_scale ? "log10 %s" : "%s", label);
    double dx = (in->extent[1] - in->extent[0]) / nx;
    int n = 0;
    for (int i = 0; i < nx; i++) {
        double value = pic->log_scale ? (v[i] > 0 ? log10(v[i]) : NAN) : v[i];
        if (isfinite(value)) {
            x[n] = (in->extent[0] + (i + 0.5) * dx) / per;
            y[n++] = value;
        }
    }
    double lo = pic->log_scale ? log10(pic->vmin) : pic->vmin;
    double hi = pic->log_scale ? log10(pic->vmax) : pic->vmax;
    if (!(hi > lo)) {
        lo -= 0.5 * (fabs(lo) > 0 ? fabs(lo) : 1);
        hi = lo + (fabs(lo) > 0 ? 2 * fabs(lo) : 1);
    }
    double pad = 0.05 * (hi - lo);
    skf_plot p = {.x = 90, .y = 48, .w = 640, .h = 320, .xlo = in->extent[0] / per,
                  .xhi = in->extent[1] / per, .ylo = lo - pad, .yhi = hi + pad};
    skf_figure f;
    int rc = skf_begin(&f, fmt, p.x + p.w + 30, p.y + p.h + 60, err);
    if (rc == SK_OK) {
        p.cr = f.cr;
        if (st->time[0])
            skf_text(f.cr, p.x, 24, st->time, 14, SKF_LEFT, SKF_TEXT_BOLD, SKF_INK);
        skf_text(f.cr, p.x + p.w, 24, sub, SKF_SIZE_TICK, SKF_RIGHT, 0, SKF_GREY);
        skf_frame_axes(&p, xt, ytitle);
        skf_curve(&p, x, y, n, skf_series_colour(0), 1.5, 0, 0);
        rc = skf_end_write(&f, path, err);
    }
    sk_free(x);
    sk_free(y);
    return rc;
}

int skf_map_figure(void *ctx, const sk_picture *pic, const char *path, sk_error *err)
{
    const skf_map_style *st = ctx;
    skf_format fmt;
    if (skf_format_of(path, &fmt) != 0)
        return sk_fail(err, SK_ERR_ARG, path, -1, "a figure is written as .png, .svg or .pdf");
    const sk_maps *maps = pic->maps;
    if (sk_maps_ny(maps) == 1 && sk_maps_nx(maps) > 1)
        return profile_figure(st, pic, path, fmt, err);
    const sk_maps_info *in = sk_maps_get_info(maps);
    int nx = sk_maps_nx(maps), ny = sk_maps_ny(maps), big = nx > ny ? nx : ny;
    /* Small maps are enlarged by a whole factor (each cell stays a crisp
     * square), large ones shown at most 1024 points across. */
    double zoom = big < 400 ? ceil(400.0 / big) : big > 1024 ? 1024.0 / big : 1;
    double mw = nx * zoom, mh = ny * zoom;

    char unit[32], xt[96], yt[96], bar[192], sub[192];
    double per = axis_unit(st, in, unit, sizeof unit);
    axis_titles(in, unit, xt, yt, sizeof xt);
    quantity_label(sk_maps_name(maps, pic->index), sk_maps_what(maps, pic->index),
                   sk_maps_unit(maps, pic->index), bar, sizeof bar);
    projection_label(maps, pic->index, per, unit, sub, sizeof sub);
    skf_plot p = {.xlo = in->extent[0] / per, .xhi = in->extent[1] / per,
                  .ylo = in->extent[2] / per, .yhi = in->extent[3] / per};

    /* Measure the margins: y tick labels, the colour bar, the title. */
    if (skf_cairo_load(err) != SK_OK)
        return (int)err->code;
    cairo_t *m = skf_scratch();
    double ticks[64], step, widest = 0;
    int nt = skf_linear_ticks(p.ylo, p.yhi, 6, ticks, 64, &step);
    for (int k = 0; k < nt; k++) {
        char label[32];
        skf_tick_label(ticks[k], step, fmax(fabs(p.ylo), fabs(p.yhi)), label, sizeof label);
        widest = fmax(widest, skf_text_width(m, label, SKF_SIZE_TICK, 0));
    }
    double bar_room = skf_colour_bar_width(m, mh, pic->log_scale, pic->vmin, pic->vmax);
    double title_w = skf_text_width(m, st->time, 14, SKF_TEXT_BOLD);
    double sub_w = skf_text_width(m, sub, SKF_SIZE_TICK, 0);
    cairo_destroy(m);
    double left = 14 + SKF_SIZE_LABEL + 8 + widest + 8;
    int two_lines = st->time[0] && title_w + 24 + sub_w > mw;
    double top = two_lines ? 58 : 40, bottom = 60;
    double bar_x = left + mw + 18, bar_w = 18;
    double width = ceil(bar_x + bar_w + bar_room + 10), height = ceil(top + mh + bottom);

    skf_figure f;
    int rc = skf_begin(&f, fmt, width, height, err);
    if (rc != SK_OK)
        return rc;
    cairo_t *cr = f.cr;
    if (st->time[0])
        skf_text(cr, left, 24, st->time, 14, SKF_LEFT, SKF_TEXT_BOLD, SKF_INK);
    if (two_lines || !st->time[0])
        skf_text(cr, left, two_lines ? 44 : 26, sub, SKF_SIZE_TICK, SKF_LEFT, 0, SKF_GREY);
    else
        skf_text(cr, left + mw, 24, sub, SKF_SIZE_TICK, SKF_RIGHT, 0, SKF_GREY);

    /* No data (NaN) shows as light grey behind the transparent pixels. */
    skf_rect(cr, left, top, mw, mh, 0xe4e4e4, SKF_NONE, 0);
    cairo_surface_t *img = map_image(pic, nx, ny);
    cairo_save(cr);
    cairo_translate(cr, left, top);
    cairo_scale(cr, zoom, zoom);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), zoom >= 1 ? CAIRO_FILTER_NEAREST
                                                              : CAIRO_FILTER_GOOD);
    cairo_rectangle(cr, 0, 0, nx, ny);
    cairo_fill(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);

    p.x = left;
    p.y = top;
    p.w = mw;
    p.h = mh;
    p.cr = cr;
    skf_frame_axes(&p, xt, yt);
    skf_colour_bar(cr, bar_x, top, bar_w, mh, pic->log_scale, pic->vmin, pic->vmax, bar);
    return skf_end_write(&f, path, err);
}
