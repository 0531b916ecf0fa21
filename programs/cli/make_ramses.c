/* snapkit make-ramses: write a synthetic RAMSES output of any size, for
 * testing and benchmarking readers where real runs live (thousands of
 * files, gigabytes), and print what it wrote. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "snapkit/synth.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/util/json.h"

static const char k_help[] =
    "usage: snapkit make-ramses OUT_DIR --ncpu N --levelmin L --levelmax M [options]\n\n"
    "Write a synthetic RAMSES output into OUT_DIR (created when missing): info_, header_,\n"
    "namelist.txt, descriptors and amr_/hydro_/grav_/part_ files per CPU, in the layout RAMSES\n"
    "writes, with the Hilbert domains, ghost octs and header counts RAMSES would have. Fields\n"
    "are smooth analytic profiles, gravity is their Plummer potential, particles are dark\n"
    "matter and stars. The same options always give the same bytes.\n\n"
    "  --ncpu N              CPU files (Hilbert domains balanced by leaf cells)\n"
    "  --levelmin L          levels below L are fully refined\n"
    "  --levelmax M          finest level, at most 20\n"
    "  --components LIST     any of hydro,gravity,particles (default: all three)\n"
    "  --nvar K              hydro variables, 5..99 (default 6: density, velocity x/y/z,\n"
    "                        pressure, metallicity; more adds passive scalars)\n"
    "  --npart P             particles (default 100000): P/4 stars, the rest dark matter\n"
    "  --stray-particles F   move this fraction (0..1, default 0) of the particles anywhere in\n"
    "                        the 3x3x3 block of levelmin octs around the one holding them (across\n"
    "                        periodic faces), in their CPU's file: as far from their CPU's domain\n"
    "                        as RAMSES can leave particles at an output\n"
    "  --refine MODE         sphere (default), clumps or random\n"
    "  --cells-target C      tune the refinement to about C leaf cells (within 0.2% when the\n"
    "                        levels allow it); default: a fixed refinement scale\n"
    "  --format F            current (default) or 2017 (late-2017 RAMSES: key/value hydro\n"
    "                        descriptor, no particle descriptor, no family/tag records)\n"
    "  --boxlen B            box size in code units (default 1)\n"
    "  --seed S              seed of clump positions, random refinement and particles\n"
    "                        (default 1)\n"
    "  --output N            output number NNNNN in the file names (default: taken from\n"
    "                        OUT_DIR when it is named output_NNNNN, else 1)\n"
    "  --threads N           threads (CPU files are written in parallel)\n"
    "  --overwrite           OUT_DIR may hold files: an output of the same number is replaced\n"
    "  --truth-json FILE|-   write the truth as JSON: leaf cells per level and per-column sum,\n"
    "                        abs_sum, volume_sum, abs_volume_sum, min, max of what was written\n"
    "                        (the schema of the fixtures' reference.json \"full\" entry)\n"
    "  --dry-run             only plan: leaf cells, octs and the refinement scale\n"
    "  --json                print the report as JSON\n";

static int parse_count(const char *flag, const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    double v;
    if (cli_double(flag, text, &v))
        return -1;
    if (v != floor(v) || v < (double)lo || v > (double)hi) {
        cli_fail("%s must be a whole number in %lld..%lld, not '%s'", flag, (long long)lo,
                 (long long)hi, text);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

static int parse_components(const char *text, unsigned *out)
{
    *out = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "hydro"))
            *out |= SK_SYNTH_HYDRO;
        else if (!strcmp(tok, "gravity") || !strcmp(tok, "grav"))
            *out |= SK_SYNTH_GRAVITY;
        else if (!strcmp(tok, "particles") || !strcmp(tok, "part"))
            *out |= SK_SYNTH_PARTICLES;
        else
            return cli_fail("--components: unknown component '%s' (hydro, gravity, particles)", tok);
    }
    return *out ? 0 : cli_fail("--components needs at least one of hydro, gravity, particles");
}

/* output_NNNNN -> NNNNN, else 1. */
static int output_number(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    const char *base = dir;
    for (size_t i = 0; i < n; i++)
        if (dir[i] == '/')
            base = dir + i + 1;
    int num = 0, len = 0;
    if (strncmp(base, "output_", 7) == 0 && sscanf(base + 7, "%5d%n", &num, &len) == 1 && len == 5 &&
        (size_t)(base + 7 + len - dir) == n && num > 0)
        return num;
    return 1;
}

typedef struct args {
    sk_synth_options opt;
    const char *dir, *truth_path;
    int json, dry_run, have[3];
} args;

