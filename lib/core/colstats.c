/* Column statistics, mergeable: min and max with the position of their
 * first occurrence, and sums kept exactly (core/exactsum.h) and rounded
 * once at the end. Pieces of a table (batches of a stream, threads) added
 * in any order and merged in any order give the same bits as one pass over
 * the whole table: the exactly rounded sums, and among equal extremes
 * (0 and -0) the first one in row order. */
#include "snapkit/colstats.h"

#include <math.h>
#include <string.h>

#include "core/cellvol.h"
#include "core/colstats_internal.h"
#include "core/schema_names.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

#include <omp.h>

void sk_ksum_add(sk_ksum *s, double v)
{
    double t = s->sum + v;
    if (fabs(s->sum) >= fabs(v))
        s->comp += (s->sum - t) + v;
    else
        s->comp += (v - t) + s->sum;
    s->sum = t;
}

double sk_ksum_value(const sk_ksum *s)
{
    return s->sum + s->comp;
}

static int is_cell_index(const char *name)
{
    return !strcmp(name, "level") || !strcmp(name, "cx") || !strcmp(name, "cy") ||
           !strcmp(name, "cz");
}

/* Cell weights when the schema is a cell table. */
static void cell_weights_init(const sk_table *t, sk_stats_acc *s)
{
    s->level_col = core_cell_volumes(t, s->per_level, SK_STATS_MAX_LEVEL);
    s->is_cells = s->level_col >= 0;
    const sk_column *clip = sk_table_find(t, "clip");
    s->clip_col = clip && clip->type == SK_FLOAT64 ? sk_table_index(t, "clip") : -1;
}

int sk_stats_acc_new(const sk_table *schema, sk_stats_acc **out, sk_error *err)
{
    *out = NULL;
    sk_stats_acc *s = sk_calloc(1, sizeof *s);
    int n = sk_table_ncols(schema);
    if (s) {
        s->ncols = n;
        s->names = sk_calloc((size_t)(n ? n : 1), sizeof *s->names);
        s->cols = sk_calloc((size_t)(n ? n : 1), sizeof *s->cols);
    }
    int ok = s && s->names && s->cols;
    for (int j = 0; ok && j < n; j++)
        ok = (s->names[j] = sk_strdup(sk_table_col(schema, j)->name)) != NULL;
    if (!ok) {
        sk_stats_acc_free(s);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    }
    cell_weights_init(schema, s);
    *out = s;
    return SK_OK;
}

void sk_stats_acc_free(sk_stats_acc *s)
{
    if (!s)
        return;
    for (int j = 0; s->names && j < s->ncols; j++)
        sk_free(s->names[j]);
    sk_free(s->names);
    sk_free(s->cols);
    sk_free(s->bins);
    sk_free(s);
}

/* Rows per level of a batch, its levels checked against the weights; bl
 * gets the batch's levels and whether their weights are powers of two. */
static int count_levels(sk_stats_acc *s, const sk_table *t, batch_levels *bl, sk_error *err)
{
    bl->lmin = bl->lmax = 0;
    bl->pow2 = 0;
    if (s->level_col < 0)
        return SK_OK;
    const int32_t *level = sk_table_col(t, s->level_col)->data;
    int64_t n = sk_table_nrows(t);
    int lmin = SK_STATS_MAX_LEVEL, lmax = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t l = level[i];
        if (l < 0 || l > SK_STATS_MAX_LEVEL)
            return sk_fail(err, SK_ERR_RANGE, NULL, -1, "row %lld: level %d out of range",
                           (long long)i, (int)l);
        s->levels[l]++;
        lmin = l < lmin ? l : lmin;
        lmax = l > lmax ? l : lmax;
    }
    bl->lmin = n ? lmin : 0;
    bl->lmax = n ? lmax : 0;
    bl->pow2 = 1;
    for (int l = bl->lmin; l <= bl->lmax; l++) {
        int e;
        double f = frexp(s->per_level[l], &e);
        bl->shift[l] = e - 1;
        bl->pow2 &= f == 0.5;
    }
    return SK_OK;
}

static int check_schema(const sk_stats_acc *s, const sk_table *t, sk_error *err)
{
    return schema_names_match(t, s->names, s->ncols) ? SK_OK
              : sk_fail(err, SK_ERR_ARG, NULL, -1,
                        "column statistics: the batch's columns are not the schema's");
}

/* Rows of t into s, columns j with j % stride == first; bins as in
 * column_add. */
static void add_columns(sk_stats_acc *s, const sk_table *t, const batch_levels *bl,
                        int64_t index, int first, int stride, uint64_t *bins)
{
    const int32_t *level = s->level_col >= 0 ? sk_table_col(t, s->level_col)->data : NULL;
    const double *clip = s->clip_col >= 0 ? sk_table_col(t, s->clip_col)->data : NULL;
    for (int j = first; j < s->ncols; j += stride) {
        if (clip && j != s->clip_col) /* the fractions themselves are summed unweighted */
            colstats_clipped_column_add(s, &s->cols[j], sk_table_col(t, j), sk_table_nrows(t),
                                        level, clip, index, bins);
        else
            colstats_column_add(s, &s->cols[j], sk_table_col(t, j), sk_table_nrows(t), level,
                                bl, index, bins);
    }
}

