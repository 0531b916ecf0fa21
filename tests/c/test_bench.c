/* Bench: machine facts, thread levels, the Amdahl fit against brute force,
 * sweet spot and economical on hand-made tables, the storage probe's
 * counts, and the report's files (the figure's PNG decoded back with libpng). */
#include <png.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"
#include "bench/bench.h"
#include "figure/figure.h"

static const int k_levels[] = {1, 2, 4, 8, 16, 32};
enum { NLEVELS = 6 };

static double amdahl_time(double t1, double p, int n)
{
    return t1 * ((1 - p) + p / n);
}

/* The best p on a fine grid, T1 solved exactly for each p: the relative
 * least-squares optimum found without the fit's algebra. */
static double brute_force_p(const int *threads, const double *t, int n)
{
    double best_p = 0, best_e = INFINITY;
    for (int k = 0; k <= 100000; k++) {
        double p = k / 100000.0, num = 0, den = 0;
        for (int i = 0; i < n; i++) {
            double f = (1 - p) + p / threads[i], w = 1 / (t[i] * t[i]);
            num += w * t[i] * f;
            den += w * f * f;
        }
        double t1 = num / den, e = 0;
        for (int i = 0; i < n; i++) {
            double r = (t1 * ((1 - p) + p / threads[i]) - t[i]) / t[i];
            e += r * r;
        }
        if (e < best_e) {
            best_e = e;
            best_p = p;
        }
    }
    return best_p;
}

static void test_amdahl_exact(void)
{
    const double ps[] = {0.0, 0.5, 0.9, 0.97, 0.999, 1.0};
    for (int k = 0; k < 6; k++) {
        double t[NLEVELS];
        for (int i = 0; i < NLEVELS; i++)
            t[i] = amdahl_time(7.3, ps[k], k_levels[i]);
        sk_amdahl a;
        CHECK_EQ_INT(sk_amdahl_fit(k_levels, t, NLEVELS, &a), SK_OK);
        CHECK_MSG(fabs(a.parallel_fraction - ps[k]) < 1e-9, "p %.12g vs %.12g", a.parallel_fraction,
                  ps[k]);
        CHECK_CLOSE(a.one_thread_seconds, 7.3, 1e-9);
        CHECK_MSG(fabs(a.serial_seconds - 7.3 * (1 - ps[k])) < 1e-9, "serial %.12g",
                  a.serial_seconds);
        if (ps[k] < 1)
            CHECK_CLOSE(a.ceiling, 1 / (1 - ps[k]), 1e-6);
        else
            CHECK(isinf(a.ceiling));
        CHECK_EQ_INT(a.points_used, NLEVELS);
    }
}

static void test_amdahl_noisy(void)
{
    /* +-4% deterministic noise on p = 0.9 and p = 0.6 curves. */
    const double noise[NLEVELS] = {1.03, 0.97, 1.04, 0.98, 1.01, 0.96};
    const double ps[] = {0.9, 0.6};
    for (int k = 0; k < 2; k++) {
        double t[NLEVELS];
        for (int i = 0; i < NLEVELS; i++)
            t[i] = amdahl_time(20, ps[k], k_levels[i]) * noise[i];
        sk_amdahl a;
        sk_amdahl_fit(k_levels, t, NLEVELS, &a);
        double brute = brute_force_p(k_levels, t, NLEVELS);
        CHECK_MSG(fabs(a.parallel_fraction - brute) < 2e-5, "fit %.6f vs brute force %.6f",
                  a.parallel_fraction, brute);
        CHECK_MSG(fabs(a.parallel_fraction - ps[k]) < 0.03, "fit %.4f vs true %.2f",
                  a.parallel_fraction, ps[k]);
    }
    /* Times that grow with threads: no parallel part, never a negative one. */
    const double rising[] = {10, 10.5, 11, 12};
    sk_amdahl a;
    sk_amdahl_fit(k_levels, rising, 4, &a);
    CHECK_EQ_INT(a.parallel_fraction == 0, 1);
    CHECK_CLOSE(a.ceiling, 1, 1e-12);
    CHECK_EQ_INT(brute_force_p(k_levels, rising, 4) == 0, 1);
    /* Superlinear: bounded at p = 1, the brute force agrees. */
    const double superlinear[] = {10, 4.5, 2.2, 1.0};
    sk_amdahl_fit(k_levels, superlinear, 4, &a);
    CHECK_CLOSE(a.parallel_fraction, brute_force_p(k_levels, superlinear, 4), 1e-4);
    /* One point. */
    sk_amdahl_fit(k_levels, rising, 1, &a);
    CHECK_EQ_INT(a.points_used, 1);
    CHECK_CLOSE(a.one_thread_seconds, 10, 1e-12);
    CHECK_EQ_INT(a.parallel_fraction == 0, 1);
    CHECK_EQ_INT(sk_amdahl_fit(k_levels, rising, 0, &a), SK_ERR_ARG);
}

