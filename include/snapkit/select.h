/* snapkit/select.h - selections shared by every reader and the projector.
 *
 * A user's request (sk_region_request: ranges in some unit, relative to an
 * optional centre, and optionally a shape about that centre) resolves to
 * an sk_selection in box units, which readers apply: a cell is selected
 * when its centre lies in [lo, hi) on every axis and in the shape, a
 * particle when its position does; lmax caps the refinement level.
 *
 * Shapes (sk_shape): a sphere, a cylinder (any axis; a disk is a short
 * one), a spherical shell and a cylindrical shell, each optionally
 * inverted (everything outside). Distances from the centre are taken
 * across the periodic faces (the nearest image, as yt does for RAMSES
 * outputs), so a sphere near a face takes cells from the far side. The
 * selection's box [lo, hi) is the shape's bounding box (the whole box on
 * an axis where the shape wraps; the whole box for an inverted shape),
 * intersected with any ranges given: readers open only the CPU files and
 * .snapkit chunks that box touches, then test each row against the shape.
 */
#ifndef SNAPKIT_SELECT_H
#define SNAPKIT_SELECT_H

#include "snapkit/export.h"

#include "snapkit/error.h"
#include "snapkit/units.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_MAX_VARS 256

typedef enum sk_shape_kind {
    SK_SHAPE_NONE = 0,
    SK_SHAPE_SPHERE = 1,         /* |d| <= r_out */
    SK_SHAPE_CYLINDER = 2,       /* distance to the axis <= r_out, |d . axis| <= half_height */
    SK_SHAPE_SHELL = 3,          /* r_in < |d| <= r_out (yt's sphere(r_out) - sphere(r_in)) */
    SK_SHAPE_CYLINDER_SHELL = 4  /* r_in < distance to the axis <= r_out, |d . axis| <= half_height */
} sk_shape_kind;

/* A shape in box units (d: a point's displacement from the centre, the
 * nearest periodic image). */
typedef struct sk_shape {
    int kind;             /* sk_shape_kind; SK_SHAPE_NONE: no shape */
    int inverse;          /* select what lies outside instead */
    double center[3];     /* box units, inside [0, 1] */
    double axis[3];       /* cylinders: unit vector */
    double r_in, r_out;   /* box units; r_in = 0 but for shells */
    double half_height;   /* cylinders: half the height (yt's disk `height`) */
} sk_shape;

typedef struct sk_region_request {
    int has_range[3];     /* axis restricted? */
    double range[3][2];   /* lo, hi in `unit`; relative to the centre when has_center */
    int has_center;
    int center_is_bc;     /* centre at the box centre (Mera's :bc) */
    double center[3];     /* in `unit` */
    char unit[16];        /* "standard" (default), "code", "cm", ..., "Mpc" */
    int shape;            /* sk_shape_kind about the centre (the box centre when none) */
    int inverse;          /* the shape's outside */
    double radius[2];     /* inner (shells; else 0) and outer radius, in `unit` */
    double half_height;   /* cylinders, in `unit` */
    double axis[3];       /* cylinders: direction (any length > 0); all 0: z */
} sk_region_request;

typedef struct sk_selection {
    int lmax;             /* 0: no cap */
    int has_box;
    double lo[3], hi[3];  /* box units; [0,1) per axis when has_box == 0 */
    int nvars;            /* 0: every variable */
    char *vars[SK_MAX_VARS];
    int has_family;       /* particles: keep only families with family[code + 128] set */
    unsigned char family[256];
    int has_center;       /* a centre was given (a point or bc) */
    double center[3];     /* box units */
    sk_shape shape;       /* kind SK_SHAPE_NONE: the box alone */
} sk_selection;

/* RAMSES particle families (pm/pm_commons.f90 FAM_*): the `family` column. */
enum {
    SK_FAMILY_OTHER_TRACER = -5, SK_FAMILY_DEBRIS_TRACER = -4, SK_FAMILY_CLOUD_TRACER = -3,
    SK_FAMILY_STAR_TRACER = -2, SK_FAMILY_DM_TRACER = -1, SK_FAMILY_GAS_TRACER = 0,
    SK_FAMILY_DM = 1, SK_FAMILY_STAR = 2, SK_FAMILY_CLOUD = 3, SK_FAMILY_DEBRIS = 4,
    SK_FAMILY_OTHER = 5, SK_FAMILY_UNDEFINED = 127
};
/* "dm", "star", ..., "gas_tracer", "dm_tracer", ..., "undefined"; NULL for
 * another code. */
SK_API const char *sk_family_name(int code);
/* Code of a family name (case-insensitive; also "DM" and RAMSES's header
 * labels) or of a number -128..127. SK_ERR_ARG for anything else. */