static int parse_option(args *a, int argc, char **argv, int *i)
{
    const char *f = argv[*i];
    int64_t n;
    const char *v;
    if (cli_is(f, "--json") || cli_is(f, "--dry-run") || cli_is(f, "--overwrite")) {
        *(cli_is(f, "--json") ? &a->json : cli_is(f, "--dry-run") ? &a->dry_run : &a->opt.overwrite) = 1;
        return 0;
    }
    if (!(v = cli_value(argc, argv, i)))
        return -1;
    if (cli_is(f, "--ncpu") || cli_is(f, "--levelmin") || cli_is(f, "--levelmax")) {
        int k = cli_is(f, "--ncpu") ? 0 : cli_is(f, "--levelmin") ? 1 : 2;
        if (parse_count(f, v, 1, k ? SK_SYNTH_MAX_LEVEL : 99999, &n))
            return -1;
        *(k == 0 ? &a->opt.ncpu : k == 1 ? &a->opt.levelmin : &a->opt.levelmax) = (int)n;
        a->have[k] = 1;
    } else if (cli_is(f, "--components")) {
        return parse_components(v, &a->opt.components) ? -1 : 0;
    } else if (cli_is(f, "--nvar")) {
        if (parse_count(f, v, 5, 99, &n))
            return -1;
        a->opt.nvar = (int)n;
    } else if (cli_is(f, "--npart")) {
        if (parse_count(f, v, 0, INT32_MAX, &a->opt.npart))
            return -1;
    } else if (cli_is(f, "--stray-particles")) {
        if (cli_double(f, v, &a->opt.stray_particles))
            return -1;
        if (!(a->opt.stray_particles >= 0 && a->opt.stray_particles <= 1))
            return cli_fail("--stray-particles must be a fraction in 0..1, not '%s'", v), -1;
    } else if (cli_is(f, "--cells-target")) {
        if (parse_count(f, v, 0, (int64_t)1 << 40, &a->opt.cells_target))
            return -1;
    } else if (cli_is(f, "--refine")) {
        if (!strcmp(v, "sphere"))
            a->opt.refine = SK_SYNTH_SPHERE;
        else if (!strcmp(v, "clumps"))
            a->opt.refine = SK_SYNTH_CLUMPS;
        else if (!strcmp(v, "random"))
            a->opt.refine = SK_SYNTH_RANDOM;
        else
            return cli_fail("--refine: '%s' is not sphere, clumps or random", v), -1;
    } else if (cli_is(f, "--format")) {
        if (!strcmp(v, "current"))
            a->opt.format = SK_RAMSES_CURRENT;
        else if (!strcmp(v, "2017"))
            a->opt.format = SK_RAMSES_2017;
        else
            return cli_fail("--format: '%s' is not current or 2017", v), -1;
    } else if (cli_is(f, "--boxlen")) {
        return cli_double(f, v, &a->opt.boxlen);
    } else if (cli_is(f, "--seed")) {
        long long seed;
        if (cli_int(f, v, &seed))
            return -1;
        a->opt.seed = (uint64_t)seed;
    } else if (cli_is(f, "--output")) {
        if (parse_count(f, v, 1, 99999, &n))
            return -1;
        a->opt.output = (int)n;
    } else if (cli_is(f, "--threads")) {
        if (parse_count(f, v, 0, 4096, &n))
            return -1;
        a->opt.threads = (int)n;
    } else if (cli_is(f, "--truth-json")) {
        a->truth_path = v;
    } else {
        return cli_usage("make-ramses", "unknown option '%s'", f), -1;
    }
    return 0;
}

static void report_json(const args *a, const sk_synth_report *r, sk_json *j)
{
    static const char *const refine[] = {"sphere", "clumps", "random"};
    const sk_synth_options *o = &a->opt;
    sk_json_object_begin(j);
    if (a->dir)
        sk_json_kv_string(j, "dir", a->dir);
    sk_json_kv_int(j, "ncpu", o->ncpu);
    sk_json_kv_int(j, "levelmin", o->levelmin);
    sk_json_kv_int(j, "levelmax", o->levelmax);
    sk_json_kv_string(j, "format", o->format == SK_RAMSES_2017 ? "2017" : "current");
    sk_json_kv_string(j, "refine", refine[o->refine]);
    sk_json_kv_double(j, "refine_param", r->refine_param);
    sk_json_kv_int(j, "cells_target", o->cells_target);
    sk_json_kv_int(j, "leaves", r->leaves);
    sk_json_key(j, "levels");
    sk_json_object_begin(j);
    for (int l = 0; l <= SK_SYNTH_MAX_LEVEL; l++)
        if (r->leaves_per_level[l]) {
            char key[8];
            snprintf(key, sizeof key, "%d", l);
            sk_json_kv_int(j, key, r->leaves_per_level[l]);
        }
    sk_json_object_end(j);
    sk_json_kv_int(j, "octs", r->octs);
    sk_json_kv_int(j, "ngridmax", r->ngridmax);
    sk_json_kv_int(j, "particles", r->particles);
    if (o->stray_particles > 0)
        sk_json_kv_double(j, "stray_particles", o->stray_particles);
    if (!a->dry_run) {
        sk_json_kv_int(j, "oct_entries", r->oct_entries);
        sk_json_kv_double(j, "ghost_ratio", r->octs ? (double)r->oct_entries / (double)r->octs : 0);
        sk_json_kv_int(j, "files", r->files);
        sk_json_kv_int(j, "bytes", r->bytes);
    }
    sk_json_kv_double(j, "seconds", r->seconds);
    sk_json_object_end(j);
}

