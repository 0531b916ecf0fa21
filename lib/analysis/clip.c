/* Clipped reads (snapkit/clip.h): the selection widened to the cells that
 * meet the region, and each cell's fraction inside it as the column
 * `clip`, for a whole table or for each batch of a stream. */
#include "snapkit/clip.h"

#include <math.h>
#include <string.h>

#include "analysis/pass.h"
#include "core/table_rows.h"
#include "snapkit/memory.h"
#include "snapkit/ramses.h"
#include "snapkit/store.h"

const char *sk_clip_rule(const sk_selection *region)
{
    return region->shape.kind == SK_SHAPE_NONE ? "exact" : "columns";
}

/* The coarsest level holding leaf cells: levelmin of the output (a
 * .snapkit file keeps the output's info in its tables' metadata). */
static int coarsest_level(const sk_source *src, const char *component)
{
    if (sk_source_ramses(src))
        return sk_ramses_get_info(sk_source_ramses(src))->levelmin;
    sk_table *t = NULL;
    int level = 1;
    if (sk_store_describe(sk_source_store(src), component, &t, NULL) == SK_OK)
        level = (int)sk_table_meta_double(t, "levelmin", 1.0);
    sk_table_free(t);
    return level >= 1 ? level : 1;
}

int sk_clip_widen(const sk_source *src, const char *component, sk_selection *sel, sk_error *err)
{
    return sk_selection_widen(sel, ldexp(0.5, -coarsest_level(src, component)), err);
}

/* A cell table's columns the fractions are found from. */
typedef struct cell_cols {
    int ndim;
    const sk_column *level, *c[3];
} cell_cols;

static void locate(const sk_table *t, cell_cols *cc)
{
    static const char *const keys[3] = {"cx", "cy", "cz"};
    double nd = sk_table_meta_double(t, "ndim", 3.0);
    cc->ndim = nd == 1.0 || nd == 2.0 ? (int)nd : 3;
    cc->level = sk_table_find(t, "level");
    for (int k = 0; k < 3; k++)
        cc->c[k] = k < cc->ndim ? sk_table_find(t, keys[k]) : NULL;
}

/* Is t a cell table without a clip column? */
static int check_cells(const sk_table *t, sk_error *err)
{
    cell_cols cc;
    locate(t, &cc);
    const char *what = sk_table_meta_get(t, "component");
    if (!cc.level || !cc.c[cc.ndim - 1])
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clip weighs cells by the part of their volume inside the region: the "
                       "%s rows are not cells (particles are points, in or out by their "
                       "position: leave clip out)", what && *what ? what : "table's");
    if (sk_table_find(t, SK_CLIP_COLUMN))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the table has a column '%s' already: clip cannot add its own",
                       SK_CLIP_COLUMN);
    return SK_OK;
}

/* Fractions of rows [0, n) into f; how many are above 0. */
static int64_t fractions(const sk_selection *region, const cell_cols *cc, int64_t n, double *f,
                         sk_error *err, int *rc)
{
    int64_t kept = 0;
    *rc = SK_OK;
    for (int64_t i = 0; i < n; i++) {
        double l = an_at(cc->level, i);
        if (!(l >= 0 && l <= 63)) {
            *rc = sk_fail(err, SK_ERR_RANGE, NULL, -1, "clip: a cell of level %g", l);
            return 0;
        }
        double size = ldexp(1.0, -(int)l), x[3] = {0.5, 0.5, 0.5};
        for (int k = 0; k < cc->ndim; k++)
            x[k] = (an_at(cc->c[k], i) + 0.5) * size;
        f[i] = sk_selection_cell_fraction(region, x, size, cc->ndim);
        kept += f[i] > 0;
    }
    return kept;
}

int sk_clip_table(const sk_selection *region, sk_table *t, sk_error *err)
{
    int rc = check_cells(t, err);
    if (rc != SK_OK)
        return rc;
    int64_t n = sk_table_nrows(t);
    double *f = sk_table_add(t, SK_CLIP_COLUMN, SK_FLOAT64, err);
    uint8_t *keep = sk_malloc(n ? (size_t)n : 1);
    if (!f || !keep) {
        sk_free(keep);
        if (f)
            sk_table_remove(t, SK_CLIP_COLUMN);
        return f ? sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory") : SK_ERR_NOMEM;
    }
    cell_cols cc;
    locate(t, &cc); /* after the column is added: adding may move the others */
    fractions(region, &cc, n, f, err, &rc);
    if (rc == SK_OK) {
        for (int64_t i = 0; i < n; i++)
            keep[i] = f[i] > 0;
        sk_table_filter(t, keep);
        if (sk_table_meta_set(t, "clip", sk_clip_rule(region)) != SK_OK)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    } else {
        sk_table_remove(t, SK_CLIP_COLUMN);
    }
    sk_free(keep);
    return rc;
}

struct sk_clip_stage {
    sk_selection region;
    sk_consumer inner;
    sk_table *templ;   /* 0 rows: the columns each batch is handed on with */
    int nthreads;
    sk_table **out;    /* per thread, reused */
    int64_t *cap;      /* rows each out table was made with */
    double **f;        /* per thread: the batch's fractions */
    int64_t *fcap;
};

int sk_clip_stage_new(const sk_selection *region, sk_clip_stage **out, sk_error *err)
{
    *out = sk_calloc(1, sizeof **out);
    if (!*out)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    sk_selection_init(&(*out)->region);
    int rc = sk_selection_copy(&(*out)->region, region, err);
    if (rc != SK_OK) {
        sk_clip_stage_free(*out);
        *out = NULL;
    }
    return rc;
}

