/* Profiles, the result: the range (given, or the kept extrema widened by
 * sk_bins_pad), each kept row's bin, then per quantity its (value, weight)
 * pairs grouped by bin and each bin's weighted statistics (core/wpairs.h,
 * exact sums), bins spread over the threads. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "analysis/profile_internal.h"
#include "core/wpairs.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

#define PROF_G_CGS 6.67430e-8 /* cm^3 g^-1 s^-2, CODATA 2018 */

static int nomem(sk_error *err)
{
    return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the profile");
}

/* The bins: the range given, else the extrema of the bin values kept. */
static int make_bins(const sk_profile_stream *ps, sk_bins *b, sk_error *err)
{
    const sk_profile_options *o = &ps->opt;
    if (o->has_range)
        return sk_bins_init(b, o->nbins, o->lo, o->hi, o->log, "--range", err);
    double lo, hi, lo_pos;
    int any = an_keep_extrema(&ps->keep, 0, &lo, &hi, &lo_pos);
    if (!any)
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1, "no row has a value of '%s' to bin",
                       ps->keep.names[0]);
    if (o->log && !(hi > 0))
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1,
                       "log bins need positive values of '%s', and it has none (%.17g .. %.17g)",
                       ps->keep.names[0], lo, hi);
    if (o->log)
        lo = lo_pos;
    sk_bins_pad(&lo, &hi);
    return sk_bins_init(b, o->nbins, lo, hi, o->log, "the range of the bin field", err);
}

static int alloc_profile(sk_profile *p, int nq, int np)
{
    size_t n = (size_t)p->bins.n;
    p->edges = sk_malloc(sizeof *p->edges * (n + 1));
    p->count = sk_calloc(n, sizeof *p->count);
    p->cum_count = sk_calloc(n, sizeof *p->cum_count);
    p->weight = sk_calloc(n, sizeof *p->weight);
    p->cum_weight = sk_calloc(n, sizeof *p->cum_weight);
    p->stat = sk_calloc(n * 5 * (size_t)(nq ? nq : 1), sizeof *p->stat);
    p->pct = sk_calloc(n * (size_t)(np ? np : 1) * (size_t)(nq ? nq : 1), sizeof *p->pct);
    return p->edges && p->count && p->cum_count && p->weight && p->cum_weight && p->stat &&
           p->pct;
}

/* Every kept row's bin (-1 outside), parts one after the other. */
static int32_t *row_bins(const an_keep *k, const sk_bins *b, int64_t rows)
{
    int32_t *bin = sk_malloc(sizeof *bin * (size_t)(rows ? rows : 1));
    if (!bin)
        return NULL;
    int64_t at = 0;
    for (int t = 0; t < k->nparts; t++)
        for (int64_t j = 0; j < k->parts[t].rows.nblocks; j++) {
            const an_colblock *blk = &k->parts[t].rows.blocks[j];
            const double *x = an_keep_values(blk, 0);
            for (int64_t i = 0; i < blk->n; i++)
                bin[at++] = sk_bins_index(b, x[i]);
        }
    return bin;
}

/* Column c's pairs (NaN values left out) grouped by bin: bin j's at
 * pairs[off[j] .. off[j + 1]). */
static void group_pairs(const an_keep *k, int c, int masses, const int32_t *bin, int nbins,
                        int64_t *off, int64_t *fill, ws_pair *pairs)
{
    memset(off, 0, sizeof *off * (size_t)(nbins + 1));
    int64_t at = 0;
    for (int t = 0; t < k->nparts; t++)
        for (int64_t j = 0; j < k->parts[t].rows.nblocks; j++) {
            const an_colblock *blk = &k->parts[t].rows.blocks[j];
            const double *v = an_keep_values(blk, c);
            for (int64_t i = 0; i < blk->n; i++, at++)
                if (bin[at] >= 0 && v[i] == v[i])
                    off[bin[at] + 1]++;
        }
    for (int j = 0; j < nbins; j++)
        off[j + 1] += off[j];
    memcpy(fill, off, sizeof *fill * (size_t)nbins);
    at = 0;
    for (int t = 0; t < k->nparts; t++)
        for (int64_t j = 0; j < k->parts[t].rows.nblocks; j++) {
            const an_colblock *blk = &k->parts[t].rows.blocks[j];
            const double *v = an_keep_values(blk, c);
            for (int64_t i = 0; i < blk->n; i++, at++)
                if (bin[at] >= 0 && v[i] == v[i])
                    pairs[fill[bin[at]]++] = masses ? (ws_pair){1.0, v[i]}
                                                    : (ws_pair){v[i], an_keep_weights(blk)[i]};
        }
}

