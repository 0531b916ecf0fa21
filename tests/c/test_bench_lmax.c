/* The lmax study's line fit: an exact line recovered from constructed
 * data, R^2 within [0, 1] and equal to 1 - SSres/SStot on noisy data, no
 * nudge of the line lowering its squared error, the degenerate cases; and
 * which fit sk_lmax_derive says explains the time. */
#include "check.h"
#include "bench/bench.h"
#include "snapkit/memory.h"

static double sse(const double *x, const double *y, int n, double slope, double intercept)
{
    double e = 0;
    for (int i = 0; i < n; i++)
        e += (intercept + slope * x[i] - y[i]) * (intercept + slope * x[i] - y[i]);
    return e;
}

static void test_exact(void)
{
    /* Bytes and seconds at their real scales: 1e5..1e9 B, 1.3 GB/s, 4 ms. */
    double x[7], y[7];
    for (int i = 0; i < 7; i++) {
        x[i] = 1e5 * pow(4.3, i);
        y[i] = 0.004 + x[i] / 1.3e9;
    }
    double slope, intercept, r2;
    CHECK_EQ_INT(sk_bench_linear_fit(x, y, 7, &slope, &intercept, &r2), SK_OK);
    CHECK_CLOSE(slope, 1 / 1.3e9, 1e-12);
    CHECK_MSG(fabs(intercept - 0.004) < 1e-12, "intercept %.17g", intercept);
    CHECK_MSG(fabs(r2 - 1) < 1e-12, "r2 %.17g", r2);
    /* A falling line fits as well: R^2 does not care about the sign. */
    for (int i = 0; i < 7; i++)
        y[i] = 10 - 3e-9 * x[i];
    CHECK_EQ_INT(sk_bench_linear_fit(x, y, 7, &slope, &intercept, &r2), SK_OK);
    CHECK_CLOSE(slope, -3e-9, 1e-12);
    CHECK_MSG(fabs(r2 - 1) < 1e-12, "r2 %.17g", r2);
}

static void test_noisy(void)
{
    const double noise[8] = {0.31, -0.22, 0.05, -0.4, 0.18, 0.27, -0.11, -0.08};
    const double amplitude[] = {0.01, 1, 100};
    for (int k = 0; k < 3; k++) {
        double x[8], y[8];
        for (int i = 0; i < 8; i++) {
            x[i] = i * i + 1.0;
            y[i] = 2 + 0.5 * x[i] + amplitude[k] * noise[i];
        }
        double slope, intercept, r2;
        CHECK_EQ_INT(sk_bench_linear_fit(x, y, 8, &slope, &intercept, &r2), SK_OK);
        CHECK_MSG(r2 >= 0 && r2 <= 1, "r2 %.17g", r2);
        double my = 0, tot = 0;
        for (int i = 0; i < 8; i++)
            my += y[i] / 8;
        for (int i = 0; i < 8; i++)
            tot += (y[i] - my) * (y[i] - my);
        double best = sse(x, y, 8, slope, intercept);
        CHECK_MSG(fabs(r2 - (1 - best / tot)) < 1e-9, "r2 %.17g vs %.17g", r2, 1 - best / tot);
        for (int d = 0; d < 4; d++) {
            double ds = (d & 1 ? 1 : -1) * 1e-3 * (d < 2), di = (d & 1 ? 1 : -1) * 1e-3 * (d >= 2);
            CHECK(sse(x, y, 8, slope + ds, intercept + di) > best);
        }
        if (k == 0)
            CHECK(r2 > 0.999);
        if (k == 2)
            CHECK(r2 < 0.5);
    }
}

static void test_degenerate(void)
{
    double x[3] = {5, 5, 5}, y[3] = {1, 2, 3}, slope, intercept, r2;
    CHECK_EQ_INT(sk_bench_linear_fit(x, y, 3, &slope, &intercept, &r2), SK_ERR_ARG);
    CHECK(slope == 0 && intercept == 2 && r2 == 0);
    CHECK_EQ_INT(sk_bench_linear_fit(y, x, 1, &slope, &intercept, &r2), SK_ERR_ARG);
    /* A flat y is fitted by a flat line that explains nothing. */
    CHECK_EQ_INT(sk_bench_linear_fit(y, x, 3, &slope, &intercept, &r2), SK_OK);
    CHECK(slope == 0 && intercept == 5 && r2 == 0);
}

static void test_derive(void)
{
    /* Time exactly linear in allocation; bytes read constant for the
     * RAMSES path and noisy against time for the file. */
    static sk_lmax_bench b;
    memset(&b, 0, sizeof b);
    snprintf(b.file, sizeof b.file, "x.snapkit");
    b.npoints = 5;
    const int64_t read[5] = {100, 900, 300, 1000, 700};
    for (int i = 0; i < 5; i++) {
        sk_lmax_point *p = &b.points[i];
        p->lmax = 4 + i;
        p->ramses.bytes_allocated = 1000 << i;
        p->ramses.bytes_read = 5000;
        p->ramses.seconds = 1e-3 + 1e-9 * (double)p->ramses.bytes_allocated;
        p->file.bytes_allocated = 2000 << i;
        p->file.bytes_read = read[i];
        p->file.seconds = p->ramses.seconds / 4;
    }
    sk_lmax_derive(&b);
    CHECK(b.fit_ramses.allocated.ok && !b.fit_ramses.read.ok);
    CHECK_EQ_STR(b.fit_ramses.explains, "allocated");
    CHECK_CLOSE(b.fit_ramses.allocated.gb_per_second, 1, 1e-9);
    CHECK_EQ_STR(b.fit_file.explains, "allocated");
    CHECK(b.fit_file.read.ok && b.fit_file.read.r2 < b.fit_file.allocated.r2);
    for (int i = 0; i < 5; i++) {
        CHECK_CLOSE(b.points[i].time_ratio, 4, 1e-12);
        CHECK_CLOSE(b.points[i].alloc_ratio, 0.5, 1e-12);
    }
    char *text = sk_lmax_text(&b);
    CHECK(text != NULL);
    if (text)
        CHECK_CONTAINS(text, "the bytes allocated explain the time better");
    sk_free(text);
    /* The report's figure gains one panel, named for the stage. */
    sk_machine m;
    memset(&m, 0, sizeof m);
    sk_report r = {.machine = &m, .lmax = &b};
    sk_report_panel panels[SK_REPORT_MAX_PANELS];
    double w, h;
    CHECK_EQ_INT(sk_report_layout(&r, panels, &w, &h), 1);
    CHECK_EQ_STR(panels[0].name, "lmax");
    /* Without a file: no ratios, no file fit. */
    b.file[0] = 0;
    sk_lmax_derive(&b);
    CHECK(isnan(b.points[0].time_ratio) && !b.fit_file.allocated.ok);
}

int main(void)
{
    test_exact();
    test_noisy();
    test_degenerate();
    test_derive();
    return test_done();
}
