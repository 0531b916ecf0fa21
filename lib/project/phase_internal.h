/* Internal pieces of the phase diagrams (phase.c fills, phase_write.c
 * writes). */
#ifndef SNAPKIT_PHASE_INTERNAL_H
#define SNAPKIT_PHASE_INTERNAL_H

#include <stdint.h>

#include "analysis/batchq.h"
#include "analysis/binsum.h"
#include "snapkit/phase.h"

/* One thread's scratch: the values of x, y, z and the weight. */
typedef struct phase_thread {
    an_scratch s[4];
    double lo[2], hi[2]; /* extrema pass: smallest (above 0 on a log axis), largest */
    int64_t seen[2];
    an_binsums sums;     /* per bin: sum z (or w z), and sum w with a weight */
    int64_t rows, binned;
} phase_thread;

struct sk_phase {
    sk_phase_options opt;
    int log[2];
    an_quantity q[4];         /* x, y, z, weight (q[3] unused without one) */
    int nq;                   /* 3, or 4 with a weight */
    int resolved;
    sk_bins bins[2];
    int binned_begun;
    double *edges[2];         /* n + 1 edges per axis, for the bin search */
    int nthreads;
    phase_thread *th;
    int have_extrema[2];
    double ext_lo[2], ext_hi[2];
    double *values;           /* after finish */
    int64_t rows, binned;
};

/* phase_write.c */
int phase_write_fits(const sk_phase *ph, const char *path, int fsync, sk_error *err);

#endif
