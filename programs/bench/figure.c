/* The report's figure: one panel per stage that ran, drawn with cairo as
 * PNG, SVG or PDF. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/atoms.h"
#include "bench/clumps.h"
#include "bench/ranks.h"
#include "bench/bench.h"
#include "bench/project_grid.h"
#include "bench/report_parts.h"
#include "figure/plot.h"
#include "snapkit/memory.h"

enum { PANEL_W = 470, PANEL_H = 320, GAP = 10, HEADER = 44, MAX_PANELS = SK_REPORT_MAX_PANELS };

typedef void (*panel_fn)(cairo_t *c, const sk_report *r, double x, double y);

static double thread_ticks(const sk_sweep_point *pts, int n, double *ticks)
{
    for (int i = 0; i < n; i++)
        ticks[i] = pts[i].threads;
    return n;
}

/* Thread axis: log2 when the levels span a factor of 8 or more, so 1, 2
 * and 4 threads do not crowd into a corner. */
static void thread_axis(skf_plot *p, double lo, double hi)
{
    p->xlo = lo;
    p->xhi = hi > lo ? hi : lo + 1;
    p->xlog = hi >= 8 * lo;
}

/* Speedup axis from 0 (linear threads) or on log2 like the threads, so
 * perfect scaling is a straight diagonal either way. */
static void speedup_axis(skf_plot *p, double lowest, double highest)
{
    p->ylog = p->xlog;
    if (p->ylog) {
        p->ylo = pow(2, floor(log2(fmin(1.0, lowest) / 1.1)));
        p->yhi = pow(2, ceil(log2(highest * 1.1)));
    } else {
        p->ylo = 0;
        p->yhi = skf_nice_ceiling(highest * 1.25);
    }
}

/* The perfect-scaling diagonal from the fewest threads, as a dense curve
 * (straight on a linear axis, bent on a log2 one). */
static int diagonal(const skf_plot *p, double n0, double *xy, int cap)
{
    int m = cap / 2;
    for (int i = 0; i < m; i++) {
        double t = (double)i / (m - 1);
        double n = p->xlog ? n0 * pow(p->xhi / n0, t) : n0 + (p->xhi - n0) * t;
        xy[2 * i] = skf_px(p, n);
        xy[2 * i + 1] = skf_py(p, n / n0);
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

static void sweep_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    const sk_scaling *s = r->sweep;
    skf_plot p = skf_panel(c, x, y, PANEL_W, PANEL_H,
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
    skf_axes(&p, ticks, n, "threads", "speedup");
    /* The gap between perfect scaling and the measured curve, shaded. */
    double poly[2 * (64 + SK_BENCH_MAX_LEVELS)];
    int m = diagonal(&p, n0, poly, 128);
    for (int i = n - 1; i >= 0; i--) {
        poly[2 * m] = skf_px(&p, pt[i].threads);
        poly[2 * m + 1] = skf_py(&p, pt[i].speedup);
        m++;
    }
    if (n > 1)
        skf_fill(c, poly, m, SKF_RED, 0.15);
    double diag[128];
    int nd = diagonal(&p, n0, diag, 128);
    skf_line(c, diag, nd, SKF_GREY, 1.5, 0);
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
        skf_curve(&p, fx, fy, 64, SKF_GREEN, 1.5, 1, 0);
    }
    for (int i = 0; i < n; i++) {
        tx[i] = pt[i].threads;
        ty[i] = pt[i].speedup;
    }
    skf_curve(&p, tx, ty, n, SKF_BLUE, 2, 0, 1);
    for (int i = 0; i < n; i++) {
        int sweet = pt[i].threads == s->sweet_spot, eco = pt[i].threads == s->economical;
        if (!sweet && !eco)
            continue;
        const char *what = sweet && eco ? "sweet spot = economical" : sweet ? "sweet spot" : "economical";
        double px = skf_px(&p, tx[i]), py = skf_py(&p, ty[i]);
        skf_rect(c, px - 6, py - 6, 12, 12, SKF_NONE, SKF_RED, 1.5);
        double w = skf_text_width(c, what, SKF_SIZE_TICK, 0);
        skf_anchor anchor = px + w / 2 > p.x + p.w ? SKF_RIGHT : px - w / 2 < p.x ? SKF_LEFT : SKF_CENTRE;
        double left = anchor == SKF_LEFT ? px : anchor == SKF_CENTRE ? px - w / 2 : px - w;
        double ground[8] = {left - 3, py + 11, left + w + 3, py + 11, left + w + 3, py + 26,
                            left - 3, py + 26};
        skf_fill(c, ground, 4, 0xffffff, 0.85);
        skf_text(c, px, py + 22, what, SKF_SIZE_TICK, anchor, 0, SKF_RED);
    }
    char label[96];
    skf_legend(&p, 0, "perfect scaling", SKF_GREY, 0);
    skf_legend(&p, 1, "measured", SKF_BLUE, 0);
    if (a->points_used < 2)
        snprintf(label, sizeof label, "Amdahl: no rising part to fit");
    else if (isfinite(a->ceiling))
        snprintf(label, sizeof label, "Amdahl p=%.3f, ceiling %.3gx", a->parallel_fraction,
                 a->ceiling);
    else
        snprintf(label, sizeof label, "Amdahl p=%.3f, no ceiling", a->parallel_fraction);
    skf_legend(&p, 2, label, SKF_GREEN, 1);
}

static void storage_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    const sk_storage_result *s = r->storage;
    char title[128];
    snprintf(title, sizeof title, "Storage (%s): rates against threads", s->fs_type);
    skf_plot p = skf_panel(c, x, y, PANEL_W, PANEL_H, title, 1);
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
    p.yhi = skf_nice_ceiling(iops_top * 1.35);
    skf_axes(&p, tx, n, "threads", "open+close/s (thousands)");
    double rtop = skf_nice_ceiling(rate_top * 1.35);
    skf_right_axis(&p, 0, rtop, giga ? "GB/s per reader" : "MB/s per reader", SKF_ORANGE);
    skf_curve(&p, tx, iops, n, SKF_BLUE, 2, 0, 1);
    double scaled[SK_BENCH_MAX_LEVELS]; /* the rate drawn on the left axis's scale */
    for (int i = 0; i < n; i++)
        scaled[i] = rate[i] / rtop * p.yhi;
    skf_curve(&p, tx, scaled, n, SKF_ORANGE, 2, 0, 1);
    skf_legend(&p, 0, "open+close/s", SKF_BLUE, 0);
    skf_legend(&p, 1, "per reader (right)", SKF_ORANGE, 0);
}

