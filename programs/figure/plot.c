/* Axes, curves, bars and colour bars on a cairo figure. */
#include "figure/plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/project.h"
#include "snapkit/util/colormap.h"

uint32_t skf_series_colour(int i)
{
    static const uint32_t k[] = {SKF_BLUE, SKF_ORANGE, SKF_GREEN, SKF_RED, SKF_PURPLE, SKF_BROWN};
    return k[i % 6];
}

static double xmap(const skf_plot *p, double x)
{
    return p->xlog ? log2(x) : x;
}

double skf_px(const skf_plot *p, double x)
{
    double lo = xmap(p, p->xlo), hi = xmap(p, p->xhi);
    if (hi <= lo)
        return p->x + p->w / 2;
    return p->x + (xmap(p, x) - lo) / (hi - lo) * p->w;
}

static double ymap(const skf_plot *p, double y)
{
    return p->ylog ? log2(y) : y;
}

double skf_py(const skf_plot *p, double y)
{
    double lo = ymap(p, p->ylo), hi = ymap(p, p->yhi);
    if (hi <= lo)
        return p->y + p->h;
    return p->y + p->h - (ymap(p, y) - lo) / (hi - lo) * p->h;
}

double skf_nice_ceiling(double v)
{
    if (!(v > 0) || !isfinite(v))
        return 1;
    double e = pow(10, floor(log10(v)));
    static const double steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
    for (int i = 0; i < 11; i++)
        if (v <= steps[i] * e * (1 + 1e-9))
            return steps[i] * e;
    return 10 * e;
}

static double nice_step(double range, int target)
{
    double raw = range / (target > 0 ? target : 5), e = pow(10, floor(log10(raw)));
    double m = raw / e;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * e;
}

int skf_linear_ticks(double lo, double hi, int target, double *ticks, int cap, double *step)
{
    *step = 1;
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
        return 0;
    double s = nice_step(hi - lo, target);
    *step = s;
    int n = 0;
    for (double k = ceil(lo / s - 1e-9); k * s <= hi + s * 1e-9 && n < cap; k++)
        ticks[n++] = k * s;
    return n;
}

/* "-" as the typographic minus sign. */
static void minus_sign(char *buf, size_t n)
{
    if (buf[0] == '-' && strlen(buf) + 3 < n) {
        memmove(buf + 3, buf + 1, strlen(buf));
        memcpy(buf, "\xe2\x88\x92", 3);
    }
}

void skf_tick_label(double v, double step, double top, char *buf, size_t n)
{
    if (fabs(v) < fabs(step) * 1e-6)
        v = 0;
    double big = fmax(fabs(top), fabs(step));
    int powers = big >= 1e5 || fabs(step) < 1e-3;
    if (powers && v == 0) {
        snprintf(buf, n, "0");
    } else if (powers) { /* 1.5×10⁻⁹ */
        int k = (int)floor(log10(fabs(v)) + 1e-9);
        double mant = v / pow(10, k);
        char power[32];
        skf_power_of_ten(k, power, sizeof power);
        /* as many decimals as the step needs, so that neighbours differ */
        int d = k - (int)floor(log10(fabs(step)) + 1e-9);
        d = d < 0 ? 0 : d > 9 ? 9 : d;
        if (fabs(fabs(mant) - 1) < 1e-9)
            snprintf(buf, n, "%s%s", mant < 0 ? "-" : "", power);
        else
            snprintf(buf, n, "%.*f\xc3\x97%s", d, mant, power);
    } else {
        int d = 0;
        for (double s = fabs(step); d < 6 && fabs(s - round(s)) > 1e-6 * fmax(s, 1); s *= 10)
            d++;
        snprintf(buf, n, "%.*f", d, v);
    }
    minus_sign(buf, n);
}

