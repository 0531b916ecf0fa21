/* `snapkit bench clumps`: the clump finders, the boundedness methods and
 * the statistics on one cell table read once (see bench/clumps.h). */
#include "bench/clumps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/format.h"
#include "bench/source.h"
#include "snapkit/util/text.h"
#include "snapkit/memory.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One sk_clumps_find; *cat is kept for the caller when cat is not NULL. */
static int find_once(const sk_table *t, const sk_clumps_options *o, double *seconds,
                     sk_table **cat, sk_error *err)
{
    sk_table *c = NULL;
    double t0 = now();
    int rc = sk_clumps_find(t, o, &c, NULL, err);
    *seconds = now() - t0;
    if (cat && rc == SK_OK)
        *cat = c;
    else
        sk_table_free(c);
    return rc;
}

/* Finders f0 .. f1 - 1 of faces, watershed, fof, dendrogram. */
static int run_finders(const sk_table *t, const sk_clumps_bench_options *opt, int runs, int f0,
                       int f1, sk_clumps_bench *out, sk_error *err)
{
    static const int finders[] = {SK_CLUMPS_FACES, SK_CLUMPS_WATERSHED, SK_CLUMPS_FOF,
                                  SK_CLUMPS_DENDROGRAM};
    for (int f = f0; f < f1; f++) {
        sk_clumps_options o = opt->find;
        o.finder = finders[f];
        o.bound = SK_CLUMPS_BOUND_APPROX;
        double sec[256];
        sk_clumps_bench_finder *r = &out->finders[f];
        snprintf(r->name, sizeof r->name, "%s", sk_clumps_finder_name(o.finder));
        /* The first search maps its arrays' pages (the block cache keeps them
         * for the next): reported apart, not in the median. */
        int rc = find_once(t, &o, &r->first_seconds, NULL, err);
        if (rc != SK_OK)
            return rc;
        double fastest = INFINITY;
        for (int k = 0; k < runs; k++) {
            sk_table *cat = NULL;
            rc = find_once(t, &o, &sec[k], &cat, err);
            if (rc != SK_OK)
                return rc;
            r->clumps = sk_table_nrows(cat);
            out->cells_above = (int64_t)sk_table_meta_double(cat, "clumps.cells_above", 0);
            if (sec[k] < fastest) {
                fastest = sec[k];
                r->find_seconds = sk_table_meta_double(cat, "timing.find_seconds", 0);
                r->statistics_seconds = sk_table_meta_double(cat, "timing.statistics_seconds", 0);
            }
            sk_table_free(cat);
            if (opt->progress.fn)
                opt->progress.fn(opt->progress.ctx, f * runs + k + 1, 4 * runs, 0);
        }
        r->seconds = median(sec, runs);
        out->nfinders = f + 1;
    }
    return SK_OK;
}

static int64_t largest_clump(const sk_table *cat)
{
    const sk_column *n = sk_table_find(cat, "n_cells");
    int64_t most = 0;
    for (int64_t i = 0; n && i < sk_table_nrows(cat); i++)
        most = (int64_t)sk_column_get_double(n, i) > most ? (int64_t)sk_column_get_double(n, i)
                                                          : most;
    return most;
}

/* approx, direct (unless a clump is too large) and tree on the faces
 * clumps at the bound threshold; one run each, the e_grav time alone. */
