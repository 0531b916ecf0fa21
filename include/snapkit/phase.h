/* snapkit/phase.h - phase diagrams: 2-D histograms of a selection.
 *
 * The rows (cells or particles) are binned by two quantities x and y
 * (snapkit/bins.h per axis: numpy's edges, yt's strict filter lo < v < hi)
 * and each bin (i, j) holds the sum of a third, z, over its rows (mass by
 * default; any quantity, or count: the rows), or with a weight the
 * weighted mean of z (sum w z / sum w; NaN where no row of positive weight
 * fell). This is yt's create_profile(data, [x, y], [z], weight_field=...)
 * with the same bins. x, y and z are columns of the rows or quantities of
 * snapkit/derive.h (density, T, pressure, r about a centre, mass, ...), in
 * code units or the units asked ("cgs", "density=g/cm3,T=K").
 *
 * Ranges. A range given is used as is. Otherwise it is the extrema of the
 * values over the selection, widened by sk_bins_pad as yt widens them; on
 * a log axis the smallest value above 0 (yt's Extrema(non_zero=True)).
 * Extrema need a pass of their own before the binning:
 *
 *   sk_phase *ph;
 *   sk_phase_new(&opt, &ph, &err);
 *   if (sk_phase_needs_extrema(ph)) {
 *       sk_consumer e = sk_phase_extrema_consumer(ph);
 *       sk_ramses_stream(r, "hydro", &sel, NULL, &e, NULL, &err);
 *   }
 *   if (!sk_phase_kept_all(ph)) {
 *       sk_consumer c = sk_phase_consumer(ph);
 *       sk_ramses_stream(r, "hydro", &sel, NULL, &c, NULL, &err);
 *   }
 *   sk_phase_finish(ph, &err);
 *
 * With opt.keep_bytes the extrema pass keeps the values of its rows, and
 * when all fit, sk_phase_finish bins them: one pass over the data.
 *   sk_phase_write(ph, "phase.fits", 1, &err);
 *
 * Same bits everywhere: each bin's sums (of z, or of w z and w) are exact
 * (every product rounded to a double, then added exactly and rounded
 * once), so they do not depend on the rows' order, on the thread count or
 * on reading a RAMSES output or its .snapkit file; extrema do not depend
 * on the order either. Memory: per thread, about 1.2 KB per sum per bin
 * its rows reached, the threads' batches, and the rows kept.
 */
#ifndef SNAPKIT_PHASE_H
#define SNAPKIT_PHASE_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/bins.h"
#include "snapkit/derive.h"
#include "snapkit/error.h"
#include "snapkit/util/json.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"
#include "snapkit/wstats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_phase_options {
    char x[64], y[64];   /* the quantities binned across (required) */
    char z[64];          /* the quantity summed; "" is mass; "count" counts rows */
    int weight;          /* sk_weight: NONE sums z; MASS or VOLUME: the weighted mean */
    int nbins[2];        /* bins along x and y (default 128 each) */
    int log[2];          /* 1 log, 0 linear, -1 (default): log for quantities > 0 by
                            nature (density, T, pressure, mass, r, ...), else linear */
    int has_range[2];
    double lo[2], hi[2]; /* the ranges, in the quantities' units */
    char units[512];     /* "cgs", NAME=UNIT, UNIT, comma-separated; "": code units */
    sk_frame frame;      /* of quantities about a centre */
    sk_derive_options derive;
    int64_t keep_bytes;  /* the extrema pass may keep its rows' values (8 bytes per
                            quantity: x, y, z and the weight) up to this many bytes,
                            to bin them without a second pass; 0: never; -1: always */
} sk_phase_options;

/* z mass, no weight, 128 x 128 bins, default logs, no range, code units,
 * no rows kept. */
SK_API void sk_phase_options_init(sk_phase_options *opt);

typedef struct sk_phase sk_phase;

/* A phase diagram to fill. SK_ERR_ARG for a quantity without a name, bins
 * outside 1..SK_BINS_MAX, an empty range or a log range starting at or
 * below 0 (the quantities themselves are checked when a stream begins). */
