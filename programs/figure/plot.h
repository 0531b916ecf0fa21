/* Chart pieces on a cairo figure: panels, axes with ticks, curves, bars,
 * legends, and the colour bar of a map. */
#ifndef SNAPKIT_FIGURE_PLOT_H
#define SNAPKIT_FIGURE_PLOT_H

#include "figure/figure.h"

/* Font sizes in points. */
#define SKF_SIZE_TICK 11.0
#define SKF_SIZE_LABEL 12.0
#define SKF_SIZE_TITLE 13.0

/* The colour of series i. */
uint32_t skf_series_colour(int i);

typedef struct skf_plot {
    double x, y, w, h;     /* plot area on the page */
    double xlo, xhi;       /* data range on x */
    double ylo, yhi;       /* data range on y */
    int xlog;              /* x on a log2 scale */
    int ylog;              /* y on a log2 scale (ticks at powers of two) */
    cairo_t *cr;
} skf_plot;

double skf_px(const skf_plot *p, double x);
double skf_py(const skf_plot *p, double y);

/* A round upper limit above v (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a
 * power of ten). */
double skf_nice_ceiling(double v);
/* Round ticks from lo to hi, about `target` of them, steps of 1, 2, 2.5 or
 * 5 times a power of ten; returns the count (at most cap), the step in
 * *step. */
int skf_linear_ticks(double lo, double hi, int target, double *ticks, int cap, double *step);
/* A tick value as short text for ticks `step` apart on an axis whose
 * largest magnitude is `top`: "0.25", "1500", or "1.5×10⁶" for the whole
 * axis when top reaches 10⁵ or the step is below 10⁻³; exact zero for
 * values within rounding of it. */
void skf_tick_label(double v, double step, double top, char *buf, size_t n);
/* 10 to the power k as "10⁻³" (UTF-8 superscripts). */
void skf_power_of_ten(int k, char *buf, size_t n);

/* Grid, axes, tick labels and axis titles. x ticks at the given values
 * (thread counts), y ticks every round step from ylo to yhi. */
void skf_axes(const skf_plot *p, const double *xticks, int nxticks, const char *xtitle,
              const char *ytitle);
/* A second y axis on the right for [lo, hi] (values mapped linearly onto
 * the plot's height). */
void skf_right_axis(const skf_plot *p, double lo, double hi, const char *title, uint32_t colour);
/* Both axes with round ticks on linear data ranges, outward tick marks,
 * no grid (a map's frame). */
void skf_frame_axes(const skf_plot *p, const char *xtitle, const char *ytitle);

/* A curve through data points, with square markers when marked. */
void skf_curve(const skf_plot *p, const double *x, const double *y, int n, uint32_t colour,
               double width, int dashed, int marked);

/* Legend entry i (stacked from the top left of the plot area, on a
 * white ground so curves under it do not hide it). */
void skf_legend(const skf_plot *p, int i, const char *label, uint32_t colour, int dashed);

/* Panel frame and title; returns the plot area inside it (margins for
 * axes, and room on the right for a second axis when right_axis). */
skf_plot skf_panel(cairo_t *cr, double x, double y, double w, double h, const char *title,
                   int right_axis);

/* Bars: bar k of slot i (of nslots, each holding nseries bars) at value v,
 * with an optional error half-width e (< 0: none). */
void skf_bar(const skf_plot *p, int slot, int nslots, int k, int nseries, double v, double e,
             uint32_t colour);
/* Category label under slot i. */
void skf_slot_label(const skf_plot *p, int slot, int nslots, const char *label);
/* y axis only, for bar charts. */
void skf_bar_axes(const skf_plot *p, const char *ytitle);

/* A vertical colour bar in viridis at (x, y, w, h): low values at the
 * bottom, ticks and their labels on the right (decades on a log scale),
 * and `label` read upwards beside them. Returns the width it took right
 * of x + w. */
double skf_colour_bar(cairo_t *cr, double x, double y, double w, double h, int log_scale,
                      double vmin, double vmax, const char *label);
/* The width skf_colour_bar would take right of the bar (measured, not
 * drawn). */
double skf_colour_bar_width(cairo_t *cr, double h, int log_scale, double vmin, double vmax);

#endif
