/* The report's figure: one panel per stage that ran, drawn once on a
 * canvas and written as SVG and PNG. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/canvas.h"
#include "bench/plot.h"
#include "snapkit/bench.h"
#include "snapkit/memory.h"

enum { PANEL_W = 470, PANEL_H = 320, GAP = 10, HEADER = 44, MAX_PANELS = 6 };

typedef void (*panel_fn)(skb_canvas *c, const sk_report *r, double x, double y);

static double thread_ticks(const sk_sweep_point *pts, int n, double *ticks)
{
    for (int i = 0; i < n; i++)
        ticks[i] = pts[i].threads;
    return n;
}

/* Thread axis: log2 when the levels span a factor of 8 or more, so 1, 2
 * and 4 threads do not crowd into a corner. */
static void thread_axis(skb_plot *p, double lo, double hi)
{
    p->xlo = lo;
    p->xhi = hi > lo ? hi : lo + 1;
    p->xlog = hi >= 8 * lo;
}

/* Speedup axis from 0 (linear threads) or on log2 like the threads, so
 * perfect scaling is a straight diagonal either way. */
static void speedup_axis(skb_plot *p, double lowest, double highest)
{
    p->ylog = p->xlog;
    if (p->ylog) {
        p->ylo = pow(2, floor(log2(fmin(1.0, lowest) / 1.1)));
        p->yhi = pow(2, ceil(log2(highest * 1.1)));
    } else {
        p->ylo = 0;
        p->yhi = skb_nice_ceiling(highest * 1.25);
    }
}

/* The perfect-scaling diagonal from the fewest threads, as a dense curve
 * (straight on a linear axis, bent on a log2 one). */
static int diagonal(const skb_plot *p, double n0, double *xy, int cap)
{
    int m = cap / 2;
    for (int i = 0; i < m; i++) {
        double t = (double)i / (m - 1);
        double n = p->xlog ? n0 * pow(p->xhi / n0, t) : n0 + (p->xhi - n0) * t;
        xy[2 * i] = skb_px(p, n);
        xy[2 * i + 1] = skb_py(p, n / n0);
    }
    return m;
}

/* Seconds, or milliseconds for short times, so tick labels stay short. */
static double time_unit(double top, const char **name)
{
    if (top < 1) {
        *name = "milliseconds";
        return 1e3;
    }
    *name = "seconds";
    return 1;
}