void skf_power_of_ten(int k, char *buf, size_t n)
{
    static const char *const digit[] = {"\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3",
                                        "\xe2\x81\xb4", "\xe2\x81\xb5", "\xe2\x81\xb6",
                                        "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9"};
    char digits[16];
    snprintf(digits, sizeof digits, "%d", k < 0 ? -k : k);
    size_t len = (size_t)snprintf(buf, n, "10%s", k < 0 ? "\xe2\x81\xbb" : "");
    for (const char *d = digits; *d && len < n; d++)
        len += (size_t)snprintf(buf + len, n - len, "%s", digit[*d - '0']);
}

static void y_ticks(const skf_plot *p, double lo, double hi, double xline, skf_anchor anchor,
                    uint32_t colour, int grid)
{
    double ticks[64], step;
    int n = skf_linear_ticks(lo, hi, 5, ticks, 64, &step);
    for (int i = 0; i < n; i++) {
        double py = p->y + p->h - (ticks[i] - lo) / (hi - lo) * p->h;
        char label[32];
        skf_tick_label(ticks[i], step, fmax(fabs(lo), fabs(hi)), label, sizeof label);
        if (grid)
            skf_segment(p->cr, p->x, py, p->x + p->w, py, SKF_LIGHT, 0.6);
        double dx = anchor == SKF_RIGHT ? -6 : 6;
        skf_segment(p->cr, xline, py, xline + (anchor == SKF_RIGHT ? -3 : 3), py, colour, 1);
        skf_text(p->cr, xline + dx, py + 4, label, SKF_SIZE_TICK, anchor, 0, colour);
    }
}

/* Ticks at the powers of two within the plot's y range (none when the
 * range is not positive and finite, at most 64: never an endless loop). */
static void y_ticks_log2(const skf_plot *p)
{
    if (!(p->ylo > 0) || !isfinite(p->ylo) || !isfinite(p->yhi))
        return;
    int n = 0;
    for (double v = pow(2, ceil(log2(p->ylo) - 1e-9)); v <= p->yhi * (1 + 1e-9) && n < 64;
         v *= 2, n++) {
        double py = skf_py(p, v);
        char label[32];
        snprintf(label, sizeof label, "%g", v);
        skf_segment(p->cr, p->x, py, p->x + p->w, py, SKF_LIGHT, 0.6);
        skf_segment(p->cr, p->x, py, p->x - 3, py, SKF_INK, 1);
        skf_text(p->cr, p->x - 6, py + 4, label, SKF_SIZE_TICK, SKF_RIGHT, 0, SKF_INK);
    }
}

static void frame_lines(const skf_plot *p)
{
    skf_segment(p->cr, p->x, p->y + p->h, p->x + p->w, p->y + p->h, SKF_INK, 1);
    skf_segment(p->cr, p->x, p->y, p->x, p->y + p->h, SKF_INK, 1);
}

void skf_axes(const skf_plot *p, const double *xticks, int nxticks, const char *xtitle,
              const char *ytitle)
{
    if (p->ylog)
        y_ticks_log2(p);
    else
        y_ticks(p, p->ylo, p->yhi, p->x, SKF_RIGHT, SKF_INK, 1);
    double last_right = -1e9;
    for (int i = 0; i < nxticks; i++) {
        double px = skf_px(p, xticks[i]);
        char label[32];
        snprintf(label, sizeof label, "%g", xticks[i]);
        skf_segment(p->cr, px, p->y + p->h, px, p->y + p->h + 3, SKF_INK, 1);
        double half = skf_text_width(p->cr, label, SKF_SIZE_TICK, 0) / 2;
        if (px - half > last_right + 4) { /* skip labels that would overlap */
            skf_text(p->cr, px, p->y + p->h + 15, label, SKF_SIZE_TICK, SKF_CENTRE, 0, SKF_INK);
            last_right = px + half;
        }
    }
    frame_lines(p);
    skf_text(p->cr, p->x + p->w / 2, p->y + p->h + 32, xtitle, SKF_SIZE_LABEL, SKF_CENTRE, 0,
             SKF_INK);
    skf_text(p->cr, p->x - 44, p->y + p->h / 2, ytitle, SKF_SIZE_LABEL, SKF_CENTRE,
             SKF_TEXT_VERTICAL, SKF_INK);
}

