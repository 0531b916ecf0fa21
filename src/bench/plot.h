/* Axes, curves and bars on a canvas: the few chart pieces the report's
 * panels need. */
#ifndef SNAPKIT_BENCH_PLOT_H
#define SNAPKIT_BENCH_PLOT_H

#include "bench/canvas.h"

enum {
    SKB_BLUE = 0x1f77b4, SKB_ORANGE = 0xff7f0e, SKB_GREEN = 0x2ca02c, SKB_RED = 0xd62728,
    SKB_PURPLE = 0x9467bd, SKB_BROWN = 0x8c564b, SKB_GREY = 0x7f7f7f, SKB_INK = 0x222222,
    SKB_LIGHT = 0xdddddd
};

/* The colour of series i. */
uint32_t skb_series_colour(int i);

typedef struct skb_plot {
    double x, y, w, h;     /* plot area on the canvas */
    double xlo, xhi;       /* data range on x */
    double ylo, yhi;       /* data range on y */
    int xlog;              /* x on a log2 scale */
    int ylog;              /* y on a log2 scale (ticks at powers of two) */
    skb_canvas *c;
} skb_plot;

double skb_px(const skb_plot *p, double x);
double skb_py(const skb_plot *p, double y);

/* A round upper limit above v (1, 2, 2.5, 5 times a power of ten). */
double skb_nice_ceiling(double v);

/* Grid, axes, tick labels and axis titles. x ticks at the given values
 * (thread counts), y ticks every nice step from ylo to yhi. */
void skb_axes(const skb_plot *p, const double *xticks, int nxticks, const char *xtitle,
              const char *ytitle);
/* A second y axis on the right for [lo, hi] (values mapped linearly onto
 * the plot's height). */
void skb_right_axis(const skb_plot *p, double lo, double hi, const char *title, uint32_t colour);

/* A curve through data points, with square markers when marked. */
void skb_curve(const skb_plot *p, const double *x, const double *y, int n, uint32_t colour,
               double width, int dashed, int marked);

/* Legend entry i (stacked from the top left of the plot area, on a
 * white ground so curves under it do not hide it). */
void skb_legend(const skb_plot *p, int i, const char *label, uint32_t colour, int dashed);

/* Panel frame and title; returns the plot area inside it (margins for
 * axes, and room on the right for a second axis when right_axis). */
skb_plot skb_panel(skb_canvas *c, const char *id, double x, double y, double w, double h,
                   const char *title, int right_axis);

/* Bars: n values at category slots, each slot holding nseries bars;
 * bar k of slot i at value v, with an optional error half-width e (< 0:
 * none). */
void skb_bar(const skb_plot *p, int slot, int nslots, int k, int nseries, double v, double e,
             uint32_t colour);
/* Category label under slot i. */
void skb_slot_label(const skb_plot *p, int slot, int nslots, const char *label);
/* y axis only, for bar charts. */
void skb_bar_axes(const skb_plot *p, const char *ytitle);

#endif
