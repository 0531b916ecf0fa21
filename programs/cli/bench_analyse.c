/* snapkit bench analyse: the four analyses of issue 30 (a radial profile,
 * a phase diagram, a slice, a cube) timed as a user runs them, each beside
 * a `stats` pass over the same selection and, with --yt, beside yt's own
 * call on a fresh load: one run, ratios, the machine printed beside. The
 * snapkit commands run as processes (this binary), so their times include
 * what a user waits for: start, read, compute, write. yt's are measured
 * inside its process after `import yt` (the load and the call). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/atoms.h"
#include "bench_commands.h"
#include "bench_common.h"
#include "snapkit/util/json.h"

static const char k_help[] =
    "usage: snapkit bench analyse SOURCE [--runs N] [--threads N] [--radius R] [--res N]\n"
    "                             [--level L] [--yt] [--yt-runs N] [--json]\n\n"
    "Time, best of N runs (default 5), what users run after selecting: a 64-bin\n"
    "mass-weighted radial density profile of a sphere about the box centre (radius R box,\n"
    "default 0.3), a 128x128 density-pressure phase diagram of the box, a density slice\n"
    "through z = 0.5 at N x N pixels (default 512) and a density cube at level L (default\n"
    "6: 64^3); each beside `snapkit stats --recompute` over the same selection (target: at\n"
    "most 1.5x). With --yt (a RAMSES output; needs python3-yt), yt 4's create_profile,\n"
    "2-D create_profile, slice FRB and covering_grid on a fresh yt.load each run (default\n"
    "2 runs), measured after `import yt`: the ratio yt / snapkit (targets 25x, cube 10x).\n"
    "%s";

enum { NCASES = 4, MAX_ARGS = 40 };

typedef struct case_spec {
    const char *name;
    double target_yt;            /* yt / snapkit at least */
    const char *args[18];        /* after SOURCE; "@" marks where -o goes */
    int sphere;                  /* the stats pass takes the profile's sphere */
} case_spec;

typedef struct case_result {
    double seconds, stats, yt; /* best; yt < 0: not measured */
} case_result;

typedef struct analyse_opts {
    double radius;
    int res, level, yt, yt_runs, threads, runs;
    char radius_s[32], res_s[32], level_s[16], res2_s[32], threads_s[16];
    char dir[64];
} analyse_opts;

static const char k_yt[] =
    "import sys, time\n"
    "import numpy as np\n"
    "import yt\n"
    "yt.set_log_level(50)\n"
    "case, path, radius, res, level = sys.argv[1], sys.argv[2], float(sys.argv[3]),"
    " int(sys.argv[4]), int(sys.argv[5])\n"
    "t0 = time.perf_counter()\n"
    "ds = yt.load(path)\n"
    "w = ds.domain_width.to('code_length').d[0]\n"
    "c = ds.domain_center\n"
    "if case == 'profile':\n"
    "    sp = ds.sphere(c, ds.quan(radius * w, 'code_length'))\n"
    "    p = yt.create_profile(sp, ('index', 'radius'), [('gas', 'density')],"
    " weight_field=('gas', 'mass'), n_bins=64, logs={('index', 'radius'): False})\n"
    "    v = p[('gas', 'density')]\n"
    "elif case == 'phase':\n"
    "    p = yt.create_profile(ds.all_data(), [('gas', 'density'), ('gas', 'pressure')],"
    " [('gas', 'mass')], weight_field=None, n_bins=128)\n"
    "    v = p[('gas', 'mass')]\n"
    "elif case == 'slice':\n"
    "    v = ds.slice(2, c[2]).to_frb(ds.domain_width[0], res)[('gas', 'density')]\n"
    "else:\n"
    "    n = 2 ** level\n"
    "    v = ds.covering_grid(level, ds.domain_left_edge, [n, n, n])[('gas', 'density')]\n"
    "print(time.perf_counter() - t0)\n";

/* Run argv (a NULL-terminated list), best wall time of `runs` into *best;
 * the last line of its output (stdout) into line. CLI_FAIL (printed) when
 * it cannot start or exits non-zero. */