static void read_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    const sk_read_bench *rb = r->read;
    char title[128];
    snprintf(title, sizeof title, "Read: time per component (%d thread%s)", rb->threads,
             rb->threads == 1 ? "" : "s");
    skf_plot p = skf_panel(c, x, y, PANEL_W, PANEL_H, title, 0);
    int n = rb->ncomponents;
    double top = 0;
    for (int i = 0; i < n; i++)
        top = fmax(top, fmax(rb->components[i].mean_seconds + rb->components[i].stddev_seconds,
                             rb->components[i].cold_seconds));
    const char *unit;
    double f = time_unit(top, &unit);
    p.ylo = 0;
    p.yhi = skf_nice_ceiling(top * f * 1.35);
    skf_bar_axes(&p, unit);
    for (int i = 0; i < n; i++) {
        const sk_read_component *k = &rb->components[i];
        skf_bar(&p, i, n, 0, 2, f * k->mean_seconds, f * k->stddev_seconds, SKF_BLUE);
        if (k->cold_seconds >= 0)
            skf_bar(&p, i, n, 1, 2, f * k->cold_seconds, -1, SKF_ORANGE);
        skf_slot_label(&p, i, n, k->name);
    }
    skf_legend(&p, 0, "warm (mean, +-1 sd)", SKF_BLUE, 0);
    skf_legend(&p, 1, rb->cache_dropped ? "cold (cache dropped)" : "cold: not measured",
               SKF_ORANGE, 0);
}

