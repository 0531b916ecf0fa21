/* bench/compare.h - two saved reports side by side: the ratio B/A of
 * every measurement both hold, per stage. */
#ifndef SNAPKIT_BENCH_COMPARE_H
#define SNAPKIT_BENCH_COMPARE_H

#include "snapkit/util/json.h"

/* One measurement: its stage ("sweep", "read", ...), its path inside the
 * stage ("points[threads=2].seconds", "components[name=hydro].rows"), its
 * value in A and in B, and B / A (1 when they are equal, zeros included;
 * NAN when A is 0 and B is not, or either is not finite). */
typedef struct skb_compare_row {
    char stage[32];
    char measurement[192];
    double a, b, ratio;
} skb_compare_row;

typedef struct skb_compare {
    skb_compare_row *rows;   /* in A's order (sk_malloc; skb_compare_free) */
    int nrows;
    int only_a, only_b;      /* measurements in one report only */
} skb_compare;

/* Every number of every stage (every top-level member but "metadata",
 * "machine" and "source"), matched by stage and path. Array elements are
 * named by their "threads", "lmax", "name" or "format" member when they
 * have one (so a sweep with a level more or fewer still matches), else by
 * index. */
int skb_compare_reports(const sk_json_value *a, const sk_json_value *b, skb_compare *out,
                        sk_error *err);
void skb_compare_free(skb_compare *c);

#endif