static void sweep_panel(skb_canvas *c, const sk_report *r, double x, double y)
{
    const sk_scaling *s = r->sweep;
    skb_plot p = skb_panel(c, "panel-sweep", x, y, PANEL_W, PANEL_H,
                           "Read sweep: speedup against threads", 0);
    const sk_sweep_point *pt = s->points;
    int n = s->npoints;
    double n0 = pt[0].threads;
    thread_axis(&p, n0, pt[n - 1].threads);
    double top = p.xhi / n0, low = 1;
    for (int i = 0; i < n; i++) {
        top = fmax(top, pt[i].speedup);
        low = fmin(low, pt[i].speedup);
    }
    speedup_axis(&p, low, top);
    double ticks[SK_BENCH_MAX_LEVELS], tx[SK_BENCH_MAX_LEVELS], ty[SK_BENCH_MAX_LEVELS];
    thread_ticks(pt, n, ticks);
    skb_axes(&p, ticks, n, "threads", "speedup");
    /* The gap between perfect scaling and the measured curve, shaded. */
    double poly[2 * (64 + SK_BENCH_MAX_LEVELS)];
    int m = diagonal(&p, n0, poly, 128);
    for (int i = n - 1; i >= 0; i--) {
        poly[2 * m] = skb_px(&p, pt[i].threads);
        poly[2 * m + 1] = skb_py(&p, pt[i].speedup);
        m++;
    }
    if (n > 1)
        skb_fill(c, poly, m, SKB_RED, 0.15);
    double diag[128];
    int nd = diagonal(&p, n0, diag, 128);
    skb_line(c, diag, nd, SKB_GREY, 1.5, 0);
    /* Amdahl's curve: the fit's time at n against the measured time at n0. */
    const sk_amdahl *a = &s->amdahl;
    if (a->points_used >= 2) {
        double fx[64], fy[64];
        for (int i = 0; i < 64; i++) {
            double t = i / 63.0;
            fx[i] = p.xlog ? n0 * pow(p.xhi / n0, t) : n0 + (p.xhi - n0) * t;
            double tn = a->serial_seconds + (a->one_thread_seconds - a->serial_seconds) / fx[i];
            fy[i] = tn > 0 ? pt[0].seconds / tn : NAN;
        }
        skb_curve(&p, fx, fy, 64, SKB_GREEN, 1.5, 1, 0);
    }
    for (int i = 0; i < n; i++) {
        tx[i] = pt[i].threads;
        ty[i] = pt[i].speedup;
    }
    skb_curve(&p, tx, ty, n, SKB_BLUE, 2, 0, 1);
    for (int i = 0; i < n; i++) {
        int sweet = pt[i].threads == s->sweet_spot, eco = pt[i].threads == s->economical;
        if (!sweet && !eco)
            continue;
        const char *what = sweet && eco ? "sweet spot = economical" : sweet ? "sweet spot" : "economical";
        double px = skb_px(&p, tx[i]), py = skb_py(&p, ty[i]);
        skb_rect(c, px - 6, py - 6, 12, 12, SKB_NONE, SKB_RED, 1.5);
        double w = skb_text_width(what, 1.2);
        skb_anchor anchor = px + w / 2 > p.x + p.w ? SKB_RIGHT : px - w / 2 < p.x ? SKB_LEFT : SKB_MIDDLE;
        double left = anchor == SKB_LEFT ? px : anchor == SKB_MIDDLE ? px - w / 2 : px - w;
        double ground[8] = {left - 3, py + 11, left + w + 3, py + 11, left + w + 3, py + 26,
                            left - 3, py + 26};
        skb_fill(c, ground, 4, 0xffffff, 0.85);
        skb_text(c, px, py + 22, what, 1.2, anchor, 0, SKB_RED);
    }
    char label[96];
    skb_legend(&p, 0, "perfect scaling", SKB_GREY, 0);
    skb_legend(&p, 1, "measured", SKB_BLUE, 0);
    if (a->points_used < 2)
        snprintf(label, sizeof label, "Amdahl: no rising part to fit");
    else if (isfinite(a->ceiling))
        snprintf(label, sizeof label, "Amdahl p=%.3f, ceiling %.3gx", a->parallel_fraction,
                 a->ceiling);
    else
        snprintf(label, sizeof label, "Amdahl p=%.3f, no ceiling", a->parallel_fraction);
    skb_legend(&p, 2, label, SKB_GREEN, 1);
    skb_group_end(c);
}

static void storage_panel(skb_canvas *c, const sk_report *r, double x, double y)
{
    const sk_storage_result *s = r->storage;
    char title[128];
    snprintf(title, sizeof title, "Storage (%s): rates against threads", s->fs_type);
    skb_plot p = skb_panel(c, "panel-storage", x, y, PANEL_W, PANEL_H, title, 1);
    int n = s->npoints;
    double tx[SK_BENCH_MAX_LEVELS], iops[SK_BENCH_MAX_LEVELS], rate[SK_BENCH_MAX_LEVELS];
    double iops_top = 0, rate_top = 0;
    for (int i = 0; i < n; i++) {
        tx[i] = s->points[i].threads;
        iops[i] = s->points[i].iops / 1e3;
        rate[i] = s->points[i].reader_bps;
        iops_top = fmax(iops_top, iops[i]);
        rate_top = fmax(rate_top, rate[i]);
    }
    /* GB/s or MB/s, so the right axis's labels stay short. */
    int giga = rate_top >= 1e9;
    for (int i = 0; i < n; i++)
        rate[i] /= giga ? 1e9 : 1e6;
    rate_top /= giga ? 1e9 : 1e6;
    thread_axis(&p, tx[0], tx[n - 1]);
    p.ylo = 0;
    p.yhi = skb_nice_ceiling(iops_top * 1.35);
    skb_axes(&p, tx, n, "threads", "open+close/s (thousands)");
    double rtop = skb_nice_ceiling(rate_top * 1.35);
    skb_right_axis(&p, 0, rtop, giga ? "GB/s per reader" : "MB/s per reader", SKB_ORANGE);
    skb_curve(&p, tx, iops, n, SKB_BLUE, 2, 0, 1);
    double scaled[SK_BENCH_MAX_LEVELS]; /* the rate drawn on the left axis's scale */
    for (int i = 0; i < n; i++)
        scaled[i] = rate[i] / rtop * p.yhi;
    skb_curve(&p, tx, scaled, n, SKB_ORANGE, 2, 0, 1);
    skb_legend(&p, 0, "open+close/s", SKB_BLUE, 0);
    skb_legend(&p, 1, "per reader (right)", SKB_ORANGE, 0);
    skb_group_end(c);
}

