/* sk_synth_write: plan the output, write the text files, write the CPU
 * files in parallel (one CPU per thread at a time, dynamically scheduled),
 * merge each CPU's truth in CPU order, and write info_ last. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapkit/util/clock.h"
#include "synth/synth_internal.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

void sk_synth_options_init(sk_synth_options *o)
{
    memset(o, 0, sizeof *o);
    o->ncpu = 8;
    o->levelmin = 6;
    o->levelmax = 10;
    o->components = SK_SYNTH_HYDRO | SK_SYNTH_GRAVITY | SK_SYNTH_PARTICLES;
    o->nvar = 6;
    o->npart = 100000;
    o->refine = SK_SYNTH_SPHERE;
    o->format = SK_RAMSES_CURRENT;
    o->boxlen = 1.0;
    o->seed = 1;
    o->output = 1;
}

static void fill_report(const synth_plan *p, sk_synth_report *r)
{
    memset(r, 0, sizeof *r);
    r->leaves = p->leaves;
    memcpy(r->leaves_per_level, p->leaves_per_level, sizeof r->leaves_per_level);
    r->octs = p->octs;
    r->particles = p->ndm + p->nstar;
    r->refine_param = p->model.param;
    r->ngridmax = p->ngridmax;
}

/* The plan of opt, tuned on the threads the job may use (*threads). */
static int build_plan(synth_plan *p, const sk_synth_options *opt, int *threads, sk_error *err)
{
    sk_thread_budget budget;
    sk_thread_budget_get(opt->threads, &budget);
    *threads = budget.threads;
    return synth_plan_build(p, opt, budget.threads, err);
}

int sk_synth_plan(const sk_synth_options *opt, sk_synth_report *report, sk_error *err)
{
    double t0 = sk_monotonic_seconds();
    synth_plan p;
    int threads;
    int rc = build_plan(&p, opt, &threads, err);
    if (rc)
        return rc;
    if (report) {
        fill_report(&p, report);
        report->seconds = sk_monotonic_seconds() - t0;
    }
    synth_plan_free(&p);
    return SK_OK;
}

/* Files of output `out` this writer owns in a folder. */
static int ours(const char *name, int out)
{
    static const char *const stems[] = {"amr", "hydro", "grav", "part"};
    char want[64];
    for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
        snprintf(want, sizeof want, "%s_%05d.out", stems[i], out);
        if (strncmp(name, want, strlen(want)) == 0)
            return 1;
    }
    snprintf(want, sizeof want, "header_%05d.txt", out);
    return !strcmp(name, want) || !strcmp(name, "namelist.txt") ||
           !strcmp(name, "hydro_file_descriptor.txt") || !strcmp(name, "part_file_descriptor.txt") ||
           !strcmp(name, "compilation.txt");
}

static int remove_file(const char *dir, const char *name, sk_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (unlink(path) != 0 && errno != ENOENT)
        return sk_fail_errno(err, path, errno, "cannot remove the old file");
    return SK_OK;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    for (char *q = path + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return -1;
            *q = '/';
        }
    return mkdir(path, 0777);
}

/* Create dir, or check that it is empty; with overwrite, take away an old
 * output of the same number, its info_ first so that it stops being one. */
static int prepare_dir(const char *dir, int out, int overwrite, sk_error *err)
{
    if (make_dirs(dir) == 0)
        return SK_OK;
    if (errno != EEXIST)
        return sk_fail_errno(err, dir, errno, "cannot create the output folder");
    DIR *d = opendir(dir);
    if (!d)
        return sk_fail_errno(err, dir, errno, "cannot open the output folder");
    char info[64];
    snprintf(info, sizeof info, "info_%05d.txt", out);
    int rc = overwrite ? remove_file(dir, info, err) : SK_OK;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!overwrite)
            rc = sk_fail(err, SK_ERR_ARG, dir, -1,
                         "the output folder is not empty (it holds %s); choose a new folder or "
                         "allow overwriting", e->d_name);
        else if (ours(e->d_name, out))
            rc = remove_file(dir, e->d_name, err);
    }
    closedir(d);
    return rc;
}

typedef struct run {
    const synth_plan *p;
    const char *dir;
    sk_synth_truth *truth;
    synth_tally **pending; /* finished CPUs waiting for the ones before them */
    int next_merge;
    int64_t files_done, files_total, bytes, oct_entries;
    int cancel;
    sk_error first;
} run;

static int write_cpu(run *r, int cpu, synth_scratch *s, synth_tally *tally,
                     synth_cpu_result *res, sk_error *err)
{
    int rc = synth_write_cpu_grid(r->p, r->dir, cpu, s, tally, res, err);
    if (!rc && (r->p->opt.components & SK_SYNTH_PARTICLES))
        rc = synth_write_cpu_particles(r->p, r->dir, cpu, tally, res, err);
    return rc;
}

