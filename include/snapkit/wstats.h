/* snapkit/wstats.h - weighted statistics of every column of a table.
 *
 * Per numeric column (a cell table's index columns level, cx, cy, cz
 * left out, as snapkit/colstats.h does): the weight sum, weighted mean,
 * standard deviation, skewness, excess kurtosis, exact weighted quantiles
 * (median and any percentiles asked), minimum and maximum. `snapkit stats
 * --weight` and Python's stats(weight=...) print these.
 *
 * Weights (sk_weight): mass (cells: density x cell volume; particles and
 * catalogues: their mass column, mass, msink for sinks or mass_cl for
 * clumps), volume (cells only: (boxlen / 2^level)^ndim,
 * a length or an area in 1-D and 2-D), or none (1 per row). A row whose
 * weight is NaN is left out; a negative or infinite weight is an error.
 * A row whose value is NaN is left out of that column only, so each column
 * has its own count and weight sum. A table with a float64 column `clip`
 * (snapkit/clip.h) weighs each row by it too: (density x volume) x clip,
 * volume x clip, or clip for none; the clip column is not counted.
 *
 * Definitions, for the values x_i of a column with weights w_i, W = sum w_i:
 *   weight_sum  W
 *   mean        mu = (sum w_i x_i) / W
 *   m_k         (sum w_i d_i^k) / W with d_i = x_i - mu (k = 2, 3, 4)
 *   std         sqrt(m_2)                   (population: divided by W, not W - 1)
 *   skewness    m_3 / m_2^1.5               (scipy.stats.skew, bias=True; Mera's wstat)
 *   kurtosis    m_4 / m_2^2 - 3             (excess: 0 for a normal distribution;
 *                                            scipy.stats.kurtosis, fisher=True, bias=True)
 *   quantile p  the smallest x_k whose cumulative weight C_k, the sum of the
 *               weights of the values <= x_k, satisfies C_k >= (p / 100) W
 *               and C_k > 0: the inverted-CDF rule numpy >= 2.0 applies to
 *               weighted quantiles (np.quantile(x, p / 100, weights=w,
 *               method="inverted_cdf")), here compared exactly (100 C_k >= p W
 *               in exact arithmetic, not in rounded fractions). The median is
 *               p = 50; p = 0 and p = 100 give the smallest and the largest
 *               value of positive weight. Always a value of the column.
 *   min, max    the smallest and largest value (of any weight); -0 is below +0
 * Each sum is of the rounded products (w_i * x_i, w_i * (d_i * d_i), ...,
 * each product rounded to double as numpy would), added exactly and rounded
 * once (math.fsum's result); mu, m_k and the ratios are then rounded double
 * operations. So every result depends only on the set of (value, weight)
 * pairs, not on their order, on how they were cut into batches, on the
 * thread count or the MPI rank count: the same bits every way. The moments
 * are NaN when W is 0 (no row, or only rows of weight 0), skewness and
 * kurtosis also when m_2 is 0; quantiles are NaN when W is 0; min and max
 * when the column has no row.
 *
 * Memory: exact quantiles need every value, so the accumulator keeps every
 * row it is given, 8 bytes per row for the weight and 8 per row and column
 * (restrict the columns, e.g. with a selection's vars, to keep less); the
 * result sorts one column at a time (32 bytes per row per thread).
 *
 * Streams (snapkit/stream.h): one sk_wstats_acc per thread, fed batches with
 * sk_wstats_acc_add, merged with sk_wstats_acc_merge, read with
 * sk_wstats_acc_result; under MPI, sk_mpi_wstats_reduce (snapkit/util/mpi.h)
 * gathers the ranks' accumulators to rank 0. Whole tables:
 * sk_table_wstats_compute.
 */
#ifndef SNAPKIT_WSTATS_H
#define SNAPKIT_WSTATS_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_weight {
    SK_WEIGHT_NONE = 0,   /* 1 per row */
    SK_WEIGHT_MASS = 1,   /* cells: density x cell volume; others: mass, msink or mass_cl */
    SK_WEIGHT_VOLUME = 2  /* cells only: (boxlen / 2^level)^ndim */
} sk_weight;

/* "mass", "volume" or "none" into *out; SK_ERR_ARG naming the choices for
 * another name. */
