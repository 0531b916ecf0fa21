/* Internal pieces of the phase diagrams (phase.c fills, phase_write.c
 * writes). */
#ifndef SNAPKIT_PHASE_INTERNAL_H
#define SNAPKIT_PHASE_INTERNAL_H

#include <stdint.h>

#include "analysis/batchq.h"
#include "analysis/binsum.h"
#include "analysis/colstore.h"
#include "snapkit/phase.h"

/* One thread's scratch: the values of x, y, z and the weight. */
typedef struct phase_thread {
    an_scratch s[4];
    double lo[2], hi[2]; /* extrema pass: smallest (above 0 on a log axis), largest */
    int64_t seen[2];
    an_binsums sums;     /* per bin: sum z (or w z), and sum w with a weight */
    int64_t rows, binned;
    an_colstore kept;    /* the extrema pass's rows (phase_keep.c): x, y, z, w */
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
    int64_t keep_limit;       /* bytes of rows the extrema pass may keep; -1: any */
    int64_t kept_bytes;       /* atomic */
    int keeping;              /* atomic: 1 while every row so far is kept */
    int kept_pass;            /* an extrema pass ran keeping its rows */
    double ext_lo[2], ext_hi[2];
    double *values;           /* after finish */
    int64_t rows, binned;
};

/* phase.c: bin n rows of values v (x, y, z, w) into thread t's sums. */
int phase_bin_rows(sk_phase *ph, phase_thread *t, const double *const v[4], int64_t n,
                   sk_error *err);

/* phase_keep.c: the extrema pass keeps its rows' values, up to keep_limit
 * bytes, so that they are binned without a second pass. */
static inline int phase_keeping(const sk_phase *ph)
{
    return __atomic_load_n(&ph->keeping, __ATOMIC_RELAXED);
}
/* Start keeping (extrema pass begin): every thread's rows dropped. */
void phase_keep_begin(sk_phase *ph);
/* Keep n rows of v on thread t; past the limit, stop keeping (no error). */
int phase_keep(sk_phase *ph, phase_thread *t, const double *const v[4], int64_t n,
               sk_error *err);
/* Bin the kept rows, each thread's into its own sums (after bins are set). */
int phase_bin_kept(sk_phase *ph, sk_error *err);
void phase_kept_free(phase_thread *t);

/* phase_h5.c: the diagram as an HDF5 file. */
int phase_write_h5(const sk_phase *ph, const char *path, int fsync, sk_error *err);

/* phase_mpi.c: every rank's sums of `all` added, exactly, into a dense
 * array of nbins x nsum accumulators (*dense; the caller frees it), and
 * the ranks' row counts into ph->rows and ph->binned. Collective. */
int phase_ranks_sums(sk_phase *ph, const an_binsums *all, an_sum **dense, sk_error *err);

/* phase_write.c */
int phase_write_fits(const sk_phase *ph, const char *path, int fsync, sk_error *err);

#endif
