/* Linear and base-10 log axes: ticks, labels, and the frame around a plot. */
#include "figure/axes.h"

#include <math.h>
#include <stdio.h>

#include "figure/plot.h"

enum { MAJOR_LEN = 5, MINOR_LEN = 3 };

/* m times 10^k as a label: "0.02", "500", "10⁶", "2×10⁻⁵". */
static void round_label(int m, int k, char *buf, size_t n)
{
    if (k >= -3 && k <= 4) {
        snprintf(buf, n, "%.*f", k < 0 ? -k : 0, m * pow(10, k));
    } else if (m == 1) {
        skf_power_of_ten(k, buf, n);
    } else {
        char power[32];
        skf_power_of_ten(k, power, sizeof power);
        snprintf(buf, n, "%d\xc3\x97%s", m, power);
    }
}

static int inside(double v, double lo, double hi)
{
    return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
}

static int add_tick(skf_tick *t, int n, int cap, double v, int major)
{
    if (n < cap)
        t[n++] = (skf_tick){.v = v, .major = major};
    return n;
}

/* Decades k0..k1 inside the range, all labelled (skf_draw_axes leaves
 * out some labels when they would crowd), minors at 2..9 when the span is
 * short; at most every `every`-th decade over a very wide range. */
static int decade_ticks(double lo, double hi, int k0, int k1, skf_tick *t, int cap)
{
    int every = (k1 - k0) / 100 + 1, minors = k1 - k0 <= 7, n = 0;
    for (int k = k0 - 1; k <= k1; k++) {
        double d = pow(10, k);
        if (k >= k0 && ((k % every) + every) % every == 0) {
            int before = n;
            n = add_tick(t, n, cap, d, 1);
            if (n > before)
                skf_power_of_ten(k, t[n - 1].label, sizeof t[n - 1].label);
        }
        for (int m = 2; minors && m <= 9; m++)
            if (inside(m * d, lo, hi))
                n = add_tick(t, n, cap, m * d, 0);
    }
    return n;
}

/* Do labels at the multiples m x 10^k with m in `set` cover [lo, hi]: at
 * least three of them, no gap (ends included) over half the log range?
 * The ticks are written when they do: those multiples labelled, the other
 * multiples 1..9 as minor ticks. */
static int multiples(double lo, double hi, unsigned set, skf_tick *t, int cap)
{
    int kmin = (int)floor(log10(lo)) - 1, kmax = (int)floor(log10(hi)) + 1;
    double last = log10(lo), gap = 0, span = log10(hi / lo);
    int count = 0;
    for (int k = kmin; k <= kmax; k++)
        for (int m = 1; m <= 9; m++)
            if ((set >> m & 1) && inside(m * pow(10, k), lo, hi)) {
                gap = fmax(gap, log10(m * pow(10, k)) - last);
                last = log10(m * pow(10, k));
                count++;
            }
    gap = fmax(gap, log10(hi) - last);
    if (count < 3 || gap > 0.5 * span)
        return 0;
    int n = 0;
    for (int k = kmin; k <= kmax; k++)
        for (int m = 1; m <= 9; m++) {
            double v = m * pow(10, k);
            if (!inside(v, lo, hi))
                continue;
            int major = set >> m & 1, before = n;
            n = add_tick(t, n, cap, v, major);
            if (major && n > before)
                round_label(m, k, t[n - 1].label, sizeof t[n - 1].label);
        }
    return n;
}

int skf_log10_ticks(double lo, double hi, skf_tick *t, int cap)
{
    if (!(lo > 0) || !(hi > lo) || !isfinite(hi))
        return 0;
    int k0 = (int)ceil(log10(lo) - 1e-9), k1 = (int)floor(log10(hi) + 1e-9);
    if (k1 - k0 >= 1)
        return decade_ticks(lo, hi, k0, k1, t, cap);
    int n = multiples(lo, hi, 1u << 1 | 1u << 2 | 1u << 5, t, cap);
    if (n == 0)
        n = multiples(lo, hi, 0x3FEu, t, cap);
    return n ? n : skf_lin_ticks(lo, hi, 5, t, cap);
}