static void table(sk_scaling *s, const int *threads, const double *t, int n)
{
    memset(s, 0, sizeof *s);
    s->npoints = n;
    for (int i = 0; i < n; i++)
        s->points[i] = (sk_sweep_point){.threads = threads[i], .runs = 1, .seconds = t[i],
                                        .seconds_min = t[i], .seconds_max = t[i]};
}

static void test_sweet_spot(void)
{
    sk_scaling s;
    sk_error err;
    char trade[256];
    /* Fastest 16 (2.0); within 5% (<= 2.1): 8; within 10% (<= 2.2): 4. */
    const double t1[] = {10, 5.2, 2.16, 2.05, 2.0};
    table(&s, k_levels, t1, 5);
    CHECK_OK(sk_scaling_analyse(&s, &err), &err);
    CHECK_EQ_INT(s.fastest, 16);
    CHECK_EQ_INT(s.sweet_spot, 8);
    CHECK_EQ_INT(s.economical, 4);
    CHECK_CLOSE(s.points[2].speedup, 10 / 2.16, 1e-12);
    CHECK_CLOSE(s.points[2].efficiency, 10 / 2.16 / 4, 1e-12);
    sk_scaling_trade(&s, trade, sizeof trade);
    CHECK_EQ_STR(trade, "going from 4 to 16 threads costs 4x the cores for 8% more speed");
    /* The economical point's cost: 4 of 16 threads for 2.0 / 2.16 of the
     * best speed; the fastest point's share of the Amdahl ceiling. */
    sk_scaling_shares sh;
    sk_scaling_shares_get(&s, &sh);
    CHECK_EQ_INT(sh.most_threads, 16);
    CHECK_CLOSE(sh.cores_share, 0.25, 1e-15);
    CHECK_CLOSE(sh.speed_share, 2.0 / 2.16, 1e-15);
    CHECK(s.amdahl.points_used >= 2 && isfinite(s.amdahl.ceiling));
    CHECK_CLOSE(sh.ceiling_share, 5.0 / s.amdahl.ceiling, 1e-12);
    CHECK(sh.ceiling_share > 0 && sh.ceiling_share <= 1 + 1e-9);
    char *text = sk_scaling_text(&s, "t");
    CHECK_CONTAINS(text, "economical point: 4 of 16 threads, 25% of the cores, for 93% of the best speed");
    CHECK_CONTAINS(text, "the fastest point (16 threads) reaches ");
    sk_free(text);
    /* The fit uses the rising part only: 32 threads got slower. */
    double t2[NLEVELS];
    for (int i = 0; i < NLEVELS; i++)
        t2[i] = amdahl_time(12, 0.95, k_levels[i]);
    t2[5] = t2[4] * 1.3;
    table(&s, k_levels, t2, NLEVELS);
    sk_scaling_analyse(&s, &err);
    CHECK_EQ_INT(s.fastest, 16);
    CHECK_EQ_INT(s.amdahl.points_used, 5);
    CHECK_CLOSE(s.amdahl.parallel_fraction, 0.95, 1e-9);
    /* Flat: every count is as fast; the fewest threads win all three. */
    const double flat[] = {4, 4, 4, 4, 4, 4};
    table(&s, k_levels, flat, NLEVELS);
    sk_scaling_analyse(&s, &err);
    CHECK_EQ_INT(s.fastest, 1);
    CHECK_EQ_INT(s.sweet_spot, 1);
    CHECK_EQ_INT(s.economical, 1);
    CHECK_EQ_INT(s.amdahl.parallel_fraction == 0, 1);
    sk_scaling_trade(&s, trade, sizeof trade);
    CHECK_CONTAINS(trade, "1 thread is both the fastest and the economical point");
    /* Noisy and flat-ish: the fastest is 16 by noise; 5% keeps 4. */
    const double noisy[] = {10, 5.1, 4.0, 4.1, 3.9, 4.05};
    table(&s, k_levels, noisy, NLEVELS);
    sk_scaling_analyse(&s, &err);
    CHECK_EQ_INT(s.fastest, 16);
    CHECK_EQ_INT(s.sweet_spot, 4);
    CHECK_EQ_INT(s.economical, 4);
    /* Noisy, where 5% and 10% part: 4.3 is within 10% of 3.95, not 5%. */
    const double noisy2[] = {10, 6.0, 4.3, 4.2, 3.95, 4.4};
    table(&s, k_levels, noisy2, NLEVELS);
    sk_scaling_analyse(&s, &err);
    CHECK_EQ_INT(s.fastest, 16);
    CHECK_EQ_INT(s.sweet_spot, 16);
    CHECK_EQ_INT(s.economical, 4);
    /* Base other than one thread; spread of several runs. */
    const int from2[] = {2, 4, 8};
    const double t3[] = {8, 4.4, 2.5};
    table(&s, from2, t3, 3);
    s.points[1].runs = 3;
    s.points[1].seconds_min = 4.0;
    s.points[1].seconds_max = 5.0;
    sk_scaling_analyse(&s, &err);
    CHECK_CLOSE(s.points[2].speedup, 8 / 2.5, 1e-12);
    CHECK_CLOSE(s.points[2].efficiency, 8 / 2.5 * 2 / 8, 1e-12);
    CHECK_CLOSE(s.points[1].spread, 0.25, 1e-12);
    CHECK_EQ_INT(s.points[0].spread == 0, 1);
    s.npoints = 0;
    CHECK_EQ_INT(sk_scaling_analyse(&s, &err), SK_ERR_ARG);
}

