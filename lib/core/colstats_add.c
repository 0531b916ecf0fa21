/* Column statistics, the pass over one column of a batch: extremes, and
 * exact sums of the values and of their volume-weighted products, through
 * per-exponent bins (core/exactsum.h) moved into the column's accumulators
 * every XS_BIN_ADDS rows. Three ways, by the table's weights:
 * - none (not a cell table): each value into the bins;
 * - every level's weight a power of two 2^k (a box of side 2^j): each value
 *   into its level's bins, one add; a flush moves each level's bins into
 *   the sums of values and, moved by k, into the weighted sums, since each
 *   product is then exact and their sum is the values' sum times 2^k. When
 *   a product would round (values near the subnormals) or overflow, the
 *   block's products are binned one by one instead;
 * - any other weights: the value and its rounded product, each binned.
 * Integers of 32 bits or fewer need no bins: their sums per level are
 * exact in int64, and moved by the level's power they are the weighted
 * sums, as above. All ways add the same exact numbers: the same bits. */
#include <math.h>
#include <string.h>

#include "core/colstats_internal.h"

typedef struct batch_acc {
    double min, max;
    int64_t seen;
    uint64_t *bins, *vbins, *lbins; /* values, weighted values, values per level */
    uint64_t used, vused;           /* groups of bins (or of every level's lbins) touched */
} batch_acc;

/* x into bins, or, infinite (or a NaN product, as +inf), into its count. */
static inline void bin_add(uint64_t *bins, uint64_t *used, xs_acc *pos, xs_acc *neg, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    if (((u >> 52) & 2047) == 2047)
        (x < 0 ? neg : pos)->inf++;
    else
        *used |= xs_bins_add(bins, u);
}

static inline void extremes_add(batch_acc *b, double v)
{
    b->seen++;
    b->min = v < b->min ? v : b->min; /* the first of equal extremes (0, -0) stays */
    b->max = v > b->max ? v : b->max;
}

static inline void value_add(col_acc *a, batch_acc *b, double v)
{
    extremes_add(b, v);
    bin_add(b->bins, &b->used, &a->pos, &a->neg, v);
}

/* v of level l with a power-of-two weight: its product is +-inf when v is. */
static inline void level_value_add(col_acc *a, batch_acc *b, double v, int32_t l)
{
    extremes_add(b, v);
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    if (((u >> 52) & 2047) == 2047) {
        (v < 0 ? &a->neg : &a->pos)->inf++;
        (v < 0 ? &a->vneg : &a->vpos)->inf++;
    } else {
        b->used |= xs_bins_add(b->lbins + (size_t)l * XS_BINS, u); /* l from lmin */
    }
}

/* Move the level bins into the sums; 0 when some product would not be
 * exact, the weighted sums then left to the caller. */
static int level_flush(col_acc *a, batch_acc *b, const batch_levels *bl)
{
    int exact = 1;
    for (int l = bl->lmin; l <= bl->lmax && exact; l++)
        exact = xs_bins_shift_exact(b->lbins + (size_t)(l - bl->lmin) * XS_BINS, b->used,
                                    bl->shift[l]);
    for (int l = bl->lmin; l <= bl->lmax; l++) {
        uint64_t *bins = b->lbins + (size_t)(l - bl->lmin) * XS_BINS;
        if (exact) {
            xs_bins_move2(bins, b->used, bl->shift[l], &a->pos, &a->neg, &a->vpos, &a->vneg);
        } else {
            xs_bins_move(bins, b->used, 0, &a->pos, &a->neg);
            xs_bins_zero(bins, b->used);
        }
    }
    b->used = 0;
    return exact;
}

static void batch_flush(col_acc *a, batch_acc *b)
{
    xs_bins_move(b->bins, b->used, 0, &a->pos, &a->neg);
    xs_bins_zero(b->bins, b->used);
    xs_bins_move(b->vbins, b->vused, 0, &a->vpos, &a->vneg);
    xs_bins_zero(b->vbins, b->vused);
    b->used = b->vused = 0;
}

