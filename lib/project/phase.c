/* Phase diagrams (snapkit/phase.h): an extrema pass when a range comes
 * from the data, then a pass that bins every row, each thread summing
 * exactly into the bins its rows reach (binsum.h), so that the threads'
 * sums merge to the same bits whatever the order of the rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "phase_internal.h"
#include "snapkit/memory.h"

void sk_phase_options_init(sk_phase_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->nbins[0] = opt->nbins[1] = 128;
    opt->log[0] = opt->log[1] = -1;
    opt->weight = SK_WEIGHT_NONE;
}

static const char *axis_what(int a)
{
    return a ? "y" : "x";
}

int sk_phase_new(const sk_phase_options *opt, sk_phase **out, sk_error *err)
{
    *out = NULL;
    if (!opt->x[0] || !opt->y[0])
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a phase diagram needs x and y quantities");
    if (!sk_weight_name((sk_weight)opt->weight))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown weight %d", opt->weight);
    sk_phase *ph = sk_calloc(1, sizeof *ph);
    if (!ph)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    ph->opt = *opt;
    ph->keep_limit = opt->keep_bytes;
    if (!ph->opt.z[0])
        snprintf(ph->opt.z, sizeof ph->opt.z, "mass");
    int rc = SK_OK;
    for (int a = 0; a < 2 && rc == SK_OK; a++) {
        const char *name = a ? opt->y : opt->x;
        ph->log[a] = opt->log[a] >= 0 ? opt->log[a] != 0 : an_quantity_positive(name);
        char what[96];
        snprintf(what, sizeof what, "%s bins (%s)", axis_what(a), name);
        /* check what can be checked before any row: bins and a range given */
        double lo = opt->has_range[a] ? opt->lo[a] : 1.0, hi = opt->has_range[a] ? opt->hi[a] : 2.0;
        rc = sk_bins_init(&ph->bins[a], opt->nbins[a], lo, hi, ph->log[a], what, err);
    }
    if (rc != SK_OK) {
        sk_free(ph);
        return rc;
    }
    *out = ph;
    return SK_OK;
}

int sk_phase_needs_extrema(const sk_phase *ph)
{
    return !ph->opt.has_range[0] || !ph->opt.has_range[1];
}

/* The quantities against the stream's columns, once. */
static int resolve(sk_phase *ph, const sk_table *schema, sk_error *err)
{
    if (ph->resolved)
        return SK_OK;
    const sk_phase_options *o = &ph->opt;
    const char *names[4] = {o->x, o->y, o->z, sk_weight_name((sk_weight)o->weight)};
    ph->nq = o->weight == SK_WEIGHT_NONE ? 3 : 4;
    for (int i = 0; i < ph->nq; i++) {
        int rc = an_quantity_resolve(&ph->q[i], names[i], schema, &o->frame, err);
        if (rc != SK_OK)
            return rc;
    }
    int rc = an_quantities_units(ph->q, 3, schema, &o->derive, o->units, err);
    if (rc != SK_OK)
        return rc;
    ph->resolved = 1;
    return SK_OK;
}

static int batch_values(sk_phase *ph, phase_thread *t, const sk_table *batch, int nq,
                        const double *v[4], sk_error *err);

static int threads_new(sk_phase *ph, int nthreads, sk_error *err)
{
    if (ph->th && ph->nthreads >= nthreads)
        return SK_OK;
    phase_thread *th = sk_realloc(ph->th, (size_t)nthreads * sizeof *th);
    if (!th)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    memset(th + ph->nthreads, 0, (size_t)(nthreads - ph->nthreads) * sizeof *th);
    ph->th = th;
    ph->nthreads = nthreads;
    return SK_OK;
}

static int extrema_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_phase *ph = ctx;
    int rc = resolve(ph, schema, err);
    if (rc == SK_OK)
        rc = threads_new(ph, nthreads, err);
    if (rc == SK_OK)
        phase_keep_begin(ph);
    for (int t = 0; rc == SK_OK && t < ph->nthreads; t++)
        for (int a = 0; a < 2; a++) {
            ph->th[t].lo[a] = INFINITY;
            ph->th[t].hi[a] = -INFINITY;
            ph->th[t].seen[a] = 0;
        }
    return rc;
}

static int extrema_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                         sk_error *err)
{
    (void)info;
    sk_phase *ph = ctx;
    phase_thread *t = &ph->th[thread];
    int64_t n = sk_table_nrows(batch);
    int keep = phase_keeping(ph);
    const double *v[4] = {NULL, NULL, NULL, NULL};
    int rc = batch_values(ph, t, batch, keep ? ph->nq : 2, v, err);
    if (rc != SK_OK)
        return rc;
    for (int a = 0; a < 2; a++) {
        if (ph->opt.has_range[a])
            continue;
        double lo = t->lo[a], hi = t->hi[a];
        int64_t seen = 0;
        for (int64_t i = 0; i < n; i++) {
            double x = v[a][i];
            if (ph->log[a] ? !(x > 0) : x != x)
                continue;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            seen++;
        }
        t->lo[a] = lo;
        t->hi[a] = hi;
        t->seen[a] += seen;
    }
    return keep ? phase_keep(ph, t, v, n, err) : SK_OK;
}