void skf_right_axis(const skf_plot *p, double lo, double hi, const char *title, uint32_t colour)
{
    double xr = p->x + p->w;
    skf_segment(p->cr, xr, p->y, xr, p->y + p->h, colour, 1);
    y_ticks(p, lo, hi, xr, SKF_LEFT, colour, 0);
    skf_text(p->cr, xr + 54, p->y + p->h / 2, title, SKF_SIZE_LABEL, SKF_CENTRE,
             SKF_TEXT_VERTICAL, colour);
}

void skf_frame_axes(const skf_plot *p, const char *xtitle, const char *ytitle)
{
    cairo_t *cr = p->cr;
    double ticks[64], step;
    int n = skf_linear_ticks(p->xlo, p->xhi, 6, ticks, 64, &step);
    double last_right = -1e9;
    for (int i = 0; i < n; i++) {
        double px = skf_px(p, ticks[i]);
        char label[32];
        skf_tick_label(ticks[i], step, fmax(fabs(p->xlo), fabs(p->xhi)), label,
                       sizeof label);
        skf_segment(cr, px, p->y + p->h, px, p->y + p->h + 5, SKF_INK, 1);
        double half = skf_text_width(cr, label, SKF_SIZE_TICK, 0) / 2;
        if (px - half > last_right + 6) {
            skf_text(cr, px, p->y + p->h + 19, label, SKF_SIZE_TICK, SKF_CENTRE, 0, SKF_INK);
            last_right = px + half;
        }
    }
    double widest = 0;
    n = skf_linear_ticks(p->ylo, p->yhi, 6, ticks, 64, &step);
    for (int i = 0; i < n; i++) {
        double py = skf_py(p, ticks[i]);
        char label[32];
        skf_tick_label(ticks[i], step, fmax(fabs(p->ylo), fabs(p->yhi)), label,
                       sizeof label);
        skf_segment(cr, p->x - 5, py, p->x, py, SKF_INK, 1);
        skf_text(cr, p->x - 8, py + 4, label, SKF_SIZE_TICK, SKF_RIGHT, 0, SKF_INK);
        widest = fmax(widest, skf_text_width(cr, label, SKF_SIZE_TICK, 0));
    }
    skf_rect(cr, p->x, p->y, p->w, p->h, SKF_NONE, SKF_INK, 1);
    skf_text(cr, p->x + p->w / 2, p->y + p->h + 40, xtitle, SKF_SIZE_LABEL, SKF_CENTRE, 0,
             SKF_INK);
    skf_text(cr, p->x - 16 - widest, p->y + p->h / 2, ytitle, SKF_SIZE_LABEL, SKF_CENTRE,
             SKF_TEXT_VERTICAL, SKF_INK);
}

void skf_curve(const skf_plot *p, const double *x, const double *y, int n, uint32_t colour,
               double width, int dashed, int marked)
{
    /* Drawn in pieces of 512 points, each starting where the last ended. */
    double xy[2 * 512] = {0};
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            continue;
        if (m == 512) {
            skf_line(p->cr, xy, m, colour, width, dashed);
            xy[0] = xy[2 * m - 2];
            xy[1] = xy[2 * m - 1];
            m = 1;
        }
        xy[2 * m] = skf_px(p, x[i]);
        xy[2 * m + 1] = skf_py(p, y[i]);
        m++;
    }
    skf_line(p->cr, xy, m, colour, width, dashed);
    for (int i = 0; marked && i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i]))
            skf_rect(p->cr, skf_px(p, x[i]) - 3, skf_py(p, y[i]) - 3, 6, 6, colour, SKF_NONE, 0);
}

void skf_legend(const skf_plot *p, int i, const char *label, uint32_t colour, int dashed)
{
    double x = p->x + 10, y = p->y + 14 + 16 * i;
    double w = 34 + skf_text_width(p->cr, label, SKF_SIZE_TICK, 0);
    double ground[8] = {x - 4, y - 12, x + w, y - 12, x + w, y + 4, x - 4, y + 4};
    skf_fill(p->cr, ground, 4, SKF_WHITE, 0.85);
    double xy[4] = {x, y - 4, x + 22, y - 4};
    skf_line(p->cr, xy, 2, colour, 2, dashed);
    skf_text(p->cr, x + 28, y, label, SKF_SIZE_TICK, SKF_LEFT, 0, SKF_INK);
}