/* Called in a critical section: merge what can be merged in CPU order. */
static void finished(run *r, int cpu, synth_tally *tally, const synth_cpu_result *res)
{
    r->pending[cpu - 1] = tally;
    while (r->next_merge < r->p->ncpu && r->pending[r->next_merge]) {
        synth_tally_merge(r->truth->tally, r->pending[r->next_merge]);
        synth_tally_free(r->pending[r->next_merge]);
        r->pending[r->next_merge] = NULL;
        r->next_merge++;
    }
    r->files_done += res->files;
    r->bytes += res->bytes;
    r->oct_entries += res->oct_entries;
    const sk_progress *pr = &r->p->opt.progress;
    if (pr->fn)
        pr->fn(pr->ctx, r->files_done, r->files_total, r->bytes);
}

static void write_all_cpus(run *r, int threads)
{
    int ncpu = r->p->ncpu;
    if (threads > ncpu)
        threads = ncpu;
#pragma omp parallel num_threads(threads)
    {
        synth_scratch *s = synth_scratch_new();
        sk_error err;
        sk_error_clear(&err);
        int failed = s == NULL;
        if (failed)
            sk_fail(&err, SK_ERR_NOMEM, NULL, -1, "out of memory");
#pragma omp for schedule(dynamic)
        for (int cpu = 1; cpu <= ncpu; cpu++) {
            int stop;
#pragma omp atomic read
            stop = r->cancel;
            if (stop || failed)
                continue;
            synth_cpu_result res = {0};
            synth_tally *tally = synth_tally_new(r->truth);
            int rc = tally ? write_cpu(r, cpu, s, tally, &res, &err)
                           : sk_fail(&err, SK_ERR_NOMEM, NULL, -1, "out of memory");
            if (rc) {
                synth_tally_free(tally);
                failed = 1;
                continue;
            }
#pragma omp critical(synth_finished)
            finished(r, cpu, tally, &res);
        }
        if (failed) {
#pragma omp critical(synth_finished)
            sk_error_keep_first(&r->first, &err);
#pragma omp atomic write
            r->cancel = 1;
        }
        synth_scratch_free(s);
    }
}

static int64_t files_per_cpu(const synth_plan *p)
{
    unsigned c = p->opt.components;
    return 1 + ((c & SK_SYNTH_HYDRO) != 0) + ((c & SK_SYNTH_GRAVITY) != 0) +
           ((c & SK_SYNTH_PARTICLES) != 0);
}

int sk_synth_write(const char *dir, const sk_synth_options *opt, sk_synth_truth **truth_out,
                   sk_synth_report *report, sk_error *err)
{
    double t0 = sk_monotonic_seconds();
    if (truth_out)
        *truth_out = NULL;
    synth_plan p;
    int threads;
    int rc = build_plan(&p, opt, &threads, err);
    if (rc)
        return rc;
    run r = {.p = &p, .dir = dir};
    sk_error_clear(&r.first);
    r.truth = sk_calloc(1, sizeof *r.truth);
    r.pending = sk_calloc((size_t)p.ncpu, sizeof *r.pending);
    if (!r.truth || !r.pending)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (!rc) {
        synth_truth_setup(r.truth, &p);
        r.truth->tally = synth_tally_new(r.truth);
        if (!r.truth->tally)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    rc = rc ? rc : prepare_dir(dir, opt->output, opt->overwrite, err);
    int text_files = 0;
    rc = rc ? rc : synth_write_text_files(&p, dir, &r.bytes, &text_files, err);
    if (!rc) {
        r.files_done = text_files;
        r.files_total = text_files + 1 + p.ncpu * files_per_cpu(&p);
        write_all_cpus(&r, threads);
        if (r.cancel) {
            *err = r.first;
            rc = r.first.code ? r.first.code : SK_ERR_IO;
        }
    }
    rc = rc ? rc : synth_write_info(&p, dir, &r.bytes, err);
    if (!rc && report) {
        fill_report(&p, report);
        report->oct_entries = r.oct_entries;
        report->files = r.files_done + 1;
        report->bytes = r.bytes;
        report->seconds = sk_monotonic_seconds() - t0;
    }
    for (int i = 0; r.pending && i < p.ncpu; i++)
        synth_tally_free(r.pending[i]);
    sk_free(r.pending);
    if (!rc && truth_out)
        *truth_out = r.truth;
    else
        sk_synth_truth_free(r.truth);
    synth_plan_free(&p);
    return rc;
}
