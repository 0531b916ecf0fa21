/* Quantities of a batch for binned analyses (phase diagrams; profiles can
 * take the same): a name resolved once against a stream's schema as a
 * column of the rows, a derived quantity (snapkit/derive.h) computed per
 * batch, or `count` (1 per row); its unit and the factor from code units;
 * and its values for one batch as float64 in that unit. */
#ifndef SNAPKIT_ANALYSIS_BATCHQ_H
#define SNAPKIT_ANALYSIS_BATCHQ_H

#include <stdint.h>

#include "snapkit/derive.h"

typedef enum an_qkind { AN_Q_COUNT, AN_Q_COLUMN, AN_Q_DERIVED } an_qkind;

typedef struct an_quantity {
    char name[64];
    an_qkind kind;
    const sk_quantity *derived; /* AN_Q_DERIVED */
    sk_quantity dim;            /* the dimension its units are taken in */
    int positive;               /* > 0 by nature: a log axis by default */
    char unit[24];              /* "code", a unit name, "1" for dimensionless cgs */
    double factor;              /* code value -> unit */
} an_quantity;

/* Whether the quantity `name` is > 0 by nature (density, T, mass, r, ...):
 * binned on a log axis by default, as yt takes its log. */
int an_quantity_positive(const char *name);

/* `name` against the rows of schema: a column of the rows (kept when a
 * derived quantity has the same name), a derived quantity of this kind of
 * table (cells or particles) in `frame`, or "count". SK_ERR_ARG naming the
 * columns and quantities there are for an unknown name, a quantity of the
 * other kind of table, or a centre needed and not given. */
int an_quantity_resolve(an_quantity *q, const char *name, const sk_table *schema,
                        const sk_frame *frame, sk_error *err);

/* The unit of q: "code" (default), "cgs", or a unit of its dimension
 * (sk_quantity_unit_factor); units from the schema's metadata. */
int an_quantity_set_unit(an_quantity *q, const sk_table *schema, const sk_derive_options *opt,
                         const char *unit, sk_error *err);

/* Apply a units spec to quantities q[0..n): comma-separated items, each
 * "cgs" (every quantity in its CGS unit), NAME=UNIT, or UNIT (every
 * quantity it fits; SK_ERR_ARG when it fits none). */
int an_quantities_units(an_quantity *q, int n, const sk_table *schema,
                        const sk_derive_options *opt, const char *spec, sk_error *err);

/* A thread's scratch for the values of batches (grown as needed). */
typedef struct an_scratch {
    double *buf;
    int64_t cap;
} an_scratch;

/* q's values for the rows of batch, in q's unit: the column itself when it
 * is float64 in code units, else into s (which *out then points into). */
int an_quantity_values(const an_quantity *q, const sk_table *batch, const sk_frame *frame,
                       const sk_derive_options *opt, an_scratch *s, const double **out,
                       sk_error *err);

void an_scratch_free(an_scratch *s);

#endif