skf_plot skf_panel(cairo_t *cr, double x, double y, double w, double h, const char *title,
                   int right_axis)
{
    skf_rect(cr, x + 0.5, y + 0.5, w - 1, h - 1, SKF_WHITE, 0xbbbbbb, 1);
    skf_text(cr, x + 10, y + 21, title, SKF_SIZE_TITLE, SKF_LEFT, SKF_TEXT_BOLD, SKF_INK);
    skf_plot p = {.x = x + 64, .y = y + 38, .w = w - 64 - (right_axis ? 70 : 18),
                  .h = h - 38 - 50, .cr = cr};
    return p;
}

static double slot_centre(const skf_plot *p, int slot, int nslots)
{
    return p->x + p->w * (slot + 0.5) / nslots;
}

void skf_bar(const skf_plot *p, int slot, int nslots, int k, int nseries, double v, double e,
             uint32_t colour)
{
    if (!isfinite(v) || v < 0)
        return;
    double group = p->w / nslots * 0.7, bw = group / nseries;
    double x0 = slot_centre(p, slot, nslots) - group / 2 + k * bw;
    double top = skf_py(p, v), base = skf_py(p, p->ylo);
    skf_rect(p->cr, x0 + 1, top, bw - 2, base - top, colour, SKF_NONE, 0);
    if (e > 0 && isfinite(e)) {
        double xc = x0 + bw / 2, ya = skf_py(p, v - e), yb = skf_py(p, v + e);
        skf_segment(p->cr, xc, ya, xc, yb, SKF_INK, 1);
        skf_segment(p->cr, xc - 4, yb, xc + 4, yb, SKF_INK, 1);
        skf_segment(p->cr, xc - 4, ya, xc + 4, ya, SKF_INK, 1);
    }
}

void skf_slot_label(const skf_plot *p, int slot, int nslots, const char *label)
{
    skf_text(p->cr, slot_centre(p, slot, nslots), p->y + p->h + 15, label, SKF_SIZE_TICK,
             SKF_CENTRE, 0, SKF_INK);
}

void skf_bar_axes(const skf_plot *p, const char *ytitle)
{
    y_ticks(p, p->ylo, p->yhi, p->x, SKF_RIGHT, SKF_INK, 1);
    frame_lines(p);
    skf_text(p->cr, p->x - 44, p->y + p->h / 2, ytitle, SKF_SIZE_LABEL, SKF_CENTRE,
             SKF_TEXT_VERTICAL, SKF_INK);
}

/* ------------------------------------------------------------ colour bar */

/* The viridis ramp, bottom (t = 0) to top, stretched over the bar. */
static void ramp(cairo_t *cr, double x, double y, double w, double h)
{
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 256);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return;
    }
    cairo_surface_flush(img);
    unsigned char *px = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (int r = 0; r < 256; r++) {
        unsigned char rgb[3];
        sk_viridis((255 - r) / 255.0, rgb);
        uint32_t v = (uint32_t)rgb[0] << 16 | (uint32_t)rgb[1] << 8 | rgb[2];
        memcpy(px + (size_t)r * (size_t)stride, &v, 4);
    }
    cairo_surface_mark_dirty(img);
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, w, h / 256.0);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR);
    cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
}

typedef struct bar_tick {
    double v;
    int major;
    char label[48];
} bar_tick;

/* Ticks of a log colour bar: every decade (every second or more when
 * there are many) with 2..9 between them when few; or, over less than two
 * decades, round values on the log axis. */
