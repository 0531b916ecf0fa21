/* bench/report_parts.h - what the report's stage files share inside the
 * bench module: the CSV row writers of report.c and the figure panels
 * kept beside their stages (atoms, the projection grid). */
#ifndef SNAPKIT_BENCH_REPORT_PARTS_H
#define SNAPKIT_BENCH_REPORT_PARTS_H

#include "figure/cairo_lib.h"

#include "bench/bench.h"
#include "snapkit/util/text.h"

/* One row of the long-format CSV (stage,series,threads,quantity,value,
 * unit); threads 0 leaves the cell empty, a non-finite value too. */
void skb_csv_row(sk_text *b, const char *stage, const char *series, int threads,
                 const char *quantity, double value, const char *unit);
/* A sweep's rows (per point, then fastest, sweet spot, Amdahl). */
void skb_csv_scaling(sk_text *b, const char *stage, const char *series, const sk_scaling *s);

/* The stages' own rows and panels. */
void skb_atoms_csv(sk_text *b, const sk_atoms_bench *a);
void skb_grid_csv(sk_text *b, const sk_project_grid *g);
/* Whether the peers panel has a bar to draw. */
int skb_atoms_has_peers(const sk_atoms_bench *a);
void skb_atoms_rate_panel(cairo_t *c, const sk_atoms_bench *a, double x, double y, double w,
                          double h);
void skb_atoms_peers_panel(cairo_t *c, const sk_atoms_bench *a, double x, double y, double w,
                           double h);
void skb_grid_panel(cairo_t *c, const sk_project_grid *g, double x, double y, double w, double h);
/* The clumps stage (clumps_report.c). */
void skb_clumps_csv(sk_text *b, const struct sk_clumps_bench *c);
void skb_clumps_panel(cairo_t *c, const struct sk_clumps_bench *b, double x, double y, double w,
                      double h);

/* The ranks stage (ranks_report.c). */
void skb_ranks_csv(sk_text *b, const struct sk_ranks_bench *r);
void skb_ranks_panel(cairo_t *c, const struct sk_ranks_bench *r, double x, double y, double w,
                     double h);

#endif