/* Zeroed scratch of n bins for each of nthreads. */
static uint64_t *bins_new(int nthreads, size_t n)
{
    return sk_calloc((size_t)nthreads * n, sizeof(uint64_t));
}

/* s->bins holds at least what the batch needs. */
static int bins_reserve(sk_stats_acc *s, const batch_levels *bl, sk_error *err)
{
    size_t need = colstats_scratch_size(bl, s->level_col >= 0);
    if (s->nbins >= need)
        return SK_OK;
    sk_free(s->bins);
    s->nbins = 0;
    if (!(s->bins = bins_new(1, need)))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    s->nbins = need;
    return SK_OK;
}

int sk_stats_acc_add(sk_stats_acc *s, const sk_table *batch, int64_t index, sk_error *err)
{
    batch_levels bl;
    int rc = check_schema(s, batch, err);
    if (rc == SK_OK)
        rc = count_levels(s, batch, &bl, err);
    if (rc == SK_OK)
        rc = bins_reserve(s, &bl, err);
    if (rc != SK_OK)
        return rc;
    add_columns(s, batch, &bl, index, 0, 1, s->bins);
    s->rows += sk_table_nrows(batch);
    return SK_OK;
}

/* s takes from's columns and values (s has no rows): a copy through the
 * encoding, its contents swapped into s. */
static int adopt(sk_stats_acc *s, const sk_stats_acc *from, sk_error *err)
{
    void *bytes = NULL;
    size_t size = 0;
    sk_stats_acc *copy = NULL;
    int rc = sk_stats_acc_encode(from, &bytes, &size, err);
    if (rc == SK_OK)
        rc = sk_stats_acc_decode(bytes, size, &copy, err);
    sk_free(bytes);
    if (rc != SK_OK)
        return rc;
    sk_stats_acc old = *s;
    *s = *copy;
    *copy = old;
    sk_stats_acc_free(copy);
    return SK_OK;
}

int sk_stats_acc_merge(sk_stats_acc *s, const sk_stats_acc *from, sk_error *err)
{
    int ok = s->ncols == from->ncols && s->level_col == from->level_col &&
             s->clip_col == from->clip_col;
    for (int j = 0; ok && j < s->ncols; j++)
        ok = !strcmp(s->names[j], from->names[j]);
    /* A read with no rows may know fewer columns (an MPI rank whose share
     * of a catalogue's files is empty): it adds nothing either way. */
    if (!ok && from->rows == 0)
        return SK_OK;
    if (!ok && s->rows == 0)
        return adopt(s, from, err);
    if (!ok)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "column statistics: merging accumulators of different columns");
    s->rows += from->rows;
    for (int l = 0; l <= SK_STATS_MAX_LEVEL; l++)
        s->levels[l] += from->levels[l];
    for (int j = 0; j < s->ncols; j++) {
        col_acc *a = &s->cols[j];
        const col_acc *b = &from->cols[j];
        colstats_extremes_merge(a, b->min, b->min_at, b->max, b->max_at, b->seen);
        xs_merge(&a->pos, &b->pos);
        xs_merge(&a->neg, &b->neg);
        xs_merge(&a->vpos, &b->vpos);
        xs_merge(&a->vneg, &b->vneg);
    }
    return SK_OK;
}

/* The encoded state: a header, each name as its length and bytes, then the
 * columns' accumulators as they lie in memory (the same build and machine
 * kind at both ends, as MPI ranks of one job are). */
typedef struct acc_head {
    char magic[8];
    int32_t ncols, is_cells, level_col, clip_col;
    int64_t rows;
    int64_t levels[SK_STATS_MAX_LEVEL + 1];
    double per_level[SK_STATS_MAX_LEVEL + 1];
} acc_head;

static const char k_acc_magic[8] = "SKACC01";

int sk_stats_acc_encode(const sk_stats_acc *s, void **bytes, size_t *size, sk_error *err)
{
    size_t n = sizeof(acc_head) + (size_t)s->ncols * sizeof *s->cols +
               schema_names_size(s->names, s->ncols);
    unsigned char *b = sk_malloc(n);
    if (!b)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    acc_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, k_acc_magic, sizeof h.magic);
    h.ncols = s->ncols;
    h.is_cells = s->is_cells;
    h.level_col = s->level_col;
    h.clip_col = s->clip_col;
    h.rows = s->rows;
    memcpy(h.levels, s->levels, sizeof h.levels);
    memcpy(h.per_level, s->per_level, sizeof h.per_level);
    memcpy(b, &h, sizeof h);
    size_t at = sizeof h + schema_names_encode(b + sizeof h, s->names, s->ncols);
    if (s->ncols)
        memcpy(b + at, s->cols, (size_t)s->ncols * sizeof *s->cols);
    *bytes = b;
    *size = n;
    return SK_OK;
}

