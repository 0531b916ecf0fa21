/* The clumps stage in `bench report`: its CSV rows, its figure panel and
 * its reading back from report.json (the text and the JSON object are
 * sk_clumps_bench_text and sk_clumps_bench_json, in clumps.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/clumps.h"
#include "bench/report_load.h"
#include "bench/report_parts.h"
#include "figure/plot.h"

void skb_clumps_csv(sk_text *b, const sk_clumps_bench *c)
{
    skb_csv_row(b, "clumps", "read cells", c->threads, "seconds", c->read_seconds, "s");
    for (int f = 0; f < c->nfinders; f++) {
        const sk_clumps_bench_finder *r = &c->finders[f];
        skb_csv_row(b, "clumps", r->name, c->threads, "clumps", (double)r->clumps, "count");
        skb_csv_row(b, "clumps", r->name, c->threads, "seconds", r->seconds, "s");
        skb_csv_row(b, "clumps", r->name, c->threads, "first_seconds", r->first_seconds, "s");
        skb_csv_row(b, "clumps", r->name, c->threads, "find_seconds", r->find_seconds, "s");
        skb_csv_row(b, "clumps", r->name, c->threads, "statistics_seconds",
                    r->statistics_seconds, "s");
    }
    for (int m = 0; m < 3; m++) {
        const sk_clumps_bench_bound *r = &c->bounds[m];
        char s[32];
        snprintf(s, sizeof s, "e_grav %s", r->name);
        skb_csv_row(b, "clumps", s, c->threads, "seconds", r->ran ? r->seconds : NAN, "s");
        skb_csv_row(b, "clumps", s, c->threads, "max_rel_error_vs_direct", r->max_rel_error, "");
    }
    skb_csv_scaling(b, "clumps", "faces and statistics", &c->faces);
    skb_csv_scaling(b, "clumps", "statistics", &c->statistics);
    skb_csv_row(b, "clumps", "targets", 0, "faces_over_read", c->faces_over_read, "");
    skb_csv_row(b, "clumps", "targets", 0, "direct_over_tree", c->direct_over_tree, "");
}

static double finite_or_0(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

/* Reading the cells against each finder's time, split into its find and
 * statistics phases: the target is the faces bars below the read. */
void skb_clumps_panel(cairo_t *cr, const sk_clumps_bench *c, double x, double y, double w,
                      double h)
{
    char title[128];
    snprintf(title, sizeof title, "Clumps at %g: finders against reading the cells",
             c->threshold);
    skf_plot p = skf_panel(cr, x, y, w, h, title, 0);
    int n = 1 + c->nfinders;
    double top = finite_or_0(c->read_seconds);
    for (int f = 0; f < c->nfinders; f++)
        top = fmax(top, fmax(finite_or_0(c->finders[f].find_seconds),
                             finite_or_0(c->finders[f].statistics_seconds)));
    const char *unit = top < 1 ? "milliseconds" : "seconds";
    double k = top < 1 ? 1e3 : 1;
    p.ylo = 0;
    p.yhi = skf_nice_ceiling(top > 0 ? top * k * 1.35 : 1);
    skf_bar_axes(&p, unit);
    skf_bar(&p, 0, n, 0, 2, k * finite_or_0(c->read_seconds), -1, SKF_GREY);
    skf_slot_label(&p, 0, n, "read");
    for (int f = 0; f < c->nfinders; f++) {
        const sk_clumps_bench_finder *r = &c->finders[f];
        skf_bar(&p, 1 + f, n, 0, 2, k * finite_or_0(r->find_seconds), -1, SKF_BLUE);
        skf_bar(&p, 1 + f, n, 1, 2, k * finite_or_0(r->statistics_seconds), -1, SKF_ORANGE);
        skf_slot_label(&p, 1 + f, n, r->name);
    }
    skf_legend(&p, 0, "find (cells, neighbours, labels)", SKF_BLUE, 0);
    skf_legend(&p, 1, "statistics (catalogue)", SKF_ORANGE, 0);
    skf_legend(&p, 2, "reading the cells", SKF_GREY, 0);
}

static int64_t clamp64(double d)
{
    return isfinite(d) ? (int64_t)fmax(-9e18, fmin(9e18, d)) : 0;
}

static double num(const sk_json_value *v, const char *key)
{
    const sk_json_value *m = sk_json_get(v, key);
    if (m && m->type == SK_JSON_NULL)
        return NAN;
    return sk_json_number(v, key, 0);
}

static void name(const sk_json_value *v, const char *key, char *buf, size_t n)
{
    const sk_json_value *m = sk_json_get(v, key);
    snprintf(buf, n, "%s", m && m->type == SK_JSON_STRING ? m->string : "");
}

static int items(const sk_json_value *v, const char *key, int cap,
                 const sk_json_value **out)
{
    const sk_json_value *m = sk_json_get(v, key);
    *out = m && m->type == SK_JSON_ARRAY ? m->items : NULL;
    return *out ? (m->n < cap ? m->n : cap) : 0;
}

void skb_clumps_from_json(const sk_json_value *v, sk_clumps_bench *c)
{
    memset(c, 0, sizeof *c);
    name(v, "source", c->source, sizeof c->source);
    c->threads = (int)clamp64(fmin(num(v, "threads"), 1e6));
    c->runs = (int)clamp64(fmin(num(v, "runs"), 1e6));
    c->threshold = num(v, "threshold");
    c->cells = clamp64(num(v, "cells"));
    c->cells_above = clamp64(num(v, "cells_above"));
    c->read_seconds = num(v, "read_seconds");
    const sk_json_value *f;
    c->nfinders = items(v, "finders", 4, &f);
    for (int i = 0; i < c->nfinders; i++) {
        sk_clumps_bench_finder *r = &c->finders[i];
        name(&f[i], "finder", r->name, sizeof r->name);
        r->clumps = clamp64(num(&f[i], "clumps"));
        r->seconds = num(&f[i], "seconds");
        r->first_seconds = num(&f[i], "first_seconds");
        r->find_seconds = num(&f[i], "find_seconds");
        r->statistics_seconds = num(&f[i], "statistics_seconds");
    }
    const sk_json_value *bd = sk_json_get(v, "bound"), *m;
    c->bound_threshold = num(bd, "threshold");
    c->bound_cells = clamp64(num(bd, "cells_above"));
    c->bound_clumps = clamp64(num(bd, "clumps"));
    c->bound_largest = clamp64(num(bd, "largest_clump"));
    int nm = items(bd, "methods", 3, &m);
    for (int i = 0; i < nm; i++) {
        sk_clumps_bench_bound *r = &c->bounds[i];
        name(&m[i], "method", r->name, sizeof r->name);
        const sk_json_value *ran = sk_json_get(&m[i], "ran");
        r->ran = ran && ran->type == SK_JSON_BOOL && ran->number != 0;
        r->seconds = num(&m[i], "seconds");
        r->max_rel_error = num(&m[i], "max_rel_error_vs_direct");
    }
    const sk_json_value *s = sk_json_get(v, "scaling");
    skb_scaling_from_json(sk_json_get(s, "faces_and_statistics"), &c->faces);
    skb_scaling_from_json(sk_json_get(s, "statistics"), &c->statistics);
    const sk_json_value *t = sk_json_get(v, "targets");
    c->faces_over_read = num(t, "faces_over_read");
    c->direct_over_tree = num(t, "direct_over_tree");
}
