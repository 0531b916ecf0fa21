/* max:FIELD and min:FIELD centres (snapkit/center.h): the best row of
 * each thread, merged, then the best of each component in turn; ties go
 * to the lowest position, so the answer does not depend on the order the
 * rows come in. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/center_internal.h"
#include "analysis/pass.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

typedef struct extreme_pass {
    const char *field;
    int sign;
    an_extreme best, *per_thread;
} extreme_pass;

static int ep_begin(void *ctx, int nthreads, sk_error *err)
{
    extreme_pass *ep = ctx;
    ep->per_thread = sk_calloc((size_t)nthreads, sizeof *ep->per_thread);
    return ep->per_thread ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
}

/* Row i's position in box units (axes a lower-dimensional table lacks: 0). */
static void position(const sk_column *const *pos, const sk_column *level, double boxlen,
                     int64_t i, double x[3])
{
    double size = level ? ldexp(1.0, -(int)an_at(level, i)) : 0;
    for (int k = 0; k < 3; k++)
        x[k] = !pos[k] ? 0 : level ? (an_at(pos[k], i) + 0.5) * size : an_at(pos[k], i) / boxlen;
}

static int ep_batch(void *ctx, int thread, const sk_table *t, sk_error *err)
{
    extreme_pass *ep = ctx;
    static const char *const cell_keys[3] = {"cx", "cy", "cz"};
    static const char *const part_keys[3] = {"position_x", "position_y", "position_z"};
    const sk_column *level = sk_table_find(t, "level"), *pos[3];
    const sk_column *col = sk_table_find(t, ep->field);
    if (!col)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the rows have no column %s", ep->field);
    for (int k = 0; k < 3; k++)
        pos[k] = sk_table_find(t, (level ? cell_keys : part_keys)[k]);
    if (!pos[0])
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the rows have no position");
    double boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    an_extreme *b = &ep->per_thread[thread];
    int64_t n = sk_table_nrows(t);
    for (int64_t i = 0; i < n; i++) {
        double v = an_at(col, i);
        if (v == v && (!b->found || (ep->sign > 0 ? v >= b->value : v <= b->value))) {
            double x[3];
            position(pos, level, boxlen, i, x);
            an_extreme_offer(b, ep->sign, v, x);
        }
    }
    b->rows += n;
    return SK_OK;
}

static int ep_end(void *ctx, int nthreads, int ok, sk_error *err)
{
    (void)err;
    extreme_pass *ep = ctx;
    for (int i = 0; ok && i < nthreads; i++)
        an_extreme_merge(&ep->best, ep->sign, &ep->per_thread[i]);
    sk_free(ep->per_thread);
    ep->per_thread = NULL;
    return SK_OK;
}

/* The best row of one component (the same on every rank when shared). */
static int component_extreme(sk_source *src, const sk_selection *sel, const char *component,
                             extreme_pass *ep, const sk_read_options *ropt, sk_error *err)
{
    sk_selection s;
    sk_selection_init(&s);
    char vars[128];
    snprintf(vars, sizeof vars, "%s%s", ep->field,
             strcmp(component, "particles") ? "" : ",position_x,position_y,position_z");
    int rc = sk_selection_copy(&s, sel, err);
    if (rc == SK_OK)
        rc = sk_selection_set_vars(&s, vars, err);
    an_pass p = {.ctx = ep, .begin = ep_begin, .batch = ep_batch, .end = ep_end};
    if (rc == SK_OK)
        rc = an_pass_run(src, component, &s, ropt, &p, err);
    sk_selection_clear(&s);
    if (an_shared(ropt)) {
        rc = sk_mpi_agree(rc, err);
        if (rc == SK_OK)
            rc = an_extreme_reduce(&ep->best, ep->sign, err);
    }
    return rc;
}

int an_center_extreme(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                      const char *const *names, int n, const sk_read_options *ropt,
                      sk_center_result *out, sk_error *err)
{
    int sign = copt->method == SK_CENTER_MAX ? 1 : -1;
    char what[80];
    snprintf(what, sizeof what, "center %s:%s", sign > 0 ? "max" : "min", copt->field);
    an_extreme best = {0};
    int rc = SK_OK;
    for (int i = 0; i < n && rc == SK_OK; i++) {
        extreme_pass ep = {.field = copt->field, .sign = sign};
        rc = component_extreme(src, sel, names[i], &ep, ropt, err);
        best.rows += ep.best.rows;
        if (rc == SK_OK && ep.best.found && an_extreme_offer(&best, sign, ep.best.value, ep.best.x))
            snprintf(out->component, sizeof out->component, "%s", names[i]);
    }
    if (rc != SK_OK) {
        an_error_prefix(err, what);
        return rc;
    }
    out->rows = best.rows;
    if (!best.found)
        return sk_fail(err, SK_ERR_EMPTY, sk_source_path(src), -1,
                       "%s: the selection holds no row with a value", what);
    memcpy(out->center, best.x, sizeof out->center);
    out->value = best.value + 0.0; /* -0 and 0 compare equal: report one of them */
    return SK_OK;
}
