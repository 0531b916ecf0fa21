/* Profile figures: curves over bins with shaded bands, on log or linear axes. */
#include "figure/profile_plot.h"

#include <math.h>
#include <string.h>

#include "figure/plot.h"
#include "snapkit/memory.h"

enum { PLOT_W = 520, PLOT_H = 380, LEGEND_ROW = 17 };

typedef struct frame {
    skf_axis x, y;
    skf_layout lay;
} frame;

static int usable(double v, int log_axis)
{
    return isfinite(v) && (!log_axis || v > 0);
}

/* Smallest and largest usable value of v[0..n) into *lo, *hi (above
 * `least`); the count of them. */
static int extend(const double *v, int n, int log_axis, double least, double *lo, double *hi)
{
    int k = 0;
    for (int i = 0; v && i < n; i++)
        if (usable(v[i], log_axis) && v[i] >= least) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
            k++;
        }
    return k;
}

/* The y range: the curves, then the bands, padded by 5%. */
static int y_range(const skf_profile_spec *s, double *ylo, double *yhi, sk_error *err)
{
    double lo = INFINITY, hi = -INFINITY;
    int k = 0;
    for (int i = 0; i < s->nseries; i++)
        k += extend(s->series[i].y, s->nbins, s->ylog, -INFINITY, &lo, &hi);
    if (k == 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "profile figure: no finite value%s to plot",
                       s->ylog ? " above 0 (log y axis)" : "");
    double least = s->ylog ? lo / 10 : -INFINITY;
    for (int i = 0; i < s->nseries; i++) {
        extend(s->series[i].lo, s->nbins, s->ylog, least, &lo, &hi);
        extend(s->series[i].hi, s->nbins, s->ylog, least, &lo, &hi);
    }
    if (s->ylog) {
        double a = log10(lo), b = log10(hi), pad = b > a ? 0.05 * (b - a) : 0.5;
        *ylo = pow(10, a - pad);
        *yhi = pow(10, b + pad);
    } else {
        double pad = hi > lo ? 0.05 * (hi - lo) : fabs(lo) > 0 ? 0.5 * fabs(lo) : 1;
        *ylo = lo - pad;
        *yhi = hi + pad;
    }
    return SK_OK;
}

static int prepare(const skf_profile_spec *s, frame *f, sk_error *err)
{
    if (!s)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "profile figure: no specification");
    int rc = skf_check_edges("profile figure", s->nbins, s->edges, s->xlog, err);
    if (rc != SK_OK)
        return rc;
    if (s->nseries < 1 || !s->series)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "profile figure: no series to draw");
    for (int i = 0; i < s->nseries; i++)
        if (!s->series[i].y)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "profile figure: series %d has no values",
                           i);
    double ylo = 0, yhi = 1;
    if ((rc = y_range(s, &ylo, &yhi, err)) != SK_OK)
        return rc;
    if ((rc = skf_cairo_load(err)) != SK_OK)
        return rc;
    skf_axis_init(&f->x, s->edges[0], s->edges[s->nbins], s->xlog, 6, s->xtitle);
    skf_axis_init(&f->y, ylo, yhi, s->ylog, 6, s->ytitle);
    skf_margins g = skf_plot_area(&f->x, &f->y, s->title && s->title[0], PLOT_W, PLOT_H, &f->lay);
    f->lay.width = f->lay.x + PLOT_W + ceil(fmax(g.right, 24));
    return SK_OK;
}

int skf_profile_layout(const skf_profile_spec *s, skf_layout *out, sk_error *err)
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

/* ------------------------------------------------------------- curves */

/* The page points of bin i at value v: two (the step's ends) or one (the
 * bin's centre, geometric on a log axis). */
static int bin_points(const skf_profile_spec *s, const frame *f, int i, double py, double *xy)
{
    double a = s->edges[i], b = s->edges[i + 1];
    if (s->steps) {
        xy[0] = skf_axis_pos(&f->x, a);
        xy[2] = skf_axis_pos(&f->x, b);
        xy[1] = xy[3] = py;
        return 2;
    }
    xy[0] = skf_axis_pos(&f->x, s->xlog ? sqrt(a * b) : 0.5 * (a + b));
    xy[1] = py;
    return 1;
}

