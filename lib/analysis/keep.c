/* Rows kept per thread for binned analyses (keep.h). */
#include "analysis/keep.h"

#include <math.h>
#include <string.h>

#include "analysis/pass.h"
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
    for (int t = 0; t < k->nparts; t++) {
        sk_free(k->parts[t].w);
        for (int c = 0; c < k->ncols; c++)
            sk_free(k->parts[t].v[c]);
    }
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
    free_parts(k);
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
    k->parts = sk_calloc((size_t)(nthreads > 0 ? nthreads : 1), sizeof *k->parts);
    if (!k->parts)
        return nomem(err);
    k->nparts = nthreads > 0 ? nthreads : 1;
    for (int t = 0; t < k->nparts; t++)
        for (int c = 0; c < k->ncols; c++) {
            k->parts[t].min[c] = k->parts[t].min_pos[c] = INFINITY;
            k->parts[t].max[c] = -INFINITY;
        }
    return SK_OK;
}

/* Room for `more` rows in part p. */
static int reserve(an_keep *k, an_keep_part *p, int64_t more, sk_error *err)
{
    if (p->n + more <= p->cap)
        return SK_OK;
    int64_t cap = p->cap ? 2 * p->cap : 4096;
    cap = cap < p->n + more ? p->n + more : cap;
    double *w = sk_realloc(p->w, sizeof *w * (size_t)cap);
    if (!w)
        return nomem(err);
    p->w = w;
    for (int c = 0; c < k->ncols; c++) {
        double *v = sk_realloc(p->v[c], sizeof *v * (size_t)cap);
        if (!v)
            return nomem(err);
        p->v[c] = v;
    }
    p->cap = cap;
    return SK_OK;
}

/* Row i's weight into *w; SK_ERR_RANGE for a bad one. */
static int row_weight(const an_keep *k, const sk_table *t, int64_t i, double *w, sk_error *err)
{
    double x = k->weight == SK_WEIGHT_MASS ? an_at(sk_table_col(t, k->weight_col), i) : 1.0;
    if (k->level_col >= 0 && k->weight != SK_WEIGHT_NONE) {
        int32_t l = ((const int32_t *)sk_table_col(t, k->level_col)->data)[i];
        if (l < 0 || l > 63)
            return sk_fail(err, SK_ERR_RANGE, NULL, -1, "level %d out of range", (int)l);
        x = k->weight == SK_WEIGHT_VOLUME ? k->per_level[l] : x * k->per_level[l];
    }
    if (k->clip_col >= 0)
        x *= ((const double *)sk_table_col(t, k->clip_col)->data)[i];
    if (x < 0 || isinf(x))
        return sk_fail(err, SK_ERR_RANGE, NULL, -1, "%s weight %g is %s",
                       sk_weight_name(k->weight), x, x < 0 ? "negative" : "infinite");
    *w = x;
    return SK_OK;
}

/* Does value v pass filter column c? */
static int passes(const an_keep *k, int c, double v)
{
    if (v != v)
        return 0;
    return !k->has_range[c] || (k->lo[c] < v && v < k->hi[c]);
}

int an_keep_batch(an_keep *k, int thread, const sk_table *batch, sk_error *err)
{
    an_keep_part *p = &k->parts[thread];
    int64_t n = sk_table_nrows(batch);
    int rc = reserve(k, p, n, err);
    const sk_column *cols[AN_KEEP_MAX_COLS];
    for (int c = 0; c < k->ncols; c++)
        cols[c] = sk_table_col(batch, k->col[c]);
    for (int64_t i = 0; i < n && rc == SK_OK; i++) {
        double w = 0, v[AN_KEEP_MAX_COLS];
        rc = row_weight(k, batch, i, &w, err);
        if (rc != SK_OK || w != w)
            continue;
        int keep = 1;
        for (int c = 0; c < k->ncols; c++) {
            v[c] = an_at(cols[c], i) * k->factor[c];
            if (c < k->nfilter)
                keep &= passes(k, c, v[c]);
        }
        if (!keep)
            continue;
        int64_t at = p->n++;
        p->w[at] = w;
        for (int c = 0; c < k->ncols; c++)
            p->v[c][at] = v[c];
        for (int c = 0; c < k->nfilter; c++) {
            p->min[c] = v[c] < p->min[c] ? v[c] : p->min[c];
            p->max[c] = v[c] > p->max[c] ? v[c] : p->max[c];
            if (v[c] > 0 && v[c] < p->min_pos[c])
                p->min_pos[c] = v[c];
        }
    }
    return rc;
}

int64_t an_keep_rows(const an_keep *k)
{
    int64_t n = 0;
    for (int t = 0; t < k->nparts; t++)
        n += k->parts[t].n;
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
