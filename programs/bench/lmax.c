/* The lmax study: a component read at each level cap, from the RAMSES
 * output and from its compact file, and whether the read time follows
 * the bytes allocated or the bytes read. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/source.h"
#include "snapkit/util/clock.h"

int sk_bench_linear_fit(const double *x, const double *y, int n, double *slope,
                        double *intercept, double *r2)
{
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx = n > 0 ? mx / n : 0;
    my = n > 0 ? my / n : 0;
    *slope = 0;
    *intercept = my;
    *r2 = 0;
    /* Sums about the means: bytes near 1e9 against seconds near 1e-3
     * would lose every digit in the raw sums of squares. */
    double sxx = 0, sxy = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (n < 2 || !(sxx > 0))
        return SK_ERR_ARG;
    *slope = sxy / sxx;
    *intercept = my - *slope * mx;
    if (syy > 0) {
        /* Cauchy-Schwarz keeps this in [0, 1]; rounding may not. */
        double r = sxy * sxy / (sxx * syy);
        *r2 = r < 0 ? 0 : r > 1 ? 1 : r;
    }
    return SK_OK;
}

static int is_cell_component(const char *c)
{
    return strcmp(c, "particles") && strcmp(c, "sinks") && strcmp(c, "clumps");
}

typedef struct lmax_ctx {
    const sk_lmax_bench_options *opt;
    const char *component;
    int runs;
    int64_t done, total;
} lmax_ctx;

static void step(lmax_ctx *c)
{
    if (c->opt->progress.fn)
        c->opt->progress.fn(c->opt->progress.ctx, ++c->done, c->total, 0);
}

/* With cold reads asked: drop the path's files from the cache; 1 when
 * they left it (else the reason goes to the bench's note). */
static int drop(sk_source *src, const char *component, sk_lmax_bench *b)
{
    char note[sizeof b->cache_note] = "";
    if (skb_drop_component(src, component, note, sizeof note))
        return 1;
    b->cache_dropped = 0;
    if (!b->cache_note[0])
        snprintf(b->cache_note, sizeof b->cache_note, "%s", note);
    return 0;
}

/* One untimed read (the cache warm, the sizes known; timed as the cold
 * read when its files were dropped first), then the timed ones. */
static int measure(lmax_ctx *c, sk_source *src, const sk_selection *sel, int threads,
                   sk_lmax_bench *b, sk_lmax_path *out, sk_error *err)
{
    double times[256];
    out->cold_seconds = NAN;
    int cold = b->cold && drop(src, c->component, b);
    for (int r = -1; r < c->runs; r++) {
        sk_table *t = NULL;
        sk_read_stats st;
        double t0 = sk_monotonic_seconds();
        int rc = sk_bench_source_read(src, c->component, sel, threads, &t, &st, err);
        double dt = sk_monotonic_seconds() - t0;
        if (rc == SK_OK && r < 0) {
            if (cold)
                out->cold_seconds = dt;
            out->rows = sk_table_nrows(t);
            out->bytes_allocated = st.bytes_allocated;
            out->bytes_read = st.bytes_read;
        }
        sk_table_free(t);
        if (rc != SK_OK)
            return rc;
        if (r >= 0)
            times[r] = dt;
        step(c);
    }
    out->seconds = sk_bench_median(times, c->runs);
    out->seconds_min = times[0]; /* sorted by the median */
    return SK_OK;
}

static void fit_one(const double *x, const double *y, int n, sk_lmax_fit *f)
{
    memset(f, 0, sizeof *f);
    f->ok = sk_bench_linear_fit(x, y, n, &f->slope, &f->intercept, &f->r2) == SK_OK;
    f->gb_per_second = f->ok && f->slope > 0 ? 1e-9 / f->slope : NAN;
}

static void fit_path(const sk_lmax_bench *b, int file, sk_lmax_fits *out)
{
    double alloc[SK_BENCH_MAX_LMAX], read[SK_BENCH_MAX_LMAX], sec[SK_BENCH_MAX_LMAX];
    for (int i = 0; i < b->npoints; i++) {
        const sk_lmax_path *p = file ? &b->points[i].file : &b->points[i].ramses;
        alloc[i] = (double)p->bytes_allocated;
        read[i] = (double)p->bytes_read;
        sec[i] = p->seconds;
    }
    fit_one(alloc, sec, b->npoints, &out->allocated);
    fit_one(read, sec, b->npoints, &out->read);
    if (!out->allocated.ok && !out->read.ok)
        out->explains = "";
    else if (!out->read.ok || (out->allocated.ok && out->allocated.r2 >= out->read.r2))
        out->explains = "allocated";
    else
        out->explains = "read";
}

void sk_lmax_derive(sk_lmax_bench *b)
{
    int file = b->file[0] != 0;
    for (int i = 0; i < b->npoints; i++) {
        sk_lmax_point *p = &b->points[i];
        p->time_ratio = file && p->file.seconds > 0 ? p->ramses.seconds / p->file.seconds : NAN;
        p->alloc_ratio = file && p->file.bytes_allocated > 0
                             ? (double)p->ramses.bytes_allocated / (double)p->file.bytes_allocated
                             : NAN;
    }
    fit_path(b, 0, &b->fit_ramses);
    if (file)
        fit_path(b, 1, &b->fit_file);
    else
        memset(&b->fit_file, 0, sizeof b->fit_file);
}

