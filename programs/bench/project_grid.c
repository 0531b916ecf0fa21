/* The projection grid, resolution x threads: its run, JSON, text, CSV
 * rows, figure panel, and back from a saved report. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/util/json.h"
#include "bench/project_grid.h"
#include "bench/report_parts.h"
#include "figure/plot.h"
#include "snapkit/memory.h"

int sk_project_grid_parse(const char *text, int *res, int *n, sk_error *err)
{
    *n = sk_bench_parse_levels(text, res, SK_GRID_MAX_RES, err);
    if (*n < 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "--res: '%s' is not a list of up to %d pixel counts such as 256,512,1024",
                       text, SK_GRID_MAX_RES);
    for (int i = 0; i < *n; i++)
        if (res[i] > 65536)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "--res: %d pixels is more than 65536", res[i]);
    return SK_OK;
}

int sk_bench_project_grid(sk_source *src, const sk_selection *sel,
                          const sk_project_bench_options *opt, const int *res, int nres,
                          sk_project_grid *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    if (nres < 1 || nres > SK_GRID_MAX_RES)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "1 to %d resolutions, not %d", SK_GRID_MAX_RES, nres);
    sk_table *t = NULL;
    int rc = sk_bench_source_read(src, opt->component ? opt->component : "hydro", sel, 0, &t,
                                  NULL, err);
    sk_project_bench_options o = *opt;
    for (int r = 0; r < nres && rc == SK_OK; r++) {
        o.res = res[r];
        rc = skb_project_table(t, &o, &out->runs[r], err);
        out->res[r] = res[r];
        out->nres += rc == SK_OK;
    }
    sk_table_free(t);
    return rc;
}

/* The least time of a sweep, and the speedup there over the fewest
 * threads. */
static double best_seconds(const sk_scaling *s)
{
    double best = INFINITY;
    for (int i = 0; i < s->npoints; i++)
        best = fmin(best, s->points[i].seconds);
    return best;
}

static double best_speedup(const sk_scaling *s)
{
    return s->npoints > 0 ? s->points[0].seconds / best_seconds(s) : NAN;
}