static int run_bounds(const sk_table *t, const sk_clumps_bench_options *opt,
                      sk_clumps_bench *out, sk_error *err)
{
    sk_table *cat[3] = {NULL, NULL, NULL};
    int64_t most = opt->direct_max > 0 ? opt->direct_max : 150000;
    int rc = SK_OK;
    for (int m = 0; m < 3 && rc == SK_OK; m++) {
        sk_clumps_options o = opt->find;
        o.finder = SK_CLUMPS_FACES;
        o.threshold = out->bound_threshold;
        o.bound = m;
        sk_clumps_bench_bound *b = &out->bounds[m];
        snprintf(b->name, sizeof b->name, "%s", sk_clumps_bound_name(m));
        b->max_rel_error = NAN;
        if (m == SK_CLUMPS_BOUND_DIRECT && out->bound_largest > most)
            continue;
        double sec;
        rc = find_once(t, &o, &sec, &cat[m], err);
        if (rc != SK_OK)
            break;
        b->ran = 1;
        b->seconds = sk_table_meta_double(cat[m], "timing.gravity_seconds", 0);
        if (m == SK_CLUMPS_BOUND_APPROX) {
            out->bound_clumps = sk_table_nrows(cat[m]);
            out->bound_cells = (int64_t)sk_table_meta_double(cat[m], "clumps.cells_above", 0);
            out->bound_largest = largest_clump(cat[m]);
        }
    }
    out->direct_over_tree = NAN;
    if (rc == SK_OK && cat[1] && cat[2]) {
        const sk_column *d = sk_table_find(cat[1], "e_grav"), *tr = sk_table_find(cat[2], "e_grav");
        double worst = 0;
        for (int64_t i = 0; i < sk_table_nrows(cat[1]); i++) {
            double a = sk_column_get_double(d, i), b = sk_column_get_double(tr, i);
            if (a != 0 && fabs(b - a) / fabs(a) > worst)
                worst = fabs(b - a) / fabs(a);
        }
        out->bounds[2].max_rel_error = worst;
        if (out->bounds[2].seconds > 0)
            out->direct_over_tree = out->bounds[1].seconds / out->bounds[2].seconds;
    }
    for (int m = 0; m < 3; m++)
        sk_table_free(cat[m]);
    return rc;
}

typedef struct sweep_ctx {
    const sk_table *t;
    sk_clumps_options o;
    int statistics; /* 1: report the statistics phase alone */
} sweep_ctx;

static int sweep_once(void *p, int threads, double *seconds, int64_t *peak, sk_error *err)
{
    sweep_ctx *c = p;
    c->o.threads = threads;
    sk_table *cat = NULL;
    (void)peak;
    int rc = find_once(c->t, &c->o, seconds, &cat, err);
    if (rc == SK_OK && c->statistics)
        *seconds = sk_table_meta_double(cat, "timing.statistics_seconds", 0);
    sk_table_free(cat);
    return rc;
}

static int run_scaling(const sk_table *t, const sk_clumps_bench_options *opt, int runs,
                       sk_clumps_bench *out, sk_error *err)
{
    sk_sweep_options so = {.nlevels = opt->nlevels, .runs = runs, .warmup = 1};
    memcpy(so.levels, opt->levels, sizeof so.levels);
    sweep_ctx c = {.t = t, .o = opt->find};
    c.o.finder = SK_CLUMPS_FACES;
    c.o.bound = SK_CLUMPS_BOUND_APPROX;
    int rc = sk_bench_sweep(&so, sweep_once, &c, &out->faces, NULL, err);
    c.statistics = 1;
    return rc == SK_OK ? sk_bench_sweep(&so, sweep_once, &c, &out->statistics, NULL, err) : rc;
}

static int read_cells(sk_source *src, const sk_selection *sel, int runs, sk_table **t,
                      double *seconds, sk_error *err)
{
    double sec[256];
    *t = NULL;
    for (int k = 0; k < runs; k++) {
        sk_table_free(*t);
        *t = NULL;
        double t0 = now();
        int rc = sk_bench_source_read(src, "hydro", sel, 0, t, NULL, err);
        sec[k] = now() - t0;
        if (rc != SK_OK)
            return rc;
    }
    *seconds = median(sec, runs);
    return SK_OK;
}

