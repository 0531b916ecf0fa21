/* snapkit bench report: every stage in one run, and the report files. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_commands.h"
#include "bench_common.h"
#include "bench_report_stages.h"
#include "cli_mpi.h"
#include "snapkit/convert.h"
#include "snapkit/util/mpi.h"

static const char k_help[] =
    "usage: snapkit bench report SOURCE [--stages LIST] [--max-threads N] [--lmax N]\n"
    "                            [--runs N] [--res LIST] [selection] [--out DIR]\n"
    "       snapkit bench report --stages atoms [--atoms-sizes LIST] [--out DIR]\n\n"
    "Measure SOURCE (a RAMSES output folder) on this machine and write DIR/report.txt,\n"
    "report.csv, report.json and the figure report.png, .svg, .pdf (default DIR:\n"
    "snapkit-report).\n"
    "First prints the machine (CPU, cores, RAM), the filesystem, the file count, the bytes\n"
    "per component and the CPUs the job owns. Refuses a read whose estimated size in memory\n"
    "is above 60%% of the RAM the job may use, naming the --lmax that fits.\n\n"
    "stages (--stages, comma-separated; default storage,read,convert,project):\n"
    "  storage   open/close rate and per-reader throughput of SOURCE's files\n"
    "  read      per component: cold and warm read time, memory\n"
    "  convert   converting to a .snapkit file (written in DIR, then removed): read, write,\n"
    "            re-read, sizes, the break-even number of re-reads (RAMSES sources only)\n"
    "  project   projection scaling: one quantity and four in one pass, along z and off-axis\n"
    "  lmax      hydro at each lmax from the output and from a .snapkit file (written in\n"
    "            DIR with refined cells, then removed); does time follow the bytes allocated\n"
    "            or the bytes read? (only when named; RAMSES sources only)\n"
    "  sweep     full reads at each thread level (only when named; it runs first, and read\n"
    "            and convert then use its sweet spot; storage and project sweep threads\n"
    "            themselves)\n"
    "  atoms     atom files generated in DIR/atoms (then removed): snapkit against ASE and\n"
    "            LAMMPS, as snapkit bench atoms (only when named; it needs no SOURCE, which\n"
    "            may then be left out: atoms are not a RAMSES source)\n"
    "  clumps    snapkit bench clumps at --clumps-threshold V (code units; required with\n"
    "            it): each finder's time and clump count against reading the cells, the\n"
    "            e_grav methods, the thread scaling (only when named)\n"
    "  ranks     under mpirun -np N: full reads on the grid ranks x threads per rank, as\n"
    "            snapkit bench ranks (only when named; under several ranks it is the only\n"
    "            stage: mpirun -np N snapkit bench report SOURCE --stages ranks; run alone\n"
    "            it is skipped with that advice)\n\n"
    "options:\n"
    "  --max-threads N       use at most N threads (and sweep up to N)\n"
    "  --memory SIZE         plan reads for this much memory (e.g. 16G; default: the RAM,\n"
    "                        or the job's cgroup limit when lower)\n"
    "  --runs N              repetitions per measurement (default 3)\n"
    "  --res LIST            the project stage's pixels across; a list (256,512,1024) gives\n"
    "                        the grid resolution x threads (\"project_grid\" in report.json, a\n"
    "                        panel of where threads stop paying) instead of one resolution\n"
    "  --atoms-sizes LIST    the atoms stage's atom counts (default 4000,32000,256000,2048000)\n"
    "  --atoms-peers LIST    ase, lammps or none (default ase,lammps: those installed)\n"
    "  --clumps-threshold V  the clumps stage's density threshold (code units)\n"
    "  --out DIR             where the report goes (default snapkit-report)\n"
    "  --csv FILE            also append one row per measurement to FILE with the run's\n"
    "                        metadata (UTC time, host, version, build id, CPU, CPUs owned,\n"
    "                        filesystem, source, selection, threads, warm/cold; report.json\n"
    "                        carries the same block); header when FILE is new\n"
    "%s";

enum {
    STAGE_STORAGE = 1, STAGE_READ = 2, STAGE_SWEEP = 4, STAGE_CONVERT = 8, STAGE_PROJECT = 16,
    STAGE_LMAX = 32, STAGE_ATOMS = 64, STAGE_CLUMPS = 128, STAGE_RANKS = 256
};

static const struct {
    const char *name;
    int bit;
} k_stage_names[] = {{"storage", STAGE_STORAGE},
                     {"read", STAGE_READ},
                     {"convert", STAGE_CONVERT},
                     {"project", STAGE_PROJECT},
                     {"lmax", STAGE_LMAX},
                     {"sweep", STAGE_SWEEP},
                     {"atoms", STAGE_ATOMS},
                     {"clumps", STAGE_CLUMPS},
                     {"ranks", STAGE_RANKS}};

static int parse_stages(const char *text, int *stages)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    *stages = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int bit = 0;
        for (size_t k = 0; k < sizeof k_stage_names / sizeof k_stage_names[0]; k++)
            if (strcmp(tok, k_stage_names[k].name) == 0)
                bit = k_stage_names[k].bit;
        if (!bit) {
            cli_fail("--stages: unknown stage '%s' (storage, read, convert, project, lmax, sweep, atoms, clumps, ranks)", tok);
            return -1;
        }
        *stages |= bit;
    }
    return *stages ? 0 : (cli_fail("--stages: no stage named"), -1);
}

/* Refuse a read that would not fit: above 60% of the memory the job may
 * use; name the finest lmax that fits. */
