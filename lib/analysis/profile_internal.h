/* Internal pieces of the profiles: the stream keeps the rows (profile.c),
 * the result bins them (profile_result.c), units (profile_units.c),
 * outputs (profile_write.c). */
#ifndef SNAPKIT_ANALYSIS_PROFILE_INTERNAL_H
#define SNAPKIT_ANALYSIS_PROFILE_INTERNAL_H

#include "analysis/keep.h"
#include "snapkit/profile.h"
#include "snapkit/units.h"

struct sk_profile_stream {
    sk_profile_options opt;
    int nq;                   /* quantities; the kept columns are the bin field, then them */
    char unit[SK_PROFILE_MAX_QUANTITIES + 1][32];
    char names[SK_PROFILE_MAX_QUANTITIES + 1][64]; /* as asked: the bin field, quantities */
    int vcirc[SK_PROFILE_MAX_QUANTITIES + 1]; /* v_circ: its kept column is the mass */
    sk_units units;           /* the rows' (from the schema) */
    double vfactor[SK_PROFILE_MAX_QUANTITIES + 1]; /* v_circ: cm/s -> its unit */
    an_keep keep;
    int64_t rows;             /* rows streamed (atomically added) */
    int begun;
};

struct sk_profile {
    sk_profile_options opt;
    sk_bins bins;
    int nq;
    char names[SK_PROFILE_MAX_QUANTITIES + 1][64]; /* the bin field, then the quantities */
    char unit[SK_PROFILE_MAX_QUANTITIES + 1][32];
    double *edges;            /* nbins + 1 */
    int64_t *count, *cum_count;
    double *weight, *cum_weight;
    double *stat;             /* per quantity: 5 blocks (sk_profile_stat) of nbins */
    double *pct;              /* per quantity and percentile: nbins */
    int64_t rows, binned;
};

/* The factor from the code value of field `name` to `unit` ("", "code":
 * 1), the unit's name into label (size 32). SK_ERR_ARG naming the units
 * that fit when unit does not. */
int prof_unit_factor(const char *name, const char *unit, const sk_units *u, double mu,
                     double *factor, char *label, sk_error *err);
/* The unit spec's unit for `name` ("cgs" for every field with "cgs"), or
 * "" when it names none. */
void prof_unit_of(const char *spec, const char *name, char *unit, size_t size);
/* The factor from cm/s to a velocity unit ("", "code": code velocity). */
int prof_velocity_factor(const char *unit, const sk_units *u, double *factor, char *label,
                         sk_error *err);
/* Check a unit spec's form: "cgs", or NAME=UNIT items separated by commas. */
int prof_units_check(const char *spec, sk_error *err);

/* The profile of the rows kept (profile_result.c). */
int prof_result(const sk_profile_stream *ps, sk_profile **out, sk_error *err);

#endif
