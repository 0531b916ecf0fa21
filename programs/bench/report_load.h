/* bench/report_load.h - a saved report.json back into an sk_report, so
 * that `bench plot` redraws the figure (and the text) without measuring. */
#ifndef SNAPKIT_BENCH_REPORT_LOAD_H
#define SNAPKIT_BENCH_REPORT_LOAD_H

#include "bench/atoms.h"
#include "bench/bench.h"
#include "bench/clumps.h"
#include "bench/project_grid.h"
#include "bench/ranks.h"
#include "snapkit/util/json.h"

/* Every stage a report may hold, and the report pointing at those read. */
typedef struct skb_saved_report {
    sk_machine machine;
    skb_source_usage source;
    sk_storage_result storage;
    sk_read_bench read;
    sk_convert_bench convert;
    sk_project_bench project;
    sk_scaling sweep;
    sk_lmax_bench lmax;
    sk_project_grid project_grid;
    sk_atoms_bench atoms;
    sk_clumps_bench clumps;
    sk_ranks_bench ranks;
    sk_bench_meta meta;
    sk_report report;
} skb_saved_report;

/* Fill out from a parsed report.json: the numbers the text and the figure
 * use (missing numbers read as 0, null as NaN; arrays longer than the
 * structs hold are cut). SK_ERR_FORMAT when root is not a report (no
 * "machine" object), a stage is not an object or a point's threads is not a
 * whole number from 1; the errors name path. */
/* A scaling object (points, fastest, sweet spot, Amdahl) back. */
void skb_scaling_from_json(const sk_json_value *v, sk_scaling *s);
/* The clumps stage back (clumps_report.c). */
void skb_clumps_from_json(const sk_json_value *v, sk_clumps_bench *c);
/* The ranks stage back (ranks_report.c). */
void skb_ranks_from_json(const sk_json_value *v, sk_ranks_bench *r);

int skb_report_from_json(const sk_json_value *root, const char *path, skb_saved_report *out,
                         sk_error *err);

#endif