void colstats_extremes_merge(col_acc *a, double min, int64_t min_at, double max, int64_t max_at,
                             int64_t seen)
{
    if (!seen)
        return;
    if (!a->seen || min < a->min || (min == a->min && min_at < a->min_at))
        a->min = min, a->min_at = min_at;
    if (!a->seen || max > a->max || (max == a->max && max_at < a->max_at))
        a->max = max, a->max_at = max_at;
    a->seen += seen;
}

/* The products of rows [i0, i1), one by one (NaN skipped). */
#define PRODUCTS(finite_only)                                                       \
    for (int64_t i = i0; i < i1; i++) {                                             \
        double v = (double)d[i];                                                    \
        if (finite_only ? isfinite(v) : v == v)                                     \
            bin_add(b.vbins, &b.vused, &a->vpos, &a->vneg,                          \
                    v * s->per_level[level[i]]);                                    \
    }

/* Per level (from lmin; one when unweighted) of a block of integers: the
 * sum of the values and of their magnitudes (2^11 rows of 2^32 at most). */
typedef struct int_sums {
    int64_t sum[SK_STATS_MAX_LEVEL + 1], mag[SK_STATS_MAX_LEVEL + 1];
} int_sums;

/* Move the integer sums into a's (2^0 is position 1074), and into the
 * weighted sums when every level's product is exact: an integer below
 * 2^32 times 2^k is a double exactly when k <= 991 (k >= -1074 always: a
 * weight is a double). Returns whether the weighted sums were moved; the
 * sums are left zero. */
static int int_flush(col_acc *a, int_sums *t, const batch_levels *bl, int weighted)
{
    int nl = weighted ? bl->lmax - bl->lmin + 1 : 1;
    int exact = weighted && bl->pow2;
    for (int j = 0; j < nl && exact; j++)
        exact = bl->shift[bl->lmin + j] <= 991;
    for (int j = 0; j < nl; j++) {
        /* The positives' sum and the negatives' magnitude, from sum and
         * sum of magnitudes. */
        uint64_t pos = ((uint64_t)t->mag[j] + (uint64_t)t->sum[j]) / 2;
        uint64_t neg = ((uint64_t)t->mag[j] - (uint64_t)t->sum[j]) / 2;
        unsigned at = 1074, vat = (unsigned)(1074 + (exact ? bl->shift[bl->lmin + j] : 0));
        if (pos)
            xs_add_wide(&a->pos, pos, at);
        if (neg)
            xs_add_wide(&a->neg, neg, at);
        if (exact && pos)
            xs_add_wide(&a->vpos, pos, vat);
        if (exact && neg)
            xs_add_wide(&a->vneg, neg, vat);
        t->sum[j] = t->mag[j] = 0;
    }
    xs_normalize_soon(&a->pos), xs_normalize_soon(&a->neg);
    xs_normalize_soon(&a->vpos), xs_normalize_soon(&a->vneg);
    return exact;
}

/* The integer way: extremes and per-level sums in int64, products one by
 * one only when the weights are not all powers of two (or too large). */
#define INT_LOOP(ctype)                                                             \
    do {                                                                            \
        const ctype *d = data;                                                      \
        int_sums t = {{0}, {0}};                                                    \
        int64_t lo = INT64_MAX, hi = INT64_MIN;                                     \
        const int lmin = bl->lmin; /* in a register, not re-read per row */         \
        for (int64_t i0 = 0; i0 < n; i0 += XS_BIN_ADDS) {                           \
            int64_t i1 = n - i0 < XS_BIN_ADDS ? n : i0 + XS_BIN_ADDS;                \
            for (int64_t i = i0; i < i1; i++) {                                     \
                int64_t v = d[i];                                                   \
                int j = level ? level[i] - lmin : 0;                                \
                t.sum[j] += v;                                                      \
                t.mag[j] += v < 0 ? -v : v;                                         \
                lo = v < lo ? v : lo;                                               \
                hi = v > hi ? v : hi;                                               \
            }                                                                       \
            if (!int_flush(a, &t, bl, level != NULL) && level) {                    \
                PRODUCTS(0)                                                         \
                batch_flush(a, &b);                                                 \
            }                                                                       \
        }                                                                           \
        b.seen = n, b.min = (double)lo, b.max = (double)hi;                         \
    } while (0)