static void convert_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    const sk_convert_bench *cv = r->convert;
    skf_plot p = skf_panel(c, x, y, PANEL_W, PANEL_H,
                           "Convert: time and memory per path", 0);
    static const char *const paths[] = {"read", "write", "reread"};
    const char *unit;
    double f = time_unit(fmax(fmax(cv->read_seconds, cv->write_seconds), cv->reread_seconds), &unit);
    const double secs[] = {f * cv->read_seconds, f * cv->write_seconds, f * cv->reread_seconds};
    const double mb[] = {cv->alloc_read / 1e6, cv->alloc_write / 1e6, cv->alloc_reread / 1e6};
    skf_plot left = p, right = p;
    left.w = p.w / 2 - 28;
    right.x = p.x + p.w / 2 + 38;
    right.w = p.w / 2 - 28;
    left.ylo = right.ylo = 0;
    left.yhi = skf_nice_ceiling(fmax(fmax(secs[0], secs[1]), secs[2]) * 1.15);
    right.yhi = skf_nice_ceiling(fmax(fmax(mb[0], mb[1]), mb[2]) * 1.15);
    skf_bar_axes(&left, unit);
    skf_bar_axes(&right, "MB allocated");
    for (int i = 0; i < 3; i++) {
        skf_bar(&left, i, 3, 0, 1, secs[i], -1, skf_series_colour(i));
        skf_slot_label(&left, i, 3, paths[i]);
        skf_bar(&right, i, 3, 0, 1, mb[i], -1, skf_series_colour(i));
        skf_slot_label(&right, i, 3, paths[i]);
    }
    /* Both break-evens (the write alone, and the whole conversion,
     * against the read saved) and the churn ratio, as the text gives them. */
    char note[128], more[128] = "";
    if (isfinite(cv->break_even_rereads)) {
        snprintf(note, sizeof note, "re-read %.3gx faster; pays after %.3g re-reads", cv->speedup,
                 cv->break_even_rereads);
        snprintf(more, sizeof more, "the whole conversion pays after %.3g", cv->break_even_conversion);
    } else {
        snprintf(note, sizeof note, "re-read %.3gx faster; never pays", cv->speedup);
    }
    if (isfinite(cv->churn_ratio)) {
        size_t len = strlen(more);
        snprintf(more + len, sizeof more - len, "%schurn %.3gx (source / file)", len ? "; " : "",
                 cv->churn_ratio);
    }
    skf_text(c, p.x + p.w / 2, p.y + p.h + 32, note, SKF_SIZE_LABEL, SKF_CENTRE, 0, SKF_INK);
    skf_text(c, p.x + p.w / 2, p.y + p.h + 46, more, SKF_SIZE_TICK, SKF_CENTRE, 0, SKF_INK);
}

static void project_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    const sk_project_bench *pb = r->project;
    skf_plot p = skf_panel(c, x, y, PANEL_W, PANEL_H,
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
    skf_axes(&p, ticks, first->npoints, "threads", "speedup");
    double diag[128];
    int nd = diagonal(&p, lo, diag, 128);
    skf_line(c, diag, nd, SKF_GREY, 1.5, 0);
    skf_legend(&p, 0, "perfect scaling", SKF_GREY, 0);
    for (int k = 0; k < pb->ncases; k++) {
        const sk_scaling *s = &pb->cases[k].scaling;
        double tx[SK_BENCH_MAX_LEVELS], ty[SK_BENCH_MAX_LEVELS];
        for (int i = 0; i < s->npoints; i++) {
            tx[i] = s->points[i].threads;
            ty[i] = s->points[i].speedup;
        }
        skf_curve(&p, tx, ty, s->npoints, skf_series_colour(k), 2, 0, 1);
        skf_legend(&p, k + 1, pb->cases[k].name, skf_series_colour(k), 0);
    }
}

/* Powers of two from lo to hi: ticks on a log2 axis. */
static int power_ticks(double lo, double hi, double *ticks, int cap)
{
    int n = 0;
    for (double t = pow(2, ceil(log2(lo))); t <= hi * (1 + 1e-9) && n < cap; t *= 2)
        ticks[n++] = t;
    return n;
}

/* Time against bytes allocated, both on log2 axes, for both paths: a
 * straight line of slope one is time proportional to allocation. */
static void lmax_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    const sk_lmax_bench *l = r->lmax;
    char title[128];
    snprintf(title, sizeof title, "lmax %d-%d (%s): read time against allocation", l->levelmin,
             l->levelmax, l->component);
    skf_plot p = skf_panel(c, x, y, PANEL_W, PANEL_H, title, 0);
    int file = l->file[0] != 0, n = l->npoints;
    double mb[2][SK_BENCH_MAX_LMAX], ms[2][SK_BENCH_MAX_LMAX];
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (int k = 0; k <= file; k++)
        for (int i = 0; i < n; i++) {
            const sk_lmax_path *q = k ? &l->points[i].file : &l->points[i].ramses;
            mb[k][i] = fmax((double)q->bytes_allocated / 1e6, 1e-6);
            ms[k][i] = fmax(q->seconds * 1e3, 1e-6);
            xlo = fmin(xlo, mb[k][i]), xhi = fmax(xhi, mb[k][i]);
            ylo = fmin(ylo, ms[k][i]), yhi = fmax(yhi, ms[k][i]);
        }
    p.xlog = p.ylog = 1;
    p.xlo = pow(2, floor(log2(xlo))), p.xhi = pow(2, ceil(log2(xhi * 1.01)));
    p.ylo = pow(2, floor(log2(ylo))), p.yhi = pow(2, ceil(log2(yhi * 1.5)));
    double ticks[64];
    int nt = power_ticks(p.xlo, p.xhi, ticks, 64);
    skf_axes(&p, ticks, nt, "MB allocated", "milliseconds");
    static const char *const names[2] = {"RAMSES output", "compact file"};
    for (int k = 0; k <= file; k++) {
        const sk_lmax_fits *f = k ? &l->fit_file : &l->fit_ramses;
        char label[96], a[16] = "-", b[16] = "-";
        if (f->allocated.ok)
            snprintf(a, sizeof a, "%.3f", f->allocated.r2);
        if (f->read.ok)
            snprintf(b, sizeof b, "%.3f", f->read.r2);
        snprintf(label, sizeof label, "%s: R^2 %s on allocation, %s on bytes read", names[k], a, b);
        skf_curve(&p, mb[k], ms[k], n, skf_series_colour(k), 2, 0, 1);
        skf_legend(&p, k, label, skf_series_colour(k), 0);
    }
}