sk_consumer sk_phase_extrema_consumer(sk_phase *ph)
{
    return (sk_consumer){.ctx = ph, .begin = extrema_begin, .batch = extrema_batch};
}

/* The range of axis a from the extrema pass, padded as yt pads it. */
static int range_from_extrema(sk_phase *ph, int a, double *lo, double *hi, sk_error *err)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    int64_t seen = 0;
    for (int t = 0; t < ph->nthreads; t++) {
        if (!ph->th[t].seen[a])
            continue;
        *lo = fmin(*lo, ph->th[t].lo[a]);
        *hi = fmax(*hi, ph->th[t].hi[a]);
        seen += ph->th[t].seen[a];
    }
    const an_quantity *q = &ph->q[a];
    if (!seen && ph->log[a])
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "log bins over non-positive values: no %s above 0 among the rows "
                       "(bin it linearly, or give a range)", q->name);
    if (!seen)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no value of %s to take its range from",
                       q->name);
    sk_bins_pad(lo, hi);
    return SK_OK;
}

/* schema NULL: the kept rows are to be binned (sk_phase_finish). */
static int bins_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_phase *ph = ctx;
    int schema_is_kept = schema == NULL;
    int rc = resolve(ph, schema, err);
    if (rc == SK_OK)
        rc = threads_new(ph, nthreads, err);
    for (int a = 0; a < 2 && rc == SK_OK; a++) {
        double lo = ph->opt.lo[a], hi = ph->opt.hi[a];
        if (!ph->opt.has_range[a])
            rc = range_from_extrema(ph, a, &lo, &hi, err);
        char what[96];
        snprintf(what, sizeof what, "%s bins (%s)", axis_what(a), ph->q[a].name);
        if (rc == SK_OK)
            rc = sk_bins_init(&ph->bins[a], ph->opt.nbins[a], lo, hi, ph->log[a], what, err);
        if (rc == SK_OK && !(ph->edges[a] = sk_malloc((size_t)(ph->bins[a].n + 1) * sizeof(double))))
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        for (int i = 0; rc == SK_OK && i <= ph->bins[a].n; i++)
            ph->edges[a][i] = sk_bins_edge(&ph->bins[a], i);
    }
    size_t cells = (size_t)ph->opt.nbins[0] * (size_t)ph->opt.nbins[1];
    for (int t = 0; t < ph->nthreads && rc == SK_OK; t++) {
        if (!schema_is_kept)
            phase_kept_free(&ph->th[t]);
        an_binsums_free(&ph->th[t].sums);
        ph->th[t].rows = ph->th[t].binned = 0;
        rc = an_binsums_init(&ph->th[t].sums, cells, ph->nq == 4 ? 2 : 1, err);
    }
    ph->binned_begun = rc == SK_OK;
    return rc;
}

/* sk_bins_index with the edges at hand (the same answer). */
static inline int bin_of(const sk_bins *b, const double *edges, double x)
{
    if (!(x > b->lo && x < b->hi))
        return -1;
    double y = b->log ? log10(x) : x;
    double g = floor((y - b->start) / b->step);
    int i = g < 0 ? 0 : g > b->n - 1 ? b->n - 1 : (int)g;
    while (i > 0 && edges[i] > x)
        i--;
    while (i < b->n - 1 && edges[i + 1] <= x)
        i++;
    return i;
}

int phase_bin_rows(sk_phase *ph, phase_thread *t, const double *const v[4], int64_t n,
                   sk_error *err)
{
    int64_t binned = 0;
    const sk_bins *bx = &ph->bins[0], *by = &ph->bins[1];
    const double *ex = ph->edges[0], *ey = ph->edges[1];
    size_t ny = (size_t)by->n;
    int weighted = ph->nq == 4;
    for (int64_t r = 0; r < n; r++) {
        int i = bin_of(bx, ex, v[0][r]);
        if (i < 0)
            continue;
        int j = bin_of(by, ey, v[1][r]);
        if (j < 0)
            continue;
        an_sum *s = an_binsums_get(&t->sums, (size_t)i * ny + (size_t)j);
        if (!s)
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the bins");
        if (weighted) {
            an_sum_add(&s[0], v[3][r] * v[2][r]);
            an_sum_add(&s[1], v[3][r]);
        } else {
            an_sum_add(&s[0], v[2][r]);
        }
        binned++;
    }
    t->rows += n;
    t->binned += binned;
    return SK_OK;
}

