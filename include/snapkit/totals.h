/* snapkit/totals.h - the totals of a selection: mass, volume, centre of
 * mass, bulk velocity and angular momentum.
 *
 * Rows are cells (a table with level, cx, cy, cz and density: mass =
 * density x cell volume, at the cell centre (c + 0.5) / 2^level in box
 * units) and particles (position_x/y/z and mass; position / boxlen in box
 * units), each with velocity_x/y/z when the table has them. Every
 * position is taken as its displacement d from a reference point to its
 * nearest periodic image (box units, each axis in [-0.5, 0.5]), so a
 * sphere across a face of the box has its centre of mass where the sphere
 * is, not in the middle of the box. Lengths come out in code units (d x
 * boxlen).
 *
 * A cell table with a float64 column `clip` (snapkit/clip.h) weighs each
 * cell by it: mass (density x volume) x clip, volume x clip, at the cell's
 * centre.
 *
 * Sums are exact and rounded once (core/exactsum.h), so the totals have
 * the same bits for any thread count, any MPI rank count and either source
 * (a RAMSES output or its .snapkit file):
 *   mass M = sum m, volume V = sum of the cells' volumes (boxlen/2^l)^ndim,
 *   S = sum m d, P = sum m v, A = sum m (d x v) (each product rounded once),
 *   centre of mass = ref + S / M (into [0, boxlen)), bulk velocity = P / M,
 *   angular momentum about ref relative to a velocity u: boxlen (A - S x u)
 *   = sum m (r - ref) x (v - u); about the centre of mass: boxlen (A - S x
 *   P / M), whatever u (the rows' momentum about it is zero).
 */
#ifndef SNAPKIT_TOTALS_H
#define SNAPKIT_TOTALS_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/read.h"
#include "snapkit/select.h"
#include "snapkit/source.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the totals are taken from. */
typedef struct sk_totals_frame {
    double ref[3];       /* box units: displacements are taken from it (nearest image) */
    int about_com;       /* angular momentum about the centre of mass, not about ref */
    int has_velocity;    /* about ref: relative to `velocity`, not to the bulk velocity */
    double velocity[3];  /* code velocity units */
} sk_totals_frame;

/* The totals, in code units. */
typedef struct sk_totals {
    int64_t cells, particles;      /* rows counted */
    int has_velocity;              /* every row had velocities (else the velocity-based
                                      members below are NaN) */
    double boxlen;                 /* code lengths per box side (0 without rows) */
    double mass;                   /* code mass */
    double volume;                 /* of the cells: code length^ndim */
    double com[3];                 /* centre of mass, code lengths in [0, boxlen) */
    double bulk_velocity[3];       /* mass-weighted mean velocity */
    double center[3];              /* the point the angular momentum is about (code lengths) */
    double velocity[3];            /* and the velocity it is relative to */
    double angular_momentum[3];    /* sum m (r - center) x (v - velocity): mass x length x
                                      velocity */
    double angular_momentum_direction[3]; /* its unit vector; 0 0 0 when it is 0 */
} sk_totals;

/* A mergeable accumulator of totals (one per thread, merged exactly). */
typedef struct sk_totals_acc sk_totals_acc;

/* A new, empty accumulator for frame. SK_ERR_ARG for a reference point
 * or velocity that is not finite. Free with sk_totals_acc_free. */
SK_API int sk_totals_acc_new(const sk_totals_frame *frame, sk_totals_acc **out, sk_error *err);
SK_API void sk_totals_acc_free(sk_totals_acc *acc);

/* Add every row of a cell or particle table (metadata boxlen and ndim,
 * as every reader writes them). SK_ERR_ARG, naming the column, for a
 * table that is neither (no density for cells, no mass or position for
 * particles). */
SK_API int sk_totals_acc_add(sk_totals_acc *acc, const sk_table *batch, sk_error *err);

/* acc += from (made with the same frame); exact, so any order of merges
 * gives the same bits. */
SK_API void sk_totals_acc_merge(sk_totals_acc *acc, const sk_totals_acc *from);

/* Sum every MPI rank's accumulator into each rank's, exactly (collective:
 * every rank calls it). Does nothing when MPI is not running. */
SK_API int sk_totals_acc_reduce_ranks(sk_totals_acc *acc, sk_error *err);

/* The totals so far. Without rows the mass is 0 and the rest NaN. */
SK_API void sk_totals_acc_result(const sk_totals_acc *acc, sk_totals *out);

/* The totals of the components of src listed in `components` ("hydro"
 * (or "gas"), "particles", or both comma-separated; NULL or "": the gas
 * when the source has it, else the particles) within sel, streamed (one
 * batch per thread at a time). opt may be NULL; when it shares the read
 * among MPI ranks (share_count > 1) the call is collective and every
 * rank gets the whole selection's totals. */
SK_API int sk_totals_compute(sk_source *src, const char *components, const sk_selection *sel,
                             const sk_totals_frame *frame, const sk_read_options *opt,
                             sk_totals *out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