/* Whether the file's table holds refined cells, without which its lmax
 * reads drop the finer leaves instead of returning their parents. */
static int file_exact(const sk_source *f, const char *component, int *exact,
                      sk_error *err)
{
    sk_store_file_info fi;
    sk_store_get_file_info(sk_source_store(f), &fi);
    for (int i = 0; i < fi.ntables; i++) {
        sk_store_table_info ti;
        if (sk_store_get_table_info(sk_source_store(f), i, &ti, NULL) == SK_OK &&
            strcmp(ti.name, component) == 0) {
            *exact = ti.has_refined;
            return SK_OK;
        }
    }
    return sk_fail(err, SK_ERR_ARG, sk_source_path(f), -1, "the file holds no %s table", component);
}

static int open_file(const sk_lmax_bench_options *opt, const char *component,
                     sk_source **file, sk_lmax_bench *out, sk_error *err)
{
    *file = NULL;
    if (!opt->file)
        return SK_OK;
    int rc = sk_source_open(file, opt->file, err);
    if (rc == SK_OK && sk_source_kind(*file) != SK_SOURCE_SNAPKIT)
        rc = sk_fail(err, SK_ERR_ARG, opt->file, -1, "not a .snapkit file");
    if (rc == SK_OK)
        rc = file_exact(*file, component, &out->file_exact, err);
    if (rc == SK_OK) {
        snprintf(out->file, sizeof out->file, "%s", opt->file);
        return SK_OK;
    }
    sk_source_close(*file);
    *file = NULL;
    return rc;
}

static int check_source(const sk_source *src, const char *component, sk_error *err)
{
    if (!sk_source_ramses(src))
        return sk_fail(err, SK_ERR_ARG, sk_source_path(src), -1,
                       "bench lmax needs the RAMSES output (its compact file goes with --file)");
    if (!is_cell_component(component))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "lmax caps cells: %s is not a cell component",
                       component);
    if (!sk_ramses_has_component(sk_source_ramses(src), component))
        return sk_fail(err, SK_ERR_ARG, sk_source_path(src), -1, "no %s component to read", component);
    return SK_OK;
}

static int plan(const sk_source *src, const sk_selection *sel,
                const sk_lmax_bench_options *opt, sk_lmax_bench *out, sk_error *err)
{
    const sk_ramses_info *in = sk_ramses_get_info(sk_source_ramses(src));
    out->levelmin = in->levelmin > 0 ? in->levelmin : 1;
    out->levelmax = sel->lmax > 0 && sel->lmax < in->levelmax ? sel->lmax : in->levelmax;
    if (out->levelmax < out->levelmin)
        return sk_fail(err, SK_ERR_ARG, sk_source_path(src), -1, "lmax %d is below levelmin %d",
                       out->levelmax, out->levelmin);
    out->npoints = out->levelmax - out->levelmin + 1;
    if (out->npoints < 1 || out->npoints > SK_BENCH_MAX_LMAX)
        return sk_fail(err, SK_ERR_RANGE, sk_source_path(src), -1, "levelmin %d, levelmax %d: not 1 to %d levels",
                       out->levelmin, out->levelmax, SK_BENCH_MAX_LMAX);
    out->runs = opt->runs > 0 ? opt->runs : 3;
    if (out->runs > 256)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most 256 runs, not %d", out->runs);
    sk_thread_budget b;
    out->threads = sk_thread_budget_get(opt->threads, &b);
    return SK_OK;
}

int sk_bench_lmax(sk_source *src, const sk_selection *sel,
                  const sk_lmax_bench_options *opt, sk_lmax_bench *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    const char *component = opt->component ? opt->component : "hydro";
    snprintf(out->component, sizeof out->component, "%s", component);
    int rc = check_source(src, component, err);
    if (rc == SK_OK)
        rc = plan(src, sel, opt, out, err);
    sk_source *file = NULL;
    if (rc == SK_OK)
        rc = open_file(opt, component, &file, out, err);
    if (rc != SK_OK)
        return rc;
    lmax_ctx c = {.opt = opt, .component = component, .runs = out->runs};
    out->cold = opt->cold != 0;
    out->cache_dropped = out->cold; /* until a drop fails */
    c.total = (int64_t)out->npoints * (out->runs + 1) * (file ? 2 : 1);
    sk_selection capped = *sel;
    for (int i = 0; i < out->npoints && rc == SK_OK; i++) {
        sk_lmax_point *p = &out->points[i];
        p->lmax = out->levelmin + i;
        capped.lmax = p->lmax;
        rc = measure(&c, src, &capped, out->threads, out, &p->ramses, err);
        if (rc == SK_OK && file)
            rc = measure(&c, file, &capped, out->threads, out, &p->file, err);
    }
    sk_source_close(file);
    if (rc == SK_OK)
        sk_lmax_derive(out);
    return rc;
}
