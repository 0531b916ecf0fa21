/* One pass of an analysis over components of a source: the rows streamed
 * to per-thread states (snapkit/stream.h), folded when each component's
 * stream ends; the components a centre or totals are taken over; and the
 * columns a pass reads. Shared by totals.c, center.c and shrink.c. */
#ifndef SNAPKIT_ANALYSIS_PASS_H
#define SNAPKIT_ANALYSIS_PASS_H

#include <math.h>

#include "snapkit/source.h"

enum { AN_MAX_COMPONENTS = 8 };

typedef struct an_pass {
    void *ctx;
    /* Make per-thread states for threads 0 .. nthreads-1. */
    int (*begin)(void *ctx, int nthreads, sk_error *err);
    /* One batch (at least one row) on `thread`. */
    int (*batch)(void *ctx, int thread, const sk_table *batch, sk_error *err);
    /* Fold the threads' states into the result and free them; called once
     * after every begin, also when the stream failed (ok == 0: free only). */
    int (*end)(void *ctx, int nthreads, int ok, sk_error *err);
} an_pass;

/* Stream `component` of src with sel (rows in any order, any batches) to
 * p. SK_OK or the stream's (or p's) error. */
int an_pass_run(sk_source *src, const char *component, const sk_selection *sel,
                const sk_read_options *opt, const an_pass *p, sk_error *err);

/* The components listed in `list` ("hydro" (or "gas"), "particles", any
 * other component of the source, comma-separated; "" or NULL: hydro when
 * the source has it, else particles) into names (static strings);
 * SK_ERR_ARG naming a component the source lacks. */
int an_components(const sk_source *src, const char *list, const char **names, int *n,
                  sk_error *err);

/* sel with its variables set to those of want[0..n) that `component`
 * has (a .snapkit table's schema says; a RAMSES output's reader takes
 * every variable, so its columns are found in the batches), into the
 * caller-initialised out, which the caller clears. */
int an_selection_vars(const sk_source *src, const char *component, const sk_selection *sel,
                      const char *const *want, int n, sk_selection *out, sk_error *err);

/* Reads shared among MPI ranks (opt->share_count > 1): the ranks' results
 * must be reduced. */
int an_shared(const sk_read_options *opt);

/* The value of row i of a numeric column as a double. */
static inline double an_at(const sk_column *c, int64_t i)
{
    if (c->type == SK_FLOAT64)
        return ((const double *)c->data)[i];
    if (c->type == SK_INT32)
        return ((const int32_t *)c->data)[i];
    return sk_column_get_double(c, i);
}

/* The displacement along one axis to the nearest periodic image, in
 * [-0.5, 0.5] box units: d - nearbyint(d), as select.h's shapes take it
 * (ties to even: +-0.5 stay), without a call into libm for the usual
 * |d| < 1.5. */
static inline double an_wrap(double d)
{
    if (d > 0.5)
        return d < 1.5 ? d - 1.0 : d - nearbyint(d);
    if (d < -0.5)
        return d > -1.5 ? d + 1.0 : d - nearbyint(d);
    return d;
}

/* A box coordinate brought into [0, 1). */
static inline double an_wrap01(double x)
{
    double y = x - floor(x);
    return y < 1.0 ? y : 0.0;
}

/* The point a selection's displacements are taken from: its centre,
 * else its shape's, else the box centre. */
static inline void an_selection_ref(const sk_selection *sel, double ref[3])
{
    for (int k = 0; k < 3; k++)
        ref[k] = sel->has_center ? sel->center[k]
                 : sel->shape.kind != SK_SHAPE_NONE ? sel->shape.center[k] : 0.5;
}

/* Put "what: " before err's message (when err is not NULL). */
void an_error_prefix(sk_error *err, const char *what);

#endif
