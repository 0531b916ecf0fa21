/* bench ranks (bench/ranks.h): the fastest, sweet spot and economical
 * points and the Amdahl fit of a hand-made grid, worked out by hand below;
 * the JSON read back (report.json) gives the same grid and picks; the
 * CSV has one row per point and quantity. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "bench/ranks.h"
#include "bench/report_load.h"
#include "bench/report_parts.h"
#include "snapkit/util/text.h"
#include "snapkit/memory.h"

static void grid(sk_ranks_bench *b, const double *seconds)
{
    static const int rt[6][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {4, 1}, {4, 2}};
    memset(b, 0, sizeof *b);
    snprintf(b->source, sizeof b->source, "out");
    snprintf(b->component, sizeof b->component, "hydro");
    b->world = 4;
    b->runs = 3;
    b->npoints = 6;
    for (int i = 0; i < 6; i++)
        b->points[i] = (sk_ranks_point){rt[i][0], rt[i][1], seconds[i]};
    sk_ranks_bench_analyse(b);
}

/* Fastest 4 x 2 (0.28 s); within 5% (0.294 s): 4 x 1 (4 CPUs) and 4 x 2
 * (8): the sweet spot is 4 x 1; within 10% (0.308 s) 2 x 1 (2 CPUs) joins:
 * the economical point. */
static void test_picks(void)
{
    const double t[6] = {1.0, 0.52, 0.305, 0.30, 0.29, 0.28};
    sk_ranks_bench b;
    grid(&b, t);
    CHECK_EQ_INT(b.fastest, 5);
    CHECK_EQ_INT(b.sweet_spot, 4);
    CHECK_EQ_INT(b.economical, 2);
}

/* Times on T(c) = T1 ((1 - f) + f / c) with f = 0.8: the fit gives 0.8. */
static void test_amdahl(void)
{
    double t[6];
    const int cpus[6] = {1, 2, 2, 4, 4, 8};
    for (int i = 0; i < 6; i++)
        t[i] = 2.5 * (0.2 + 0.8 / cpus[i]);
    sk_ranks_bench b;
    grid(&b, t);
    CHECK_CLOSE(b.parallel_fraction, 0.8, 1e-12);
    /* 4 x 2 (0.75 s) is alone within 10% of itself (the next, 1.0 s). */
    CHECK_EQ_INT(b.fastest, 5);
    CHECK_EQ_INT(b.sweet_spot, 5);
    CHECK_EQ_INT(b.economical, 5);
}

static void test_json_and_csv(void)
{
    const double t[6] = {1.0, 0.52, 0.305, 0.30, 0.29, 0.28};
    sk_ranks_bench b, back;
    grid(&b, t);
    sk_json j;
    sk_json_init(&j, 0);
    sk_ranks_bench_json(&b, &j);
    const char *text = sk_json_text(&j);
    CHECK_CONTAINS(text, "\"sweet_spot\":{\"ranks\":4,\"threads\":1,\"cpus\":4,");
    sk_json_value *v = NULL;
    sk_error err;
    CHECK_OK(sk_json_parse(text, strlen(text), NULL, &v, &err), &err);
    skb_ranks_from_json(v, &back);
    sk_json_value_free(v);
    sk_json_free(&j);
    CHECK_EQ_INT(back.npoints, 6);
    CHECK_EQ_INT(back.world, 4);
    CHECK_EQ_STR(back.component, "hydro");
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(back.points[i].ranks, b.points[i].ranks);
        CHECK_EQ_INT(back.points[i].threads, b.points[i].threads);
        CHECK(back.points[i].seconds == b.points[i].seconds);
    }
    CHECK_EQ_INT(back.sweet_spot, 4);
    CHECK_EQ_INT(back.economical, 2);
    sk_text csv = {0};
    skb_ranks_csv(&csv, &b);
    char *rows = sk_text_take(&csv);
    int lines = 0;
    for (const char *s = rows; *s; s++)
        lines += *s == '\n';
    CHECK_EQ_INT(lines, 6 * 3 + 3 * 2 + 1); /* points x 3, picks x 2, Amdahl */
    CHECK_CONTAINS(rows, "ranks,\"hydro 4 ranks\",1,seconds,0.28999999999999998,s\n");
    CHECK_CONTAINS(rows, "ranks,\"hydro\",,economical_ranks,2,ranks\n");
    sk_free(rows);
}

int main(void)
{
    test_picks();
    test_amdahl();
    test_json_and_csv();
    return test_done();
}
