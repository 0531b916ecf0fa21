/* Axes, curves and bars on a canvas. */
#include "bench/plot.h"

#include <math.h>
#include <stdio.h>


static const double k_font = 1.2; /* font pixel of labels */

uint32_t skb_series_colour(int i)
{
    static const uint32_t k[] = {SKB_BLUE, SKB_ORANGE, SKB_GREEN, SKB_RED, SKB_PURPLE, SKB_BROWN};
    return k[i % 6];
}

static double xmap(const skb_plot *p, double x)
{
    return p->xlog ? log2(x) : x;
}

double skb_px(const skb_plot *p, double x)
{
    double lo = xmap(p, p->xlo), hi = xmap(p, p->xhi);
    if (hi <= lo)
        return p->x + p->w / 2;
    return p->x + (xmap(p, x) - lo) / (hi - lo) * p->w;
}

static double ymap(const skb_plot *p, double y)
{
    return p->ylog ? log2(y) : y;
}

double skb_py(const skb_plot *p, double y)
{
    double lo = ymap(p, p->ylo), hi = ymap(p, p->yhi);
    if (hi <= lo)
        return p->y + p->h;
    return p->y + p->h - (ymap(p, y) - lo) / (hi - lo) * p->h;
}

double skb_nice_ceiling(double v)
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

static double nice_step(double range)
{
    double raw = range / 5, e = pow(10, floor(log10(raw)));
    double m = raw / e;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * e;
}

static void y_ticks(const skb_plot *p, double lo, double hi, double xline, skb_anchor anchor,
                    uint32_t colour, int grid)
{
    if (!(hi > lo))
        return;
    double step = nice_step(hi - lo);
    for (double v = ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) {
        double py = p->y + p->h - (v - lo) / (hi - lo) * p->h;
        char label[32];
        snprintf(label, sizeof label, "%g", fabs(v) < step * 1e-6 ? 0.0 : v);
        if (grid)
            skb_segment(p->c, p->x, py, p->x + p->w, py, SKB_LIGHT, 0.6);
        double dx = anchor == SKB_RIGHT ? -5 : 5;
        skb_segment(p->c, xline, py, xline + (anchor == SKB_RIGHT ? -3 : 3), py, colour, 1);
        skb_text(p->c, xline + dx, py + 4, label, k_font, anchor, 0, colour);
    }
}

/* Ticks at the powers of two within the plot's y range. */
static void y_ticks_log2(const skb_plot *p)
{
    for (double v = pow(2, ceil(log2(p->ylo) - 1e-9)); v <= p->yhi * (1 + 1e-9); v *= 2) {
        double py = skb_py(p, v);
        char label[32];
        snprintf(label, sizeof label, "%g", v);
        skb_segment(p->c, p->x, py, p->x + p->w, py, SKB_LIGHT, 0.6);
        skb_segment(p->c, p->x, py, p->x - 3, py, SKB_INK, 1);
        skb_text(p->c, p->x - 5, py + 4, label, k_font, SKB_RIGHT, 0, SKB_INK);
    }
}

void skb_axes(const skb_plot *p, const double *xticks, int nxticks, const char *xtitle,
              const char *ytitle)
{
    if (p->ylog)
        y_ticks_log2(p);
    else
        y_ticks(p, p->ylo, p->yhi, p->x, SKB_RIGHT, SKB_INK, 1);
    double last_right = -1e9;
    for (int i = 0; i < nxticks; i++) {
        double px = skb_px(p, xticks[i]);
        char label[32];
        snprintf(label, sizeof label, "%g", xticks[i]);
        skb_segment(p->c, px, p->y + p->h, px, p->y + p->h + 3, SKB_INK, 1);
        double half = skb_text_width(label, k_font) / 2;
        if (px - half > last_right + 4) { /* skip labels that would overlap */
            skb_text(p->c, px, p->y + p->h + 14, label, k_font, SKB_MIDDLE, 0, SKB_INK);
            last_right = px + half;
        }
    }
    skb_segment(p->c, p->x, p->y + p->h, p->x + p->w, p->y + p->h, SKB_INK, 1);
    skb_segment(p->c, p->x, p->y, p->x, p->y + p->h, SKB_INK, 1);
    skb_text(p->c, p->x + p->w / 2, p->y + p->h + 30, xtitle, k_font, SKB_MIDDLE, 0, SKB_INK);
    skb_text(p->c, p->x - 46, p->y + p->h / 2, ytitle, k_font, SKB_MIDDLE, 1, SKB_INK);
}