int skf_lin_ticks(double lo, double hi, int target, skf_tick *t, int cap)
{
    double v[SKF_TICKS_CAP], step;
    int m = skf_linear_ticks(lo, hi, target, v, cap < SKF_TICKS_CAP ? cap : SKF_TICKS_CAP, &step);
    for (int i = 0; i < m; i++) {
        t[i] = (skf_tick){.v = v[i], .major = 1};
        skf_tick_label(v[i], step, fmax(fabs(lo), fabs(hi)), t[i].label, sizeof t[i].label);
    }
    return m;
}

int skf_check_edges(const char *what, int n, const double *e, int log_axis, sk_error *err)
{
    if (n < 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s needs at least one bin (%d given)", what, n);
    if (!e)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s has no bin edges", what);
    for (int i = 0; i <= n; i++) {
        if (!isfinite(e[i]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: bin edge %d is not finite", what, i);
        if (i > 0 && !(e[i] > e[i - 1]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "%s: bin edges must increase, edge %d (%g) is not above edge %d (%g)",
                           what, i, e[i], i - 1, e[i - 1]);
    }
    if (log_axis && !(e[0] > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "%s: a log axis needs bin edges > 0, the first is %g", what, e[0]);
    return SK_OK;
}

void skf_axis_init(skf_axis *a, double lo, double hi, int log10_scale, int target,
                   const char *title)
{
    a->lo = lo;
    a->hi = hi;
    a->log10_scale = log10_scale;
    a->title = title;
    a->from = 0;
    a->to = 1;
    a->nticks = log10_scale ? skf_log10_ticks(lo, hi, a->ticks, SKF_TICKS_CAP)
                            : skf_lin_ticks(lo, hi, target, a->ticks, SKF_TICKS_CAP);
    a->decades = log10_scale && ceil(log10(lo) - 1e-9) < floor(log10(hi) + 1e-9);
}

double skf_axis_pos(const skf_axis *a, double v)
{
    if (!isfinite(v) || (a->log10_scale && !(v > 0)))
        return NAN;
    double f = a->log10_scale ? log10(v / a->lo) / log10(a->hi / a->lo)
                              : (v - a->lo) / (a->hi - a->lo);
    return a->from + f * (a->to - a->from);
}

static double widest_label(cairo_t *cr, const skf_axis *a)
{
    double w = 0;
    for (int i = 0; i < a->nticks; i++)
        if (a->ticks[i].label[0])
            w = fmax(w, skf_text_width(cr, a->ticks[i].label, SKF_SIZE_TICK, 0));
    return w;
}

/* Distances from the frame: tick labels' baseline below the x axis, the
 * x title's baseline; the y title's baseline left of the widest label. */
enum { XLABEL_DROP = MAJOR_LEN + 14, XTITLE_DROP = XLABEL_DROP + 22, YTITLE_GAP = 10 };

skf_margins skf_axes_margins(cairo_t *cr, const skf_axis *x, const skf_axis *y)
{
    double ytitle = y->title && y->title[0] ? SKF_SIZE_LABEL + YTITLE_GAP : 0;
    double xtitle = x->title && x->title[0] ? XTITLE_DROP + 4 : XLABEL_DROP + 4;
    return (skf_margins){.left = MAJOR_LEN + 4 + widest_label(cr, y) + ytitle + 8,
                         .right = widest_label(cr, x) / 2 + 8,
                         .top = 8,
                         .bottom = xtitle + 8};
}

skf_margins skf_plot_area(skf_axis *x, skf_axis *y, int titled, double w, double h,
                          skf_layout *l)
{
    cairo_t *m = skf_scratch();
    skf_margins g = skf_axes_margins(m, x, y);
    cairo_destroy(m);
    double top = titled ? 38 : g.top + 6;
    *l = (skf_layout){.x = ceil(g.left), .y = top, .w = w, .h = h};
    l->height = top + h + ceil(g.bottom);
    x->from = l->x;
    x->to = l->x + w;
    y->from = top + h;
    y->to = top;
    return g;
}

static void x_ticks(cairo_t *cr, const skf_axis *x, double base)
{
    double last_right = -1e30;
    for (int i = 0; i < x->nticks; i++) {
        const skf_tick *t = &x->ticks[i];
        double px = skf_axis_pos(x, t->v);
        skf_segment(cr, px, base, px, base + (t->major ? MAJOR_LEN : MINOR_LEN), SKF_INK, 1);
        if (!t->label[0])
            continue;
        double half = skf_text_width(cr, t->label, SKF_SIZE_TICK, 0) / 2;
        if (px - half > last_right + 6) {
            skf_text(cr, px, base + XLABEL_DROP, t->label, SKF_SIZE_TICK, SKF_CENTRE, 0, SKF_INK);
            last_right = px + half;
        }
    }
}

static double y_ticks(cairo_t *cr, const skf_axis *y, double base)
{
    double last = 1e30, widest = 0;
    for (int i = 0; i < y->nticks; i++) {
        const skf_tick *t = &y->ticks[i];
        double py = skf_axis_pos(y, t->v);
        skf_segment(cr, base - (t->major ? MAJOR_LEN : MINOR_LEN), py, base, py, SKF_INK, 1);
        if (!t->label[0] || py > last - 14)
            continue;
        skf_text(cr, base - MAJOR_LEN - 4, py + 4, t->label, SKF_SIZE_TICK, SKF_RIGHT, 0,
                 SKF_INK);
        widest = fmax(widest, skf_text_width(cr, t->label, SKF_SIZE_TICK, 0));
        last = py;
    }
    return widest;
}

/* On a decade axis, the labels of every decade when they have room, or of
 * every 2nd, 3rd, 5th, 10th, 20th... (10^0 among them): `room` is the
 * page length a label needs. */
static void thin_decades(skf_axis *a, double room)
{
    if (!a->decades)
        return;
    double per = fabs(a->to - a->from) / log10(a->hi / a->lo);
    static const int strides[] = {1, 2, 3, 5, 10, 20, 50, 100};
    int stride = 100;
    for (int i = 0; i < 8; i++)
        if (strides[i] * per >= room) {
            stride = strides[i];
            break;
        }
    for (int i = 0; i < a->nticks; i++) {
        int k = (int)lround(log10(a->ticks[i].v));
        if (a->ticks[i].major && k % stride != 0)
            a->ticks[i].label[0] = '\0';
    }
}

void skf_draw_axes(cairo_t *cr, const skf_axis *xaxis, const skf_axis *yaxis)
{
    skf_axis copy[2] = {*xaxis, *yaxis}, *x = &copy[0], *y = &copy[1];
    thin_decades(x, widest_label(cr, x) + 8);
    thin_decades(y, 22);
    double left = x->from, bottom = y->from;
    skf_rect(cr, left, y->to, x->to - left, bottom - y->to, SKF_NONE, SKF_INK, 1);
    x_ticks(cr, x, bottom);
    double widest = y_ticks(cr, y, left);
    if (x->title && x->title[0])
        skf_text(cr, (left + x->to) / 2, bottom + XTITLE_DROP, x->title, SKF_SIZE_LABEL,
                 SKF_CENTRE, 0, SKF_INK);
    if (y->title && y->title[0])
        skf_text(cr, left - MAJOR_LEN - 4 - widest - YTITLE_GAP + 3, (bottom + y->to) / 2,
                 y->title, SKF_SIZE_LABEL, SKF_CENTRE, SKF_TEXT_VERTICAL, SKF_INK);
}
