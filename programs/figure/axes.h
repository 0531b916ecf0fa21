/* Axes of a chart, linear or base-10 log: their ticks and tick labels, the
 * mapping of data values onto the page, and the frame drawn around a plot
 * area (outward ticks, labels, axis titles). Used by the profile and phase
 * figures; a figure measures its margins with skf_axes_margins before it
 * lays out the page, so that no label is clipped. */
#ifndef SNAPKIT_FIGURE_AXES_H
#define SNAPKIT_FIGURE_AXES_H

#include "figure/figure.h"
#include "snapkit/error.h"

/* A tick: major ticks are long and carry their label (which may be "" when
 * the axis labels only some of them); minor ticks are short, unlabelled. */
typedef struct skf_tick {
    double v;
    int major;
    char label[48];
} skf_tick;

#define SKF_TICKS_CAP 160

/* Ticks of a base-10 log axis over [lo, hi] (0 < lo < hi), in increasing
 * order; returns the count (at most cap). Two or more decades inside: a
 * major tick at each decade labelled 10^k ("10⁻³") (at every n-th decade
 * over more than 100), and minor ticks at 2..9 times each decade when the
 * axis spans at most seven decades. Fewer than
 * two decades: labelled ticks at round values (1, 2 and 5 times a power of
 * ten, or every multiple 1..9, or evenly spaced round values for a narrow
 * range), minor ticks at the other multiples. */
int skf_log10_ticks(double lo, double hi, skf_tick *t, int cap);
/* Ticks of a linear axis at round values (skf_linear_ticks, about `target`
 * of them), all major and labelled (skf_tick_label). */
int skf_lin_ticks(double lo, double hi, int target, skf_tick *t, int cap);

/* SK_OK when e[0..n] are n >= 1 bins' edges: finite, increasing, and > 0
 * for a log axis; SK_ERR_ARG otherwise, the message starting with `what`
 * ("profile figure: ..."). */
int skf_check_edges(const char *what, int n, const double *e, int log_axis, sk_error *err);

typedef struct skf_axis {
    double lo, hi;    /* data range, lo < hi (lo > 0 on a log axis) */
    int log10_scale;  /* base-10 log axis */
    const char *title; /* "r [kpc]"; NULL or "": none */
    double from, to;  /* page coordinates of lo and hi (set by the figure's layout) */
    int decades;      /* log axis with ticks at its decades (two or more) */
    int nticks;
    skf_tick ticks[SKF_TICKS_CAP];
} skf_axis;

/* An axis over [lo, hi] with its ticks (about `target` on a linear axis). */
void skf_axis_init(skf_axis *a, double lo, double hi, int log10_scale, int target,
                   const char *title);
/* The page coordinate of v; NaN when v has none (not finite, or <= 0 on a
 * log axis). Values outside [lo, hi] map beyond from..to. */
double skf_axis_pos(const skf_axis *a, double v);

/* Room the frame of skf_draw_axes takes outside the plot area. */
typedef struct skf_margins {
    double left, right, top, bottom;
} skf_margins;
skf_margins skf_axes_margins(cairo_t *cr, const skf_axis *x, const skf_axis *y);

/* The frame of the plot area x.from..x.to by y.to..y.from (y grows down the
 * page): outline, outward ticks, tick labels, and the axis titles. Decade
 * labels are thinned to every 2nd, 3rd, 5th, 10th... decade (10⁰ among
 * them) when they would crowd; other labels that would overlap their
 * neighbour are left out. */
void skf_draw_axes(cairo_t *cr, const skf_axis *x, const skf_axis *y);

/* Where a figure is drawn: the page's size and the plot area on it (points). */
typedef struct skf_layout {
    double width, height;
    double x, y, w, h;
} skf_layout;

/* A plot area of w x h points on a page: below the title's room when
 * `titled`, right of the y axis's labels, with the axes placed along its
 * edges. Sets l's plot area and height; its width is the caller's, since
 * what lies right of the plot differs (a colour bar, or only the x
 * labels' overhang). Returns the margins the axes' labels need. */
skf_margins skf_plot_area(skf_axis *x, skf_axis *y, int titled, double w, double h,
                          skf_layout *l);

#endif
