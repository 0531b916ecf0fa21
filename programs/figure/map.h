/* A projection map as a figure a scientist can paste: the map (the bare
 * picture's colours), axes in a length unit, a colour bar labelled with
 * the quantity and its unit, and a title with the time (and redshift when
 * cosmological). PNG, SVG or PDF by the file's extension. */
#ifndef SNAPKIT_FIGURE_MAP_H
#define SNAPKIT_FIGURE_MAP_H

#include "snapkit/project.h"
#include "snapkit/table.h"

typedef struct skf_map_style {
    char length_unit[16]; /* axes: "" (automatic), "standard" (box units), "code", or a
                             length ("pc", "kpc", "Mpc", ...) */
    double boxlen;        /* code lengths across the box */
    double unit_l;        /* cm per code length; 0 when the data has no physical units */
    char time[96];        /* "t = 12.3 Myr", "z = 2.00, t = 3.27 Gyr", "t = 0.107 (code
                             units)"; "" when the table has no time */
} skf_map_style;

/* The style of maps of `table` (its units, time and cosmology in the
 * metadata), with axes in `length_unit` (NULL or "": automatic: a unit
 * among pc, kpc, Mpc, ... that gives the map's width at least 1, or code
 * lengths when the data has no physical units, i.e. unit_l, unit_d and
 * unit_t all 1). */
void skf_map_style_init(skf_map_style *s, const sk_table *table, const char *length_unit);

/* Age of a Friedmann universe at expansion factor a, in seconds, for H0
 * in km/s/Mpc and the density parameters (radiation neglected). */
double skf_cosmic_age(double a, double h0, double omega_m, double omega_l, double omega_k);

/* An sk_picture_writer: ctx is a const skf_map_style *. */
int skf_map_figure(void *ctx, const sk_picture *pic, const char *path, sk_error *err);

#endif