SK_API int sk_weight_parse(const char *name, sk_weight *out, sk_error *err);
/* "mass", "volume", "none"; NULL for another value. A static string. */
SK_API const char *sk_weight_name(sk_weight weight);

typedef struct sk_wstats_column {
    const char *name;     /* the column's name (valid while the accumulator or table lives) */
    int64_t count;        /* rows counted: those whose value is not NaN */
    double weight_sum;    /* W */
    double mean, std, skewness, kurtosis; /* kurtosis is the excess kurtosis */
    double min, max;
    double median;        /* the quantile p = 50 */
    double *percentiles;  /* the quantile of each percentile asked, in the order asked */
} sk_wstats_column;

typedef struct sk_wstats {
    int weight;           /* sk_weight */
    int64_t rows;         /* rows with a weight (NaN weights left out) */
    int npercentiles;
    double *percentiles;  /* the percentiles asked (0..100), in the order asked */
    int ncols;
    sk_wstats_column *cols; /* one per column counted, in table order */
} sk_wstats;

/* Whether every percentile is a number in 0..100: SK_OK, or SK_ERR_ARG
 * naming the first that is not. */
SK_API int sk_wstats_check_percentiles(const double *percentiles, int npercentiles,
                                       sk_error *err);

/* Weighted statistics of every numeric column of t (cell index columns
 * left out) at the given percentiles (npercentiles may be 0), columns
 * spread over up to `threads` threads (0: the thread budget). Free with
 * sk_wstats_free. SK_ERR_ARG for a weight the table cannot give (volume for
 * a table of particles, mass without a density or mass column) or a
 * percentile outside 0..100; SK_ERR_RANGE for a negative or infinite
 * weight. */
SK_API int sk_table_wstats_compute(const sk_table *t, sk_weight weight,
                                   const double *percentiles, int npercentiles, int threads,
                                   sk_wstats *out, sk_error *err);
SK_API void sk_wstats_free(sk_wstats *s);

/* A mergeable accumulator of the weighted statistics of tables with the
 * columns of `schema` (names and order; its metadata says whether it is a
 * cell table: "kind", "boxlen", "ndim", as for snapkit/colstats.h). Errors
 * as sk_table_wstats_compute's for the weight. */
typedef struct sk_wstats_acc sk_wstats_acc;
SK_API int sk_wstats_acc_new(const sk_table *schema, sk_weight weight, sk_wstats_acc **out,
                             sk_error *err);
SK_API void sk_wstats_acc_free(sk_wstats_acc *acc);

/* Keep every row of batch (the schema's columns, in its order) whose
 * weight is not NaN. Batches may come in any order. SK_ERR_ARG for other
 * columns; SK_ERR_RANGE for a negative or infinite weight or a level outside
 * 0..63. */
SK_API int sk_wstats_acc_add(sk_wstats_acc *acc, const sk_table *batch, sk_error *err);

/* Move from's rows into acc (the same schema and weight), leaving from
 * empty: no copy of the rows. An accumulator without rows merges with any
 * other (an empty acc takes from's columns); two with rows and different
 * columns or weights are SK_ERR_ARG. */
SK_API int sk_wstats_acc_merge(sk_wstats_acc *acc, sk_wstats_acc *from, sk_error *err);

/* Rows kept so far. */
SK_API int64_t sk_wstats_acc_rows(const sk_wstats_acc *acc);

/* The statistics of the rows kept, at the given percentiles, columns over
 * up to `threads` threads (0: the budget); column names owned by acc
 * (valid while it lives). Free with sk_wstats_free. SK_ERR_ARG for a
 * percentile outside 0..100. */
SK_API int sk_wstats_acc_result(const sk_wstats_acc *acc, const double *percentiles,
                                int npercentiles, int threads, sk_wstats *out, sk_error *err);

/* The accumulator's whole state (names, weights, rows) as bytes, for
 * another process of the same build on the same kind of machine (the
 * ranks of an MPI job), and an accumulator made back from such bytes.
 * *bytes is an sk_malloc block the caller frees; SK_ERR_FORMAT for bytes
 * that are not one. */
SK_API int sk_wstats_acc_encode(const sk_wstats_acc *acc, void **bytes, size_t *size,
                                sk_error *err);
SK_API int sk_wstats_acc_decode(const void *bytes, size_t size, sk_wstats_acc **out,
                                sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