/* Page y of v, or NaN; with `bottom`, values without a position (<= 0 on
 * a log axis) sit just below the frame. */
static double page_y(const frame *f, double v, int bottom)
{
    double py = skf_axis_pos(&f->y, v);
    if (isnan(py) && bottom && !isnan(v) && v <= 0)
        py = f->y.from + 2;
    return py;
}

/* The runs of consecutive usable values of v as polylines: fn(ctx, xy, n)
 * for each (xy has room for 8 * (nbins + 1) doubles, as the bands need). */
typedef void run_fn(void *ctx, const double *xy, int n);

static void runs(const skf_profile_spec *s, const frame *f, const double *v, double *xy,
                 run_fn *fn, void *ctx)
{
    int n = 0;
    for (int i = 0; i <= s->nbins; i++) {
        double py = i < s->nbins ? page_y(f, v[i], 0) : NAN;
        if (isnan(py)) {
            if (n > 0)
                fn(ctx, xy, n);
            n = 0;
            continue;
        }
        n += bin_points(s, f, i, py, xy + 2 * n);
    }
}

typedef struct stroke {
    cairo_t *cr;
    uint32_t colour;
    int dashed;
} stroke;

/* A run as a line; a lone centre as a dot, so that it still shows. */
static void stroke_run(void *ctx, const double *xy, int n)
{
    const stroke *k = ctx;
    if (n == 1)
        skf_rect(k->cr, xy[0] - 2.5, xy[1] - 2.5, 5, 5, k->colour, SKF_NONE, 0);
    else
        skf_line(k->cr, xy, n, k->colour, 1.8, k->dashed);
}

/* The band as polygons: hi forward then lo back, over each run of bins
 * where both are drawn. */
static void band(const skf_profile_spec *s, const frame *f, const skf_profile_series *r,
                 uint32_t colour, double *xy, cairo_t *cr)
{
    int start = 0, n = 0;
    for (int i = 0; i <= s->nbins; i++) {
        double top = i < s->nbins ? page_y(f, r->hi[i], 0) : NAN;
        double low = i < s->nbins ? page_y(f, r->lo[i], 1) : NAN;
        if (!isnan(top) && !isnan(low)) {
            if (n == 0)
                start = i;
            n += bin_points(s, f, i, top, xy + 2 * n);
            continue;
        }
        for (int j = i - 1; n > 0 && j >= start; j--) {
            double p[4];
            int k = bin_points(s, f, j, page_y(f, r->lo[j], 1), p);
            for (int q = k - 1; q >= 0; q--, n++) {
                xy[2 * n] = p[2 * q];
                xy[2 * n + 1] = p[2 * q + 1];
            }
        }
        skf_fill(cr, xy, n, colour, 0.22);
        n = 0;
    }
}

/* --------------------------------------------------------------- legend */

typedef struct crowd {
    double box[4]; /* x, y, w, h */
    long count;
} crowd;

/* Points along a run that fall in the box (each segment sampled). */
static void count_run(void *ctx, const double *xy, int n)
{
    crowd *c = ctx;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8 && (k == 0 || i + 1 < n); k++) {
            double t = k / 8.0;
            double x = i + 1 < n ? xy[2 * i] + t * (xy[2 * i + 2] - xy[2 * i]) : xy[2 * i];
            double y = i + 1 < n ? xy[2 * i + 1] + t * (xy[2 * i + 3] - xy[2 * i + 1])
                                 : xy[2 * i + 1];
            c->count += x >= c->box[0] && x <= c->box[0] + c->box[2] && y >= c->box[1] &&
                        y <= c->box[1] + c->box[3];
        }
}

/* The corner of the plot area where the legend box covers the least of
 * the curves and bands (top right first on a tie). */