static int memory_guard(sk_source *src, const sk_selection *sel, double memory)
{
    sk_error err;
    int64_t need;
    if (sk_bench_source_estimate(src, sel, 0, &need, &err) != SK_OK)
        return cli_error(&err);
    double limit = 0.6 * memory;
    if ((double)need <= limit)
        return CLI_OK;
    char b1[32], b2[32], b3[32];
    int fits = 0;
    int64_t fit_bytes = 0;
    int top = sel->lmax > 0 ? sel->lmax : 128;
    for (int l = top - 1; l >= 1 && !fits; l--) {
        int64_t b;
        if (sk_bench_source_estimate(src, sel, l, &b, &err) != SK_OK)
            return cli_error(&err);
        if ((double)b <= limit) {
            fits = l;
            fit_bytes = b;
        }
    }
    if (!fits)
        return cli_fail("the read would hold about %s in memory, more than 60%% of the %s this "
                        "job may use, at every lmax; select a region (--xrange ...)",
                        cli_bytes((double)need, b1, sizeof b1), cli_bytes(memory, b2, sizeof b2));
    return cli_fail("the read would hold about %s in memory, more than 60%% of the %s this job "
                    "may use; --lmax %d fits (about %s)",
                    cli_bytes((double)need, b1, sizeof b1), cli_bytes(memory, b2, sizeof b2), fits,
                    cli_bytes((double)fit_bytes, b3, sizeof b3));
}

/* "16G", "512M", "1.5T", "2000000" (suffixes are powers of 1024; a
 * trailing B or iB is allowed). */
static int parse_size(const char *text, double *bytes)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || !(v > 0))
        return -1;
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (*end && !u)
        return -1;
    if (u) {
        v *= pow(1024, (double)(u - units + 1));
        end++;
    }
    if (strcmp(end, "") && strcmp(end, "B") && strcmp(end, "iB"))
        return -1;
    *bytes = v;
    return 0;
}

typedef struct report_run {
    sk_machine machine;
    skb_source_usage source;
    sk_storage_result storage;
    sk_read_bench read;
    sk_scaling sweep;
    sk_convert_bench convert;
    sk_project_bench project;
    sk_lmax_bench lmax;
    sk_project_grid grid;
    sk_atoms_bench atoms;
    sk_clumps_bench clumps;
    sk_ranks_bench ranks;
    sk_report report;
} report_run;

