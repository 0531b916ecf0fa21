/* bench/ranks.h - `snapkit bench ranks` and the report's ranks stage:
 * under mpirun -np N, full reads of one component on a grid of ranks
 * (1, 2, 4, ..., N) x threads per rank, with the fastest point, the sweet
 * spot, the economical point and an Amdahl fit over the CPUs, so a user
 * learns whether ranks or threads pay on their machine. */
#ifndef SNAPKIT_BENCH_RANKS_H
#define SNAPKIT_BENCH_RANKS_H

#include "bench/bench.h"

enum { SK_RANKS_MAX_POINTS = 64 };

typedef struct sk_ranks_point {
    int ranks, threads;   /* threads per rank */
    double seconds;       /* best run; a run's time is its slowest rank's */
} sk_ranks_point;

typedef struct sk_ranks_bench_options {
    const char *component;        /* NULL: hydro */
    int levels[SK_BENCH_MAX_LEVELS]; /* threads per rank (nlevels 0: 1, 2, 4, ... the budget) */
    int nlevels;
    int runs;                     /* per point (0: 3) */
} sk_ranks_bench_options;

typedef struct sk_ranks_bench {
    char source[1024];
    char component[16];
    int world;                    /* the ranks the job had */
    int runs;
    int npoints;
    sk_ranks_point points[SK_RANKS_MAX_POINTS]; /* by ranks, then threads */
    int fastest, sweet_spot, economical;        /* indices into points */
    double parallel_fraction;     /* Amdahl over the CPUs (ranks x threads) */
} sk_ranks_bench;

/* Measure the grid (collective: every rank of the world calls it, with
 * the same options). Every rank gets the result. */
int sk_bench_ranks(sk_source *src, const sk_selection *sel,
                   const sk_ranks_bench_options *opt, sk_ranks_bench *out, sk_error *err);
/* Fill the fastest, sweet spot, economical and Amdahl members from the
 * points (points[0] is the reference: 1 rank x the fewest threads). */
void sk_ranks_bench_analyse(sk_ranks_bench *b);
void sk_ranks_bench_json(const sk_ranks_bench *b, sk_json *j);
/* Pasteable text (sk_malloc, NULL when memory ran out). */
char *sk_ranks_bench_text(const sk_ranks_bench *b);

#endif