/* Where a column's statistics go: mean, std, sum, the weight sums, and
 * the percentiles (np blocks of nbins). */
typedef struct col_out {
    double *mean, *std, *sum, *wsum, *pct;
    int higher;               /* 1: the std too (ws_moments) */
} col_out;

typedef struct pct_order {
    int np;
    const double *p;
    int order[SK_PROFILE_MAX_PERCENTILES];
} pct_order;

static void pct_order_init(pct_order *o, const double *p, int np)
{
    o->np = np;
    o->p = p;
    for (int q = 0; q < np; q++) { /* insertion sort: a handful */
        int k = q;
        for (; k > 0 && p[o->order[k - 1]] > p[q]; k--)
            o->order[k] = o->order[k - 1];
        o->order[k] = q;
    }
}

/* Bin j's statistics from its n pairs; tmp and count: sort scratch (NULL
 * without percentiles). */
static void bin_stats(ws_pair *pairs, int64_t n, int j, int nbins, const pct_order *po,
                      ws_pair *tmp, int64_t (*count)[WS_RADIX], const col_out *o)
{
    sk_wstats_column c;
    xs_acc wsum;
    double s = 0;
    ws_moments(pairs, n, o->higher, &c, &wsum, &s);
    o->mean[j] = c.mean;
    o->std[j] = c.std;
    o->sum[j] = n ? s : 0.0;
    o->wsum[j] = c.weight_sum;
    if (!po->np)
        return;
    double q[SK_PROFILE_MAX_PERCENTILES];
    for (int k = 0; k < po->np; k++)
        q[k] = NAN;
    if (c.weight_sum > 0) {
        ws_sort_pairs(pairs, tmp, n, count);
        ws_quantiles(pairs, n, &wsum, po->p, po->order, po->np, q);
    }
    for (int k = 0; k < po->np; k++)
        o->pct[(size_t)k * (size_t)nbins + (size_t)j] = q[k];
}

/* Every bin's statistics, bins spread over the threads; 0 when out of memory. */
static int all_bins(ws_pair *pairs, const int64_t *off, int nbins, const pct_order *po,
                    const col_out *o)
{
    int64_t largest = 0;
    for (int j = 0; j < nbins; j++)
        largest = off[j + 1] - off[j] > largest ? off[j + 1] - off[j] : largest;
    sk_thread_budget tb;
    int nthreads = sk_thread_budget_get(0, &tb), ok = 1;
    nthreads = nthreads < nbins ? nthreads : nbins;
#pragma omp parallel num_threads(nthreads)
    {
        ws_pair *tmp = po->np ? sk_malloc(sizeof *tmp * (size_t)(largest + 1)) : NULL;
        int64_t(*count)[WS_RADIX] = po->np ? sk_malloc(sizeof *count * WS_RADIX_PASSES) : NULL;
        int mine = !po->np || (tmp && count);
        if (!mine) {
#pragma omp atomic write
            ok = 0;
        }
#pragma omp for schedule(dynamic, 4)
        for (int j = 0; j < nbins; j++)
            if (mine)
                bin_stats(pairs + off[j], off[j + 1] - off[j], j, nbins, po, tmp, count, o);
        sk_free(tmp);
        sk_free(count);
    }
    return ok;
}

/* Running sums from the first bin: counts, weights, each quantity's sum
 * and mean. */