typedef struct fake_run {
    int calls;
    int max_threads_seen;
    int calls_at[64];
} fake_run;

/* A pretend workload: Amdahl time with p = 0.8, 10% slower on every
 * other call at the same thread count. */
static int fake_fn(void *ctx, int threads, double *seconds, int64_t *peak, sk_error *err)
{
    (void)err;
    fake_run *f = ctx;
    f->calls++;
    if (threads > f->max_threads_seen)
        f->max_threads_seen = threads;
    int k = ++f->calls_at[threads < 64 ? threads : 63];
    *seconds = amdahl_time(10, 0.8, threads) * (k % 2 ? 1.1 : 1.0);
    *peak = 1000 * threads;
    return SK_OK;
}

static void test_sweep_runner(void)
{
    sk_thread_budget b;
    sk_thread_budget_get(0, &b);
    sk_sweep_options opt = {.levels = {1, 2, 4, 8}, .nlevels = 4, .runs = 3, .warmup = 1};
    fake_run f = {0};
    sk_scaling s;
    sk_error err;
    int dropped = -1;
    CHECK_OK(sk_bench_sweep(&opt, fake_fn, &f, &s, &dropped, &err), &err);
    int kept = 0;
    for (int i = 0; i < 4; i++)
        kept += opt.levels[i] <= b.owned;
    CHECK_EQ_INT(dropped, 4 - kept);
    CHECK_EQ_INT(s.npoints, kept);
    CHECK_EQ_INT(f.calls, kept * 3 + 1);
    CHECK(f.max_threads_seen <= b.owned);
    for (int i = 0; i < s.npoints; i++) {
        double t = amdahl_time(10, 0.8, s.points[i].threads);
        CHECK_CLOSE(s.points[i].seconds_min, t, 1e-12);
        CHECK_CLOSE(s.points[i].seconds_max, 1.1 * t, 1e-12);
        CHECK_EQ_INT(s.points[i].peak_bytes, 1000 * s.points[i].threads);
    }
}