static void efficiency_curve(skf_plot *p, const sk_scaling *s, int k, uint32_t colour,
                             const char *name)
{
    double tx[SK_BENCH_MAX_LEVELS], ty[SK_BENCH_MAX_LEVELS];
    for (int i = 0; i < s->npoints; i++) {
        tx[i] = s->points[i].threads;
        ty[i] = s->points[i].efficiency;
    }
    skf_curve(p, tx, ty, s->npoints, colour, 2, 0, 1);
    skf_legend(p, k + 1, name, colour, 0);
}

/* Speedup per thread (against the fewest threads) of every sweep: where
 * each added thread stops paying for itself, which the speedup panels
 * show only as a bend. */
static void efficiency_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    skf_plot p = skf_panel(c, x, y, PANEL_W, PANEL_H, "Efficiency: speedup per thread", 0);
    const sk_scaling *all[1 + SK_BENCH_MAX_CASES] = {0};
    const char *names[1 + SK_BENCH_MAX_CASES];
    uint32_t colours[1 + SK_BENCH_MAX_CASES];
    int n = 0, ncases = r->project ? r->project->ncases : 0;
    /* Each projection case in its colour of the projection panel; the
     * read sweep in the next one. */
    for (int k = 0; k < ncases; k++)
        if (r->project->cases[k].scaling.npoints > 1) {
            all[n] = &r->project->cases[k].scaling, names[n] = r->project->cases[k].name;
            colours[n++] = skf_series_colour(k);
        }
    if (r->sweep && r->sweep->npoints > 1) {
        all[n] = r->sweep, names[n] = "read sweep";
        colours[n++] = skf_series_colour(ncases);
    }
    if (n == 0) /* has_efficiency said there is a curve */
        return;
    double lo = 1e300, hi = 0, top = 1;
    const sk_scaling *widest = all[0];
    for (int k = 0; k < n; k++) {
        lo = fmin(lo, all[k]->points[0].threads);
        hi = fmax(hi, all[k]->points[all[k]->npoints - 1].threads);
        widest = all[k]->npoints > widest->npoints ? all[k] : widest;
        for (int i = 0; i < all[k]->npoints; i++)
            top = fmax(top, all[k]->points[i].efficiency);
    }
    thread_axis(&p, lo, hi);
    p.ylo = 0;
    p.yhi = skf_nice_ceiling(top * 1.25);
    double ticks[SK_BENCH_MAX_LEVELS];
    thread_ticks(widest->points, widest->npoints, ticks);
    skf_axes(&p, ticks, widest->npoints, "threads", "efficiency (speedup x fewest / threads)");
    double full[4] = {skf_px(&p, p.xlo), skf_py(&p, 1), skf_px(&p, p.xhi), skf_py(&p, 1)};
    skf_line(c, full, 2, SKF_GREY, 1.5, 0);
    skf_legend(&p, 0, "every thread pays in full", SKF_GREY, 0);
    for (int k = 0; k < n; k++)
        efficiency_curve(&p, all[k], k, colours[k], names[k]);
}

/* The stages whose panels live beside them (project_grid.c,
 * report_atoms.c). */
static void grid_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    skb_grid_panel(c, r->project_grid, x, y, PANEL_W, PANEL_H);
}

static void atoms_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    skb_atoms_rate_panel(c, r->atoms, x, y, PANEL_W, PANEL_H);
}

static void clumps_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    skb_clumps_panel(c, r->clumps, x, y, PANEL_W, PANEL_H);
}

static void ranks_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    skb_ranks_panel(c, r->ranks, x, y, PANEL_W, PANEL_H);
}

