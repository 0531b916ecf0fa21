/* Phase diagrams: a viridis image of 2-D bins with axes and a colour bar. */
#include "figure/phase_plot.h"

#include <math.h>
#include <string.h>

#include "figure/plot.h"
#include "snapkit/memory.h"
#include "snapkit/util/colormap.h"

enum { PLOT_W = 440, PLOT_H = 400, BAR_GAP = 16, BAR_W = 16 };

typedef struct frame {
    skf_axis x, y;
    double vmin, vmax;
    double bar_x;
    skf_layout lay;
} frame;

static int filled(const skf_phase_spec *s, double v)
{
    return isfinite(v) && (!s->zlog || v > 0);
}

static int colour_range(const skf_phase_spec *s, double *vmin, double *vmax, sk_error *err)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t n = (size_t)s->nx * (size_t)s->ny;
    for (size_t i = 0; i < n; i++)
        if (filled(s, s->values[i])) {
            lo = fmin(lo, s->values[i]);
            hi = fmax(hi, s->values[i]);
        }
    if (!(lo <= hi))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "phase figure: no finite value%s for the colour range (all %zu bins "
                       "empty)",
                       s->zlog ? " above 0 (log colour scale)" : "", n);
    *vmin = lo;
    *vmax = hi;
    return SK_OK;
}

static int prepare(const skf_phase_spec *s, frame *f, sk_error *err)
{
    if (!s)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "phase figure: no specification");
    int rc = skf_check_edges("phase figure: x axis", s->nx, s->xedges, s->xlog, err);
    if (rc == SK_OK)
        rc = skf_check_edges("phase figure: y axis", s->ny, s->yedges, s->ylog, err);
    if (rc != SK_OK)
        return rc;
    if (!s->values)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "phase figure: no values");
    if ((rc = colour_range(s, &f->vmin, &f->vmax, err)) != SK_OK)
        return rc;
    if ((rc = skf_cairo_load(err)) != SK_OK)
        return rc;
    skf_axis_init(&f->x, s->xedges[0], s->xedges[s->nx], s->xlog, 6, s->xtitle);
    skf_axis_init(&f->y, s->yedges[0], s->yedges[s->ny], s->ylog, 6, s->ytitle);
    skf_layout *l = &f->lay;
    skf_margins g = skf_plot_area(&f->x, &f->y, s->title && s->title[0], PLOT_W, PLOT_H, l);
    cairo_t *m = skf_scratch();
    double bar = skf_colour_bar_width(m, PLOT_H, s->zlog, f->vmin, f->vmax);
    cairo_destroy(m);
    f->bar_x = l->x + PLOT_W + fmax(BAR_GAP, g.right);
    l->width = ceil(f->bar_x + BAR_W + bar + 10);
    return SK_OK;
}

int skf_phase_layout(const skf_phase_spec *s, skf_layout *out, sk_error *err)
{
    frame *f = sk_malloc(sizeof *f);
    if (!f)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = prepare(s, f, err);
    if (rc == SK_OK)
        *out = f->lay;
    sk_free(f);
    return rc;
}

/* The colour of a non-empty bin, opaque, as cairo's ARGB32. */
static uint32_t bin_colour(const skf_phase_spec *s, const frame *f, double v)
{
    double t = !(f->vmax > f->vmin) ? 0.5
               : s->zlog            ? log(v / f->vmin) / log(f->vmax / f->vmin)
                                    : (v - f->vmin) / (f->vmax - f->vmin);
    unsigned char rgb[3];
    sk_viridis(t, rgb);
    return 0xFF000000u | (uint32_t)rgb[0] << 16 | (uint32_t)rgb[1] << 8 | rgb[2];
}

/* Are the edges evenly spaced on the axis (so one image pixel per bin)? */
static int even(const double *e, int n, int log_axis)
{
    double a = log_axis ? log10(e[0]) : e[0], b = log_axis ? log10(e[n]) : e[n];
    for (int i = 1; i < n; i++) {
        double u = log_axis ? log10(e[i]) : e[i];
        if (fabs(u - (a + (b - a) * i / n)) > 1e-6 * (b - a))
            return 0;
    }
    return 1;
}

