/* snapkit/center.h - finding a centre in a selection of a source: the
 * row with the largest (or smallest) value of a column, the centre of
 * mass, or the shrinking-sphere centre of mass.
 *
 * The search runs over the rows of a selection (its box, its shape, its
 * lmax and particle families) of one or more components: the gas (cells,
 * mass = density x volume, at their centres) and/or the particles. Every
 * method is exact and deterministic: the same bits for any thread count,
 * any MPI rank count and either source (a RAMSES output or its .snapkit
 * file). Positions are in box units (0..1); displacements are taken to
 * the nearest periodic image, as select.h's shapes take them.
 *
 *   max:FIELD  the position of the row with the largest FIELD (NaN values
 *              skipped); among equal values the one of the lowest x, then
 *              y, then z, whatever the order the rows come in. min:FIELD:
 *              the smallest (e.g. min:potential on the gravity component).
 *   com        the centre of mass of the selection (snapkit/totals.h),
 *              displacements taken from the selection's centre.
 *   shrink     the shrinking-sphere centre of mass (Power et al. 2003,
 *              MNRAS 338, 14, section 2.3): c = the centre of mass of the
 *              selection's rows, r = the largest distance of one of them
 *              from c; then repeatedly r = factor x r, keep the rows within
 *              r of c (|d| <= r), and if at least `shrink_min` remain, c =
 *              their centre of mass; stop when fewer remain (or r stops
 *              shrinking). Each step takes its rows from the previous
 *              step's, as pynbody's shrink_sphere_center does. The rows'
 *              positions and masses are held in memory (32 bytes a row:
 *              a shape bounds them). Defaults: factor 0.975 and 1000 rows,
 *              Power et al.'s choice, whose small steps keep the sphere on
 *              the densest clump where larger ones may jump past it.
 */
#ifndef SNAPKIT_CENTER_H
#define SNAPKIT_CENTER_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/read.h"
#include "snapkit/select.h"
#include "snapkit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_center_method {
    SK_CENTER_MAX = 1,   /* max:FIELD */
    SK_CENTER_MIN = 2,   /* min:FIELD */
    SK_CENTER_COM = 3,   /* com */
    SK_CENTER_SHRINK = 4 /* shrink */
} sk_center_method;

#define SK_SHRINK_FACTOR_DEFAULT 0.975
#define SK_SHRINK_MIN_DEFAULT 1000

typedef struct sk_center_options {
    int method;            /* sk_center_method */
    char field[64];        /* max, min: the column */
    char components[64];   /* "hydro" (or "gas"), "particles", another component for max and
                              min, or several comma-separated; "": the gas when the source
                              has it, else the particles */
    double shrink_factor;  /* shrink: radius factor per step, in (0, 1); 0: the default */
    int64_t shrink_min;    /* shrink: stop before fewer rows than this (>= 1); 0: the default */
} sk_center_options;

typedef struct sk_center_result {
    double center[3];      /* box units, in [0, 1) */
    int64_t rows;          /* rows searched (over every rank) */
    char component[16];    /* max, min: the component of the row found */
    double value;          /* max, min: its value of the field */
    double mass;           /* com, shrink: the mass of the rows of the last centre of mass
                              (code units) */
    int iterations;        /* shrink: spheres after the first whose centre of mass was taken */
    double radius;         /* shrink: the radius of the last one (box units) */
    int64_t final_rows;    /* com, shrink: the rows of the last centre of mass */
} sk_center_result;

/* Method com, the default components and shrink parameters. */
SK_API void sk_center_options_init(sk_center_options *opt);

/* Parse "max:FIELD", "min:FIELD", "com" or "shrink" into opt->method and
 * opt->field (the rest of opt is kept). SK_ERR_ARG, one line, for anything
 * else. */
SK_API int sk_center_parse(const char *spec, sk_center_options *opt, sk_error *err);

/* The centre of the rows of src's components within sel (NULL: every
 * row). ropt may be NULL; when it shares the read among MPI ranks
 * (share_count > 1) the call is collective and every rank gets the same
 * result. SK_ERR_ARG (one line) for a field no listed component has, a
 * component the source lacks, shrink parameters out of range, no rows
 * (SK_ERR_EMPTY), no mass, or fewer rows than shrink_min. */
SK_API int sk_center_find(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                          const sk_read_options *ropt, sk_center_result *out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