static void legend_corner(const skf_profile_spec *s, const frame *f, double w, double h,
                          double *xy, double *bx, double *by)
{
    const skf_layout *l = &f->lay;
    const double corners[4][2] = {{l->x + l->w - 10 - w, l->y + 10},
                                  {l->x + 10, l->y + 10},
                                  {l->x + 10, l->y + l->h - 10 - h},
                                  {l->x + l->w - 10 - w, l->y + l->h - 10 - h}};
    long best = -1;
    for (int c = 0; c < 4; c++) {
        crowd k = {.box = {corners[c][0] - 4, corners[c][1] - 4, w + 8, h + 8}};
        for (int i = 0; i < s->nseries; i++) {
            const skf_profile_series *r = &s->series[i];
            runs(s, f, r->y, xy, count_run, &k);
            if (r->lo && r->hi) {
                runs(s, f, r->lo, xy, count_run, &k);
                runs(s, f, r->hi, xy, count_run, &k);
            }
        }
        if (best < 0 || k.count < best) {
            best = k.count;
            *bx = corners[c][0];
            *by = corners[c][1];
        }
    }
}

static void legend(const skf_profile_spec *s, const frame *f, double *xy, cairo_t *cr)
{
    int rows = 0;
    double text = 0;
    for (int i = 0; i < s->nseries; i++)
        if (s->series[i].label) {
            text = fmax(text, skf_text_width(cr, s->series[i].label, SKF_SIZE_TICK, 0));
            rows++;
        }
    if (rows == 0)
        return;
    double w = 8 + 26 + 6 + text + 8, h = 6 + LEGEND_ROW * rows + 2, x, y;
    legend_corner(s, f, w, h, xy, &x, &y);
    skf_rect(cr, x, y, w, h, SKF_WHITE, 0xbbbbbb, 0.8);
    int row = 0;
    for (int i = 0; i < s->nseries; i++) {
        const skf_profile_series *r = &s->series[i];
        if (!r->label)
            continue;
        double cy = y + 4 + LEGEND_ROW * (row++ + 0.5), sx = x + 8;
        uint32_t colour = skf_series_colour(i);
        if (r->lo && r->hi) {
            double sw[8] = {sx, cy - 5, sx + 26, cy - 5, sx + 26, cy + 5, sx, cy + 5};
            skf_fill(cr, sw, 4, colour, 0.22);
        }
        double line[4] = {sx, cy, sx + 26, cy};
        skf_line(cr, line, 2, colour, 1.8, r->dashed);
        skf_text(cr, sx + 32, cy + 4, r->label, SKF_SIZE_TICK, SKF_LEFT, 0, SKF_INK);
    }
}

/* --------------------------------------------------------------- figure */

static void draw(const skf_profile_spec *s, const frame *f, double *xy, cairo_t *cr)
{
    const skf_layout *l = &f->lay;
    cairo_save(cr);
    cairo_rectangle(cr, l->x, l->y, l->w, l->h);
    cairo_clip(cr);
    for (int i = 0; i < s->nseries; i++)
        if (s->series[i].lo && s->series[i].hi)
            band(s, f, &s->series[i], skf_series_colour(i), xy, cr);
    for (int i = 0; i < s->nseries; i++) {
        stroke k = {.cr = cr, .colour = skf_series_colour(i), .dashed = s->series[i].dashed};
        runs(s, f, s->series[i].y, xy, stroke_run, &k);
    }
    cairo_restore(cr);
    skf_draw_axes(cr, &f->x, &f->y);
    legend(s, f, xy, cr);
    if (s->title && s->title[0])
        skf_text(cr, l->x, 24, s->title, SKF_SIZE_TITLE, SKF_LEFT, SKF_TEXT_BOLD, SKF_INK);
}

int skf_profile_figure(const skf_profile_spec *s, const char *path, sk_error *err)
{
    skf_format fmt;
    if (!path || skf_format_of(path, &fmt) != 0)
        return sk_fail(err, SK_ERR_ARG, path, -1, "a figure is written as .png, .svg or .pdf");
    frame *f = sk_malloc(sizeof *f);
    double *xy = s && s->nbins > 0 ? sk_malloc(sizeof *xy * 8 * ((size_t)s->nbins + 1)) : NULL;
    int rc = !f || (s && s->nbins > 0 && !xy)
                 ? sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the figure")
                 : prepare(s, f, err);
    skf_figure fig;
    if (rc == SK_OK)
        rc = skf_begin(&fig, fmt, f->lay.width, f->lay.height, err);
    if (rc == SK_OK) {
        draw(s, f, xy, fig.cr);
        rc = skf_end_write(&fig, path, err);
    }
    sk_free(xy);
    sk_free(f);
    return rc;
}