static int bad_encoding(sk_stats_acc *s, sk_error *err)
{
    sk_stats_acc_free(s);
    return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                   "column statistics: the bytes are not an encoded accumulator");
}

int sk_stats_acc_decode(const void *bytes, size_t size, sk_stats_acc **out, sk_error *err)
{
    *out = NULL;
    const unsigned char *b = bytes;
    acc_head h;
    if (size < sizeof h)
        return bad_encoding(NULL, err);
    memcpy(&h, b, sizeof h);
    if (memcmp(h.magic, k_acc_magic, sizeof h.magic) != 0 || h.ncols < 0 ||
        (size_t)h.ncols > (size - sizeof h) / sizeof(col_acc))
        return bad_encoding(NULL, err);
    sk_stats_acc *s = sk_calloc(1, sizeof *s);
    if (s) {
        s->names = sk_calloc((size_t)(h.ncols ? h.ncols : 1), sizeof *s->names);
        s->cols = sk_calloc((size_t)(h.ncols ? h.ncols : 1), sizeof *s->cols);
    }
    if (!s || !s->names || !s->cols) {
        sk_stats_acc_free(s);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    }
    s->ncols = h.ncols;
    s->is_cells = h.is_cells;
    s->level_col = h.level_col;
    s->clip_col = h.clip_col;
    s->rows = h.rows;
    memcpy(s->levels, h.levels, sizeof h.levels);
    memcpy(s->per_level, h.per_level, sizeof h.per_level);
    size_t at = sizeof h;
    if (!schema_names_decode(s->names, h.ncols, b, size, &at))
        return bad_encoding(s, err);
    if (size - at != (size_t)h.ncols * sizeof *s->cols)
        return bad_encoding(s, err);
    if (h.ncols)
        memcpy(s->cols, b + at, (size_t)h.ncols * sizeof *s->cols);
    *out = s;
    return SK_OK;
}

/* The statistics of s; column names point into names (s's or a table's). */
static int result(const sk_stats_acc *s, char *const *names, sk_table_stats *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    out->rows = s->rows;
    out->ncols = s->ncols;
    out->is_cells = s->is_cells;
    memcpy(out->levels, s->levels, sizeof out->levels);
    out->cols = sk_calloc((size_t)(s->ncols ? s->ncols : 1), sizeof *out->cols);
    if (!out->cols)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    for (int j = 0; j < s->ncols; j++) {
        const col_acc *a = &s->cols[j];
        sk_column_stats *cs = &out->cols[j];
        cs->name = names[j];
        cs->is_cell_index = s->is_cells && is_cell_index(names[j]);
        cs->min = a->seen ? a->min : NAN;
        cs->max = a->seen ? a->max : NAN;
        cs->sum = xs_round(&a->pos, &a->neg, -1);
        cs->abs_sum = xs_round(&a->pos, &a->neg, 1);
        cs->volume_sum = s->is_cells ? xs_round(&a->vpos, &a->vneg, -1) : NAN;
        cs->abs_volume_sum = s->is_cells ? xs_round(&a->vpos, &a->vneg, 1) : NAN;
    }
    return SK_OK;
}

int sk_stats_acc_result(const sk_stats_acc *s, sk_table_stats *out, sk_error *err)
{
    return result(s, s->names, out, err);
}

int sk_table_stats_compute(const sk_table *t, int threads, sk_table_stats *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    sk_stats_acc *s;
    batch_levels bl;
    int rc = sk_stats_acc_new(t, &s, err);
    if (rc == SK_OK)
        rc = count_levels(s, t, &bl, err);
    if (rc != SK_OK) {
        sk_stats_acc_free(s);
        return rc;
    }
    s->rows = sk_table_nrows(t);
    sk_thread_budget b;
    int nthreads = sk_thread_budget_get(threads, &b);
    if (nthreads > s->ncols)
        nthreads = s->ncols > 0 ? s->ncols : 1;
    size_t nbins = colstats_scratch_size(&bl, s->level_col >= 0);
    uint64_t *bins = bins_new(nthreads, nbins);
    if (!bins) {
        sk_stats_acc_free(s);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    }
    /* Columns are independent: each thread takes every nthreads-th. */
#pragma omp parallel num_threads(nthreads)
    add_columns(s, t, &bl, 0, omp_get_thread_num(), nthreads,
                bins + (size_t)omp_get_thread_num() * nbins);
    sk_free(bins);
    char **names = sk_malloc(sizeof *names * (size_t)(s->ncols ? s->ncols : 1));
    if (!names)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for column statistics");
    for (int j = 0; names && j < s->ncols; j++)
        names[j] = sk_table_col(t, j)->name;
    if (rc == SK_OK)
        rc = result(s, names, out, err);
    sk_free(names);
    sk_stats_acc_free(s);
    return rc;
}

void sk_table_stats_free(sk_table_stats *s)
{
    sk_free(s->cols);
    s->cols = NULL;
    s->ncols = 0;
}
