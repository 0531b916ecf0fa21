/* Sets of derived quantities added as columns: to a whole table, or to
 * each batch of a stream before its consumer sees it. A selection's
 * variables may name quantities; the set takes them out and asks the
 * reader for the columns they need instead, and drops again those only
 * they needed. */
#include <stdio.h>
#include <string.h>

#include "analysis/derive_internal.h"
#include "core/table_rows.h"
#include "snapkit/memory.h"

struct sk_derive_set {
    sk_frame frame; /* as given, checked by dv_frame_set */
    sk_derive_options opt;
    int n, ndrop;
    char *names[SK_MAX_VARS];
    char *drop[SK_MAX_VARS]; /* columns read only for the quantities */
    /* the stream being wrapped */
    sk_consumer inner;
    sk_table *templ;   /* 0 rows: the columns each batch is handed on with */
    int nthreads;
    sk_table **out;    /* per thread, reused */
    int64_t *cap;      /* rows each out table was made with */
};

int sk_derive_set_new(const sk_frame *frame, const sk_derive_options *opt, sk_derive_set **out,
                      sk_error *err)
{
    *out = NULL;
    dv_frame f;
    int rc = dv_frame_set(&f, frame, err);
    if (rc != SK_OK)
        return rc;
    sk_derive_set *s = sk_calloc(1, sizeof *s);
    if (!s)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (frame)
        s->frame = *frame;
    if (opt)
        s->opt = *opt;
    *out = s;
    return SK_OK;
}

static void free_stream(sk_derive_set *s)
{
    for (int i = 0; s->out && i < s->nthreads; i++)
        sk_table_free(s->out[i]);
    sk_free(s->out);
    sk_free(s->cap);
    sk_table_free(s->templ);
    s->out = NULL;
    s->cap = NULL;
    s->templ = NULL;
    s->nthreads = 0;
}

void sk_derive_set_free(sk_derive_set *s)
{
    if (!s)
        return;
    free_stream(s);
    for (int i = 0; i < s->n; i++)
        sk_free(s->names[i]);
    for (int i = 0; i < s->ndrop; i++)
        sk_free(s->drop[i]);
    sk_free(s);
}