int sk_bench_clumps(sk_source *src, const sk_selection *sel,
                    const sk_clumps_bench_options *opt, sk_clumps_bench *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    int runs = opt->runs > 0 ? (opt->runs < 256 ? opt->runs : 255) : 3;
    snprintf(out->source, sizeof out->source, "%s", sk_source_path(src));
    out->runs = runs;
    out->threshold = opt->find.threshold;
    out->bound_threshold = isnan(opt->bound_threshold) ? opt->find.threshold : opt->bound_threshold;
    sk_thread_budget budget;
    out->threads = sk_thread_budget_get(opt->find.threads, &budget);
    sk_table *t = NULL;
    int rc = read_cells(src, sel, runs, &t, &out->read_seconds, err);
    /* faces, then its sweeps, then the other finders and the boundedness:
     * their large blocks fill the block cache's slots, after which every
     * search maps fresh pages (about 2x slower: the finders' "first run")
     * and the sweep would time cold searches against the finders' warm
     * ones. */
    if (rc == SK_OK) {
        out->cells = sk_table_nrows(t);
        rc = run_finders(t, opt, runs, 0, 1, out, err);
    }
    if (rc == SK_OK)
        rc = run_scaling(t, opt, runs, out, err);
    if (rc == SK_OK)
        rc = run_finders(t, opt, runs, 1, 4, out, err);
    if (rc == SK_OK)
        rc = run_bounds(t, opt, out, err);
    if (rc == SK_OK && out->read_seconds > 0)
        out->faces_over_read = out->finders[0].seconds / out->read_seconds;
    sk_table_free(t);
    return rc;
}

static void json_number(sk_json *j, const char *key, double v)
{
    sk_json_key(j, key);
    if (isfinite(v))
        sk_json_double(j, v);
    else
        sk_json_null(j);
}

