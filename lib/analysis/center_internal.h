/* The centre methods (center.c, extreme.c, shrink.c) and what they share
 * with totals.c. */
#ifndef SNAPKIT_ANALYSIS_CENTER_INTERNAL_H
#define SNAPKIT_ANALYSIS_CENTER_INTERNAL_H

#include "snapkit/center.h"
#include "snapkit/totals.h"

/* The best row so far of a max: or min: search. */
typedef struct an_extreme {
    int found;
    double value;
    double x[3];   /* box units */
    int64_t rows;  /* rows looked at */
} an_extreme;

/* Offer a row (NaN values are skipped); sign +1 keeps the largest value,
 * -1 the smallest; ties go to the lowest x, then y, then z. 1 when it
 * was taken. */
int an_extreme_offer(an_extreme *b, int sign, double v, const double x[3]);
/* b = the better of b and from (rows added). */
void an_extreme_merge(an_extreme *b, int sign, const an_extreme *from);
/* The same best row on every MPI rank (collective). */
int an_extreme_reduce(an_extreme *b, int sign, sk_error *err);

/* The totals pass of sk_totals_compute, leaving the accumulator (*acc,
 * which the caller frees) for the box-unit centre of mass. */
int an_totals_pass(sk_source *src, const char *components, const sk_selection *sel,
                   const sk_totals_frame *frame, const sk_read_options *opt,
                   sk_totals_acc **acc, sk_error *err);
/* The centre of mass in box units, in [0, 1), the mass and the rows (NaN
 * without mass). */
void an_totals_com(const sk_totals_acc *acc, double com[3], double *mass, int64_t *rows);

int an_center_extreme(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                      const char *const *names, int n, const sk_read_options *ropt,
                      sk_center_result *out, sk_error *err);
int an_center_com(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                  const sk_read_options *ropt, sk_center_result *out, sk_error *err);
int an_center_shrink(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                     const char *const *names, int n, const sk_read_options *ropt,
                     sk_center_result *out, sk_error *err);

#endif