static void test_levels(void)
{
    int v[SK_BENCH_MAX_LEVELS];
    sk_error err;
    CHECK_EQ_INT(sk_bench_parse_levels("8,1,2,2", v, SK_BENCH_MAX_LEVELS, &err), 3);
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 8);
    CHECK_EQ_INT(sk_bench_parse_levels("1,,2", v, SK_BENCH_MAX_LEVELS, &err), -1);
    CHECK_CONTAINS(err.message, "1,,2");
    CHECK_EQ_INT(sk_bench_parse_levels("0", v, SK_BENCH_MAX_LEVELS, &err), -1);
    CHECK_EQ_INT(sk_bench_parse_levels("4x", v, SK_BENCH_MAX_LEVELS, &err), -1);
    CHECK_EQ_INT(sk_bench_parse_levels("", v, SK_BENCH_MAX_LEVELS, &err), -1);
    CHECK_EQ_INT(sk_bench_default_levels(6, v, SK_BENCH_MAX_LEVELS), 4);
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 4 && v[3] == 6);
    CHECK_EQ_INT(sk_bench_default_levels(8, v, SK_BENCH_MAX_LEVELS), 4);
    CHECK_EQ_INT(v[3], 8);
    CHECK_EQ_INT(sk_bench_default_levels(1, v, SK_BENCH_MAX_LEVELS), 1);
    int w[] = {1, 2, 4, 8, 16};
    CHECK_EQ_INT(sk_bench_clamp_levels(w, 5, 6), 3);
    CHECK_EQ_INT(w[2], 4);
}

/* The median of repeated runs: the middle value, or the mean of the two
 * middle values, whatever the order the runs came in. */
static void test_median(void)
{
    double odd[] = {3.0, 1.0, 2.0, 9.0, -4.0};
    CHECK(sk_bench_median(odd, 5) == 2.0);
    CHECK(odd[0] == -4.0 && odd[4] == 9.0); /* sorted in place */
    double even[] = {4.0, 1.0, 10.0, 2.0};
    CHECK(sk_bench_median(even, 4) == 3.0);
    double one[] = {7.5};
    CHECK(sk_bench_median(one, 1) == 7.5);
}