void sk_clumps_bench_json(const sk_clumps_bench *b, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_string(j, "source", b->source);
    sk_json_kv_int(j, "threads", b->threads);
    sk_json_kv_int(j, "runs", b->runs);
    sk_json_kv_double(j, "threshold", b->threshold);
    sk_json_kv_int(j, "cells", b->cells);
    sk_json_kv_int(j, "cells_above", b->cells_above);
    sk_json_kv_double(j, "read_seconds", b->read_seconds);
    sk_json_key(j, "finders");
    sk_json_array_begin(j);
    for (int f = 0; f < b->nfinders; f++) {
        const sk_clumps_bench_finder *r = &b->finders[f];
        sk_json_object_begin(j);
        sk_json_kv_string(j, "finder", r->name);
        sk_json_kv_int(j, "clumps", r->clumps);
        sk_json_kv_double(j, "seconds", r->seconds);
        sk_json_kv_double(j, "first_seconds", r->first_seconds);
        sk_json_kv_double(j, "find_seconds", r->find_seconds);
        sk_json_kv_double(j, "statistics_seconds", r->statistics_seconds);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_key(j, "bound");
    sk_json_object_begin(j);
    sk_json_kv_double(j, "threshold", b->bound_threshold);
    sk_json_kv_int(j, "cells_above", b->bound_cells);
    sk_json_kv_int(j, "clumps", b->bound_clumps);
    sk_json_kv_int(j, "largest_clump", b->bound_largest);
    sk_json_key(j, "methods");
    sk_json_array_begin(j);
    for (int m = 0; m < 3; m++) {
        const sk_clumps_bench_bound *r = &b->bounds[m];
        sk_json_object_begin(j);
        sk_json_kv_string(j, "method", r->name);
        sk_json_key(j, "ran");
        sk_json_bool(j, r->ran);
        json_number(j, "seconds", r->ran ? r->seconds : NAN);
        json_number(j, "max_rel_error_vs_direct", r->max_rel_error);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_object_end(j);
    sk_json_key(j, "scaling");
    sk_json_object_begin(j);
    sk_json_key(j, "faces_and_statistics");
    sk_scaling_json(&b->faces, j);
    sk_json_key(j, "statistics");
    sk_scaling_json(&b->statistics, j);
    sk_json_object_end(j);
    sk_json_key(j, "targets");
    sk_json_object_begin(j);
    json_number(j, "faces_over_read", b->faces_over_read);
    sk_json_key(j, "faces_faster_than_read");
    sk_json_bool(j, b->faces_over_read > 0 && b->faces_over_read < 1);
    json_number(j, "direct_over_tree", b->direct_over_tree);
    sk_json_key(j, "tree_20x_faster");
    if (isfinite(b->direct_over_tree))
        sk_json_bool(j, b->direct_over_tree >= 20);
    else
        sk_json_null(j);
    sk_json_object_end(j);
    sk_json_object_end(j);
}

static void scaling_text(sk_text *t, const sk_scaling *s, const char *what)
{
    char *part = sk_scaling_text(s, what);
    if (!part) {
        t->failed = 1;
        return;
    }
    sk_text_puts(t, part);
    sk_free(part);
}

char *sk_clumps_bench_text(const sk_clumps_bench *b)
{
    sk_text t = {0};
    char s1[32], s2[32], s3[32], s4[32];
    sk_text_printf(&t, "clumps: %s\n%lld cells, %lld at or above %g (code units); %d threads, "
                   "median of %d runs\n\nread the cells: %s\n\n",
                   b->source, (long long)b->cells, (long long)b->cells_above, b->threshold,
                   b->threads, b->runs, skb_seconds(b->read_seconds, s1, sizeof s1));
    sk_text_printf(&t, "%-11s %8s %10s %10s %10s %10s\n", "finder", "clumps", "total", "find",
                   "statistics", "first run");
    for (int f = 0; f < b->nfinders; f++) {
        const sk_clumps_bench_finder *r = &b->finders[f];
        sk_text_printf(&t, "%-11s %8lld %10s %10s %10s %10s\n", r->name, (long long)r->clumps,
                       skb_seconds(r->seconds, s1, sizeof s1),
                       skb_seconds(r->find_seconds, s2, sizeof s2),
                       skb_seconds(r->statistics_seconds, s3, sizeof s3),
                       skb_seconds(r->first_seconds, s4, sizeof s4));
    }
    sk_text_puts(&t, "(total: median of the runs after the first; find and statistics: of the "
                     "fastest run; first run: fresh pages, not in the median)\n");
    sk_text_printf(&t, "\nboundedness (faces at %g: %lld clumps, %lld cells, the largest %lld), "
                   "e_grav alone, one run:\n", b->bound_threshold, (long long)b->bound_clumps,
                   (long long)b->bound_cells, (long long)b->bound_largest);
    for (int m = 0; m < 3; m++) {
        const sk_clumps_bench_bound *r = &b->bounds[m];
        if (!r->ran)
            sk_text_printf(&t, "  %-7s skipped (a clump above the --direct-max cells)\n", r->name);
        else if (isfinite(r->max_rel_error))
            sk_text_printf(&t, "  %-7s %10s   largest error against direct %.3g%%\n", r->name,
                           skb_seconds(r->seconds, s1, sizeof s1), 100 * r->max_rel_error);
        else
            sk_text_printf(&t, "  %-7s %10s\n", r->name, skb_seconds(r->seconds, s1, sizeof s1));
    }
    sk_text_puts(&t, "\n");
    scaling_text(&t, &b->faces, "faces + statistics");
    sk_text_puts(&t, "\n");
    scaling_text(&t, &b->statistics, "statistics alone");
    sk_text_printf(&t, "\ntargets: faces + statistics / reading the cells = %.2f (%s)\n",
                   b->faces_over_read, b->faces_over_read < 1 ? "faster: met" : "slower: not met");
    if (isfinite(b->direct_over_tree))
        sk_text_printf(&t, "         direct / tree = %.1fx (%s)\n", b->direct_over_tree,
                       b->direct_over_tree >= 20 ? "at least 20x: met" : "below 20x: not met");
    else
        sk_text_puts(&t, "         direct / tree: direct not run\n");
    return sk_text_take(&t);
}
