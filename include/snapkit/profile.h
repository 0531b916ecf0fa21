/* snapkit/profile.h - profiles: weighted statistics of quantities in bins
 * of another (radial profiles, rotation curves, ...).
 *
 * The rows of a cell or particle table are binned by a bin field (any
 * column, or any quantity snapkit/derive.h adds: r, R, z, T, ...) on the
 * bins of snapkit/bins.h (numpy's edges, yt's strict filter lo < x < hi),
 * and each bin gives
 *   count    the rows in it (rows whose weight or bin value is NaN are left out)
 *   weight   the sum of their weights W (sk_weight: mass, volume or none)
 * and, per quantity, over the rows whose value is not NaN, the weighted
 *   mean, std, sum (the sum of w x: with weight none, of x) and the
 *   percentiles asked,
 * with snapkit/wstats.h's definitions (exact sums rounded once, population
 * std, inverted-CDF weighted quantiles). Empty bins give a weight of 0 and
 * NaN statistics. The cumulative columns add the bins from the first up:
 * count, weight and each quantity's sum (the running sums of the per-bin
 * values, in bin order), and its mean (cumulative sum / cumulative weight:
 * the weighted mean of everything below the bin's upper edge).
 *
 * One pass. The stream keeps each binned row's value, weight and
 * quantities (8 x (nq + 2) bytes a row, per thread, as stats --weight keeps
 * its rows): the default range is the extrema of the bin field over the
 * rows (over its positive values for log bins), widened by sk_bins_pad as
 * yt's create_profile does, which needs every row seen before any is binned;
 * keeping them costs one read where a first pass for the extrema would
 * cost two. Given a range, rows outside it are not kept. Every sum is exact,
 * so the profile has the same bits on any thread count, batch order and
 * from a RAMSES output or its .snapkit file.
 *
 *   sk_profile_options opt;
 *   sk_profile_options_init(&opt);           (64 linear bins, mass weights)
 *   const char *q[] = {"density", "T"};
 *   sk_profile_stream *ps;
 *   sk_profile_stream_new("r", 2, q, &opt, &ps, &err);
 *   sk_consumer c = sk_profile_stream_consumer(ps);
 *   (add the derived columns first: sk_derive_set_consumer(set, &c))
 *   sk_source_stream(src, "hydro", &sel, NULL, &c, NULL, &err);
 *   sk_profile_stream_finish(ps, &p, &err);
 *   sk_profile_write(p, "profile.json", &err);
 *
 * v_circ: a quantity named "v_circ" (with bin field r) keeps each row's
 * mass (the column or derived quantity "mass" must be in the batches) and
 * gives sqrt(G M(<r) / r) at each bin's upper edge, M the mass of the rows
 * binned up to it; its sum is the bin's mass and cum_sum M (code units),
 * its std NaN.
 *
 * Units: opt.units "r=kpc,density=g/cm3,T=K" (or "cgs": every field in
 * CGS), for the bin field and any quantity; values are converted before
 * they are binned, so --range and the edges are in the bin field's unit.
 * Units of columns: density g/cm3, kg/m3, Msun/pc3; velocity_x/y/z, v cm/s,
 * km/s; pressure erg/cm3, Ba; mass g, Msun; position_x/y/z lengths; derived
 * quantities: sk_quantity_unit_factor's. Default: code units.
 */
#ifndef SNAPKIT_PROFILE_H
#define SNAPKIT_PROFILE_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/bins.h"
#include "snapkit/error.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"
#include "snapkit/wstats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_PROFILE_MAX_QUANTITIES 32
#define SK_PROFILE_MAX_PERCENTILES 16

typedef struct sk_profile_options {
    int nbins;              /* 1 .. SK_BINS_MAX (default 64) */
    int log;                /* bins equal in log10 of the bin field */
    int has_range;
    double lo, hi;          /* the range, in the bin field's unit; default the extrema */
    sk_weight weight;       /* default SK_WEIGHT_MASS */
    int cumulative;         /* the written outputs carry the cumulative columns */
    int npercentiles;
    double percentiles[SK_PROFILE_MAX_PERCENTILES]; /* 0..100 */
    char units[512];        /* "NAME=UNIT,...", or "cgs"; "" code units */
    double mu;              /* mean molecular weight of T in K (<= 0: 1/0.76) */
} sk_profile_options;

/* 64 linear bins over the extrema, mass weights, code units. */
SK_API void sk_profile_options_init(sk_profile_options *opt);

typedef struct sk_profile sk_profile;
typedef struct sk_profile_stream sk_profile_stream;

/* A stream binning by `bin`, with nq (0 .. SK_PROFILE_MAX_QUANTITIES)
 * quantities. SK_ERR_ARG for bad options: bins outside 1..SK_BINS_MAX, a
 * range not finite or empty, a log range reaching 0 or below, a percentile
 * outside 0..100, a unit spec that is not NAME=UNIT. */
SK_API int sk_profile_stream_new(const char *bin, int nq, const char *const *quantities,
                                 const sk_profile_options *opt, sk_profile_stream **out,
                                 sk_error *err);
