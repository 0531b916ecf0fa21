/* Profiles as figures: one or more curves of a quantity against bins (a
 * radial density profile, a rotation curve), each with an optional shaded
 * band (mean +- std, p16..p84), on linear or base-10 log axes with titles
 * and units, a legend, and a title. PNG, SVG or PDF by the file's
 * extension. */
#ifndef SNAPKIT_FIGURE_PROFILE_PLOT_H
#define SNAPKIT_FIGURE_PROFILE_PLOT_H

#include "figure/axes.h"
#include "snapkit/error.h"

typedef struct skf_profile_series {
    const char *label;     /* legend text; NULL: no legend entry */
    const double *y;       /* nbins values (NaN, or <= 0 on a log y axis: no point, the
                              curve breaks) */
    const double *lo, *hi; /* optional shaded band per bin (e.g. mean-std..mean+std, or
                              p16..p84); NULL: none. A bin whose hi is not finite has no
                              band; on a log y axis a lo <= 0 reaches the bottom */
    int dashed;
} skf_profile_series;

typedef struct skf_profile_spec {
    int nbins;
    const double *edges;  /* nbins + 1 bin edges, increasing (linear values) */
    int xlog, ylog;       /* base-10 log axes */
    int steps;            /* 1: step curve over each bin; 0: line through bin centres
                             (geometric centres on log x) */
    const char *title, *xtitle, *ytitle; /* axis titles carry units, e.g. "r [kpc]"; NULL: none */
    int nseries;
    const skf_profile_series *series;
} skf_profile_spec;

/* Draw the profile figure and write it atomically to path (.png/.svg/.pdf).
 * SK_ERR_ARG, naming what is wrong, for: no bin, edges missing, not finite
 * or not increasing, a log x axis with an edge <= 0, no series or a series
 * without values, no finite value to plot (none > 0 on a log y axis), a
 * path that is not .png/.svg/.pdf. The y range covers the curves and the
 * bands (on a log axis band values under a tenth of the curves' smallest
 * are left below the frame), with 5% to spare. */
int skf_profile_figure(const skf_profile_spec *s, const char *path, sk_error *err);

/* The page and plot area skf_profile_figure draws for s (the same checks). */
int skf_profile_layout(const skf_profile_spec *s, skf_layout *out, sk_error *err);

#endif