SK_API int sk_family_code(const char *name, int *code, sk_error *err);

/* No cap, whole box, every variable. */
SK_API void sk_selection_init(sk_selection *sel);
/* Free the variable names. */
SK_API void sk_selection_clear(sk_selection *sel);
/* Deep copy. */
SK_API int sk_selection_copy(sk_selection *dst, const sk_selection *src, sk_error *err);

/* Resolve a request into box units given the units of the data. An axis
 * without a range is the whole box ([0,1) absolute; relative ranges need a
 * range). A shape is checked and set (sk_selection_set_shape). SK_ERR_ARG
 * for lo >= hi, an unknown unit or a bad shape. */
SK_API int sk_selection_set_region(sk_selection *sel, const sk_region_request *req,
                                   const sk_units *units, sk_error *err);

/* Parse "a,b,c" into sel->vars (replacing earlier ones). */
SK_API int sk_selection_set_vars(sk_selection *sel, const char *csv, sk_error *err);
/* Parse "dm,star" or "1,2" (names or numbers, see sk_family_code) into
 * the family filter, replacing an earlier one. */
SK_API int sk_selection_set_families(sk_selection *sel, const char *csv, sk_error *err);
/* Is a particle of family `code` selected (always true without a filter)? */
SK_API int sk_selection_wants_family(const sk_selection *sel, int code);

/* Is `name` asked for (always true when nvars == 0)? */
SK_API int sk_selection_wants(const sk_selection *sel, const char *name);

/* Set the shape (box units) and narrow the box to its bounding box.
 * SK_ERR_ARG, with one line saying what, for a radius <= 0 or not finite,
 * an inner radius not below the outer, a half-height <= 0, an axis of zero
 * length, or a centre outside the box. */
SK_API int sk_selection_set_shape(sk_selection *sel, const sk_shape *shape, sk_error *err);

/* Is the point (box units) in the shape? 1 without a shape. Axes a
 * lower-dimensional output lacks are passed as the shape's centre. */
SK_API int sk_shape_contains(const sk_shape *shape, double x, double y, double z);

/* Does the shape meet the box [lo, hi] (box units)? -1 when no point of
 * the box is in the shape, 1 when every point is, 0 when unsure (part of
 * it, or not worked out for this shape). Conservative: -1 and 1 are
 * never wrong. */
SK_API int sk_shape_box_test(const sk_shape *shape, const double lo[3], const double hi[3]);

/* Point (box units) in the box and in the shape? */
SK_API int sk_selection_contains(const sk_selection *sel, double x, double y, double z);

/* Does the selection test rows by position (a box or a shape)? */
SK_API int sk_selection_has_region(const sk_selection *sel);

/* Clipping (--clip): a cell counted by the part of its volume inside
 * the region instead of all or nothing by its centre.
 *
 * sk_selection_cell_fraction: the fraction (0..1) of the cell of centre
 * `center` and side `size` (box units) inside the selection's region (its
 * box and shape); axes from ndim on are those a lower-dimensional output
 * lacks (ignored by the box, the shape's centre for the shape, as readers
 * take them). The box's part is exact: the product of the 1-D overlaps
 * with [lo, hi] (the box does not wrap). A shape's part (its inverse too)
 * is exact for cells wholly in or out of it; for a cell its surface
 * crosses it is the mean, over SK_CLIP_COLUMNS x SK_CLIP_COLUMNS columns
 * (SK_CLIP_COLUMNS in 2-D) along the cell's axis nearest to the surface's
 * normal at the cell's centre (the last such axis on a tie), of the exact
 * length of each column's centre line inside the shape, the line's
 * distances wrapping across the faces as sk_shape_contains's do.
 * The same bits for a cell whatever else is read. */
#define SK_CLIP_COLUMNS 16
SK_API double sk_selection_cell_fraction(const sk_selection *sel, const double center[3],
                                         double size, int ndim);

/* Widen sel so that it holds every cell of side at most 2 * half (box
 * units) that meets its region, not only those centred in it: the box
 * grows by half on each side, a shape by half the diagonal (sqrt(3) half;
 * an inverted shape shrinks by it, and is dropped when nothing of it is
 * left). Readers then read the cells a clipped consumer weighs. SK_ERR_ARG
 * for half < 0 or not finite. */
SK_API int sk_selection_widen(sk_selection *sel, double half, sk_error *err);

/* Record the selection in the table's metadata as selection.* keys. */
SK_API int sk_selection_to_meta(const sk_selection *sel, sk_table *table);

#ifdef __cplusplus
}
#endif
#endif
