/* snapkit/select.h - selections shared by every reader and the projector.
 *
 * A user's request (sk_region_request: ranges in some unit, relative to an
 * optional centre) resolves to an sk_selection in box units, which readers
 * apply: a cell is selected when its centre lies in [lo, hi) on every axis,
 * a particle when its position does; lmax caps the refinement level.
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

typedef struct sk_region_request {
    int has_range[3];     /* axis restricted? */
    double range[3][2];   /* lo, hi in `unit`; relative to the centre when has_center */
    int has_center;
    int center_is_bc;     /* centre at the box centre (Mera's :bc) */
    double center[3];     /* in `unit` */
    char unit[16];        /* "standard" (default), "code", "cm", ..., "Mpc" */
} sk_region_request;

typedef struct sk_selection {
    int lmax;             /* 0: no cap */
    int has_box;
    double lo[3], hi[3];  /* box units; [0,1) per axis when has_box == 0 */
    int nvars;            /* 0: every variable */
    char *vars[SK_MAX_VARS];
    int has_family;       /* particles: keep only families with family[code + 128] set */
    unsigned char family[256];
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
 * range). SK_ERR_ARG for lo >= hi or an unknown unit. */
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

/* Centre point (box units) inside the box? */
SK_API int sk_selection_contains(const sk_selection *sel, double x, double y, double z);

/* Record the selection in the table's metadata as selection.* keys. */
SK_API int sk_selection_to_meta(const sk_selection *sel, sk_table *table);

#ifdef __cplusplus
}
#endif
#endif