static int run_sweep(sk_source *src, const sk_selection *sel, int max_threads, int runs,
                     report_run *rr)
{
    sk_sweep_options opt = {.runs = runs};
    int levels[SK_BENCH_MAX_LEVELS];
    opt.nlevels = sk_bench_default_levels(max_threads, levels, SK_BENCH_MAX_LEVELS);
    memcpy(opt.levels, levels, sizeof levels);
    int nlevels = sk_bench_plan_levels(opt.levels, opt.nlevels, levels, NULL);
    printf("sweep: %d full reads (1 warm-up + %d run%s x %d thread level%s)\n",
           1 + runs * nlevels, runs, runs == 1 ? "" : "s", nlevels, nlevels == 1 ? "" : "s");
    fflush(stdout);
    cli_progress progress;
    cli_progress_init(&progress, "bench sweep");
    opt.progress = bench_progress_hook(&progress);
    sk_error err;
    int rc = sk_bench_read_sweep(src, sel, NULL, &opt, &rr->sweep, NULL, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    rr->report.sweep = &rr->sweep;
    bench_show(sk_scaling_text(&rr->sweep, "sweep  full reads"));
    return CLI_OK;
}

static int run_storage(const char *path, int max_threads, int runs, report_run *rr)
{
    sk_storage_options opt = {.runs = runs};
    opt.nlevels = sk_bench_default_levels(max_threads, opt.levels, SK_BENCH_MAX_LEVELS);
    cli_progress progress;
    cli_progress_init(&progress, "bench storage");
    opt.progress = bench_progress_hook(&progress);
    sk_error err;
    int rc = sk_bench_storage(path, &opt, &rr->storage, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    rr->report.storage = &rr->storage;
    bench_show(sk_storage_text(&rr->storage));
    return CLI_OK;
}

static int run_read(sk_source *src, const sk_selection *sel, int threads, int runs,
                    report_run *rr)
{
    sk_read_bench_options opt = {.threads = threads, .runs = runs, .cold = 1};
    cli_progress progress;
    cli_progress_init(&progress, "bench read");
    opt.progress = bench_progress_hook(&progress);
    sk_error err;
    int rc = sk_bench_read(src, sel, &opt, &rr->read, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    rr->report.read = &rr->read;
    bench_show(sk_read_bench_text(&rr->read));
    return CLI_OK;
}

/* The conversion's file goes into the report's folder and is removed. */
static int run_convert(const sk_source *src, const char *out, const sk_selection *sel,
                       int threads, int runs, report_run *rr)
{
    if (sk_source_kind(src) == SK_SOURCE_SNAPKIT) {
        printf("convert: skipped, the source is already a .snapkit file\n\n");
        return CLI_OK;
    }
    sk_error err;
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        return cli_fail("%s: cannot create the folder: %s", out, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/convert.snapkit", out);
    cli_progress progress;
    cli_progress_init(&progress, "bench convert");
    sk_convert_bench_options opt = {.path = path, .selection = sel, .threads = threads,
                                    .runs = runs, .progress = bench_progress_hook(&progress)};
    int rc = sk_bench_convert(sk_source_path(src), &opt, &rr->convert, &err);
    cli_progress_done(&progress);
    unlink(path);
    if (rc != SK_OK)
        return cli_error(&err);
    rr->report.convert = &rr->convert;
    bench_show(sk_convert_text(&rr->convert));
    return CLI_OK;
}

static int run_project(sk_source *src, const sk_selection *sel, int max_threads, int runs,
                       const int *res, int nres, report_run *rr)
{
    if (nres > 1) {
        if (bench_report_grid(src, sel, max_threads, runs, res, nres, &rr->grid) != CLI_OK)
            return CLI_FAIL;
        rr->report.project_grid = &rr->grid;
        return CLI_OK;
    }
    sk_project_bench_options opt = {.runs = runs, .res = nres ? res[0] : 0};
    opt.nlevels = sk_bench_default_levels(max_threads, opt.levels, SK_BENCH_MAX_LEVELS);
    cli_progress progress;
    cli_progress_init(&progress, "bench project");
    opt.progress = bench_progress_hook(&progress);
    sk_error err;
    int rc = sk_bench_project(src, sel, &opt, &rr->project, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    rr->report.project = &rr->project;
    bench_show(sk_project_text(&rr->project));
    return CLI_OK;
}

/* The study's compact file goes into the report's folder and is removed. */
static int run_lmax(sk_source *src, const char *out, const sk_selection *sel, int threads,
                    int runs, report_run *rr)
{
    if (sk_source_kind(src) == SK_SOURCE_SNAPKIT) {
        printf("lmax: skipped, the source is already a .snapkit file\n\n");
        return CLI_OK;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        return cli_fail("%s: cannot create the folder: %s", out, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/lmax.snapkit", out);
    sk_store_convert_options copt;
    sk_store_convert_options_init(&copt);
    copt.components = "hydro";
    copt.selection = sel;
    copt.with_coarse = 1;
    copt.write.threads = threads;
    sk_store_convert_stats cs;
    sk_error err;
    int rc = sk_store_convert(sk_source_path(src), path, &copt, &cs, &err);
    if (rc == SK_OK) {
        cli_progress progress;
        cli_progress_init(&progress, "bench lmax");
        sk_lmax_bench_options opt = {.component = "hydro", .file = path, .threads = threads,
                                     .runs = runs, .cold = 1,
                                     .progress = bench_progress_hook(&progress)};
        rc = sk_bench_lmax(src, sel, &opt, &rr->lmax, &err);
        cli_progress_done(&progress);
    }
    unlink(path);
    if (rc != SK_OK)
        return cli_error(&err);
    rr->report.lmax = &rr->lmax;
    bench_show(sk_lmax_text(&rr->lmax));
    return CLI_OK;
}

/* The ranks stage: the grid on the world's ranks (every rank runs it);
 * alone, the advice to launch it. */
static int run_ranks(const char *source, const cli_selection *cs, int max_threads, int runs,
                     report_run *rr)
{
    if (cli_mpi_world()->size < 2) {
        printf("ranks: skipped, the grid of ranks x threads needs several MPI ranks: "
               "mpirun -np N snapkit bench report %s --stages ranks%s\n\n",
               source, sk_mpi_built() ? "" : " (and a snapkit built with MPI: this one is not)");
        fflush(stdout);
        return CLI_OK;
    }
    int levels[SK_BENCH_MAX_LEVELS];
    int nlevels = sk_bench_default_levels(max_threads, levels, SK_BENCH_MAX_LEVELS);
    int rc = bench_run_ranks(source, cs, NULL, levels, nlevels, runs, &rr->ranks);
    if (rc != CLI_OK)
        return rc;
    rr->report.ranks = &rr->ranks;
    bench_show(sk_ranks_bench_text(&rr->ranks));
    return CLI_OK;
}

/* The stages that measure SOURCE, in their order; *threads becomes the
 * sweep's sweet spot when the sweep ran. */
typedef struct source_plan {
    const char *path;
    const cli_selection *cs;
    int stages;
    const char *out;
    double memory;
    int runs;
    const int *res;
    int nres;
    double clumps_threshold;
} source_plan;

static int run_source(const source_plan *p, report_run *rr, int *threads)
{
    sk_source *src;
    sk_selection sel;
    if (bench_open(p->path, p->cs, &src, &sel) != CLI_OK)
        return CLI_FAIL;
    sk_error err;
    int rc = CLI_OK, stages = p->stages, runs = p->runs;
    if (sk_bench_source_usage(src, &rr->source, &err) != SK_OK)
        rc = cli_error(&err);
    if (rc == CLI_OK) {
        rr->report.source = &rr->source;
        bench_show(sk_machine_text(&rr->machine));
        bench_show(skb_source_text(&rr->source));
        char warning[256];
        if (sk_thread_warning(&rr->machine.budget, "--max-threads", warning, sizeof warning))
            fprintf(stderr, "snapkit: %s\n", warning);
    }
    if (rc == CLI_OK &&
        (stages & (STAGE_READ | STAGE_SWEEP | STAGE_CONVERT | STAGE_PROJECT | STAGE_LMAX | STAGE_CLUMPS |
                   STAGE_RANKS)))
        rc = memory_guard(src, &sel, p->memory > 0 ? p->memory : (double)sk_machine_memory(&rr->machine));
    if (rc == CLI_OK && (stages & STAGE_SWEEP)) {
        rc = run_sweep(src, &sel, *threads, runs, rr);
        if (rc == CLI_OK) {
            *threads = rr->sweep.sweet_spot;
            printf("the stages below use the sweet spot: %d thread%s\n\n", *threads,
                   *threads == 1 ? "" : "s");
        }
    }
    if (rc == CLI_OK && (stages & STAGE_STORAGE))
        rc = run_storage(p->path, rr->machine.budget.threads, runs, rr);
    if (rc == CLI_OK && (stages & STAGE_READ))
        rc = run_read(src, &sel, *threads, runs, rr);
    if (rc == CLI_OK && (stages & STAGE_CONVERT))
        rc = run_convert(src, p->out, &sel, *threads, runs, rr);
    if (rc == CLI_OK && (stages & STAGE_PROJECT))
        rc = run_project(src, &sel, rr->machine.budget.threads, runs, p->res, p->nres, rr);
    if (rc == CLI_OK && (stages & STAGE_LMAX))
        rc = run_lmax(src, p->out, &sel, *threads, runs, rr);
    if (rc == CLI_OK && (stages & STAGE_CLUMPS)) {
        rc = bench_report_clumps(src, &sel, rr->machine.budget.threads, runs, p->clumps_threshold,
                                 &rr->clumps);
        if (rc == CLI_OK)
            rr->report.clumps = &rr->clumps;
    }
    if (rc == CLI_OK && (stages & STAGE_RANKS))
        rc = run_ranks(p->path, p->cs, rr->machine.budget.threads, runs, rr);
    sk_selection_clear(&sel);
    sk_source_close(src);
    return rc;
}

int cmd_bench_report(int argc, char **argv)
{
    cli_selection cs;
    cli_selection_init(&cs);
    const char *source = NULL, *out = "snapkit-report", *csv = NULL;
    char selection[512] = "";
    int stages = STAGE_STORAGE | STAGE_READ | STAGE_CONVERT | STAGE_PROJECT;
    long long max_threads = 0, runs = 3;
    double memory = 0, clumps_threshold = NAN;
    int res[SK_GRID_MAX_RES], nres = 0, natoms_sizes = 0;
    int atoms_peers = SKB_PEER_ASE | SKB_PEER_LAMMPS;
    int64_t atoms_sizes[SK_ATOMS_MAX_SIZES];
    sk_error err;
    for (int i = 1; i < argc; i++) {
        int first = i;
        int used = cli_selection_option(&cs, argc, argv, &i);
        if (used < 0)
            return CLI_USAGE;
        for (int k = first; used && k <= i; k++) {
            size_t len = strlen(selection);
            snprintf(selection + len, sizeof selection - len, "%s%s", len ? " " : "", argv[k]);
        }
        if (used)
            continue;
        const char *a = argv[i];
        if (cli_is(a, "--help") || cli_is(a, "-h")) {
            printf(k_help, cli_selection_help);
            return CLI_OK;
        } else if (cli_is(a, "--stages")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v || parse_stages(v, &stages))
                return CLI_USAGE;
        } else if (cli_is(a, "--max-threads") || cli_is(a, "--runs")) {
            long long *dst = cli_is(a, "--runs") ? &runs : &max_threads;
            if (cli_int_value(argc, argv, &i, dst))
                return CLI_USAGE;
            if (*dst < 1 || *dst > 4096)
                return cli_usage("bench report", "%s must be between 1 and 4096", a);
        } else if (cli_is(a, "--memory")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v)
                return CLI_USAGE;
            if (parse_size(v, &memory))
                return cli_usage("bench report", "--memory: '%s' is not a size such as 16G", v);
        } else if (cli_is(a, "--clumps-threshold")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v || cli_double("--clumps-threshold", v, &clumps_threshold))
                return CLI_USAGE;
        } else if (cli_is(a, "--csv")) {
            if (!(csv = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (cli_is(a, "--res") || cli_is(a, "--atoms-sizes") || cli_is(a, "--atoms-peers")) {
            const char *v = cli_value(argc, argv, &i);
            int ok = v != NULL;
            if (ok && cli_is(a, "--res"))
                ok = sk_project_grid_parse(v, res, &nres, &err) == SK_OK;
            else if (ok && cli_is(a, "--atoms-sizes"))
                ok = sk_atoms_parse_sizes(v, atoms_sizes, &natoms_sizes, &err) == SK_OK;
            else if (ok)
                ok = sk_atoms_parse_peers(v, &atoms_peers, &err) == SK_OK;
            if (!ok)
                return v ? cli_usage("bench report", "%s", err.message) : CLI_USAGE;
        } else if (cli_is(a, "--out")) {
            if (!(out = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (a[0] == '-' || source) {
            return cli_usage("bench report", "unexpected argument '%s'", a);
        } else {
            source = a;
        }
    }
    if ((stages & STAGE_CLUMPS) && isnan(clumps_threshold))
        return cli_usage("bench report", "the clumps stage needs --clumps-threshold V");
    if (!source && (stages & ~STAGE_ATOMS))
        return cli_usage("bench report", "which output? (snapkit bench report SOURCE)");
    int nranks = cli_mpi_world()->size;
    if (nranks > 1 && stages != STAGE_RANKS)
        return cli_usage("bench report",
                         "under mpirun (%d ranks) the report runs only the ranks stage "
                         "(--stages ranks); the other stages measure one process: run them "
                         "without mpirun",
                         nranks);
    static report_run rr;
    memset(&rr, 0, sizeof rr);
    sk_machine_get((int)max_threads, &rr.machine);
    sk_machine_first_touch(INT64_C(128) << 20, &rr.machine.touch);
    rr.report.machine = &rr.machine;
    rr.report.max_threads = (int)max_threads;
    int threads = rr.machine.budget.threads;
    int rc = CLI_OK;
    if (source) {
        const source_plan plan = {.path = source, .cs = &cs, .stages = stages, .out = out,
                                  .memory = memory, .runs = (int)runs, .res = res, .nres = nres,
                                  .clumps_threshold = clumps_threshold};
        rc = run_source(&plan, &rr, &threads);
    } else {
        bench_show(sk_machine_text(&rr.machine));
    }
    if (rc == CLI_OK && (stages & STAGE_ATOMS)) {
        rc = bench_report_atoms(out, threads, (int)runs, natoms_sizes ? atoms_sizes : NULL,
                                natoms_sizes, atoms_peers, &rr.atoms);
        if (rc == CLI_OK)
            rr.report.atoms = &rr.atoms;
    }
    if (rc != CLI_OK || cli_mpi_world()->rank > 0) /* rank 0 writes the report */
        return rc;
    sk_bench_meta meta;
    sk_bench_meta_get(&rr.machine, source ? source : out, selection, rr.machine.budget.threads,
                      rr.report.read && rr.read.cache_dropped ? "warm+cold" : "warm", &meta);
    rr.report.meta = &meta;
    if (sk_report_write(&rr.report, out, &err) != SK_OK)
        return cli_error(&err);
    if (csv && sk_bench_csv_append(csv, &meta, &rr.report, &err) != SK_OK)
        return cli_error(&err);
    printf("wrote %s/report.txt, report.csv, report.json, report.png, report.svg, report.pdf\n", out);
    return CLI_OK;
}