static void free_stream(sk_clip_stage *s)
{
    for (int i = 0; i < s->nthreads; i++) {
        sk_table_free(s->out[i]);
        sk_free(s->f[i]);
    }
    sk_free(s->out);
    sk_free(s->cap);
    sk_free(s->f);
    sk_free(s->fcap);
    sk_table_free(s->templ);
    s->out = NULL;
    s->cap = s->fcap = NULL;
    s->f = NULL;
    s->templ = NULL;
    s->nthreads = 0;
}

void sk_clip_stage_free(sk_clip_stage *s)
{
    if (!s)
        return;
    free_stream(s);
    sk_selection_clear(&s->region);
    sk_free(s);
}

/* A 0-row copy of t's columns (category labels too) and metadata, with
 * the column clip added. */
static sk_table *template_of(const sk_table *t, const sk_selection *region, sk_error *err)
{
    sk_table *out = sk_table_new(0);
    int rc = out ? SK_OK : SK_ERR_NOMEM;
    for (int j = 0; j < sk_table_ncols(t) && rc == SK_OK; j++) {
        const sk_column *c = sk_table_col(t, j);
        if (!sk_table_add(out, c->name, c->type, err))
            rc = SK_ERR_NOMEM;
        else if (c->type == SK_CATEGORY)
            rc = sk_table_set_labels(out, c->name, (const char *const *)c->labels, c->nlabels,
                                     err);
    }
    if (rc == SK_OK && !sk_table_add(out, SK_CLIP_COLUMN, SK_FLOAT64, err))
        rc = SK_ERR_NOMEM;
    if (rc == SK_OK && (sk_table_meta_copy(out, t) != SK_OK ||
                        sk_table_meta_set(out, "clip", sk_clip_rule(region)) != SK_OK))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc != SK_OK) {
        if (!out)
            sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        sk_table_free(out);
        return NULL;
    }
    return out;
}

static int stream_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_clip_stage *s = ctx;
    free_stream(s);
    int rc = check_cells(schema, err);
    if (rc != SK_OK)
        return rc;
    s->out = sk_calloc((size_t)nthreads, sizeof *s->out);
    s->cap = sk_calloc((size_t)nthreads, sizeof *s->cap);
    s->f = sk_calloc((size_t)nthreads, sizeof *s->f);
    s->fcap = sk_calloc((size_t)nthreads, sizeof *s->fcap);
    if (!s->out || !s->cap || !s->f || !s->fcap)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    s->nthreads = nthreads;
    if (!(s->templ = template_of(schema, &s->region, err)))
        return SK_ERR_NOMEM;
    return s->inner.begin ? s->inner.begin(s->inner.ctx, nthreads, s->templ, err) : SK_OK;
}

/* Room for n rows in the thread's table and fractions. */
static int reserve(sk_clip_stage *s, int thread, int64_t n, sk_error *err)
{
    if (s->fcap[thread] < n) {
        sk_free(s->f[thread]);
        s->fcap[thread] = 0;
        if (!(s->f[thread] = sk_malloc(sizeof(double) * (size_t)n)))
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        s->fcap[thread] = n;
    }
    if (s->out[thread] && s->cap[thread] >= n)
        return SK_OK;
    sk_table_free(s->out[thread]);
    s->cap[thread] = 0;
    if (!(s->out[thread] = tb_like(s->templ, n, err)))
        return SK_ERR_NOMEM;
    s->cap[thread] = n;
    return SK_OK;
}

/* The rows of batch whose fraction is above 0, and their fractions, into
 * out (kept rows). */
static int fill(sk_table *out, const sk_table *batch, const double *f, int64_t kept,
                sk_error *err)
{
    int64_t n = sk_table_nrows(batch);
    tb_set_nrows(out, kept);
    int rc = SK_OK;
    for (int j = 0; j < sk_table_ncols(out) && rc == SK_OK; j++) {
        sk_column *dst = sk_table_col(out, j);
        const sk_column *src = sk_table_find(batch, dst->name);
        if (!src) { /* the clip column */
            double *d = dst->data;
            for (int64_t i = 0, k = 0; i < n; i++)
                if (f[i] > 0)
                    d[k++] = f[i];
            continue;
        }
        rc = tb_copy_column(out, dst, src, n, f, err);
    }
    if (rc == SK_OK && sk_table_meta_copy(out, batch) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return rc;
}

static int stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                        sk_error *err)
{
    sk_clip_stage *s = ctx;
    int64_t n = sk_table_nrows(batch);
    int rc = reserve(s, thread, n, err);
    if (rc != SK_OK)
        return rc;
    cell_cols cc;
    locate(batch, &cc);
    if (!cc.level || !cc.c[cc.ndim - 1])
        return check_cells(batch, err);
    int64_t kept = fractions(&s->region, &cc, n, s->f[thread], err, &rc);
    if (rc == SK_OK)
        rc = fill(s->out[thread], batch, s->f[thread], kept, err);
    if (rc != SK_OK || kept == 0)
        return rc;
    sk_batch_info at = *info;
    at.row = at.rows = 0;
    return s->inner.batch(s->inner.ctx, thread, s->out[thread], &at, err);
}

sk_consumer sk_clip_stage_consumer(sk_clip_stage *s, const sk_consumer *inner)
{
    s->inner = *inner;
    return (sk_consumer){.ctx = s, .begin = stream_begin, .batch = stream_batch,
                         .ordered = inner->ordered};
}
