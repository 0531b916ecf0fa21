/* Projection scaling: one quantity and many in one pass, along an axis and
 * off-axis, at each thread level, on a table read once. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/project_grid.h"
#include "snapkit/memory.h"
#include "snapkit/project.h"

enum { MAX_QUANTITIES = 32, DEFAULT_RES_CAP = 2048 };

typedef struct project_case {
    const sk_table *table;
    const char *const *quantities;
    int nq;
    sk_project_options opt;
} project_case;

static int project_once(void *p, int threads, double *seconds, int64_t *peak, sk_error *err)
{
    project_case *c = p;
    c->opt.threads = threads;
    sk_mem_stats before, after;
    sk_mem_get(&before);
    sk_mem_reset_peak();
    sk_maps *maps = NULL;
    int rc = sk_project(c->table, c->nq, c->quantities, &c->opt, &maps, err);
    sk_mem_get(&after);
    if (rc == SK_OK) {
        *seconds = sk_maps_get_info(maps)->seconds;
        *peak = (int64_t)(after.peak - before.current);
    }
    sk_maps_free(maps);
    return rc;
}

/* "sd,T" into q[*nq] pointing into buf. */
static int split(const char *text, char *buf, size_t n, const char **q, int *nq, sk_error *err)
{
    snprintf(buf, n, "%s", text);
    *nq = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*nq == MAX_QUANTITIES)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most %d quantities", MAX_QUANTITIES);
        q[(*nq)++] = tok;
    }
    return *nq ? SK_OK : sk_fail(err, SK_ERR_ARG, NULL, -1, "no quantity to project");
}

/* The default resolution: the data's finest cells, capped so the maps of a
 * deep output stay small. */
static int64_t default_res(const sk_table *t)
{
    double lmax = sk_table_meta_double(t, "levelmax", 10);
    const sk_column *level = sk_table_find(t, "level");
    if (level && level->type == SK_INT32) {
        const int32_t *v = level->data;
        int top = 0;
        for (int64_t i = 0; i < sk_table_nrows(t); i++)
            top = v[i] > top ? v[i] : top;
        lmax = top;
    }
    double res = pow(2, lmax);
    return res < DEFAULT_RES_CAP ? (int64_t)res : DEFAULT_RES_CAP;
}

static int run_cases(const sk_table *t, const char *const *q, int nq,
                     const sk_project_bench_options *opt, sk_project_bench *out, sk_error *err)
{
    static const struct {
        const char *name;
        const char *key, *value;
    } geometry[] = {{"axis z", "axis", "z"}, {"off-axis (1,2,3)", "direction", "1 2 3"}};
    sk_sweep_options so = {.nlevels = opt->nlevels, .runs = opt->runs, .warmup = 1,
                           .progress = opt->progress};
    memcpy(so.levels, opt->levels, sizeof so.levels);
    int64_t res = opt->res > 0 ? opt->res : default_res(t);
    int rc = SK_OK;
    for (int g = 0; g < 2 && rc == SK_OK; g++)
        for (int all = 0; all < (nq > 1 ? 2 : 1) && rc == SK_OK; all++) {
            project_case c = {.table = t, .quantities = q, .nq = all ? nq : 1};
            sk_project_options_init(&c.opt);
            c.opt.res = res;
            rc = sk_project_options_set(&c.opt, geometry[g].key, geometry[g].value, err);
            int k = out->ncases;
            if (all)
                snprintf(out->cases[k].name, sizeof out->cases[k].name, "%d quantities, %s", nq,
                         geometry[g].name);
            else
                snprintf(out->cases[k].name, sizeof out->cases[k].name, "%s, %s", q[0],
                         geometry[g].name);
            if (rc == SK_OK)
                rc = sk_bench_sweep(&so, project_once, &c, &out->cases[k].scaling, NULL, err);
            out->ncases += rc == SK_OK;
        }
    out->nx = out->ny = (int)res;
    return rc;
}

int skb_project_table(const sk_table *t, const sk_project_bench_options *opt,
                      sk_project_bench *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    const char *text = opt->quantities ? opt->quantities : "sd,T,velocity_x,velocity_y";
    char buf[sizeof out->quantities];
    const char *q[MAX_QUANTITIES];
    int nq;
    int rc = split(text, buf, sizeof buf, q, &nq, err);
    if (rc != SK_OK)
        return rc;
    snprintf(out->quantities, sizeof out->quantities, "%s", text);
    out->rows = sk_table_nrows(t);
    return run_cases(t, q, nq, opt, out, err);
}

int sk_bench_project(sk_source *src, const sk_selection *sel,
                     const sk_project_bench_options *opt, sk_project_bench *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    sk_table *t = NULL;
    int rc = sk_bench_source_read(src, opt->component ? opt->component : "hydro", sel, 0, &t,
                                  NULL, err);
    if (rc == SK_OK)
        rc = skb_project_table(t, opt, out, err);
    sk_table_free(t);
    return rc;
}