void sk_project_grid_json(const sk_project_grid *g, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_key(j, "grid");
    sk_json_array_begin(j);
    for (int r = 0; r < g->nres; r++) {
        sk_json_object_begin(j);
        sk_json_kv_int(j, "res", g->res[r]);
        sk_json_key(j, "project");
        sk_project_json(&g->runs[r], j);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_key(j, "summary");
    sk_json_array_begin(j);
    for (int r = 0; r < g->nres; r++)
        for (int k = 0; k < g->runs[r].ncases; k++) {
            const sk_scaling *s = &g->runs[r].cases[k].scaling;
            char name[96];
            snprintf(name, sizeof name, "%d %s", g->res[r], g->runs[r].cases[k].name);
            sk_json_object_begin(j);
            sk_json_kv_string(j, "name", name);
            sk_json_kv_int(j, "res", g->res[r]);
            sk_json_kv_string(j, "case", g->runs[r].cases[k].name);
            sk_json_kv_int(j, "fastest", s->fastest);
            sk_json_kv_int(j, "sweet_spot", s->sweet_spot);
            sk_json_kv_int(j, "economical", s->economical);
            sk_json_kv_double(j, "best_seconds", best_seconds(s));
            sk_json_kv_double(j, "speedup", best_speedup(s));
            sk_json_kv_double(j, "parallel_fraction", s->amdahl.parallel_fraction);
            sk_json_object_end(j);
        }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

char *sk_project_grid_text(const sk_project_grid *g)
{
    sk_text b = {0};
    for (int r = 0; r < g->nres; r++) {
        char *t = sk_project_text(&g->runs[r]);
        sk_text_printf(&b, "res %d\n%s\n", g->res[r], t ? t : "");
        sk_free(t);
    }
    sk_text_puts(&b, "resolution x threads: where threads stop paying\n"
                     "    res  case                              fastest  sweet  economical  best time"
                     "  speedup\n");
    for (int r = 0; r < g->nres; r++)
        for (int k = 0; k < g->runs[r].ncases; k++) {
            const sk_scaling *s = &g->runs[r].cases[k].scaling;
            sk_text_printf(&b, "  %5d  %-33s %7d  %5d  %10d  %8.4g s  %6.2fx\n", g->res[r],
                           g->runs[r].cases[k].name, s->fastest, s->sweet_spot, s->economical,
                           best_seconds(s), best_speedup(s));
        }
    sk_text_puts(&b, "  speedup: the fewest threads' time over the best time (1.00x: more threads "
                     "did not pay)\n");
    return sk_text_take(&b);
}

void skb_grid_csv(sk_text *b, const sk_project_grid *g)
{
    for (int r = 0; r < g->nres; r++)
        for (int k = 0; k < g->runs[r].ncases; k++) {
            char series[96];
            snprintf(series, sizeof series, "res %d %s", g->res[r], g->runs[r].cases[k].name);
            skb_csv_scaling(b, "project_grid", series, &g->runs[r].cases[k].scaling);
        }
}

void skb_project_grid_from_json(const sk_json_value *v, sk_project_grid *g)
{
    memset(g, 0, sizeof *g);
    const sk_json_value *grid = sk_json_get(v, "grid");
    for (int i = 0; grid && grid->type == SK_JSON_ARRAY && i < grid->n && g->nres < SK_GRID_MAX_RES; i++) {
        double res = sk_json_number(&grid->items[i], "res", 0);
        const sk_json_value *p = sk_json_get(&grid->items[i], "project");
        if (!(res >= 1) || !p || p->type != SK_JSON_OBJECT) /* a log axis needs res > 0 */
            continue;
        g->res[g->nres] = (int)fmax(0, fmin(65536, res));
        skb_project_from_json(p, &g->runs[g->nres++]);
    }
}

/* Per case, the speedup at the sweet spot against the resolution, each
 * point labelled with its sweet spot's thread count: where the curve
 * sits at 1, more threads do not pay. */
void skb_grid_panel(cairo_t *c, const sk_project_grid *g, double x, double y, double w, double h)
{
    skf_plot p = skf_panel(c, x, y, w, h, "Projection grid: speedup at the sweet spot", 0);
    double ticks[SK_GRID_MAX_RES], top = 1;
    int ncases = 0;
    for (int r = 0; r < g->nres; r++) {
        ticks[r] = g->res[r];
        ncases = g->runs[r].ncases > ncases ? g->runs[r].ncases : ncases;
        for (int k = 0; k < g->runs[r].ncases; k++) {
            const sk_scaling *s = &g->runs[r].cases[k].scaling;
            for (int i = 0; i < s->npoints && s->points[0].threads > 0; i++)
                top = fmax(top, fmax(s->points[i].speedup, s->points[i].threads / (double)s->points[0].threads));
        }
    }
    p.xlog = 1;
    p.xlo = ticks[0] / 1.4;
    p.xhi = ticks[g->nres - 1] * 1.4;
    if (!isfinite(top))
        top = 1; /* a hand-edited report's times */
    p.ylo = 0;
    p.yhi = skf_nice_ceiling(top * 1.5); /* room for the legend */
    skf_axes(&p, ticks, g->nres, "pixels across", "speedup over the fewest threads");
    double one[4] = {p.x, skf_py(&p, 1), p.x + p.w, skf_py(&p, 1)};
    skf_line(c, one, 2, SKF_GREY, 1.5, 1);
    for (int k = 0; k < ncases; k++) {
        double px[SK_GRID_MAX_RES], py[SK_GRID_MAX_RES];
        int sweet[SK_GRID_MAX_RES], n = 0;
        const char *name = NULL;
        for (int r = 0; r < g->nres; r++) {
            if (k >= g->runs[r].ncases || g->runs[r].cases[k].scaling.npoints < 1)
                continue;
            const sk_scaling *s = &g->runs[r].cases[k].scaling;
            name = g->runs[r].cases[k].name;
            double speed = NAN;
            for (int i = 0; i < s->npoints; i++)
                if (s->points[i].threads == s->sweet_spot)
                    speed = s->points[i].speedup;
            px[n] = g->res[r];
            py[n] = speed;
            sweet[n++] = s->sweet_spot;
        }
        if (!n)
            continue;
        skf_curve(&p, px, py, n, skf_series_colour(k), 2, 0, 1);
        for (int i = 0; i < n; i++) {
            char label[16];
            snprintf(label, sizeof label, "%d", sweet[i]);
            if (isfinite(py[i]))
                skf_text(c, skf_px(&p, px[i]) + 6, skf_py(&p, py[i]) - 5 - 10 * (k % 2), label,
                         SKF_SIZE_TICK - 2, SKF_LEFT, 0, skf_series_colour(k));
        }
        skf_legend(&p, k, name, skf_series_colour(k), 0);
    }
    skf_text(c, p.x + p.w, p.y + p.h - 6, "numbers: threads at the sweet spot; dashed: 1x",
             SKF_SIZE_TICK - 1, SKF_RIGHT, 0, SKF_GREY);
}