static int listed(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

int sk_derive_set_add(sk_derive_set *s, const char *name, int particles, sk_error *err)
{
    const sk_quantity *q = sk_quantity_find(name);
    if (!q)
        return dv_unknown(name, err);
    dv_frame f;
    dv_frame_set(&f, &s->frame, NULL); /* checked by sk_derive_set_new */
    int rc = dv_check(q, particles, &f, err);
    if (rc != SK_OK)
        return rc;
    if (listed(s->names, s->n, name))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity '%s' is asked twice", name);
    if (s->n == SK_MAX_VARS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "more than %d quantities", SK_MAX_VARS);
    if (!(s->names[s->n] = sk_strdup(name)))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    s->n++;
    return SK_OK;
}

int sk_derive_set_count(const sk_derive_set *s)
{
    return s->n;
}

const char *sk_derive_set_name(const sk_derive_set *s, int i)
{
    return i >= 0 && i < s->n ? s->names[i] : NULL;
}

/* Is `name` one of the columns q reads (a particle's mass)? */
static int reads_itself(const sk_quantity *q, int particles, const char *name)
{
    const char *cols = particles ? q->particle_columns : q->cell_columns;
    size_t n = strlen(name);
    for (const char *p = cols ? strstr(cols, name) : NULL; p; p = strstr(p + 1, name))
        if ((p == cols || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Append the comma-separated columns to keep[] unless there; those added
 * are also remembered in s->drop. */
static int add_needed(sk_derive_set *s, const char *csv, char **keep, int *nkeep, sk_error *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", csv);
    for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        if (listed(keep, *nkeep, c))
            continue;
        if (*nkeep == SK_MAX_VARS || s->ndrop == SK_MAX_VARS)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "more than %d variables", SK_MAX_VARS);
        if (!(keep[*nkeep] = sk_strdup(c)) || !(s->drop[s->ndrop] = sk_strdup(c)))
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        (*nkeep)++;
        s->ndrop++;
    }
    return SK_OK;
}

/* sel->vars = keep[] (cells keep their keys whatever is asked: an empty
 * list, which would mean every variable, becomes `level`). */
static int set_vars(sk_selection *sel, char **keep, int nkeep, int particles, sk_error *err)
{
    size_t len = 16;
    for (int i = 0; i < nkeep; i++)
        len += strlen(keep[i]) + 1;
    char *csv = sk_malloc(len);
    if (!csv)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    size_t at = 0;
    for (int i = 0; i < nkeep; i++)
        at += (size_t)snprintf(csv + at, len - at, "%s%s", i ? "," : "", keep[i]);
    if (!nkeep)
        snprintf(csv, len, "%s", particles ? "position_x" : "level");
    int rc = sk_selection_set_vars(sel, csv, err);
    sk_free(csv);
    return rc;
}

int sk_derive_set_take_vars(sk_derive_set *s, sk_selection *sel, int particles, sk_error *err)
{
    char *keep[SK_MAX_VARS];
    int nkeep = 0, taken = 0, rc = SK_OK;
    for (int v = 0; v < sel->nvars && rc == SK_OK; v++) {
        const sk_quantity *q = sk_quantity_find(sel->vars[v]);
        if (q && !reads_itself(q, particles, q->name)) {
            rc = sk_derive_set_add(s, q->name, particles, err);
            taken++;
        } else if (!listed(keep, nkeep, sel->vars[v])) {
            if (!(keep[nkeep] = sk_strdup(sel->vars[v])))
                rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
            else
                nkeep++;
        }
    }
    for (int i = 0; i < s->n && rc == SK_OK && taken; i++) {
        const sk_quantity *q = sk_quantity_find(s->names[i]);
        rc = add_needed(s, particles ? q->particle_columns : q->cell_columns, keep, &nkeep, err);
    }
    if (rc == SK_OK && taken)
        rc = set_vars(sel, keep, nkeep, particles, err);
    for (int i = 0; i < nkeep; i++)
        sk_free(keep[i]);
    return rc;
}

int sk_derive_set_apply(const sk_derive_set *s, sk_table *t, sk_error *err)
{
    for (int i = 0; i < s->n; i++) {
        if (sk_table_find(t, s->names[i]))
            continue;
        double *col = sk_table_add(t, s->names[i], SK_FLOAT64, err);
        if (!col)
            return SK_ERR_NOMEM;
        int rc = sk_derive(t, s->names[i], &s->frame, &s->opt, col, err);
        if (rc != SK_OK) {
            sk_table_remove(t, s->names[i]);
            return rc;
        }
    }
    for (int i = 0; i < s->ndrop; i++)
        if (sk_table_find(t, s->drop[i]) && !listed(s->names, s->n, s->drop[i]))
            sk_table_remove(t, s->drop[i]);
    return SK_OK;
}

static int stream_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_derive_set *s = ctx;
    free_stream(s);
    s->out = sk_calloc((size_t)nthreads, sizeof *s->out);
    s->cap = sk_calloc((size_t)nthreads, sizeof *s->cap);
    s->templ = sk_table_new(0);
    if (!s->out || !s->cap || !s->templ)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    s->nthreads = nthreads;
    /* the schema with the quantities added: says what is missing before
     * any row is read */
    int rc = SK_OK;
    for (int j = 0; j < sk_table_ncols(schema) && rc == SK_OK; j++) {
        const sk_column *c = sk_table_col(schema, j);
        if (!sk_table_add(s->templ, c->name, c->type, err))
            rc = SK_ERR_NOMEM;
        else if (c->type == SK_CATEGORY)
            rc = sk_table_set_labels(s->templ, c->name, (const char *const *)c->labels,
                                     c->nlabels, err);
    }
    if (rc == SK_OK && sk_table_meta_copy(s->templ, schema) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK)
        rc = sk_derive_set_apply(s, s->templ, err);
    if (rc == SK_OK && s->inner.begin)
        rc = s->inner.begin(s->inner.ctx, nthreads, s->templ, err);
    return rc;
}

/* The batch's columns and the quantities into the thread's table. */
static int fill(const sk_derive_set *s, sk_table *out, const sk_table *batch, sk_error *err)
{
    int64_t n = sk_table_nrows(batch);
    int rc = SK_OK;
    for (int j = 0; j < sk_table_ncols(out) && rc == SK_OK; j++) {
        sk_column *dst = sk_table_col(out, j);
        const sk_column *src = sk_table_find(batch, dst->name);
        rc = src ? tb_copy_column(out, dst, src, n, NULL, err)
                 : sk_derive(batch, dst->name, &s->frame, &s->opt, dst->data, err);
    }
    if (rc == SK_OK && sk_table_meta_copy(out, batch) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return rc;
}

static int stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                        sk_error *err)
{
    sk_derive_set *s = ctx;
    int64_t n = sk_table_nrows(batch);
    if (!s->out[thread] || s->cap[thread] < n) {
        sk_table_free(s->out[thread]);
        s->cap[thread] = 0;
        if (!(s->out[thread] = tb_like(s->templ, n, err)))
            return SK_ERR_NOMEM;
        s->cap[thread] = n;
    }
    tb_set_nrows(s->out[thread], n);
    int rc = fill(s, s->out[thread], batch, err);
    return rc == SK_OK ? s->inner.batch(s->inner.ctx, thread, s->out[thread], info, err) : rc;
}

sk_consumer sk_derive_set_consumer(sk_derive_set *s, const sk_consumer *inner)
{
    s->inner = *inner;
    return (sk_consumer){.ctx = s, .begin = stream_begin, .batch = stream_batch,
                         .ordered = inner->ordered};
}