static void cumulate(const sk_profile_stream *ps, sk_profile *p, const double *wq)
{
    int n = p->bins.n;
    int64_t c = 0;
    double w = 0;
    for (int j = 0; j < n; j++) {
        p->cum_count[j] = c += p->count[j];
        p->cum_weight[j] = w += p->weight[j];
    }
    for (int i = 0; i < p->nq; i++) {
        double *s = p->stat + (size_t)i * 5 * (size_t)n;
        const double *wi = wq + (size_t)i * (size_t)n;
        double cs = 0, cw = 0;
        for (int j = 0; j < n; j++) {
            s[SK_PROFILE_CUM_SUM * n + j] = cs += s[SK_PROFILE_SUM * n + j];
            cw += wi[j];
            s[SK_PROFILE_CUM_MEAN * n + j] = cw > 0 && !ps->vcirc[i + 1] ? cs / cw : NAN;
        }
    }
}

/* v_circ = sqrt(G M(<r) / r) at each bin's upper edge, from the masses in
 * the bins (wq: each bin's, summed exactly): sum the bin's mass, cum_sum
 * the mass enclosed (code units), mean the velocity, std NaN. */
static void vcirc(const sk_profile_stream *ps, sk_profile *p, int c, const double *wq)
{
    int n = p->bins.n;
    double *s = p->stat + (size_t)(c - 1) * 5 * (size_t)n, m = 0;
    const sk_units *u = &ps->units;
    double r_cm = u->unit_l / ps->keep.factor[0]; /* cm per unit of the edges */
    for (int j = 0; j < n; j++) {
        m += wq[j];
        s[SK_PROFILE_SUM * n + j] = wq[j];
        s[SK_PROFILE_CUM_SUM * n + j] = m;
        double r = p->edges[j + 1] * r_cm;
        s[SK_PROFILE_MEAN * n + j] = sqrt(PROF_G_CGS * m * u->unit_m / r) * ps->vfactor[c];
        s[SK_PROFILE_STD * n + j] = NAN;
        for (int k = 0; k < p->opt.npercentiles; k++)
            p->pct[((size_t)(c - 1) * (size_t)p->opt.npercentiles + (size_t)k) * (size_t)n +
                   (size_t)j] = NAN;
    }
}

/* Column c's statistics (c = 0: the bin field, for the counts and the
 * weights; else quantity c - 1). */
static int column(const sk_profile_stream *ps, sk_profile *p, int c, const int32_t *bin,
                  ws_pair *pairs, int64_t *off, int64_t *fill, double *wq)
{
    int n = p->bins.n;
    group_pairs(&ps->keep, c, ps->vcirc[c], bin, n, off, fill, pairs);
    pct_order po;
    pct_order_init(&po, p->opt.percentiles, c ? p->opt.npercentiles : 0);
    double *scratch = NULL;
    col_out o;
    if (c == 0) {
        scratch = sk_malloc(sizeof *scratch * 3 * (size_t)n);
        if (!scratch)
            return 0;
        o = (col_out){scratch, scratch + n, scratch + 2 * n, p->weight, NULL, 0};
    } else {
        double *s = p->stat + (size_t)(c - 1) * 5 * (size_t)n;
        o = (col_out){s, s + n, s + 2 * n, wq + (size_t)(c - 1) * (size_t)n,
                      p->pct + (size_t)(c - 1) * (size_t)p->opt.npercentiles * (size_t)n, 1};
    }
    if (ps->vcirc[c])
        po.np = 0;
    int ok = all_bins(pairs, off, n, &po, &o);
    for (int j = 0; c == 0 && j < n; j++)
        p->count[j] = off[j + 1] - off[j];
    if (ok && ps->vcirc[c])
        vcirc(ps, p, c, o.wsum);
    sk_free(scratch);
    return ok;
}

static int fill_profile(const sk_profile_stream *ps, sk_profile *p, sk_error *err)
{
    int64_t rows = an_keep_rows(&ps->keep);
    int n = p->bins.n;
    int32_t *bin = row_bins(&ps->keep, &p->bins, rows);
    ws_pair *pairs = sk_malloc(sizeof *pairs * (size_t)(rows ? rows : 1));
    int64_t *off = sk_malloc(sizeof *off * (size_t)(n + 1));
    int64_t *fill = sk_malloc(sizeof *fill * (size_t)n);
    double *wq = sk_calloc((size_t)n * (size_t)(p->nq ? p->nq : 1), sizeof *wq);
    int ok = bin && pairs && off && fill && wq;
    for (int c = 0; ok && c <= p->nq; c++)
        ok = column(ps, p, c, bin, pairs, off, fill, wq);
    if (ok) {
        p->binned = 0;
        for (int j = 0; j < n; j++)
            p->binned += p->count[j];
        cumulate(ps, p, wq);
    }
    sk_free(bin);
    sk_free(pairs);
    sk_free(off);
    sk_free(fill);
    sk_free(wq);
    return ok ? SK_OK : nomem(err);
}