/* The batch's quantities (those of the first nq) into v. */
static int batch_values(sk_phase *ph, phase_thread *t, const sk_table *batch, int nq,
                        const double *v[4], sk_error *err)
{
    for (int k = 0; k < nq; k++) {
        int rc = an_quantity_values(&ph->q[k], batch, &ph->opt.frame, &ph->opt.derive, &t->s[k],
                                    &v[k], err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

static int bins_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                      sk_error *err)
{
    (void)info;
    sk_phase *ph = ctx;
    phase_thread *t = &ph->th[thread];
    const double *v[4] = {NULL, NULL, NULL, NULL};
    int rc = batch_values(ph, t, batch, ph->nq, v, err);
    return rc == SK_OK ? phase_bin_rows(ph, t, v, sk_table_nrows(batch), err) : rc;
}

sk_consumer sk_phase_consumer(sk_phase *ph)
{
    return (sk_consumer){.ctx = ph, .begin = bins_begin, .batch = bins_batch};
}

/* The threads' sums merged (and, with ranks, every rank's added), then
 * the values. */
static int finish(sk_phase *ph, int ranks, sk_error *err)
{
    if (!ph->binned_begun && sk_phase_kept_all(ph)) {
        int rc = bins_begin(ph, ph->nthreads, NULL, err);
        if (rc == SK_OK)
            rc = phase_bin_kept(ph, err);
        if (rc != SK_OK)
            return rc;
    }
    if (!ph->binned_begun)
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1, "no rows were streamed");
    an_binsums *all = &ph->th[0].sums;
    for (int t = 1; t < ph->nthreads; t++) {
        int rc = an_binsums_merge(all, &ph->th[t].sums, err);
        if (rc != SK_OK)
            return rc;
        an_binsums_free(&ph->th[t].sums);
    }
    ph->rows = ph->binned = 0;
    for (int t = 0; t < ph->nthreads; t++) {
        ph->rows += ph->th[t].rows;
        ph->binned += ph->th[t].binned;
    }
    an_sum *dense = NULL;
    int rc = ranks ? phase_ranks_sums(ph, all, &dense, err) : SK_OK;
    sk_free(ph->values);
    if (rc == SK_OK && !(ph->values = sk_malloc(all->nbins * sizeof *ph->values)))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int weighted = ph->nq == 4;
    for (size_t c = 0; rc == SK_OK && c < all->nbins; c++) {
        const an_sum *s = dense ? dense + c * (size_t)all->nsum : all->at[c];
        if (!s) {
            ph->values[c] = weighted ? NAN : 0.0;
            continue;
        }
        double num = an_sum_value(&s[0]), den = weighted ? an_sum_value(&s[1]) : 1.0;
        ph->values[c] = !weighted ? num : den > 0 ? num / den : NAN;
    }
    sk_free(dense);
    an_binsums_free(all);
    return rc;
}

int sk_phase_finish(sk_phase *ph, sk_error *err)
{
    return finish(ph, 0, err);
}

int sk_phase_finish_ranks(sk_phase *ph, sk_error *err)
{
    return finish(ph, 1, err);
}

int sk_phase_make(const sk_table *table, const sk_phase_options *opt, sk_phase **out,
                  sk_error *err)
{
    *out = NULL;
    sk_phase *ph;
    int rc = sk_phase_new(opt, &ph, err);
    if (rc != SK_OK)
        return rc;
    ph->keep_limit = -1; /* the table is in memory already */
    sk_batch_info info = {.index = 0, .nbatches = 1};
    if (sk_phase_needs_extrema(ph)) {
        rc = extrema_begin(ph, 1, table, err);
        if (rc == SK_OK && sk_table_nrows(table) > 0)
            rc = extrema_batch(ph, 0, table, &info, err);
    }
    if (rc == SK_OK && !sk_phase_kept_all(ph))
        rc = bins_begin(ph, 1, table, err);
    if (rc == SK_OK && !sk_phase_kept_all(ph) && sk_table_nrows(table) > 0)
        rc = bins_batch(ph, 0, table, &info, err);
    if (rc == SK_OK)
        rc = sk_phase_finish(ph, err);
    if (rc != SK_OK) {
        sk_phase_free(ph);
        return rc;
    }
    *out = ph;
    return SK_OK;
}

void sk_phase_free(sk_phase *ph)
{
    if (!ph)
        return;
    for (int t = 0; t < ph->nthreads; t++) {
        for (int k = 0; k < 4; k++)
            an_scratch_free(&ph->th[t].s[k]);
        an_binsums_free(&ph->th[t].sums);
        phase_kept_free(&ph->th[t]);
    }
    sk_free(ph->th);
    for (int a = 0; a < 2; a++)
        sk_free(ph->edges[a]);
    sk_free(ph->values);
    sk_free(ph);
}

const sk_bins *sk_phase_bins(const sk_phase *ph, int axis)
{
    return ph->binned_begun && (axis == 0 || axis == 1) ? &ph->bins[axis] : NULL;
}

const double *sk_phase_values(const sk_phase *ph)
{
    return ph->values;
}

const char *sk_phase_name(const sk_phase *ph, int which)
{
    if (which < 0 || which > 2)
        return NULL;
    const sk_phase_options *o = &ph->opt;
    return which == 0 ? o->x : which == 1 ? o->y : o->z;
}

const char *sk_phase_unit(const sk_phase *ph, int which)
{
    return which >= 0 && which <= 2 && ph->resolved ? ph->q[which].unit : NULL;
}

int sk_phase_weight(const sk_phase *ph)
{
    return ph->opt.weight;
}

int64_t sk_phase_rows(const sk_phase *ph)
{
    return ph->rows;
}

int64_t sk_phase_binned(const sk_phase *ph)
{
    return ph->binned;
}