static void test_machine(void)
{
    /* Two packages, two cores each, two hyperthreads per core. */
    char cpuinfo[8192] = "";
    for (int cpu = 0; cpu < 8; cpu++) {
        char block[256];
        snprintf(block, sizeof block,
                 "processor\t: %d\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU @ 2.0GHz  \n"
                 "physical id\t: %d\nsiblings\t: 4\ncore id\t\t: %d\ncpu cores\t: 2\n\n",
                 cpu, cpu / 4, (cpu / 2) % 2);
        strcat(cpuinfo, block);
    }
    sk_machine m;
    memset(&m, 0, sizeof m);
    strcpy(m.cpu_model, "unknown");
    sk_machine_parse_cpuinfo(cpuinfo, &m);
    CHECK_EQ_STR(m.cpu_model, "Test CPU @ 2.0GHz");
    CHECK_EQ_INT(m.physical_cores, 4);
    sk_machine_parse_meminfo("MemTotal:       16384000 kB\nMemFree:  100 kB\n"
                             "MemAvailable:    8192000 kB\n", &m);
    CHECK_EQ_INT(m.ram_bytes, 16384000LL * 1024);
    CHECK_EQ_INT(m.ram_available, 8192000LL * 1024);
    /* Issue 34, row 22: sizes whose bytes do not fit an int64 (the kB
     * times 1024 overflowed, undefined behaviour) are unknown, 0. */
    sk_machine_parse_meminfo("MemTotal: 9223372036854775807 kB\nMemFree: 9007199254740992 kB\n"
                             "MemAvailable: 99999999999999999999999 kB\n", &m);
    CHECK_EQ_INT(m.ram_bytes, 0);
    CHECK_EQ_INT(m.ram_available, 0);
    sk_machine_parse_meminfo("MemTotal: 9007199254740991 kB\n", &m);
    CHECK_EQ_INT(m.ram_bytes, 9007199254740991LL * 1024);

    sk_machine_get(0, &m);
    CHECK(m.logical_cpus >= 1);
    CHECK(m.physical_cores >= 1 && m.physical_cores <= m.logical_cpus);
    CHECK(m.ram_bytes > 0);
    CHECK_EQ_INT(m.logical_cpus, sysconf(_SC_NPROCESSORS_ONLN));

    /* First touch: measured rates (no bound on time), the THP modes as the
     * kernel lists them, and both in the machine's JSON and text. */
    sk_machine_first_touch(8 << 20, &m.touch);
    CHECK_EQ_INT(m.touch.bytes, 8 << 20);
    CHECK(m.touch.gb_per_s > 0 && m.touch.huge_gb_per_s > 0 && m.touch.second_gb_per_s > 0);
    CHECK(strlen(m.touch.thp_enabled) > 0 && strlen(m.touch.thp_defrag) > 0);
    sk_json mj;
    sk_json_init(&mj, 0);
    sk_machine_json(&m, &mj);
    CHECK_CONTAINS(sk_json_text(&mj), "\"first_touch\":{\"bytes\":8388608,\"gb_per_s\":");
    CHECK_CONTAINS(sk_json_text(&mj), "\"thp_enabled\":\"");
    sk_json_free(&mj);
    char *mt = sk_machine_text(&m);
    CHECK_CONTAINS(mt, "memory    first touch ");
    sk_free(mt);

    CHECK_EQ_STR(sk_fs_name(0xEF53), "ext2/3/4");
    CHECK_EQ_STR(sk_fs_name(0x6969), "nfs");
    CHECK_EQ_STR(sk_fs_name(0x0BD00BD0), "lustre");
    CHECK(sk_fs_name(0x12345) == NULL);
    char name[64];
    sk_error err;
    CHECK_OK(sk_fs_type("/proc", name, sizeof name, &err), &err);
    CHECK_EQ_STR(name, "proc");
    CHECK_EQ_INT(sk_fs_type("/no/such/path", name, sizeof name, &err), SK_ERR_IO);
    CHECK_CONTAINS(err.message, "/no/such/path");
}

static const char *slurm2(const char *name, void *ctx)
{
    (void)ctx;
    return strcmp(name, "SLURM_CPUS_PER_TASK") == 0 ? "2" : NULL;
}

static void test_warning(void)
{
    sk_thread_budget b;
    char w[256];
    sk_thread_budget_from(8, slurm2, NULL, 16, 16, &b);
    CHECK_EQ_INT(sk_thread_warning(&b, NULL, w, sizeof w), 1);
    CHECK_EQ_STR(w, "warning: 8 threads were asked for but the job owns 2 "
                    "(set by SLURM_CPUS_PER_TASK); use --threads 2");
    sk_thread_budget_from(2, slurm2, NULL, 16, 16, &b);
    CHECK_EQ_INT(sk_thread_warning(&b, NULL, w, sizeof w), 0);
    sk_thread_budget_from(0, slurm2, NULL, 16, 16, &b);
    CHECK_EQ_INT(sk_thread_warning(&b, NULL, w, sizeof w), 0);
}

static void write_bytes(const char *path, size_t n)
{
    FILE *f = fopen(path, "wb");
    for (size_t i = 0; i < n; i++)
        fputc((int)(i & 0xFF), f);
    fclose(f);
}