static void atoms_peers_panel(cairo_t *c, const sk_report *r, double x, double y)
{
    skb_atoms_peers_panel(c, r->atoms, x, y, PANEL_W, PANEL_H);
}

/* Whether some sweep has two thread levels or more: an efficiency curve. */
static int has_efficiency(const sk_report *r)
{
    int any = r->sweep && r->sweep->npoints > 1;
    for (int k = 0; r->project && k < r->project->ncases; k++)
        any |= r->project->cases[k].scaling.npoints > 1;
    return any;
}

/* The panels of the stages that ran, in the order they run. */
static int panels(const sk_report *r, panel_fn *fns, const char **names)
{
    int n = 0;
    if (r->sweep && r->sweep->npoints > 0)
        fns[n] = sweep_panel, names[n++] = "sweep";
    if (r->storage && r->storage->npoints > 0)
        fns[n] = storage_panel, names[n++] = "storage";
    if (r->read && r->read->ncomponents > 0)
        fns[n] = read_panel, names[n++] = "read";
    if (r->convert)
        fns[n] = convert_panel, names[n++] = "convert";
    if (r->project && r->project->ncases > 0 && r->project->cases[0].scaling.npoints > 0)
        fns[n] = project_panel, names[n++] = "project";
    if (r->lmax && r->lmax->npoints > 0)
        fns[n] = lmax_panel, names[n++] = "lmax";
    if (r->project_grid && r->project_grid->nres > 0)
        fns[n] = grid_panel, names[n++] = "project_grid";
    if (r->atoms && r->atoms->nrows > 0 && r->atoms->nsizes > 0) {
        fns[n] = atoms_panel, names[n++] = "atoms";
        if (skb_atoms_has_peers(r->atoms))
            fns[n] = atoms_peers_panel, names[n++] = "atoms_peers";
    }
    if (r->clumps && r->clumps->nfinders > 0)
        fns[n] = clumps_panel, names[n++] = "clumps";
    if (r->ranks && r->ranks->npoints > 0)
        fns[n] = ranks_panel, names[n++] = "ranks";
    if (has_efficiency(r))
        fns[n] = efficiency_panel, names[n++] = "efficiency";
    return n;
}

int sk_report_layout(const sk_report *r, sk_report_panel *out, double *width, double *height)
{
    panel_fn fns[MAX_PANELS];
    const char *names[MAX_PANELS];
    int n = panels(r, fns, names);
    int cols = n > 1 ? 2 : 1, rows = n > 0 ? (n + cols - 1) / cols : 0;
    *width = cols * (PANEL_W + GAP) + GAP;
    *height = HEADER + rows * (PANEL_H + GAP) + GAP;
    for (int i = 0; out && i < n; i++) {
        out[i] = (sk_report_panel){.x = GAP + (i % cols) * (PANEL_W + GAP),
                                   .y = HEADER + (i / cols) * (PANEL_H + GAP), .w = PANEL_W,
                                   .h = PANEL_H};
        snprintf(out[i].name, sizeof out[i].name, "%s", names[i]);
    }
    return n;
}

int sk_report_figure(const sk_report *r, const char *format, char **bytes, size_t *size,
                     sk_error *err)
{
    skf_format fmt;
    char name[16];
    snprintf(name, sizeof name, "x.%s", format);
    if (skf_format_of(name, &fmt) != 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no figure format '%s' (png, svg or pdf)",
                       format);
    panel_fn fns[MAX_PANELS];
    const char *names[MAX_PANELS];
    sk_report_panel place[MAX_PANELS];
    double width, height;
    panels(r, fns, names);
    int n = sk_report_layout(r, place, &width, &height);
    skf_figure f;
    int rc = skf_begin(&f, fmt, width, height, err);
    if (rc != SK_OK)
        return rc;
    char title[256];
    const sk_machine *m = r->machine;
    snprintf(title, sizeof title, "snapkit bench: %s, %d CPUs (%d owned), %.1f GB RAM",
             m->cpu_model, m->logical_cpus, m->budget.owned, m->ram_bytes / 1e9);
    /* One panel is narrower than the title at 16 pt: shrink it to fit. */
    double pt = 16, room = width - 2 * GAP, w = skf_text_width(f.cr, title, pt, SKF_TEXT_BOLD);
    if (w > room && w > 0)
        pt = pt * room / w < 9 ? 9 : pt * room / w;
    skf_text(f.cr, GAP, 28, title, pt, SKF_LEFT, SKF_TEXT_BOLD, SKF_INK);
    for (int i = 0; i < n; i++)
        fns[i](f.cr, r, place[i].x, place[i].y);
    return skf_end(&f, bytes, size, err);
}