void skb_right_axis(const skb_plot *p, double lo, double hi, const char *title, uint32_t colour)
{
    double xr = p->x + p->w;
    skb_segment(p->c, xr, p->y, xr, p->y + p->h, colour, 1);
    y_ticks(p, lo, hi, xr, SKB_LEFT, colour, 0);
    skb_text(p->c, xr + 50, p->y + p->h / 2, title, k_font, SKB_MIDDLE, 1, colour);
}

void skb_curve(const skb_plot *p, const double *x, const double *y, int n, uint32_t colour,
               double width, int dashed, int marked)
{
    double xy[2 * 512] = {0};
    int m = 0;
    for (int i = 0; i < n && m < 512; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            continue;
        xy[2 * m] = skb_px(p, x[i]);
        xy[2 * m + 1] = skb_py(p, y[i]);
        m++;
    }
    skb_line(p->c, xy, m, colour, width, dashed);
    for (int i = 0; marked && i < m; i++)
        skb_rect(p->c, xy[2 * i] - 3, xy[2 * i + 1] - 3, 6, 6, colour, SKB_NONE, 0);
}

void skb_legend(const skb_plot *p, int i, const char *label, uint32_t colour, int dashed)
{
    double x = p->x + 10, y = p->y + 12 + 14 * i;
    double w = 34 + skb_text_width(label, k_font);
    double ground[8] = {x - 4, y - 11, x + w, y - 11, x + w, y + 3, x - 4, y + 3};
    skb_fill(p->c, ground, 4, 0xffffff, 0.85);
    double xy[4] = {x, y - 4, x + 22, y - 4};
    skb_line(p->c, xy, 2, colour, 2, dashed);
    skb_text(p->c, x + 28, y, label, k_font, SKB_LEFT, 0, SKB_INK);
}

skb_plot skb_panel(skb_canvas *c, const char *id, double x, double y, double w, double h,
                   const char *title, int right_axis)
{
    skb_group(c, id);
    skb_rect(c, x, y, w, h, 0xffffff, 0xbbbbbb, 1);
    skb_text(c, x + 10, y + 20, title, 1.5, SKB_LEFT, 0, SKB_INK);
    skb_plot p = {.x = x + 62, .y = y + 38, .w = w - 62 - (right_axis ? 66 : 18),
                  .h = h - 38 - 48, .c = c};
    return p;
}

static double slot_centre(const skb_plot *p, int slot, int nslots)
{
    return p->x + p->w * (slot + 0.5) / nslots;
}

void skb_bar(const skb_plot *p, int slot, int nslots, int k, int nseries, double v, double e,
             uint32_t colour)
{
    if (!isfinite(v) || v < 0)
        return;
    double group = p->w / nslots * 0.7, bw = group / nseries;
    double x0 = slot_centre(p, slot, nslots) - group / 2 + k * bw;
    double top = skb_py(p, v), base = skb_py(p, p->ylo);
    skb_rect(p->c, x0 + 1, top, bw - 2, base - top, colour, SKB_NONE, 0);
    if (e > 0 && isfinite(e)) {
        double xc = x0 + bw / 2, ya = skb_py(p, v - e), yb = skb_py(p, v + e);
        skb_segment(p->c, xc, ya, xc, yb, SKB_INK, 1);
        skb_segment(p->c, xc - 4, yb, xc + 4, yb, SKB_INK, 1);
        skb_segment(p->c, xc - 4, ya, xc + 4, ya, SKB_INK, 1);
    }
}

void skb_slot_label(const skb_plot *p, int slot, int nslots, const char *label)
{
    skb_text(p->c, slot_centre(p, slot, nslots), p->y + p->h + 14, label, k_font, SKB_MIDDLE, 0,
             SKB_INK);
}

void skb_bar_axes(const skb_plot *p, const char *ytitle)
{
    y_ticks(p, p->ylo, p->yhi, p->x, SKB_RIGHT, SKB_INK, 1);
    skb_segment(p->c, p->x, p->y + p->h, p->x + p->w, p->y + p->h, SKB_INK, 1);
    skb_segment(p->c, p->x, p->y, p->x, p->y + p->h, SKB_INK, 1);
    skb_text(p->c, p->x - 46, p->y + p->h / 2, ytitle, k_font, SKB_MIDDLE, 1, SKB_INK);
}
