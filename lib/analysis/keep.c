/* Rows kept per thread for binned analyses (keep.h). */
#include "analysis/keep.h"

#include <math.h>
#include <string.h>

#include "core/cellvol.h"
#include "snapkit/memory.h"

static int nomem(sk_error *err)
{
    return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the rows kept");
}

int an_keep_init(an_keep *k, int ncols, const char *const *names, int nfilter, sk_weight weight,
                 sk_error *err)
{
    memset(k, 0, sizeof *k);
    if (ncols < 1 || ncols > AN_KEEP_MAX_COLS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "1 to %d quantities, not %d",
                       AN_KEEP_MAX_COLS - 1, ncols - 1);
    if (!sk_weight_name(weight))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown weight %d", (int)weight);
    k->ncols = ncols;
    k->nfilter = nfilter;
    k->weight = weight;
    for (int c = 0; c < ncols; c++) {
        k->factor[c] = 1.0;
        if (!(k->names[c] = sk_strdup(names[c] ? names[c] : "")))
            return nomem(err);
    }
    return SK_OK;
}

static void free_parts(an_keep *k)
{
    for (int t = 0; t < k->nparts; t++)
        an_colstore_clear(&k->parts[t].rows);
    sk_free(k->parts);
    k->parts = NULL;
    k->nparts = 0;
}

void an_keep_free(an_keep *k)
{
    free_parts(k);
    for (int c = 0; c < k->ncols; c++)
        sk_free(k->names[c]);
    memset(k, 0, sizeof *k);
}

/* nparts empty parts, their extrema unset. */
static int new_parts(an_keep *k, int nparts, sk_error *err)
{
    k->parts = sk_calloc((size_t)nparts, sizeof *k->parts);
    if (!k->parts)
        return nomem(err);
    k->nparts = nparts;
    for (int t = 0; t < nparts; t++) {
        an_colstore_init(&k->parts[t].rows, k->ncols + 1);
        for (int c = 0; c < k->ncols; c++) {
            k->parts[t].min[c] = k->parts[t].min_pos[c] = INFINITY;
            k->parts[t].max[c] = -INFINITY;
        }
    }
    return SK_OK;
}

/* At least nparts parts: the rows kept so far stay, new parts are empty. */
static int grow_parts(an_keep *k, int nparts, sk_error *err)
{
    if (k->nparts >= nparts)
        return SK_OK;
    an_keep_part *old = k->parts;
    int had = k->nparts;
    k->parts = NULL;
    int rc = new_parts(k, nparts, err);
    if (rc != SK_OK) {
        k->parts = old;
        k->nparts = had;
        return rc;
    }
    if (had)
        memcpy(k->parts, old, sizeof *old * (size_t)had);
    sk_free(old);
    return SK_OK;
}

/* The column mass weights come from, or a refusal naming what is missing. */
static int weight_column(an_keep *k, const sk_table *schema, sk_error *err)
{
    const char *comp = sk_table_meta_get(schema, "component");
    const char *what = comp && *comp ? comp : "rows'";
    int cells = k->level_col >= 0;
    k->weight_col = -1;
    if (k->weight == SK_WEIGHT_VOLUME && !cells)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "volume weights need cells: the %s table has no cell volumes "
                       "(use mass or none)", what);
    if (k->weight != SK_WEIGHT_MASS)
        return SK_OK;
    k->weight_col = sk_table_index(schema, cells ? "density" : "mass");
    if (k->weight_col < 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "mass weights need the %s column, which the %s table lacks (use %s)",
                       cells ? "density" : "mass", what, cells ? "volume or none" : "none");
    return SK_OK;
}

int an_keep_begin(an_keep *k, int nthreads, const sk_table *schema, sk_error *err)
{
    for (int c = 0; c < k->ncols; c++) {
        k->col[c] = sk_table_index(schema, k->names[c]);
        const sk_column *col = k->col[c] >= 0 ? sk_table_col(schema, k->col[c]) : NULL;
        if (!col)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "unknown field '%s': neither a column of the rows nor a derived "
                           "quantity of them (snapkit stats --list-quantities)", k->names[c]);
        if (col->type == SK_CATEGORY)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "'%s' is a category, not a number",
                           k->names[c]);
    }
    k->level_col = core_cell_volumes(schema, k->per_level, 63);
    const sk_column *clip = sk_table_find(schema, "clip");
    k->clip_col = clip && clip->type == SK_FLOAT64 ? sk_table_index(schema, "clip") : -1;
    int rc = weight_column(k, schema, err);
    if (rc != SK_OK)
        return rc;
    return grow_parts(k, nthreads > 0 ? nthreads : 1, err);
}

/* Column c's n values times f into out, as doubles. */
static void column_values(const sk_column *c, int64_t n, double f, double *out)
{
    if (c->type == SK_FLOAT64) {
        const double *d = c->data;
        for (int64_t i = 0; i < n; i++)
            out[i] = d[i] * f;
    } else if (c->type == SK_INT32) {
        const int32_t *d = c->data;
        for (int64_t i = 0; i < n; i++)
            out[i] = d[i] * f;
    } else {
        for (int64_t i = 0; i < n; i++)
            out[i] = sk_column_get_double(c, i) * f;
    }
}