static void test_storage(void)
{
    char dir[64], path[256];
    CHECK(test_tmpdir(dir, sizeof dir) != NULL);
    int64_t sizes[10], total = 0;
    for (int i = 0; i < 10; i++) {
        sizes[i] = 1000 * (i + 1) + 7;
        total += sizes[i];
        snprintf(path, sizeof path, "%s/f%02d", dir, i);
        write_bytes(path, (size_t)sizes[i]);
    }
    snprintf(path, sizeof path, "%s/sub", dir);
    mkdir(path, 0700); /* folders are not sampled */
    sk_storage_options opt = {.levels = {1, 2}, .nlevels = 2, .runs = 2, .nfiles = 4};
    sk_storage_result r;
    sk_error err;
    CHECK_OK(sk_bench_storage(dir, &opt, &r, &err), &err);
    CHECK_EQ_INT(r.files_total, 10);
    CHECK_EQ_INT(r.bytes_total, total);
    CHECK_EQ_INT(r.files_sampled, 4);
    /* Evenly spread over the sorted names: f00, f02, f05, f07. */
    CHECK_EQ_INT(r.bytes_sampled, sizes[0] + sizes[2] + sizes[5] + sizes[7]);
    int points = r.npoints;
    /* Whole passes over the sample: the warm-up, then at least one per
     * measurement (more when a pass is quicker than the minimum time). */
    CHECK_EQ_INT(r.bytes_read % r.bytes_sampled, 0);
    CHECK(r.bytes_read >= r.bytes_sampled * (1 + points * 2));
    CHECK_EQ_INT(r.opens % 2048, 0);
    CHECK(r.opens >= (int64_t)points * 2 * 2048);
    for (int i = 0; i < points; i++) {
        CHECK(r.points[i].iops > 0);
        CHECK(r.points[i].open_close_seconds > 0);
        CHECK(r.points[i].reader_bps > 0);
        CHECK(r.points[i].iops_min <= r.points[i].iops && r.points[i].iops <= r.points[i].iops_max);
    }
    CHECK(r.fs_type[0] != '\0');
    for (int i = 0; i < 10; i++) {
        snprintf(path, sizeof path, "%s/f%02d", dir, i);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/sub", dir);
    rmdir(path);
    CHECK_EQ_INT(sk_bench_storage(dir, &opt, &r, &err), SK_ERR_EMPTY);
    rmdir(dir);
    CHECK_EQ_INT(sk_bench_storage("/no/such/dir", &opt, &r, &err), SK_ERR_IO);
}

static void test_convert_derive(void)
{
    sk_convert_bench c = {.read_seconds = 10, .write_seconds = 3, .reread_seconds = 1};
    sk_convert_derive(&c);
    CHECK_CLOSE(c.speedup, 10, 1e-12);
    CHECK_CLOSE(c.break_even_rereads, 3.0 / 9.0, 1e-12);
    CHECK(isnan(c.churn_ratio));
    c.reread_seconds = 12;
    sk_convert_derive(&c);
    CHECK(isinf(c.break_even_rereads) && isinf(c.break_even_conversion));
    /* The example: 68.0 / (53.3 - 4.1) = 1.4; "2.5x less churn". */
    sk_convert_bench e = {.read_seconds = 53.3, .write_seconds = 14.7, .reread_seconds = 4.1,
                          .alloc_read = 2500, .alloc_reread = 1000};
    sk_convert_derive(&e);
    CHECK_CLOSE(e.break_even_conversion, 68.0 / 49.2, 1e-12);
    CHECK_CLOSE(e.break_even_rereads, 14.7 / 49.2, 1e-12);
    CHECK_CLOSE(e.churn_ratio, 2.5, 1e-12);
}

/* A report with every stage, from hand-made numbers. */
static void fill_report(sk_report *r, sk_machine *m, skb_source_usage *src, sk_storage_result *st,
                        sk_read_bench *rd, sk_convert_bench *cv, sk_project_bench *pj,
                        sk_scaling *sw)
{
    sk_error err;
    sk_machine_get(0, m);
    memset(src, 0, sizeof *src);
    strcpy(src->path, "out/output_00002");
    strcpy(src->kind, "ramses");
    strcpy(src->fs_type, "ext2/3/4");
    src->files = 25;
    src->bytes = 11000000;
    src->ncomponents = 2;
    strcpy(src->components[0].name, "amr");
    src->components[0].files = 8;
    src->components[0].bytes = 4000000;
    strcpy(src->components[1].name, "hydro");
    src->components[1].files = 8;
    src->components[1].bytes = 7000000;
    memset(st, 0, sizeof *st);
    strcpy(st->dir, "out/output_00002");
    strcpy(st->fs_type, "ext2/3/4");
    st->npoints = 3;
    for (int i = 0; i < 3; i++)
        st->points[i] = (sk_storage_point){.threads = 1 << i, .iops = 2e5 * (i + 1),
                                           .open_close_seconds = 4e-6, .reader_bps = 3e9 / (i + 1),
                                           .total_bps = 3e9};
    memset(rd, 0, sizeof *rd);
    rd->threads = 2;
    rd->ncomponents = 2;
    rd->components[0] = (sk_read_component){.name = "hydro", .runs = 3, .mean_seconds = 0.5,
                                            .stddev_seconds = 0.05, .cold_seconds = 0.9,
                                            .rows = 1000, .bytes_allocated = 123456};
    rd->components[1] = (sk_read_component){.name = "particles", .runs = 3, .mean_seconds = 0.2,
                                            .stddev_seconds = 0.01, .cold_seconds = -1};
    strcpy(rd->cache_note, "could not drop: test");
    *cv = (sk_convert_bench){.read_seconds = 2, .write_seconds = 0.5, .reread_seconds = 0.25,
                             .bytes_ramses = 11000000, .bytes_file = 4000000,
                             .alloc_read = 30000000, .alloc_write = 5000000,
                             .alloc_reread = 12000000};
    sk_convert_derive(cv);
    const double t[] = {8, 4.3, 2.4, 1.5};
    memset(pj, 0, sizeof *pj);
    pj->ncases = 2;
    strcpy(pj->cases[0].name, "1 quantity, axis z");
    strcpy(pj->cases[1].name, "3 quantities, off-axis");
    for (int k = 0; k < 2; k++) {
        table(&pj->cases[k].scaling, k_levels, t, 4);
        pj->cases[k].scaling.points[3].seconds *= 1 + k;
        sk_scaling_analyse(&pj->cases[k].scaling, &err);
    }
    table(sw, k_levels, t, 4);
    sk_scaling_analyse(sw, &err);
    *r = (sk_report){.machine = m, .source = src, .storage = st, .read = rd, .convert = cv,
                     .project = pj, .sweep = sw};
}

static int count(const char *text, const char *sub)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, sub)); p++)
        n++;
    return n;
}