int prof_result(const sk_profile_stream *ps, sk_profile **out, sk_error *err)
{
    *out = NULL;
    sk_profile *p = sk_calloc(1, sizeof *p);
    if (!p)
        return nomem(err);
    p->opt = ps->opt;
    p->nq = ps->nq;
    p->rows = ps->rows;
    for (int c = 0; c <= ps->nq; c++) {
        snprintf(p->names[c], sizeof p->names[c], "%s", ps->names[c]);
        snprintf(p->unit[c], sizeof p->unit[c], "%s", ps->unit[c]);
    }
    int rc = make_bins(ps, &p->bins, err);
    if (rc == SK_OK && !alloc_profile(p, p->nq, p->opt.npercentiles))
        rc = nomem(err);
    for (int i = 0; rc == SK_OK && i <= p->bins.n; i++)
        p->edges[i] = sk_bins_edge(&p->bins, i);
    if (rc == SK_OK)
        rc = fill_profile(ps, p, err);
    if (rc != SK_OK) {
        sk_profile_free(p);
        return rc;
    }
    *out = p;
    return SK_OK;
}

void sk_profile_free(sk_profile *p)
{
    if (!p)
        return;
    sk_free(p->edges);
    sk_free(p->count);
    sk_free(p->cum_count);
    sk_free(p->weight);
    sk_free(p->cum_weight);
    sk_free(p->stat);
    sk_free(p->pct);
    sk_free(p);
}

int sk_profile_nbins(const sk_profile *p) { return p->bins.n; }
const sk_bins *sk_profile_bins(const sk_profile *p) { return &p->bins; }
const double *sk_profile_edges(const sk_profile *p) { return p->edges; }
const char *sk_profile_bin_name(const sk_profile *p) { return p->names[0]; }
const char *sk_profile_bin_unit(const sk_profile *p) { return p->unit[0]; }
sk_weight sk_profile_weight(const sk_profile *p) { return p->opt.weight; }
const int64_t *sk_profile_counts(const sk_profile *p) { return p->count; }
const double *sk_profile_weights(const sk_profile *p) { return p->weight; }
const int64_t *sk_profile_cum_counts(const sk_profile *p) { return p->cum_count; }
const double *sk_profile_cum_weights(const sk_profile *p) { return p->cum_weight; }
int sk_profile_nquantities(const sk_profile *p) { return p->nq; }
int64_t sk_profile_rows(const sk_profile *p) { return p->rows; }
int64_t sk_profile_binned(const sk_profile *p) { return p->binned; }
int sk_profile_npercentiles(const sk_profile *p) { return p->opt.npercentiles; }

const char *sk_profile_quantity(const sk_profile *p, int i)
{
    return i >= 0 && i < p->nq ? p->names[i + 1] : NULL;
}

const char *sk_profile_unit(const sk_profile *p, int i)
{
    return i >= 0 && i < p->nq ? p->unit[i + 1] : NULL;
}

double sk_profile_percentile_at(const sk_profile *p, int k)
{
    return k >= 0 && k < p->opt.npercentiles ? p->opt.percentiles[k] : NAN;
}

const double *sk_profile_values(const sk_profile *p, int i, sk_profile_stat stat)
{
    if (i < 0 || i >= p->nq || (int)stat < 0 || (int)stat > SK_PROFILE_CUM_MEAN)
        return NULL;
    return p->stat + ((size_t)i * 5 + (size_t)stat) * (size_t)p->bins.n;
}

const double *sk_profile_percentiles(const sk_profile *p, int i, int k)
{
    if (i < 0 || i >= p->nq || k < 0 || k >= p->opt.npercentiles)
        return NULL;
    return p->pct + ((size_t)i * (size_t)p->opt.npercentiles + (size_t)k) * (size_t)p->bins.n;
}