static int time_process(char *const *argv, int runs, const char *dir, double *best, char *line,
                        size_t nline)
{
    char out[128], errp[128];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    *best = -1;
    for (int k = 0; k < runs; k++) {
        int status, start_errno;
        double t0 = cli_now();
        int rc = skb_spawn(argv, out, errp, &status, &start_errno);
        double t = cli_now() - t0;
        if (rc != 0)
            return cli_fail("cannot run %s: %s", argv[0], strerror(start_errno));
        if (status != 0) {
            char last[512];
            skb_last_line(errp, last, sizeof last);
            return cli_fail("%s %s failed (exit %d): %s", argv[0], argv[1], status, last);
        }
        if (*best < 0 || t < *best)
            *best = t;
    }
    if (line)
        skb_last_line(out, line, nline);
    return CLI_OK;
}

/* argv of `snapkit CMD SOURCE ARGS...` (with -o DIR/FILE where "@" is,
 * --threads N when set) into av (storage in buf). */
static void command_line(const char *cmd, const char *source, const char *const *args,
                         const analyse_opts *o, char **av, char *file)
{
    int n = 0;
    av[n++] = "/proc/self/exe";
    av[n++] = (char *)cmd;
    av[n++] = (char *)source;
    for (int i = 0; args[i]; i++) {
        if (!strcmp(args[i], "@")) {
            av[n++] = "-o";
            av[n++] = file;
        } else {
            av[n++] = (char *)args[i];
        }
    }
    if (o->threads > 0) {
        av[n++] = "--threads";
        av[n++] = (char *)o->threads_s;
    }
    av[n] = NULL;
}

static int measure_case(const char *source, const case_spec *c, const analyse_opts *o,
                        int yt_ok, case_result *r)
{
    char *av[MAX_ARGS], file[128];
    snprintf(file, sizeof file, "%s/%s.npy", o->dir, c->name);
    command_line(c->name, source, c->args, o, av, file);
    if (time_process(av, o->runs, o->dir, &r->seconds, NULL, 0) != CLI_OK)
        return CLI_FAIL;
    const char *sphere[] = {"--center", "0.5", "0.5", "0.5", "--sphere", o->radius_s,
                            "--vars", "density", "--recompute", NULL};
    const char *whole[] = {"--vars", "density", "--recompute", NULL};
    command_line("stats", source, c->sphere ? sphere : whole, o, av, file);
    if (time_process(av, o->runs, o->dir, &r->stats, NULL, 0) != CLI_OK)
        return CLI_FAIL;
    r->yt = -1;
    if (!yt_ok)
        return CLI_OK;
    char *py[] = {"/usr/bin/python3", "-c", (char *)k_yt, (char *)c->name, (char *)source,
                  (char *)o->radius_s, (char *)o->res_s, (char *)o->level_s, NULL};
    char line[512];
    double wall;
    for (int k = 0; k < o->yt_runs; k++) {
        if (time_process(py, 1, o->dir, &wall, line, sizeof line) != CLI_OK)
            return CLI_FAIL;
        double inside = strtod(line, NULL);
        if (r->yt < 0 || inside < r->yt)
            r->yt = inside;
    }
    return CLI_OK;
}

static void print_text(const char *source, const analyse_opts *o, const case_spec *cs,
                       const case_result *r)
{
    sk_machine m;
    sk_machine_get(o->threads, &m);
    double load[1] = {0};
    getloadavg(load, 1);
    printf("analyses of %s (snapkit best of %d, yt best of %d)\n", source, o->runs,
           o->yt ? o->yt_runs : 0);
    printf("machine: %d CPUs (%s), load average %.2f\n", m.logical_cpus, m.cpu_model, load[0]);
    printf("%-8s %10s %10s %8s %10s %9s %8s\n", "", "snapkit s", "stats s", "/stats", "yt s",
           "yt/snap", "target");
    for (int i = 0; i < NCASES; i++) {
        printf("%-8s %10.4f %10.4f %8.2f", cs[i].name, r[i].seconds, r[i].stats,
               r[i].seconds / r[i].stats);
        if (r[i].yt >= 0)
            printf(" %10.4f %8.1fx %7.0fx\n", r[i].yt, r[i].yt / r[i].seconds, cs[i].target_yt);
        else
            printf(" %10s %9s %7.0fx\n", "-", "-", cs[i].target_yt);
    }
    printf("targets: each within 1.5x of its stats pass; yt / snapkit at least the target\n");
}