/* One loop per element type and way keeps the switches out of the loop. */
#define ACC_LOOP(ctype)                                                             \
    do {                                                                            \
        const ctype *d = data;                                                      \
        for (int64_t i0 = 0; i0 < n; i0 += XS_BIN_ADDS) {                           \
            int64_t i1 = n - i0 < XS_BIN_ADDS ? n : i0 + XS_BIN_ADDS;                \
            if (level && bl->pow2) {                                                \
                const int lmin = bl->lmin; /* in a register, not re-read per row */ \
                for (int64_t i = i0; i < i1; i++) {                                 \
                    double v = (double)d[i];                                        \
                    if (v == v)                                                     \
                        level_value_add(a, &b, v, level[i] - lmin);                 \
                }                                                                   \
                if (!level_flush(a, &b, bl))                                        \
                    PRODUCTS(1)                                                     \
            } else {                                                                \
                for (int64_t i = i0; i < i1; i++) {                                 \
                    double v = (double)d[i];                                        \
                    if (v == v)                                                     \
                        value_add(a, &b, v);                                        \
                }                                                                   \
                if (level)                                                          \
                    PRODUCTS(0)                                                     \
            }                                                                       \
            batch_flush(a, &b);                                                     \
        }                                                                           \
    } while (0)

size_t colstats_scratch_size(const batch_levels *bl, int cells)
{
    return (size_t)(2 + (cells && bl->pow2 ? bl->lmax - bl->lmin + 1 : 0)) * XS_BINS;
}

void colstats_column_add(const sk_stats_acc *s, col_acc *a, const sk_column *c, int64_t n,
                         const int32_t *level, const batch_levels *bl, int64_t index,
                         uint64_t *scratch)
{
    batch_acc b = {.min = INFINITY,
                   .max = -INFINITY,
                   .bins = scratch,
                   .vbins = scratch + XS_BINS,
                   .lbins = scratch + 2 * XS_BINS};
    const void *data = c->data;
    switch (c->type) {
    case SK_INT8: INT_LOOP(int8_t); break;
    case SK_UINT8: INT_LOOP(uint8_t); break;
    case SK_INT16: INT_LOOP(int16_t); break;
    case SK_UINT16: INT_LOOP(uint16_t); break;
    case SK_INT32: INT_LOOP(int32_t); break;
    case SK_CATEGORY: INT_LOOP(int32_t); break;
    case SK_UINT32: INT_LOOP(uint32_t); break;
    case SK_INT64: ACC_LOOP(int64_t); break;
    case SK_UINT64: ACC_LOOP(uint64_t); break;
    case SK_FLOAT32: ACC_LOOP(float); break;
    case SK_FLOAT64: ACC_LOOP(double); break;
    }
    colstats_extremes_merge(a, b.min, index, b.max, index, b.seen);
}

void colstats_clipped_column_add(const sk_stats_acc *s, col_acc *a, const sk_column *c,
                                 int64_t n, const int32_t *level, const double *clip,
                                 int64_t index, uint64_t *scratch)
{
    batch_acc b = {.min = INFINITY, .max = -INFINITY, .bins = scratch,
                   .vbins = scratch + XS_BINS};
    for (int64_t i0 = 0; i0 < n; i0 += XS_BIN_ADDS) {
        int64_t i1 = n - i0 < XS_BIN_ADDS ? n : i0 + XS_BIN_ADDS;
        for (int64_t i = i0; i < i1; i++) {
            double v = c->type == SK_FLOAT64 ? ((const double *)c->data)[i]
                                             : sk_column_get_double(c, i);
            if (v != v)
                continue;
            extremes_add(&b, v);
            bin_add(b.bins, &b.used, &a->pos, &a->neg, v * clip[i]);
            if (level)
                bin_add(b.vbins, &b.vused, &a->vpos, &a->vneg,
                        v * s->per_level[level[i]] * clip[i]);
        }
        batch_flush(a, &b);
    }
    colstats_extremes_merge(a, b.min, index, b.max, index, b.seen);
}
