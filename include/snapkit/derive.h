/* snapkit/derive.h - quantities derived per row, about a centre and a frame.
 *
 * A derived quantity is computed for every row of a cell table (columns
 * level, cx, cy, cz: the cell centre is (c + 0.5) boxlen / 2^level, boxlen
 * from the metadata) or of a particle table (position_x/y/z, velocity_x/y/z,
 * mass), from the columns it names, in code units. Quantities about a
 * centre take each row's displacement d from the frame's centre to the
 * nearest periodic image (the box of size boxlen is periodic, as yt takes
 * RAMSES datasets) and its velocity v' relative to the frame's bulk
 * velocity; cylindrical ones use the frame's axis n. Every quantity is
 * listed, with its formula, its dimension and what it needs, by
 * sk_quantity_at (snapkit stats --list-quantities prints them; docs/analysis.md
 * has the same list). Physical values: times sk_quantity_unit_factor.
 *
 * One quantity of a table:
 *
 *   sk_frame f = {.has_center = 1, .center = {0.5, 0.5, 0.5}};
 *   double *vphi = malloc(nrows * sizeof *vphi);
 *   sk_derive(cells, "v_phi", &f, NULL, vphi, &err);
 *
 * Columns added to a table, or to every batch of a stream before a consumer
 * sees it (sk_derive_set): a selection's variables may then name derived
 * quantities, which sk_derive_set_take_vars replaces by the columns they
 * need, so that the reader reads those and the consumer sees the names
 * asked for.
 */
#ifndef SNAPKIT_DERIVE_H
#define SNAPKIT_DERIVE_H

#include "snapkit/export.h"

#include "snapkit/error.h"
#include "snapkit/select.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"
#include "snapkit/units.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_json sk_json;

/* The frame quantities are taken in. */
typedef struct sk_frame {
    int has_center;          /* 0: quantities about a centre are refused */
    double center[3];        /* code lengths */
    double bulk_velocity[3]; /* code velocity units; 0: the box's rest frame */
    double axis[3];          /* cylindrical axis, any length > 0; all 0: +z */
} sk_frame;

/* Gas physics of the quantities that need it; 0 takes the default. */
typedef struct sk_derive_options {
    double gamma;             /* adiabatic index; <= 0: the table's metadata "gamma" */
    double mu;                /* mean molecular weight of T in K and of n; <= 0: 1/X */
    double hydrogen_fraction; /* X of nH; <= 0: SK_HYDROGEN_FRACTION (0.76) */
} sk_derive_options;

/* The physical dimension of a quantity, which says the units it converts to. */
typedef enum sk_quantity_dim {
    SK_QDIM_NONE = 0,         /* a pure number */
    SK_QDIM_ANGLE = 1,        /* radians */
    SK_QDIM_LENGTH = 2,
    SK_QDIM_VELOCITY = 3,
    SK_QDIM_SPECIFIC_ANGULAR_MOMENTUM = 4, /* length x velocity */
    SK_QDIM_MASS = 5,
    SK_QDIM_VOLUME = 6,
    SK_QDIM_TEMPERATURE = 7,  /* code p/rho: times sk_temperature_factor for K */
    SK_QDIM_ENERGY_DENSITY = 8, /* code pressure */
    SK_QDIM_NUMBER_DENSITY = 9, /* particles per code volume */
    SK_QDIM_ENTROPY = 10,     /* code p / rho^gamma */
    SK_QDIM_MAGNETIC_FIELD = 11
} sk_quantity_dim;

/* What a quantity needs besides its columns (sk_quantity.needs). */
enum {
    SK_NEEDS_CENTER = 1,   /* a centre: sk_frame.has_center */
    SK_NEEDS_AXIS = 2,     /* uses the frame's axis (default +z) */
    SK_NEEDS_BULK = 4,     /* uses the frame's bulk velocity (default 0) */
    SK_NEEDS_GAMMA = 8,    /* the adiabatic index */
    SK_NEEDS_UNITS = 16    /* the table's unit_d and unit_l (hydrogen masses per code mass) */
};

/* One quantity (static: never freed). */
typedef struct sk_quantity {
    const char *name;
    const char *formula;     /* in the symbols of the docs: d, v', n, rho, p, ... */
    const char *description;
    int dim;                 /* sk_quantity_dim */
    const char *cgs_unit;    /* the CGS unit of sk_quantity_unit_factor(.., "cgs", ..),
                              * spelled as astropy parses it; NULL when it depends on
                              * gamma (entropy) */
    int needs;               /* SK_NEEDS_* bits */
    const char *cell_columns;     /* columns it reads from cells, comma-separated;
                                   * NULL: not a quantity of cells */
    const char *particle_columns; /* the same for particles; NULL: not of particles */
} sk_quantity;

