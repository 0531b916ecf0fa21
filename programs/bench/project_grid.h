/* bench/project_grid.h - the projection grid, resolution x threads:
 * `bench project --res LIST` and the report's project stage with
 * `--res LIST`. Where threads stop paying, per resolution, for one
 * quantity and for several in one pass. Not part of libsnapkit. */
#ifndef SNAPKIT_BENCH_PROJECT_GRID_H
#define SNAPKIT_BENCH_PROJECT_GRID_H

#include "bench/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_GRID_MAX_RES 8

struct sk_project_grid {
    int nres;
    int res[SK_GRID_MAX_RES];              /* ascending */
    sk_project_bench runs[SK_GRID_MAX_RES]; /* one projection bench per resolution */
};

/* "256,512,1024" into res[] (ascending, distinct, each 1 to 65536); *n
 * is the count. */
int sk_project_grid_parse(const char *text, int *res, int *n, sk_error *err);

/* Read the component once, then run the projection bench (opt, its res
 * ignored) at each resolution. */
int sk_bench_project_grid(sk_source *src, const sk_selection *sel,
                          const sk_project_bench_options *opt, const int *res, int nres,
                          sk_project_grid *out, sk_error *err);

/* The projection bench of a table already read (what sk_bench_project
 * does after its read). */
int skb_project_table(const sk_table *t, const sk_project_bench_options *opt,
                      sk_project_bench *out, sk_error *err);

/* {"grid": [{"res", "project"}], "summary": [{"res", "case", "fastest",
 * "sweet_spot", "economical", "best_seconds", "speedup",
 * "parallel_fraction"}]}: report.json's "project_grid", and what
 * `bench project --res LIST --json` prints. */
void sk_project_grid_json(const sk_project_grid *g, sk_json *j);
/* Each resolution's text, then the table of where threads stop paying. */
char *sk_project_grid_text(const sk_project_grid *g);

struct sk_json_value;
void skb_project_grid_from_json(const struct sk_json_value *v, sk_project_grid *g);
/* report_load.c's reader of one projection bench. */
void skb_project_from_json(const struct sk_json_value *v, sk_project_bench *p);

#ifdef __cplusplus
}
#endif
#endif