/* Decode with libpng: the page has the layout's size, every panel's frame
 * (drawn in grey) shows at its left edge and its inside holds ink. */
static void check_png(const char *path, const sk_report *r, int want_panels)
{
    sk_report_panel place[SK_REPORT_MAX_PANELS];
    double width, height;
    CHECK_EQ_INT(sk_report_layout(r, place, &width, &height), want_panels);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    CHECK(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    CHECK(png_image_finish_read(&img, NULL, px, 0, NULL));
    CHECK_EQ_INT(img.width, (int)width);
    CHECK_EQ_INT(img.height, (int)height);
    for (int k = 0; k < want_panels; k++) {
        const sk_report_panel *p = &place[k];
        unsigned char *frame = px + 3 * ((size_t)(p->y + p->h / 2) * img.width + (size_t)p->x);
        CHECK_MSG(frame[0] < 0xF0, "panel %s: no frame at its left edge", p->name);
        int ink = 0;
        for (int yy = (int)p->y + 5; yy < (int)(p->y + p->h) - 5; yy++)
            for (int xx = (int)p->x + 5; xx < (int)(p->x + p->w) - 5; xx++)
                ink += px[3 * ((size_t)yy * img.width + (size_t)xx)] < 0x80;
        CHECK_MSG(ink > 500, "panel %s: only %d dark pixels", p->name, ink);
    }
    free(px);
}

static void test_report(void)
{
    sk_machine m;
    skb_source_usage src;
    sk_storage_result st;
    sk_read_bench rd;
    sk_convert_bench cv;
    sk_project_bench pj;
    sk_scaling sw;
    sk_report r;
    fill_report(&r, &m, &src, &st, &rd, &cv, &pj, &sw);
    char dir[64], path[256];
    sk_error err;
    CHECK(test_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK_OK(sk_report_write(&r, path, &err), &err);
    static const char *const files[] = {"report.txt", "report.csv", "report.json", "report.svg",
                                        "report.png", "report.pdf"};
    char *text[6];
    for (int i = 0; i < 6; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s/%s", path, files[i]);
        text[i] = test_slurp(p);
        CHECK_MSG(text[i] != NULL, "%s missing", p);
    }
    CHECK_CONTAINS(text[0], "sweet spot 4");
    CHECK_CONTAINS(text[0], "converting pays after 0.286 re-reads");
    CHECK_CONTAINS(text[0], "cold: measured where the files left the page cache; '-' where not (could not drop: test)");
    CHECK_CONTAINS(text[1], "stage,series,threads,quantity,value,unit\n");
    CHECK_CONTAINS(text[1], "project,\"1 quantity, axis z\",8,seconds,1.5,s\n");
    CHECK_CONTAINS(text[1], "convert,\"\",,break_even_rereads,0.2857142857142857");
    for (int i = 0; i < 5; i++) {
        static const char *const keys[] = {"\"sweep\":", "\"storage\":", "\"read\":",
                                           "\"convert\":", "\"project\":"};
        CHECK_EQ_INT(count(text[2], keys[i]), 1);
    }
    CHECK_CONTAINS(text[2], "\"break_even_rereads\": 0.2857142857142857");
    CHECK_CONTAINS(text[2], "\"cold_seconds\": null");
    /* The figure: the same page as SVG (its text as glyphs), PNG and PDF. */
    sk_report_panel place[SK_REPORT_MAX_PANELS];
    double width, height;
    CHECK_EQ_INT(sk_report_layout(&r, place, &width, &height), 6);
    static const char *const names[] = {"sweep", "storage", "read", "convert", "project",
                                        "efficiency"};
    for (int i = 0; i < 6; i++)
        CHECK_EQ_STR(place[i].name, names[i]);
    char size[96];
    snprintf(size, sizeof size, "width=\"%gpx\" height=\"%gpx\"", width, height);
    CHECK(strncmp(text[3], "<?xml", 5) == 0);
    CHECK_CONTAINS(text[3], size);
    CHECK(count(text[3], "<use xlink:href=\"#glyph") > 500);
    CHECK_EQ_INT(memcmp(text[4], "\x89PNG\r\n\x1a\n", 8), 0);
    CHECK_EQ_INT(memcmp(text[5], "%PDF-", 5), 0);
    char png[300];
    snprintf(png, sizeof png, "%s/report.png", path);
    check_png(png, &r, 6);
    for (int i = 0; i < 6; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s/%s", path, files[i]);
        unlink(p);
        free(text[i]);
    }
    /* Only the stages that ran: the figure holds as many panels. */
    r.read = NULL;
    r.project = NULL;
    r.convert = NULL;
    CHECK_EQ_INT(sk_report_layout(&r, place, &width, &height), 3);
    CHECK_EQ_STR(place[0].name, "sweep");
    CHECK_EQ_STR(place[1].name, "storage");
    CHECK_EQ_STR(place[2].name, "efficiency"); /* the sweep's four levels */
    char *bytes = NULL;
    size_t n = 0;
    CHECK_OK(sk_report_figure(&r, "png", &bytes, &n, &err), &err);
    snprintf(png, sizeof png, "%s/two.png", dir);
    FILE *f = fopen(png, "wb");
    CHECK(f && fwrite(bytes, 1, n, f) == n);
    fclose(f);
    sk_free(bytes);
    check_png(png, &r, 3);
    unlink(png);
    CHECK(sk_report_figure(&r, "gif", &bytes, &n, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "png, svg or pdf");
    rmdir(path);
    rmdir(dir);
}

int main(void)
{
    test_amdahl_exact();
    test_amdahl_noisy();
    test_sweet_spot();
    test_sweep_runner();
    test_levels();
    test_median();
    test_machine();
    test_warning();
    test_storage();
    test_convert_derive();
    test_report();
    skf_release();
    return test_done();
}