/* The number of quantities, and quantity i (0 .. count-1; NULL outside). */
SK_API int sk_quantity_count(void);
SK_API const sk_quantity *sk_quantity_at(int i);
/* The quantity named `name` (case-sensitive), or NULL. */
SK_API const sk_quantity *sk_quantity_find(const char *name);
/* Every quantity as a JSON array of objects (name, formula, description,
 * dimension, cgs_unit, needs: [...], cells, particles: column lists or
 * null). */
SK_API void sk_quantities_json(sk_json *j);
/* The name of a dimension ("velocity", "length", ...). */
SK_API const char *sk_quantity_dim_name(int dim);

/* Factor from the code value of q to `unit`: "code" (1), "cgs" (cgs_unit),
 * or a unit of its dimension: lengths cm, m, km, au, pc, kpc, Mpc (and the
 * comoving and /h forms of sk_length_unit_cm_at); angles rad, deg;
 * velocities cm/s, m/s, km/s; specific angular momenta cm2/s, kpc*km/s;
 * masses g, Msun; volumes cm3, pc3, kpc3; temperatures K (with opt->mu);
 * energy densities erg/cm3, Ba; number densities cm-3; magnetic fields G,
 * uG; entropy "cgs" only (with opt->gamma, which must be given). SK_ERR_ARG
 * naming the units that fit when `unit` does not. u: the table's units
 * (sk_units_from_table); opt may be NULL. */
SK_API int sk_quantity_unit_factor(const sk_quantity *q, const sk_units *u,
                                   const sk_derive_options *opt, const char *unit,
                                   double *factor, sk_error *err);

/* Quantity `name` of every row of a cell or particle table into out[nrows],
 * in code units. frame and opt may be NULL (no centre, at rest, axis +z;
 * default options). SK_ERR_ARG, with one line saying what, for an unknown
 * name, a quantity of the other kind of table, a column it needs missing,
 * a centre needed but not given, an axis of zero length or not finite, or
 * gamma needed but neither given nor in the metadata. Quantities undefined
 * at a row are 0 there: directions at the centre (r = 0) and, for those
 * about the axis, on the axis (R = 0). */
SK_API int sk_derive(const sk_table *table, const char *name, const sk_frame *frame,
                     const sk_derive_options *opt, double *out, sk_error *err);

/* A set of quantities to add as float64 columns, in one frame. */
typedef struct sk_derive_set sk_derive_set;

/* A new empty set; frame and opt are copied (NULL: defaults). SK_ERR_ARG
 * for an axis of zero length or not finite. */
SK_API int sk_derive_set_new(const sk_frame *frame, const sk_derive_options *opt,
                             sk_derive_set **out, sk_error *err);
SK_API void sk_derive_set_free(sk_derive_set *set);

/* Add quantity `name` for tables of particles (particles != 0) or cells.
 * SK_ERR_ARG for an unknown name, a quantity of the other kind, a centre
 * needed but absent from the set's frame, or a name added twice. */
SK_API int sk_derive_set_add(sk_derive_set *set, const char *name, int particles,
                             sk_error *err);

/* Take the quantities out of a selection's variables: each name in
 * sel->vars that is a quantity (sk_quantity_find) and not one of its own
 * columns (a particle's `mass` stays a column) is added to the set
 * (sk_derive_set_add) and replaced by the columns it needs; columns added
 * only for them are dropped again from the rows the set hands on. Nothing
 * changes when sel->vars is empty (every variable) or names no quantity. */
SK_API int sk_derive_set_take_vars(sk_derive_set *set, sk_selection *sel, int particles,
                                   sk_error *err);

/* The number of quantities in the set, and the name of quantity i. */
SK_API int sk_derive_set_count(const sk_derive_set *set);
SK_API const char *sk_derive_set_name(const sk_derive_set *set, int i);

/* Add the set's quantities to the table as float64 columns (after its
 * own), and drop the columns read only for them. A column of the same name
 * already there is kept and not derived. */
SK_API int sk_derive_set_apply(const sk_derive_set *set, sk_table *table, sk_error *err);

/* A consumer that hands each batch on to `inner` with the set's columns
 * added (and the columns read only for them dropped), as
 * sk_derive_set_apply would: each thread's rows are copied into a table of
 * its own, reused from batch to batch, so memory stays threads x largest
 * batch (the tables live until the set is freed or begins its next
 * stream). inner is copied; the set must outlive the stream, and serves one
 * stream at a time. The schema inner's begin sees has the columns its
 * batches will have; a column a quantity needs and the stream lacks fails
 * at begin, before any row is read. */
SK_API sk_consumer sk_derive_set_consumer(sk_derive_set *set, const sk_consumer *inner);

#ifdef __cplusplus
}
#endif
#endif
