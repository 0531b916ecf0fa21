/* bench/clumps.h - `snapkit bench clumps`: each finder's time and clump
 * count, each boundedness method's time and the tree's largest error
 * against direct, the thread scaling of the faces search with its
 * statistics and of the statistics alone, and the speed targets
 * (faces + statistics against reading the cells; direct over tree).
 * A separate header so the stage stays out of bench.h's other stages. */
#ifndef SNAPKIT_BENCH_CLUMPS_H
#define SNAPKIT_BENCH_CLUMPS_H

#include "bench/bench.h"
#include "snapkit/clumps.h"

typedef struct sk_clumps_bench_options {
    sk_clumps_options find;   /* threshold, unit, field, finder parameters (finder, bound unused) */
    double bound_threshold;   /* the boundedness comparison's threshold (NaN: find.threshold) */
    int64_t direct_max;       /* skip direct when a clump has more cells (0: 150000) */
    int levels[SK_BENCH_MAX_LEVELS];
    int nlevels;
    int runs;                 /* per finder and per level (0: 3) */
    sk_progress progress;
} sk_clumps_bench_options;

typedef struct sk_clumps_bench_finder {
    char name[16];
    int64_t clumps;
    double seconds;            /* median wall time of sk_clumps_find (warm: the runs after the first) */
    double first_seconds;      /* the first search on the table: its arrays' pages fresh */
    double find_seconds;       /* of that run: cells, neighbours, labels */
    double statistics_seconds; /* of that run: per-clump statistics and table */
} sk_clumps_bench_finder;

typedef struct sk_clumps_bench_bound {
    char name[8];
    int ran;                   /* 0: direct skipped (a clump above direct_max cells) */
    double seconds;            /* the e_grav computation alone (one run) */
    double max_rel_error;      /* tree: largest |e_tree - e_direct| / |e_direct| (NaN: no direct) */
} sk_clumps_bench_bound;

typedef struct sk_clumps_bench {
    char source[1024];
    int threads;               /* the most threads the finders ran on */
    int runs;
    double threshold, bound_threshold;
    int64_t cells, cells_above, bound_cells, bound_clumps, bound_largest;
    double read_seconds;       /* median warm read of the hydro cells */
    int nfinders;
    sk_clumps_bench_finder finders[4];
    sk_clumps_bench_bound bounds[3];
    sk_scaling faces, statistics; /* faces + statistics; statistics alone */
    double faces_over_read;    /* faces (find + statistics) / read: below 1 meets the target */
    double direct_over_tree;   /* direct seconds / tree seconds (NaN: direct skipped) */
} sk_clumps_bench;

int sk_bench_clumps(sk_source *src, const sk_selection *sel,
                    const sk_clumps_bench_options *opt, sk_clumps_bench *out, sk_error *err);
void sk_clumps_bench_json(const sk_clumps_bench *b, sk_json *j);
/* Pasteable text (sk_malloc, NULL when memory ran out). */
char *sk_clumps_bench_text(const sk_clumps_bench *b);

#endif
