/* snapkit bench sphere: what the first question about a galaxy costs (the
 * mass, centre of mass and angular momentum of a sphere), against the
 * same totals of the whole output, and how many files each reads. The
 * comparison with yt is peers/sphere_vs_yt.py. */
#include <string.h>

#include "bench_commands.h"
#include "bench_common.h"
#include "snapkit/util/json.h"

static const char k_help[] =
    "usage: snapkit bench sphere SOURCE [--sphere R] [--center C] [--runs N] [--threads N]\n"
    "                            [selection] [--json]\n\n"
    "Time the totals of the gas in a sphere (mass, centre of mass, bulk velocity, angular\n"
    "momentum: what `snapkit stats --totals` prints), the best of N runs (default 5), and\n"
    "the same of the whole output; print the files (or chunks) each reads, the rows and the\n"
    "ratio. Default: a sphere of radius 0.1 box about the box centre. peers/sphere_vs_yt.py\n"
    "times yt's ds.sphere on the same sphere.\n\n"
    "%s";

typedef struct sphere_run {
    double best;        /* seconds */
    int64_t rows, files, files_total;
    sk_totals totals;
} sphere_run;

static int64_t files_read(sk_source *src, const sk_selection *sel, int64_t *total)
{
    sk_source_file_count(src, "hydro", total, NULL);
    if (sk_source_store(src))
        return sk_store_chunks_for(sk_source_store(src), "hydro", sel, NULL, total, NULL);
    sk_ramses *r = sk_source_ramses(src);
    uint8_t *mask = sk_malloc((size_t)*total + 1);
    int64_t n = mask ? sk_ramses_cpus_for_component(r, "hydro", sel, NULL, mask) : -1;
    sk_free(mask);
    return n;
}

static int measure(sk_source *src, const sk_selection *sel, int runs, int threads,
                   sphere_run *out, sk_error *err)
{
    sk_totals_frame frame = {.about_com = !sel->has_center};
    memcpy(frame.ref, sel->center, sizeof frame.ref);
    sk_read_options opt = {.threads = threads};
    out->best = -1;
    for (int k = 0; k < runs; k++) {
        double t0 = cli_now();
        int rc = sk_totals_compute(src, "hydro", sel, &frame, &opt, &out->totals, err);
        double t = cli_now() - t0;
        if (rc != SK_OK)
            return rc;
        if (out->best < 0 || t < out->best)
            out->best = t;
    }
    out->rows = out->totals.cells;
    out->files = files_read(src, sel, &out->files_total);
    return SK_OK;
}

static void run_json(sk_json *j, const char *key, const sphere_run *r)
{
    sk_json_key(j, key);
    sk_json_object_begin(j);
    sk_json_kv_double(j, "seconds", r->best);
    sk_json_kv_int(j, "rows", r->rows);
    sk_json_kv_int(j, "files", r->files);
    sk_json_kv_int(j, "files_total", r->files_total);
    sk_json_kv_double(j, "mass", r->totals.mass);
    sk_json_key(j, "angular_momentum");
    sk_json_array_begin(j);
    for (int k = 0; k < 3; k++)
        sk_json_double(j, r->totals.angular_momentum[k]);
    sk_json_array_end(j);
    sk_json_object_end(j);
}

static void print(int json, const char *source, int runs, const sphere_run *s,
                  const sphere_run *w)
{
    if (json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_json_object_begin(&j);
        sk_json_kv_string(&j, "source", source);
        sk_json_kv_int(&j, "runs", runs);
        run_json(&j, "sphere", s);
        run_json(&j, "whole", w);
        sk_json_kv_double(&j, "ratio", s->best > 0 ? w->best / s->best : 0);
        sk_json_object_end(&j);
        cli_print_json(&j);
        sk_json_free(&j);
        return;
    }
    printf("sphere totals of %s (best of %d)\n", source, runs);
    printf("%-8s %12s %12s %14s %24s\n", "", "seconds", "rows", "files", "mass");
    const sphere_run *rr[2] = {s, w};
    static const char *const names[2] = {"sphere", "whole"};
    for (int k = 0; k < 2; k++)
        printf("%-8s %12.4f %12lld %6lld of %-5lld %24.17g\n", names[k], rr[k]->best,
               (long long)rr[k]->rows, (long long)rr[k]->files, (long long)rr[k]->files_total,
               rr[k]->totals.mass);
    printf("the sphere takes %.2fx less time than the whole output\n",
           s->best > 0 ? w->best / s->best : 0);
}

int cmd_bench_sphere(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench sphere", BENCH_SELECTION);
    int go = bench_parse_common(&common, argc, argv, k_help);
    if (go <= 0)
        return go == 0 ? CLI_OK : CLI_USAGE;
    if (!common.source)
        return cli_usage("bench sphere", "which source? (snapkit bench sphere OUTPUT)");
    sk_region_request *rq = &common.cs.region;
    if (!rq->shape) {
        rq->shape = SK_SHAPE_SPHERE;
        rq->radius[1] = 0.1;
    }
    if (!rq->has_center)
        rq->center_is_bc = rq->has_center = 1;
    bench_run run;
    if (bench_run_open(&run, &common) != CLI_OK)
        return CLI_FAIL;
    int runs = common.runs > 0 ? common.runs : 5;
    sphere_run s, w;
    sk_selection whole;
    sk_selection_init(&whole);
    whole.has_center = 1;
    memcpy(whole.center, run.sel.center, sizeof whole.center);
    sk_error err;
    sk_error_clear(&err);
    int rc = measure(run.src, &run.sel, runs, bench_one_thread(&common), &s, &err);
    if (rc == SK_OK)
        rc = measure(run.src, &whole, runs, bench_one_thread(&common), &w, &err);
    if (bench_run_close(&run, rc, &err) != CLI_OK)
        return CLI_FAIL;
    print(common.json, common.source, runs, &s, &w);
    return CLI_OK;
}
