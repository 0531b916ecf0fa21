/* The ranks stage in `bench report`: its CSV rows, its figure panel and
 * its reading back from report.json (the text and the JSON object are
 * sk_ranks_bench_text and sk_ranks_bench_json, in ranks.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/ranks.h"
#include "bench/report_load.h"
#include "bench/report_parts.h"
#include "figure/plot.h"

void skb_ranks_csv(sk_text *b, const sk_ranks_bench *r)
{
    for (int i = 0; i < r->npoints; i++) {
        const sk_ranks_point *p = &r->points[i];
        char s[48];
        snprintf(s, sizeof s, "%s %d rank%s", r->component, p->ranks, p->ranks == 1 ? "" : "s");
        double up = r->points[0].seconds / p->seconds;
        skb_csv_row(b, "ranks", s, p->threads, "seconds", p->seconds, "s");
        skb_csv_row(b, "ranks", s, p->threads, "speedup", up, "");
        skb_csv_row(b, "ranks", s, p->threads, "efficiency", up / (p->ranks * p->threads), "");
    }
    if (r->npoints == 0)
        return;
    const char *names[3] = {"fastest", "sweet_spot", "economical"};
    int at[3] = {r->fastest, r->sweet_spot, r->economical};
    for (int k = 0; k < 3; k++) {
        char q[32];
        snprintf(q, sizeof q, "%s_ranks", names[k]);
        skb_csv_row(b, "ranks", r->component, 0, q, r->points[at[k]].ranks, "ranks");
        snprintf(q, sizeof q, "%s_threads", names[k]);
        skb_csv_row(b, "ranks", r->component, 0, q, r->points[at[k]].threads, "threads");
    }
    skb_csv_row(b, "ranks", r->component, 0, "parallel_fraction", r->parallel_fraction, "");
}

/* Speedup against the CPUs used (ranks x threads), one curve per thread
 * count per rank: the curves' order says whether ranks or threads pay. */
void skb_ranks_panel(cairo_t *c, const sk_ranks_bench *r, double x, double y, double w, double h)
{
    char title[128];
    snprintf(title, sizeof title, "Ranks x threads: full reads of %s on %d rank%s", r->component,
             r->world, r->world == 1 ? "" : "s");
    skf_plot p = skf_panel(c, x, y, w, h, title, 0);
    double ticks[SK_RANKS_MAX_POINTS], top = 1;
    int nticks = 0, threads[SK_RANKS_MAX_POINTS], nthreads = 0;
    for (int i = 0; i < r->npoints; i++) {
        const sk_ranks_point *q = &r->points[i];
        double cpus = q->ranks * q->threads, up = r->points[0].seconds / q->seconds;
        top = fmax(top, fmax(cpus, isfinite(up) ? up : 1));
        int seen = 0;
        for (int k = 0; k < nticks; k++)
            seen |= ticks[k] == cpus;
        if (!seen)
            ticks[nticks++] = cpus;
        seen = 0;
        for (int k = 0; k < nthreads; k++)
            seen |= threads[k] == q->threads;
        if (!seen)
            threads[nthreads++] = q->threads;
    }
    for (int i = 1; i < nticks; i++) /* ascending, for the axis */
        for (int k = i; k > 0 && ticks[k - 1] > ticks[k]; k--) {
            double t = ticks[k];
            ticks[k] = ticks[k - 1];
            ticks[k - 1] = t;
        }
    double hi = nticks ? ticks[nticks - 1] : 1;
    p.xlog = 1;
    p.xlo = 1 / 1.4;
    p.xhi = (hi > 1 ? hi : 2) * 1.4;
    p.ylo = 0;
    p.yhi = skf_nice_ceiling(top * 1.3); /* room for the legend */
    skf_axes(&p, ticks, nticks, "CPUs (ranks x threads per rank)", "speedup over 1 rank x 1 thread");
    if (nticks > 1) /* through every tick: a curve on the log axis */
        skf_curve(&p, ticks, ticks, nticks, SKF_GREY, 1.5, 1, 0);
    skf_legend(&p, 0, "ideal (speedup = CPUs)", SKF_GREY, 1);
    for (int k = 0; k < nthreads; k++) {
        double px[SK_RANKS_MAX_POINTS], py[SK_RANKS_MAX_POINTS];
        int n = 0;
        for (int i = 0; i < r->npoints; i++)
            if (r->points[i].threads == threads[k]) {
                px[n] = r->points[i].ranks * r->points[i].threads;
                py[n++] = r->points[0].seconds / r->points[i].seconds;
            }
        char label[48];
        snprintf(label, sizeof label, "%d thread%s per rank", threads[k],
                 threads[k] == 1 ? "" : "s");
        skf_curve(&p, px, py, n, skf_series_colour(k), 2, 0, 1);
        skf_legend(&p, 1 + k, label, skf_series_colour(k), 0);
    }
    if (r->npoints > 0) {
        const sk_ranks_point *s = &r->points[r->sweet_spot];
        char note[96];
        snprintf(note, sizeof note, "sweet spot: %d rank%s x %d thread%s", s->ranks,
                 s->ranks == 1 ? "" : "s", s->threads, s->threads == 1 ? "" : "s");
        skf_text(c, p.x + p.w, p.y + p.h - 6, note, SKF_SIZE_TICK - 1, SKF_RIGHT, 0, SKF_GREY);
    }
}

void skb_ranks_from_json(const sk_json_value *v, sk_ranks_bench *r)
{
    memset(r, 0, sizeof *r);
    const sk_json_value *m = sk_json_get(v, "source");
    snprintf(r->source, sizeof r->source, "%s", m && m->type == SK_JSON_STRING ? m->string : "");
    m = sk_json_get(v, "component");
    snprintf(r->component, sizeof r->component, "%s",
             m && m->type == SK_JSON_STRING ? m->string : "");
    r->world = (int)fmax(0, fmin(sk_json_number(v, "ranks", 0), 1e6));
    r->runs = (int)fmax(0, fmin(sk_json_number(v, "runs", 0), 1e6));
    m = sk_json_get(v, "grid");
    int n = m && m->type == SK_JSON_ARRAY ? m->n : 0;
    for (int i = 0; i < n && r->npoints < SK_RANKS_MAX_POINTS; i++) {
        const sk_json_value *q = &m->items[i];
        sk_ranks_point *p = &r->points[r->npoints];
        p->ranks = (int)fmax(1, fmin(sk_json_number(q, "ranks", 1), 1e6));
        p->threads = (int)fmax(1, fmin(sk_json_number(q, "threads", 1), 1e6));
        p->seconds = sk_json_number(q, "seconds", NAN);
        r->npoints++;
    }
    sk_ranks_bench_analyse(r);
}