static void report_text(const args *a, const sk_synth_report *r)
{
    char b[32];
    if (a->dry_run) {
        printf("plan: %lld leaf cells, %lld octs, %lld particles, refinement scale %.6g\n",
               (long long)r->leaves, (long long)r->octs, (long long)r->particles, r->refine_param);
        return;
    }
    printf("wrote %s: %lld files, %s in %.2f s\n", a->dir, (long long)r->files,
           cli_bytes((double)r->bytes, b, sizeof b), r->seconds);
    printf("%lld leaf cells, %lld octs (%.2f copies each with ghosts), %lld particles\n",
           (long long)r->leaves, (long long)r->octs,
           r->octs ? (double)r->oct_entries / (double)r->octs : 0.0, (long long)r->particles);
    if (a->opt.cells_target > 0) {
        double off = ((double)r->leaves - (double)a->opt.cells_target) / (double)a->opt.cells_target;
        if (fabs(off) > 0.01)
            printf("note: %lld leaf cells is %+.1f%% from the target %lld; the levels do not "
                   "allow closer\n",
                   (long long)r->leaves, 100 * off, (long long)a->opt.cells_target);
    }
}

/* The truth as JSON to path ("-": standard output). sk_atomic_commit frees
 * the file whether it succeeds or not, so only a failed write aborts it. */
static int write_truth(const char *path, const sk_synth_truth *t)
{
    sk_json j;
    sk_json_init(&j, 1);
    sk_synth_truth_json(t, &j);
    int rc = CLI_OK;
    if (!strcmp(path, "-")) {
        cli_print_json(&j);
    } else {
        sk_error err;
        sk_atomic_file *f = NULL;
        const char *text = sk_json_text(&j);
        if (sk_atomic_open(&f, path, &err) || sk_atomic_write(f, text, strlen(text), &err) ||
            sk_atomic_write(f, "\n", 1, &err)) {
            sk_atomic_abort(f);
            rc = cli_error(&err);
        } else if (sk_atomic_commit(f, &err)) {
            rc = cli_error(&err);
        }
    }
    sk_json_free(&j);
    return rc;
}

int cmd_make_ramses(int argc, char **argv)
{
    args a = {0};
    sk_synth_options_init(&a.opt);
    a.opt.output = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_help(argv[i], k_help))
            return CLI_OK;
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            if (parse_option(&a, argc, argv, &i))
                return CLI_USAGE;
        } else if (!a.dir) {
            a.dir = argv[i];
        } else {
            return cli_usage("make-ramses", "one output folder, not '%s' too", argv[i]);
        }
    }
    if (!a.dir && !a.dry_run)
        return cli_usage("make-ramses", "the output folder is missing");
    if (!a.have[0] || !a.have[1] || !a.have[2])
        return cli_usage("make-ramses", "--ncpu, --levelmin and --levelmax are required");
    if (a.json && a.truth_path && !strcmp(a.truth_path, "-"))
        return cli_usage("make-ramses", "--json and --truth-json - would both use standard output");
    if (!a.opt.output)
        a.opt.output = a.dir ? output_number(a.dir) : 1;
    sk_error err;
    sk_synth_report r;
    sk_synth_truth *truth = NULL;
    cli_progress progress;
    cli_progress_init(&progress, "make-ramses");
    a.opt.progress = cli_progress_hook(&progress);
    int rc = a.dry_run ? sk_synth_plan(&a.opt, &r, &err)
                       : sk_synth_write(a.dir, &a.opt, a.truth_path ? &truth : NULL, &r, &err);
    cli_progress_done(&progress);
    if (rc)
        return cli_error(&err);
    int status = CLI_OK;
    if (truth)
        status = write_truth(a.truth_path, truth);
    sk_synth_truth_free(truth);
    if (a.json) {
        sk_json j;
        sk_json_init(&j, 1);
        report_json(&a, &r, &j);
        cli_print_json(&j);
        sk_json_free(&j);
    } else if (!(a.truth_path && !strcmp(a.truth_path, "-"))) {
        report_text(&a, &r);
    }
    return status;
}