SK_API int sk_phase_new(const sk_phase_options *opt, sk_phase **out, sk_error *err);
SK_API void sk_phase_free(sk_phase *ph);

/* Whether a range must come from the data (an extrema pass first). */
SK_API int sk_phase_needs_extrema(const sk_phase *ph);
/* The consumer of the extrema pass (unordered). */
SK_API sk_consumer sk_phase_extrema_consumer(sk_phase *ph);
/* After the extrema pass: whether it kept every row's values (within
 * opt.keep_bytes), so that sk_phase_finish bins them and the binning pass
 * is not needed. */
SK_API int sk_phase_kept_all(const sk_phase *ph);
/* The consumer that bins the rows. Its begin fails with
 * SK_ERR_ARG for an unknown quantity, a unit that does not fit, or a
 * range the extrema pass left undefined: no row, or on a log axis no value
 * above 0 ("log bins over non-positive values"). */
SK_API sk_consumer sk_phase_consumer(sk_phase *ph);
/* After the binning stream: the values. SK_ERR_EMPTY when no row was
 * streamed. */
SK_API int sk_phase_finish(sk_phase *ph, sk_error *err);

/* Under MPI (snapkit/util/mpi.h), each rank streaming its share. Both are
 * collective and do nothing more than their one-process forms when MPI
 * is not running or has one rank.
 * After the extrema pass: the ranks' extrema, and whether every rank kept
 * all its rows (if one did not, none skips the binning pass), so that
 * every rank bins the same bins. */
SK_API int sk_phase_agree_extrema(sk_phase *ph, sk_error *err);
/* sk_phase_finish with every rank's sums added, exactly (the same bits as
 * one process reading everything); every rank gets the values. */
SK_API int sk_phase_finish_ranks(sk_phase *ph, sk_error *err);

/* The phase diagram of a whole table (both passes over it). */
SK_API int sk_phase_make(const sk_table *table, const sk_phase_options *opt, sk_phase **out,
                         sk_error *err);

/* The bins of axis 0 (x) or 1 (y); NULL before the binning began. */
SK_API const sk_bins *sk_phase_bins(const sk_phase *ph, int axis);
/* nx * ny values, values[i * ny + j] for x bin i and y bin j (a C-ordered
 * array of shape (nx, ny)); after sk_phase_finish. */
SK_API const double *sk_phase_values(const sk_phase *ph);
/* The name and unit of x (0), y (1) or z (2) ("code" for code units). */
SK_API const char *sk_phase_name(const sk_phase *ph, int which);
SK_API const char *sk_phase_unit(const sk_phase *ph, int which);
/* The weight (sk_weight). */
SK_API int sk_phase_weight(const sk_phase *ph);
/* Rows streamed, and rows that fell in a bin. */
SK_API int64_t sk_phase_rows(const sk_phase *ph);
SK_API int64_t sk_phase_binned(const sk_phase *ph);

/* The JSON object {"x", "y", "z", "weight", "x_unit", "y_unit", "z_unit",
 * "x_log", "y_log", "x_edges", "y_edges", "values" (values[i][j] for x bin
 * i, y bin j; null for NaN), "rows", "binned"}. */
SK_API void sk_phase_json(const sk_phase *ph, sk_json *j);

/* Write by the extension, atomically (whole or not at all):
 *   .npy   float64 of shape (nx, ny)
 *   .fits  a 2-D image (NAXIS1 along x, NAXIS2 along y: values[j][i]) with
 *          a linear WCS per axis in the binned values, or their log10 on a
 *          log axis (CTYPEn the quantity or log10(quantity), CRPIXn 0.5 at
 *          the low edge, CDELTn one bin), XNAME, XUNIT, XLOG, XMIN, XMAX,
 *          XNBINS (and Y*), ZNAME, BUNIT, WEIGHT, NROWS, NBINNED
 *   .json  sk_phase_json
 * fsync 0 renames into place without flushing first. */
SK_API int sk_phase_write(const sk_phase *ph, const char *path, int fsync, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