/* Even bins: an image (empty bins transparent over the white page) scaled
 * onto the plot area, each bin a crisp block. PNG and PDF draw one pixel
 * per bin without smoothing; SVG viewers smooth images, so there each bin
 * is zx x zy pixels, about its size on the page. */
static void draw_image(const skf_phase_spec *s, const frame *f, skf_format fmt, cairo_t *cr)
{
    const skf_layout *l = &f->lay;
    int zx = fmt == SKF_SVG ? (int)ceil(l->w / s->nx) : 1;
    int zy = fmt == SKF_SVG ? (int)ceil(l->h / s->ny) : 1;
    int w = s->nx * zx, h = s->ny * zy;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(img);
        unsigned char *data = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        for (int r = 0; r < h; r++) {
            uint32_t *row = (uint32_t *)(void *)(data + (size_t)r * (size_t)stride);
            const double *v = s->values + (size_t)(s->ny - 1 - r / zy) * (size_t)s->nx;
            for (int c = 0; c < w; c++)
                row[c] = filled(s, v[c / zx]) ? bin_colour(s, f, v[c / zx]) : 0;
        }
        cairo_surface_mark_dirty(img);
        cairo_save(cr);
        cairo_translate(cr, l->x, l->y);
        cairo_scale(cr, l->w / w, l->h / h);
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(cr, 0, 0, w, h);
        cairo_fill(cr);
        cairo_restore(cr);
    }
    cairo_surface_destroy(img);
}

/* Uneven bins: one rectangle each, not antialiased so neighbours meet
 * without a seam. */
static void draw_rects(const skf_phase_spec *s, const frame *f, cairo_t *cr)
{
    cairo_save(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (int iy = 0; iy < s->ny; iy++) {
        double y0 = skf_axis_pos(&f->y, s->yedges[iy]), y1 = skf_axis_pos(&f->y, s->yedges[iy + 1]);
        for (int ix = 0; ix < s->nx; ix++) {
            double v = s->values[(size_t)iy * (size_t)s->nx + (size_t)ix];
            if (!filled(s, v))
                continue;
            double x0 = skf_axis_pos(&f->x, s->xedges[ix]);
            double x1 = skf_axis_pos(&f->x, s->xedges[ix + 1]);
            skf_rect(cr, x0, y1, x1 - x0, y0 - y1, bin_colour(s, f, v) & 0xFFFFFFu, SKF_NONE, 0);
        }
    }
    cairo_restore(cr);
}

static void draw(const skf_phase_spec *s, const frame *f, skf_format fmt, cairo_t *cr)
{
    const skf_layout *l = &f->lay;
    if (even(s->xedges, s->nx, s->xlog) && even(s->yedges, s->ny, s->ylog))
        draw_image(s, f, fmt, cr);
    else
        draw_rects(s, f, cr);
    skf_draw_axes(cr, &f->x, &f->y);
    skf_colour_bar(cr, f->bar_x, l->y, BAR_W, l->h, s->zlog, f->vmin, f->vmax,
                   s->ztitle ? s->ztitle : "");
    if (s->title && s->title[0])
        skf_text(cr, l->x, 24, s->title, SKF_SIZE_TITLE, SKF_LEFT, SKF_TEXT_BOLD, SKF_INK);
}

int skf_phase_figure(const skf_phase_spec *s, const char *path, sk_error *err)
{
    skf_format fmt;
    if (!path || skf_format_of(path, &fmt) != 0)
        return sk_fail(err, SK_ERR_ARG, path, -1, "a figure is written as .png, .svg or .pdf");
    frame *f = sk_malloc(sizeof *f);
    int rc = f ? prepare(s, f, err)
               : sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the figure");
    skf_figure fig;
    if (rc == SK_OK)
        rc = skf_begin(&fig, fmt, f->lay.width, f->lay.height, err);
    if (rc == SK_OK) {
        draw(s, f, fmt, fig.cr);
        rc = skf_end_write(&fig, path, err);
    }
    sk_free(f);
    return rc;
}
