/* Phase diagrams (2-D histograms) as figures: the bins as an image in
 * viridis on linear or base-10 log axes (bins are rectangles in axis
 * coordinates: log-spaced bins on a log axis are equal on the page, others
 * are not), empty bins white, a colour bar (linear, or log with decade
 * ticks) labelled with the quantity and its unit, axis titles and a title.
 * PNG, SVG or PDF by the file's extension. */
#ifndef SNAPKIT_FIGURE_PHASE_PLOT_H
#define SNAPKIT_FIGURE_PHASE_PLOT_H

#include "figure/axes.h"
#include "snapkit/error.h"

typedef struct skf_phase_spec {
    int nx, ny;
    const double *xedges, *yedges; /* nx+1, ny+1 edges, increasing */
    const double *values;          /* values[iy * nx + ix]; NaN or (zlog and <= 0): empty,
                                      drawn white */
    int xlog, ylog, zlog;          /* base-10 log axes / log colour scale */
    const char *title, *xtitle, *ytitle, *ztitle; /* ztitle labels the colour bar, with
                                                     units; NULL: none */
} skf_phase_spec;

/* Draw the phase diagram (viridis image, axes, colour bar) and write it
 * atomically to path. The colour range is the smallest to the largest
 * non-empty value. SK_ERR_ARG, naming what is wrong, for: no bin on an
 * axis, edges missing, not finite or not increasing, a log axis with an
 * edge <= 0, no values, no finite value (none > 0 with zlog) for the
 * colour range, a path that is not .png/.svg/.pdf. */
int skf_phase_figure(const skf_phase_spec *s, const char *path, sk_error *err);

/* The page and plot area skf_phase_figure draws for s (the same checks). */
int skf_phase_layout(const skf_phase_spec *s, skf_layout *out, sk_error *err);

#endif