static void read_panel(skb_canvas *c, const sk_report *r, double x, double y)
{
    const sk_read_bench *rb = r->read;
    char title[128];
    snprintf(title, sizeof title, "Read: time per component (%d thread%s)", rb->threads,
             rb->threads == 1 ? "" : "s");
    skb_plot p = skb_panel(c, "panel-read", x, y, PANEL_W, PANEL_H, title, 0);
    int n = rb->ncomponents;
    double top = 0;
    for (int i = 0; i < n; i++)
        top = fmax(top, fmax(rb->components[i].mean_seconds + rb->components[i].stddev_seconds,
                             rb->components[i].cold_seconds));
    const char *unit;
    double f = time_unit(top, &unit);
    p.ylo = 0;
    p.yhi = skb_nice_ceiling(top * f * 1.35);
    skb_bar_axes(&p, unit);
    for (int i = 0; i < n; i++) {
        const sk_read_component *k = &rb->components[i];
        skb_bar(&p, i, n, 0, 2, f * k->mean_seconds, f * k->stddev_seconds, SKB_BLUE);
        if (k->cold_seconds >= 0)
            skb_bar(&p, i, n, 1, 2, f * k->cold_seconds, -1, SKB_ORANGE);
        skb_slot_label(&p, i, n, k->name);
    }
    skb_legend(&p, 0, "warm (mean, +-1 sd)", SKB_BLUE, 0);
    skb_legend(&p, 1, rb->cache_dropped ? "cold (cache dropped)" : "cold: not measured",
               SKB_ORANGE, 0);
    skb_group_end(c);
}

static void convert_panel(skb_canvas *c, const sk_report *r, double x, double y)
{
    const sk_convert_bench *cv = r->convert;
    skb_plot p = skb_panel(c, "panel-convert", x, y, PANEL_W, PANEL_H,
                           "Convert: time and memory per path", 0);
    static const char *const paths[] = {"read", "write", "reread"};
    const char *unit;
    double f = time_unit(fmax(fmax(cv->read_seconds, cv->write_seconds), cv->reread_seconds), &unit);
    const double secs[] = {f * cv->read_seconds, f * cv->write_seconds, f * cv->reread_seconds};
    const double mb[] = {cv->alloc_read / 1e6, cv->alloc_write / 1e6, cv->alloc_reread / 1e6};
    skb_plot left = p, right = p;
    left.w = p.w / 2 - 28;
    right.x = p.x + p.w / 2 + 38;
    right.w = p.w / 2 - 28;
    left.ylo = right.ylo = 0;
    left.yhi = skb_nice_ceiling(fmax(fmax(secs[0], secs[1]), secs[2]) * 1.15);
    right.yhi = skb_nice_ceiling(fmax(fmax(mb[0], mb[1]), mb[2]) * 1.15);
    skb_bar_axes(&left, unit);
    skb_bar_axes(&right, "MB allocated");
    for (int i = 0; i < 3; i++) {
        skb_bar(&left, i, 3, 0, 1, secs[i], -1, skb_series_colour(i));
        skb_slot_label(&left, i, 3, paths[i]);
        skb_bar(&right, i, 3, 0, 1, mb[i], -1, skb_series_colour(i));
        skb_slot_label(&right, i, 3, paths[i]);
    }
    char note[128];
    if (isfinite(cv->break_even_rereads))
        snprintf(note, sizeof note, "re-read %.3gx faster; pays after %.3g re-reads", cv->speedup,
                 cv->break_even_rereads);
    else
        snprintf(note, sizeof note, "re-read %.3gx faster; never pays", cv->speedup);
    skb_text(c, p.x + p.w / 2, p.y + p.h + 32, note, 1.2, SKB_MIDDLE, 0, SKB_INK);
    skb_group_end(c);
}