/* The batch's n weights into w; SK_ERR_RANGE for a bad one. */
static int batch_weights(const an_keep *k, const sk_table *t, int64_t n, double *w,
                         sk_error *err)
{
    if (k->weight == SK_WEIGHT_MASS)
        column_values(sk_table_col(t, k->weight_col), n, 1.0, w);
    else
        for (int64_t i = 0; i < n; i++)
            w[i] = 1.0;
    if (k->level_col >= 0 && k->weight != SK_WEIGHT_NONE) {
        const int32_t *level = sk_table_col(t, k->level_col)->data;
        int vol = k->weight == SK_WEIGHT_VOLUME;
        for (int64_t i = 0; i < n; i++) {
            if (level[i] < 0 || level[i] > 63)
                return sk_fail(err, SK_ERR_RANGE, NULL, -1, "level %d out of range",
                               (int)level[i]);
            w[i] = vol ? k->per_level[level[i]] : w[i] * k->per_level[level[i]];
        }
    }
    if (k->clip_col >= 0) {
        const double *f = sk_table_col(t, k->clip_col)->data;
        for (int64_t i = 0; i < n; i++)
            w[i] *= f[i];
    }
    for (int64_t i = 0; i < n; i++)
        if (w[i] < 0 || isinf(w[i]))
            return sk_fail(err, SK_ERR_RANGE, NULL, -1, "%s weight %g is %s",
                           sk_weight_name(k->weight), w[i], w[i] < 0 ? "negative" : "infinite");
    return SK_OK;
}

/* Does value v pass filter column c? */
static int passes(const an_keep *k, int c, double v)
{
    if (v != v)
        return 0;
    return !k->has_range[c] || (k->lo[c] < v && v < k->hi[c]);
}

/* Keep the rows [at, at + n) of block b that pass (weight not NaN,
 * filter columns in range), moved down over those left out; the extrema
 * follow. */
static void compact(const an_keep *k, an_keep_part *p, an_colblock *b, int64_t at, int64_t n)
{
    int64_t m = at;
    double *w = an_colblock_col(b, 0), *v[AN_KEEP_MAX_COLS];
    for (int c = 0; c < k->ncols; c++)
        v[c] = an_colblock_col(b, c + 1);
    for (int64_t i = at; i < at + n; i++) {
        int keep = w[i] == w[i];
        for (int c = 0; c < k->nfilter; c++)
            keep &= passes(k, c, v[c][i]);
        if (!keep)
            continue;
        w[m] = w[i];
        for (int c = 0; c < k->ncols; c++)
            v[c][m] = v[c][i];
        for (int c = 0; c < k->nfilter; c++) {
            double x = v[c][m];
            p->min[c] = x < p->min[c] ? x : p->min[c];
            p->max[c] = x > p->max[c] ? x : p->max[c];
            if (x > 0 && x < p->min_pos[c])
                p->min_pos[c] = x;
        }
        m++;
    }
    an_colstore_added(&p->rows, b, m - at);
}

int an_keep_batch(an_keep *k, int thread, const sk_table *batch, sk_error *err)
{
    an_keep_part *p = &k->parts[thread];
    int64_t n = sk_table_nrows(batch);
    an_colblock *b = an_colstore_room(&p->rows, n);
    if (!b)
        return nomem(err);
    int64_t at = b->n;
    int rc = batch_weights(k, batch, n, an_colblock_col(b, 0) + at, err);
    if (rc != SK_OK)
        return rc;
    for (int c = 0; c < k->ncols; c++)
        column_values(sk_table_col(batch, k->col[c]), n, k->factor[c],
                      an_colblock_col(b, c + 1) + at);
    compact(k, p, b, at, n);
    return SK_OK;
}

int64_t an_keep_rows(const an_keep *k)
{
    int64_t n = 0;
    for (int t = 0; t < k->nparts; t++)
        n += k->parts[t].rows.n;
    return n;
}

int an_keep_extrema(const an_keep *k, int c, double *min, double *max, double *min_pos)
{
    *min = *min_pos = INFINITY;
    *max = -INFINITY;
    for (int t = 0; t < k->nparts; t++) {
        const an_keep_part *p = &k->parts[t];
        *min = p->min[c] < *min ? p->min[c] : *min;
        *max = p->max[c] > *max ? p->max[c] : *max;
        *min_pos = p->min_pos[c] < *min_pos ? p->min_pos[c] : *min_pos;
    }
    return an_keep_rows(k) > 0;
}

int an_keep_pack(const an_keep *k, double **rows, int64_t *n, sk_error *err)
{
    int64_t stride = k->ncols + 1, at = 0;
    *n = an_keep_rows(k);
    *rows = *n ? sk_malloc(sizeof **rows * (size_t)(*n * stride)) : NULL;
    if (*n && !*rows)
        return nomem(err);
    for (int t = 0; t < k->nparts; t++)
        for (int64_t j = 0; j < k->parts[t].rows.nblocks; j++) {
            const an_colblock *b = &k->parts[t].rows.blocks[j];
            for (int64_t i = 0; i < b->n; i++, at++) {
                (*rows)[at * stride] = an_keep_weights(b)[i];
                for (int c = 0; c < k->ncols; c++)
                    (*rows)[at * stride + 1 + c] = an_keep_values(b, c)[i];
            }
        }
    return SK_OK;
}

int an_keep_unpack(an_keep *k, const double *rows, int64_t n, sk_error *err)
{
    int nparts = k->nparts > 0 ? k->nparts : 1;
    free_parts(k);
    int rc = new_parts(k, nparts, err);
    if (rc != SK_OK || n == 0)
        return rc;
    an_keep_part *p = &k->parts[0];
    an_colblock *b = an_colstore_room(&p->rows, n);
    if (!b)
        return nomem(err);
    int64_t stride = k->ncols + 1;
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c <= k->ncols; c++)
            an_colblock_col(b, c)[i] = rows[i * stride + c];
    compact(k, p, b, 0, n); /* every row passes again; the extrema come back */
    return SK_OK;
}
