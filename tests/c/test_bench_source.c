/* Bench sources: octs per level from the amr headers against the leaf
 * counts yt found (reference.json), the memory estimate against the bytes
 * of the tables a read returns, the usage split, and a read bench and a
 * sweep on the shipped example. */
#include "check.h"
#include "bench/bench.h"
#include "bench/source.h"
#include "snapkit/snapkit.h"

/* yt's leaf cells per level of the full hydro read: "full" -> "hydro" ->
 * "levels": {"4": 3096, ...}. Returns the highest level. */
static int reference_leaves(const char *json, int64_t *leaves)
{
    const char *p = strstr(json, "\"full\"");
    p = p ? strstr(p, "\"hydro\": {") : NULL;
    p = p ? strstr(p, "\"levels\": {") : NULL;
    if (!p)
        return 0;
    p = strchr(p, '{') + 1;
    int top = 0, level;
    long long n;
    int used;
    while (sscanf(p, " \"%d\": %lld%n", &level, &n, &used) == 2 && level < 64) {
        leaves[level] = n;
        if (level > top)
            top = level;
        p += used;
        while (*p == ',' || *p == ' ' || *p == '\n')
            p++;
    }
    return top;
}

static void check_output(const char *rel)
{
    char dir[512], ref[600];
    test_data(dir, sizeof dir, rel);
    snprintf(ref, sizeof ref, "%s.reference.json", dir);
    char *json = test_slurp(ref);
    CHECK_MSG(json != NULL, "%s", ref);
    if (!json)
        return;
    int64_t leaves[64] = {0};
    int top = reference_leaves(json, leaves);
    CHECK(top > 0);
    sk_source *src;
    sk_error err;
    CHECK_OK(sk_source_open(&src, dir, &err), &err);
    const sk_ramses_info *in = sk_ramses_get_info(sk_source_ramses(src));
    CHECK_EQ_INT(top, in->levelmax);
    int64_t octs[64] = {0};
    CHECK_OK(sk_ramses_level_octs(sk_source_ramses(src), octs, &err), &err);
    for (int l = 1; l <= in->levelmax; l++)
        CHECK_MSG(8 * octs[l - 1] - (l < in->levelmax ? octs[l] : 0) == leaves[l],
                  "%s level %d: %lld leaves from the amr headers, yt %lld", rel, l,
                  (long long)(8 * octs[l - 1] - (l < in->levelmax ? octs[l] : 0)),
                  (long long)leaves[l]);
    /* The estimate of the cells is exact: rows times the columns' width. */
    sk_selection sel;
    sk_selection_init(&sel);
    int64_t estimate = 0, tables = 0;
    CHECK_OK(sk_bench_source_estimate(src, &sel, 0, &estimate, &err), &err);
    const char *names[4];
    int n = sk_source_components(src, names, (int)(sizeof names / sizeof names[0]));
    for (int i = 0; i < n; i++) {
        sk_table *t = NULL;
        CHECK_OK(sk_bench_source_read(src, names[i], &sel, 1, &t, NULL, &err), &err);
        if (strcmp(names[i], "particles") != 0)
            tables += sk_table_bytes(t);
        sk_table_free(t);
    }
    skb_source_usage u;
    CHECK_OK(sk_bench_source_usage(src, &u, &err), &err);
    int64_t part_bytes = 0, sum = 0;
    for (int i = 0; i < u.ncomponents; i++) {
        sum += u.components[i].bytes;
        if (strcmp(u.components[i].name, "particles") == 0)
            part_bytes = u.components[i].bytes;
    }
    CHECK_EQ_INT(estimate - part_bytes, tables);
    CHECK_EQ_INT(sum, u.bytes);
    CHECK_EQ_STR(u.kind, "ramses");
    sk_selection_clear(&sel);
    sk_source_close(src);
    free(json);
}

static void test_read_bench(void)
{
    char dir[512];
    test_data(dir, sizeof dir, "ramses/gravpart/output_00002");
    sk_source *src;
    sk_error err;
    CHECK_OK(sk_source_open(&src, dir, &err), &err);
    sk_selection sel;
    sk_selection_init(&sel);
    sel.lmax = 5;
    sk_read_bench_options opt = {.threads = 1, .runs = 2, .cold = 1,
                                 .components = {"hydro", "particles", NULL}};
    sk_read_bench r;
    CHECK_OK(sk_bench_read(src, &sel, &opt, &r, &err), &err);
    CHECK_EQ_INT(r.ncomponents, 2);
    CHECK_EQ_STR(r.components[0].name, "hydro");
    CHECK_EQ_INT(r.components[0].rows, 11096); /* yt, lmax 5 */
    CHECK_EQ_INT(r.components[1].rows, 3335);  /* particles take no lmax */
    CHECK_EQ_INT(r.components[0].bytes_result, 11096 * (4 * 4 + 6 * 8));
    for (int i = 0; i < 2; i++) {
        const sk_read_component *c = &r.components[i];
        CHECK_EQ_INT(c->runs, 2);
        CHECK(c->mean_seconds > 0 && c->stddev_seconds >= 0);
        CHECK(c->bytes_allocated >= c->bytes_result);
        CHECK(c->peak_bytes >= c->bytes_result);
        CHECK(c->peak_rss > 0);
        CHECK(r.cache_dropped ? c->cold_seconds > 0 : c->cold_seconds < 0);
    }
    CHECK(r.cache_dropped || r.cache_note[0]);
    opt.components[0] = "nothing";
    CHECK_EQ_INT(sk_bench_read(src, &sel, &opt, &r, &err), SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "no nothing component");

    sk_sweep_options so = {.levels = {1}, .nlevels = 1, .runs = 2};
    sk_scaling s;
    int dropped = -1;
    CHECK_OK(sk_bench_read_sweep(src, &sel, NULL, &so, &s, &dropped, &err), &err);
    CHECK_EQ_INT(dropped, 0);
    CHECK_EQ_INT(s.npoints, 1);
    CHECK_EQ_INT(s.fastest, 1);
    CHECK(s.points[0].seconds_min <= s.points[0].seconds && s.points[0].seconds <= s.points[0].seconds_max);
    CHECK(s.points[0].peak_bytes >= 11096 * (4 * 4 + 6 * 8));
    sk_selection_clear(&sel);
    sk_source_close(src);
    CHECK(sk_source_open(&src, "/no/such/output_00001", &err) != SK_OK);
    CHECK_CONTAINS(err.message, "/no/such/output_00001");
}

int main(void)
{
    check_output("ramses/gravpart/output_00002");
    check_output("ramses/sedov3d/output_00001");
    check_output("ramses/manyfiles/output_00002");
    test_read_bench();
    return test_done();
}