/* The consumer (not ordered: any thread count gives the same bits). Its
 * begin fails (SK_ERR_ARG, one line) for a field the batches lack, a unit
 * that does not fit a field, or a weight the rows cannot give. */
SK_API sk_consumer sk_profile_stream_consumer(sk_profile_stream *ps);
/* The profile (free with sk_profile_free). SK_ERR_EMPTY when no row has a
 * bin value to bin (none at all, or for log bins none positive);
 * SK_ERR_ARG for an empty default range. */
SK_API int sk_profile_stream_finish(sk_profile_stream *ps, sk_profile **out, sk_error *err);
SK_API void sk_profile_stream_free(sk_profile_stream *ps);
/* Under MPI (each rank streamed its share): every rank's kept rows to rank
 * 0, whose finish then gives the profile of all of them, with the bits one
 * process gets. Does nothing on one rank. Collective. */
SK_API int sk_profile_stream_reduce(sk_profile_stream *ps, sk_error *err);

/* The profile of a whole table (one batch through the stream). */
SK_API int sk_profile_make(const sk_table *table, const char *bin, int nq,
                           const char *const *quantities, const sk_profile_options *opt,
                           sk_profile **out, sk_error *err);
SK_API void sk_profile_free(sk_profile *p);

typedef enum sk_profile_stat {
    SK_PROFILE_MEAN = 0,
    SK_PROFILE_STD = 1,
    SK_PROFILE_SUM = 2,
    SK_PROFILE_CUM_SUM = 3,  /* running sum of SUM */
    SK_PROFILE_CUM_MEAN = 4  /* CUM_SUM / cumulative weight */
} sk_profile_stat;

SK_API int sk_profile_nbins(const sk_profile *p);
SK_API const sk_bins *sk_profile_bins(const sk_profile *p);
/* nbins + 1 edges, in the bin field's unit. */
SK_API const double *sk_profile_edges(const sk_profile *p);
SK_API const char *sk_profile_bin_name(const sk_profile *p);
/* The unit of the bin field ("code" when none was asked). */
SK_API const char *sk_profile_bin_unit(const sk_profile *p);
SK_API sk_weight sk_profile_weight(const sk_profile *p);
/* Per bin: rows, weight sum; and their running sums from the first bin. */
SK_API const int64_t *sk_profile_counts(const sk_profile *p);
SK_API const double *sk_profile_weights(const sk_profile *p);
SK_API const int64_t *sk_profile_cum_counts(const sk_profile *p);
SK_API const double *sk_profile_cum_weights(const sk_profile *p);
SK_API int sk_profile_nquantities(const sk_profile *p);
SK_API const char *sk_profile_quantity(const sk_profile *p, int i);
SK_API const char *sk_profile_unit(const sk_profile *p, int i);
/* nbins values of statistic `stat` of quantity i (NULL for a bad i). */
SK_API const double *sk_profile_values(const sk_profile *p, int i, sk_profile_stat stat);
SK_API int sk_profile_npercentiles(const sk_profile *p);
SK_API double sk_profile_percentile_at(const sk_profile *p, int k);
/* nbins values: percentile k of quantity i. */
SK_API const double *sk_profile_percentiles(const sk_profile *p, int i, int k);
/* Rows streamed; rows binned (inside the range). */
SK_API int64_t sk_profile_rows(const sk_profile *p);
SK_API int64_t sk_profile_binned(const sk_profile *p);

/* The profile as a table, one row per bin: bin_lo, bin_hi, bin_center
 * (sk_bins_center), count, weight, then per quantity NAME_mean, NAME_std,
 * NAME_sum and NAME_pP per percentile; with the cumulative option,
 * cum_count, cum_weight and per quantity NAME_cum_sum, NAME_cum_mean.
 * Metadata units.<column> names the units. Free with sk_table_free. */
SK_API int sk_profile_table(const sk_profile *p, sk_table **out, sk_error *err);

/* Write the profile by the extension, atomically: .txt (an aligned text
 * table, '#' header lines), .csv (a header row), .fits (a binary table
 * PROFILE, TUNITn), .npy (float64 of shape (nbins, columns), the columns of
 * sk_profile_table in its order), .json (sk_profile_json's object).
 * SK_ERR_ARG for another extension. */
SK_API int sk_profile_write(const sk_profile *p, const char *path, sk_error *err);

typedef struct sk_json sk_json;
/* The profile as one JSON object: "bin", "bin_unit", "log", "weight_field",
 * "edges" (nbins + 1), "count", "weight", with the cumulative option
 * "cum_count" and "cum_weight", "quantities": {NAME: {"unit", "mean",
 * "std", "sum", "percentiles": {P: [...]} (when asked), "cum_sum" and
 * "cum_mean" (cumulative)}}, "rows" and "binned"; NaN as null. */
SK_API void sk_profile_json(const sk_profile *p, sk_json *j);

#ifdef __cplusplus
}
#endif
#endif