static void project_panel(skb_canvas *c, const sk_report *r, double x, double y)
{
    const sk_project_bench *pb = r->project;
    skb_plot p = skb_panel(c, "panel-project", x, y, PANEL_W, PANEL_H,
                           "Projection: speedup against threads", 0);
    double lo = 1e300, hi = 0, top = 0, low = 1;
    for (int k = 0; k < pb->ncases; k++) {
        const sk_scaling *s = &pb->cases[k].scaling;
        lo = fmin(lo, s->points[0].threads);
        hi = fmax(hi, s->points[s->npoints - 1].threads);
        for (int i = 0; i < s->npoints; i++) {
            top = fmax(top, s->points[i].speedup);
            low = fmin(low, s->points[i].speedup);
        }
    }
    thread_axis(&p, lo, hi);
    speedup_axis(&p, low, fmax(top, hi / lo));
    const sk_scaling *first = &pb->cases[0].scaling;
    double ticks[SK_BENCH_MAX_LEVELS];
    thread_ticks(first->points, first->npoints, ticks);
    skb_axes(&p, ticks, first->npoints, "threads", "speedup");
    double diag[128];
    int nd = diagonal(&p, lo, diag, 128);
    skb_line(c, diag, nd, SKB_GREY, 1.5, 0);
    skb_legend(&p, 0, "perfect scaling", SKB_GREY, 0);
    for (int k = 0; k < pb->ncases; k++) {
        const sk_scaling *s = &pb->cases[k].scaling;
        double tx[SK_BENCH_MAX_LEVELS], ty[SK_BENCH_MAX_LEVELS];
        for (int i = 0; i < s->npoints; i++) {
            tx[i] = s->points[i].threads;
            ty[i] = s->points[i].speedup;
        }
        skb_curve(&p, tx, ty, s->npoints, skb_series_colour(k), 2, 0, 1);
        skb_legend(&p, k + 1, pb->cases[k].name, skb_series_colour(k), 0);
    }
    skb_group_end(c);
}

/* The panels of the stages that ran, in the order they run. */
static int panels(const sk_report *r, panel_fn *fns)
{
    int n = 0;
    if (r->sweep && r->sweep->npoints > 0)
        fns[n++] = sweep_panel;
    if (r->storage && r->storage->npoints > 0)
        fns[n++] = storage_panel;
    if (r->read && r->read->ncomponents > 0)
        fns[n++] = read_panel;
    if (r->convert)
        fns[n++] = convert_panel;
    if (r->project && r->project->ncases > 0 && r->project->cases[0].scaling.npoints > 0)
        fns[n++] = project_panel;
    return n;
}

static void draw_report(skb_canvas *c, const sk_report *r)
{
    panel_fn fns[MAX_PANELS];
    int n = panels(r, fns);
    int cols = n > 1 ? 2 : 1, rows = n > 0 ? (n + cols - 1) / cols : 0;
    skb_canvas_init(c, cols * (PANEL_W + GAP) + GAP, HEADER + rows * (PANEL_H + GAP) + GAP);
    char title[256];
    const sk_machine *m = r->machine;
    snprintf(title, sizeof title, "snapkit bench: %s, %d CPUs (%d owned), %.1f GB RAM",
             m->cpu_model, m->logical_cpus, m->budget.owned, m->ram_bytes / 1e9);
    skb_text(c, GAP, 28, title, 1.6, SKB_LEFT, 0, SKB_INK);
    for (int i = 0; i < n; i++)
        fns[i](c, r, GAP + (i % cols) * (PANEL_W + GAP), HEADER + (i / cols) * (PANEL_H + GAP));
}

char *sk_report_svg(const sk_report *r)
{
    skb_canvas c;
    draw_report(&c, r);
    char *svg = skb_svg(&c);
    skb_canvas_free(&c);
    return svg;
}

int sk_report_png(const sk_report *r, uint8_t **png, size_t *size, sk_error *err)
{
    skb_canvas c;
    draw_report(&c, r);
    int rc = skb_png(&c, png, size, err);
    skb_canvas_free(&c);
    return rc;
}