static void print_json(const char *source, const analyse_opts *o, const case_spec *cs,
                       const case_result *r)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "source", source);
    sk_json_kv_int(&j, "runs", o->runs);
    for (int i = 0; i < NCASES; i++) {
        sk_json_key(&j, cs[i].name);
        sk_json_object_begin(&j);
        sk_json_kv_double(&j, "seconds", r[i].seconds);
        sk_json_kv_double(&j, "stats_seconds", r[i].stats);
        if (r[i].yt >= 0)
            sk_json_kv_double(&j, "yt_seconds", r[i].yt);
        sk_json_kv_double(&j, "target_yt", cs[i].target_yt);
        sk_json_object_end(&j);
    }
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

/* The stage's own options; 1 taken, 0 not, -1 bad. */
static int own_option(analyse_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    long long n;
    if (cli_is(a, "--yt")) {
        o->yt = 1;
        return 1;
    }
    if (cli_is(a, "--radius")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--radius", v, &o->radius))
            return -1;
        if (!(o->radius > 0 && o->radius <= 1))
            return cli_fail("--radius must be in (0, 1] box, not '%s'", v), -1;
        return 1;
    }
    int *dst = cli_is(a, "--res")       ? &o->res
               : cli_is(a, "--level")   ? &o->level
               : cli_is(a, "--yt-runs") ? &o->yt_runs
                                        : NULL;
    if (!dst)
        return 0;
    if (cli_int_value(argc, argv, i, &n))
        return -1;
    if (n < 1 || n > (dst == &o->level ? 10 : 8192))
        return cli_fail("%s: %lld is out of range", a, n), -1;
    *dst = (int)n;
    return 1;
}

static void format_options(analyse_opts *o)
{
    snprintf(o->radius_s, sizeof o->radius_s, "%.17g", o->radius);
    snprintf(o->res_s, sizeof o->res_s, "%d", o->res);
    snprintf(o->level_s, sizeof o->level_s, "%d", o->level);
    snprintf(o->threads_s, sizeof o->threads_s, "%d", o->threads);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int run_cases(const char *source, analyse_opts *o, int json)
{
    const case_spec cs[NCASES] = {
        {"profile", 25, {"--center", "0.5", "0.5", "0.5", "--sphere", o->radius_s, "--bin", "r",
                         "--bins", "64", "--vars", "density", "--weight", "mass", "@", NULL}, 1},
        {"phase", 25, {"--x", "density", "--y", "pressure", "--bins", "128,128", "@", "--no-fsync", NULL}, 0},
        {"slice", 25, {"--axis", "z", "--at", "0.5", "--vars", "density", "--res", o->res_s,
                       "@", "--no-fsync", NULL}, 0},
        {"cube", 10, {"--level", o->level_s, "--vars", "density", "@", "--no-fsync", NULL}, 0},
    };
    int yt_ok = o->yt && is_dir(source);
    if (o->yt && !yt_ok)
        fprintf(stderr, "snapkit: --yt needs a RAMSES output folder; yt not measured\n");
    case_result r[NCASES];
    for (int i = 0; i < NCASES; i++)
        if (measure_case(source, &cs[i], o, yt_ok, &r[i]) != CLI_OK)
            return CLI_FAIL;
    if (json)
        print_json(source, o, cs, r);
    else
        print_text(source, o, cs, r);
    return CLI_OK;
}

int cmd_bench_analyse(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench analyse", 0);
    analyse_opts o = {.radius = 0.3, .res = 512, .level = 6, .yt_runs = 2};
    for (int i = 1; i < argc; i++) {
        int taken;
        if (bench_help(argv[i], k_help))
            return CLI_OK;
        if ((taken = own_option(&o, argc, argv, &i)) < 0)
            return CLI_USAGE;
        if (!taken && bench_option(&common, argc, argv, &i) < 0)
            return CLI_USAGE;
    }
    if (!common.source)
        return cli_usage("bench analyse", "which source? (snapkit bench analyse OUTPUT)");
    o.runs = common.runs > 0 ? common.runs : 5;
    o.threads = common.nlevels ? bench_one_thread(&common) : 0;
    format_options(&o);
    snprintf(o.dir, sizeof o.dir, "/tmp/snapkit-bench-analyse-XXXXXX");
    if (!mkdtemp(o.dir))
        return cli_fail("cannot make a scratch folder in /tmp: %s", strerror(errno));
    int rc = run_cases(common.source, &o, common.json);
    static const char *const names[] = {"profile.npy", "phase.npy", "slice.npy", "cube.npy",
                                        "out.txt", "err.txt"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", o.dir, names[k]);
        unlink(path);
    }
    rmdir(o.dir);
    return rc;
}