static int log_ticks(double vmin, double vmax, bar_tick *t, int cap)
{
    int k0 = (int)ceil(log10(vmin) - 1e-9), k1 = (int)floor(log10(vmax) + 1e-9);
    int n = 0;
    if (k1 - k0 + 1 >= 2) {
        int every = (k1 - k0) / 8 + 1;
        for (int k = k0 - 1; k <= k1 && n < cap; k++) {
            double d = pow(10, k);
            if (k >= k0 && (k - k0) % every == 0 && n < cap) {
                t[n] = (bar_tick){.v = d, .major = 1};
                skf_power_of_ten(k, t[n].label, sizeof t[n].label);
                n++;
            }
            for (int m = 2; every == 1 && k1 - k0 <= 6 && m <= 9 && n < cap; m++)
                if (m * d >= vmin && m * d <= vmax)
                    t[n++] = (bar_tick){.v = m * d, .major = 0};
        }
        return n;
    }
    /* Less than two decades: round values, spread evenly in log. */
    double v[64], step;
    int m = skf_linear_ticks(vmin, vmax, 5, v, 64, &step);
    for (int i = 0; i < m && n < cap; i++) {
        if (v[i] <= 0)
            continue;
        t[n] = (bar_tick){.v = v[i], .major = 1};
        snprintf(t[n].label, sizeof t[n].label, "%.3g", v[i]);
        minus_sign(t[n].label, sizeof t[n].label);
        n++;
    }
    return n;
}

static double colour_bar(cairo_t *cr, double x, double y, double w, double h, int log_scale,
                         double vmin, double vmax, const char *label, int draw)
{
    if (draw) {
        ramp(cr, x, y, w, h);
        skf_rect(cr, x, y, w, h, SKF_NONE, SKF_INK, 1);
    }
    bar_tick t[96];
    int n = 0;
    int flat = !(vmax > vmin);
    if (flat) {
        t[n] = (bar_tick){.v = vmin, .major = 1};
        skf_tick_label(vmin, fabs(vmin) > 0 ? fabs(vmin) / 100 : 1, vmin, t[n].label,
                       sizeof t[n].label);
        n++;
    } else if (log_scale) {
        n = log_ticks(vmin, vmax, t, 96);
    } else {
        double v[64], step;
        int m = skf_linear_ticks(vmin, vmax, 6, v, 64, &step);
        for (int i = 0; i < m; i++) {
            t[n] = (bar_tick){.v = v[i], .major = 1};
            skf_tick_label(v[i], step, fmax(fabs(vmin), fabs(vmax)), t[n].label, sizeof t[n].label);
            n++;
        }
    }
    double widest = 0, last_y = 1e9;
    for (int i = 0; i < n; i++) {
        double f = flat ? 0.5
                   : log_scale ? log(t[i].v / vmin) / log(vmax / vmin)
                               : (t[i].v - vmin) / (vmax - vmin);
        double py = y + h - f * h;
        double len = t[i].major ? 5 : 3;
        if (draw) {
            skf_segment(cr, x + w, py, x + w + len, py, SKF_INK, 1);
            skf_segment(cr, x, py, x + len, py, SKF_INK, 1);
        }
        if (t[i].major && t[i].label[0] && py < last_y - 14) {
            if (draw)
                skf_text(cr, x + w + 8, py + 4, t[i].label, SKF_SIZE_TICK, SKF_LEFT, 0, SKF_INK);
            widest = fmax(widest, skf_text_width(cr, t[i].label, SKF_SIZE_TICK, 0));
            last_y = py;
        }
    }
    double lx = x + w + 8 + widest + 10 + SKF_SIZE_LABEL;
    if (draw)
        skf_text(cr, lx, y + h / 2, label, SKF_SIZE_LABEL, SKF_CENTRE, SKF_TEXT_VERTICAL,
                 SKF_INK);
    return lx + 6 - (x + w);
}

double skf_colour_bar(cairo_t *cr, double x, double y, double w, double h, int log_scale,
                      double vmin, double vmax, const char *label)
{
    return colour_bar(cr, x, y, w, h, log_scale, vmin, vmax, label, 1);
}

double skf_colour_bar_width(cairo_t *cr, double h, int log_scale, double vmin, double vmax)
{
    return colour_bar(cr, 0, 0, 10, h, log_scale, vmin, vmax, "", 0);
}
