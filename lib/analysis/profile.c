/* Profiles, the stream (snapkit/profile.h): each thread keeps its rows'
 * bin value, weight and quantities (analysis/keep.h), in their units;
 * profile_result.c bins them once every row is in. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/profile_internal.h"
#include "snapkit/memory.h"

void sk_profile_options_init(sk_profile_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->nbins = 64;
    opt->weight = SK_WEIGHT_MASS;
}

/* The options that can be checked before any row: bins, range, percentiles, units. */
static int check_options(const sk_profile_options *opt, sk_error *err)
{
    if (opt->nbins < 1 || opt->nbins > SK_BINS_MAX)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "--bins must be 1..%d, not %d", SK_BINS_MAX,
                       opt->nbins);
    if (opt->has_range) {
        sk_bins b;
        int rc = sk_bins_init(&b, opt->nbins, opt->lo, opt->hi, opt->log, "--range", err);
        if (rc != SK_OK)
            return rc;
    }
    if (opt->npercentiles < 0 || opt->npercentiles > SK_PROFILE_MAX_PERCENTILES)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most %d percentiles",
                       SK_PROFILE_MAX_PERCENTILES);
    int rc = sk_wstats_check_percentiles(opt->percentiles, opt->npercentiles, err);
    return rc == SK_OK ? prof_units_check(opt->units, err) : rc;
}

/* v_circ = sqrt(G M(<r) / r) needs the spherical radius as the bin field,
 * binned from 0 (the mass below the range is not counted otherwise). */
static int check_vcirc(const sk_profile_stream *ps, sk_error *err)
{
    for (int c = 1; c <= ps->nq; c++)
        if (ps->vcirc[c] && strcmp(ps->names[0], "r"))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "v_circ (sqrt(G M(<r)/r)) needs --bin r, not --bin %s", ps->names[0]);
    return SK_OK;
}

int sk_profile_stream_new(const char *bin, int nq, const char *const *quantities,
                          const sk_profile_options *opt, sk_profile_stream **out, sk_error *err)
{
    *out = NULL;
    if (!bin || !*bin)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no bin field given");
    if (nq < 0 || nq > SK_PROFILE_MAX_QUANTITIES)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "0 to %d quantities, not %d",
                       SK_PROFILE_MAX_QUANTITIES, nq);
    int rc = check_options(opt, err);
    if (rc != SK_OK)
        return rc;
    sk_profile_stream *ps = sk_calloc(1, sizeof *ps);
    if (!ps)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    ps->opt = *opt;
    ps->nq = nq;
    rc = SK_OK;
    const char *names[SK_PROFILE_MAX_QUANTITIES + 1] = {bin};
    snprintf(ps->names[0], sizeof ps->names[0], "%s", bin);
    for (int i = 0; i < nq; i++) {
        const char *q = quantities[i] ? quantities[i] : "";
        snprintf(ps->names[i + 1], sizeof ps->names[i + 1], "%s", q);
        ps->vcirc[i + 1] = !strcmp(q, "v_circ");
        names[i + 1] = ps->vcirc[i + 1] ? "mass" : q; /* v_circ keeps each row's mass */
    }
    if (rc == SK_OK)
        rc = check_vcirc(ps, err);
    if (rc == SK_OK)
        rc = an_keep_init(&ps->keep, nq + 1, names, 1, opt->weight, err);
    if (rc != SK_OK) {
        sk_profile_stream_free(ps);
        return rc;
    }
    ps->keep.has_range[0] = opt->has_range;
    ps->keep.lo[0] = opt->lo;
    ps->keep.hi[0] = opt->hi;
    *out = ps;
    return SK_OK;
}

void sk_profile_stream_free(sk_profile_stream *ps)
{
    if (!ps)
        return;
    an_keep_free(&ps->keep);
    sk_free(ps);
}

/* The fields' columns and unit factors, from the batches' schema. */
static int stream_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_profile_stream *ps = ctx;
    int rc = an_keep_begin(&ps->keep, nthreads, schema, err);
    sk_units_from_table(&ps->units, schema);
    for (int c = 0; c <= ps->nq && rc == SK_OK; c++) {
        char unit[32];
        prof_unit_of(ps->opt.units, ps->names[c], unit, sizeof unit);
        if (ps->vcirc[c]) /* the mass is kept in code units */
            rc = prof_velocity_factor(unit, &ps->units, &ps->vfactor[c], ps->unit[c], err);
        else
            rc = prof_unit_factor(ps->names[c], unit, &ps->units, ps->opt.mu,
                                  &ps->keep.factor[c], ps->unit[c], err);
    }
    ps->begun = rc == SK_OK;
    return rc;
}

static int stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                        sk_error *err)
{
    (void)info;
    sk_profile_stream *ps = ctx;
#pragma omp atomic
    ps->rows += sk_table_nrows(batch);
    return an_keep_batch(&ps->keep, thread, batch, err);
}

sk_consumer sk_profile_stream_consumer(sk_profile_stream *ps)
{
    return (sk_consumer){.ctx = ps, .begin = stream_begin, .batch = stream_batch};
}

int sk_profile_stream_finish(sk_profile_stream *ps, sk_profile **out, sk_error *err)
{
    *out = NULL;
    if (!ps->begun)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the profile's stream was not begun");
    return prof_result(ps, out, err);
}

int sk_profile_make(const sk_table *table, const char *bin, int nq,
                    const char *const *quantities, const sk_profile_options *opt,
                    sk_profile **out, sk_error *err)
{
    *out = NULL;
    sk_profile_stream *ps;
    int rc = sk_profile_stream_new(bin, nq, quantities, opt, &ps, err);
    if (rc != SK_OK)
        return rc;
    rc = stream_begin(ps, 1, table, err);
    if (rc == SK_OK && sk_table_nrows(table) > 0)
        rc = stream_batch(ps, 0, table, &(sk_batch_info){0}, err);
    if (rc == SK_OK)
        rc = sk_profile_stream_finish(ps, out, err);
    sk_profile_stream_free(ps);
    return rc;
}
