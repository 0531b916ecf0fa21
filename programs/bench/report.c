/* The report as CSV, and all of its files written at once. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "snapkit/util/text.h"
#include "snapkit/util/atomicfile.h"
#include "bench/bench.h"
#include "bench/report_parts.h"
#include "snapkit/memory.h"

/* One CSV row; the series is quoted because names may hold commas. */
static void row(sk_text *b, const char *stage, const char *series, int threads,
                const char *quantity, double value, const char *unit)
{
    sk_text_printf(b, "%s,\"", stage);
    for (const char *s = series; *s; s++)
        sk_text_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    sk_text_puts(b, "\",");
    if (threads > 0)
        sk_text_printf(b, "%d", threads);
    if (isfinite(value))
        sk_text_printf(b, ",%s,%.17g,%s\n", quantity, value, unit);
    else
        sk_text_printf(b, ",%s,,%s\n", quantity, unit);
}

static void scaling_rows(sk_text *b, const char *stage, const char *series, const sk_scaling *s)
{
    for (int i = 0; i < s->npoints; i++) {
        const sk_sweep_point *p = &s->points[i];
        row(b, stage, series, p->threads, "seconds", p->seconds, "s");
        row(b, stage, series, p->threads, "speedup", p->speedup, "");
        row(b, stage, series, p->threads, "efficiency", p->efficiency, "");
        row(b, stage, series, p->threads, "spread", p->spread, "");
        row(b, stage, series, p->threads, "peak_bytes", (double)p->peak_bytes, "B");
    }
    row(b, stage, series, 0, "fastest", s->fastest, "threads");
    row(b, stage, series, 0, "sweet_spot", s->sweet_spot, "threads");
    row(b, stage, series, 0, "economical", s->economical, "threads");
    row(b, stage, series, 0, "parallel_fraction", s->amdahl.parallel_fraction, "");
    row(b, stage, series, 0, "serial_seconds", s->amdahl.serial_seconds, "s");
    row(b, stage, series, 0, "ceiling", s->amdahl.ceiling, "");
}

static void machine_rows(sk_text *b, const sk_machine *m)
{
    row(b, "machine", m->cpu_model, 0, "logical_cpus", m->logical_cpus, "count");
    row(b, "machine", m->cpu_model, 0, "physical_cores", m->physical_cores, "count");
    row(b, "machine", m->cpu_model, 0, "ram_bytes", (double)m->ram_bytes, "B");
    row(b, "machine", m->budget.limited_by, 0, "threads_owned", m->budget.owned, "count");
}

static void storage_rows(sk_text *b, const sk_storage_result *s)
{
    for (int i = 0; i < s->npoints; i++) {
        const sk_storage_point *p = &s->points[i];
        row(b, "storage", s->fs_type, p->threads, "iops", p->iops, "1/s");
        row(b, "storage", s->fs_type, p->threads, "open_close_seconds", p->open_close_seconds, "s");
        row(b, "storage", s->fs_type, p->threads, "reader_bytes_per_second", p->reader_bps, "B/s");
        row(b, "storage", s->fs_type, p->threads, "total_bytes_per_second", p->total_bps, "B/s");
    }
    row(b, "storage", s->fs_type, 0, "bytes_read", (double)s->bytes_read, "B");
}

static void read_rows(sk_text *b, const sk_read_bench *r)
{
    for (int i = 0; i < r->ncomponents; i++) {
        const sk_read_component *c = &r->components[i];
        row(b, "read", c->name, r->threads, "mean_seconds", c->mean_seconds, "s");
        row(b, "read", c->name, r->threads, "stddev_seconds", c->stddev_seconds, "s");
        row(b, "read", c->name, r->threads, "cold_seconds", c->cold_seconds >= 0 ? c->cold_seconds : NAN, "s");
        row(b, "read", c->name, r->threads, "rows", (double)c->rows, "count");
        row(b, "read", c->name, r->threads, "bytes_result", (double)c->bytes_result, "B");
        row(b, "read", c->name, r->threads, "bytes_allocated", (double)c->bytes_allocated, "B");
        row(b, "read", c->name, r->threads, "peak_rss_bytes", (double)c->peak_rss, "B");
    }
}

static void convert_rows(sk_text *b, const sk_convert_bench *c)
{
    row(b, "convert", "", 0, "read_seconds", c->read_seconds, "s");
    row(b, "convert", "", 0, "write_seconds", c->write_seconds, "s");
    row(b, "convert", "", 0, "reread_seconds", c->reread_seconds, "s");
    row(b, "convert", "", 0, "speedup", c->speedup, "");
    row(b, "convert", "", 0, "break_even_rereads", c->break_even_rereads, "count");
    row(b, "convert", "", 0, "break_even_conversion", c->break_even_conversion, "count");
    row(b, "convert", "", 0, "churn_ratio", c->churn_ratio, "");
    row(b, "convert", "", 0, "bytes_ramses", (double)c->bytes_ramses, "B");
    row(b, "convert", "", 0, "bytes_file", (double)c->bytes_file, "B");
    row(b, "convert", "", 0, "bytes_allocated_read", (double)c->alloc_read, "B");
    row(b, "convert", "", 0, "bytes_allocated_write", (double)c->alloc_write, "B");
    row(b, "convert", "", 0, "bytes_allocated_reread", (double)c->alloc_reread, "B");
}

static void lmax_path_rows(sk_text *b, const char *series, int threads, const sk_lmax_path *p,
                           int lmax)
{
    char s[64];
    snprintf(s, sizeof s, "%s lmax %d", series, lmax);
    row(b, "lmax", s, threads, "rows", (double)p->rows, "count");
    row(b, "lmax", s, threads, "bytes_allocated", (double)p->bytes_allocated, "B");
    row(b, "lmax", s, threads, "bytes_read", (double)p->bytes_read, "B");
    row(b, "lmax", s, threads, "seconds", p->seconds, "s");
    if (isfinite(p->cold_seconds))
        row(b, "lmax", s, threads, "cold_seconds", p->cold_seconds, "s");
}

static void lmax_fit_rows(sk_text *b, const char *series, const sk_lmax_fits *f)
{
    const sk_lmax_fit *fits[2] = {&f->allocated, &f->read};
    static const char *const names[2] = {"allocated", "read"};
    for (int k = 0; k < 2; k++) {
        char s[64];
        snprintf(s, sizeof s, "%s fit bytes %s", series, names[k]);
        row(b, "lmax", s, 0, "gb_per_second", fits[k]->gb_per_second, "GB/s");
        row(b, "lmax", s, 0, "intercept_seconds", fits[k]->ok ? fits[k]->intercept : NAN, "s");
        row(b, "lmax", s, 0, "r2", fits[k]->ok ? fits[k]->r2 : NAN, "");
    }
}

static void lmax_rows(sk_text *b, const sk_lmax_bench *l)
{
    int file = l->file[0] != 0;
    for (int i = 0; i < l->npoints; i++) {
        const sk_lmax_point *p = &l->points[i];
        lmax_path_rows(b, "ramses", l->threads, &p->ramses, p->lmax);
        if (file) {
            lmax_path_rows(b, "file", l->threads, &p->file, p->lmax);
            char s[32];
            snprintf(s, sizeof s, "ratio lmax %d", p->lmax);
            row(b, "lmax", s, l->threads, "time_ratio", p->time_ratio, "");
            row(b, "lmax", s, l->threads, "alloc_ratio", p->alloc_ratio, "");
        }
    }
    lmax_fit_rows(b, "ramses", &l->fit_ramses);
    if (file)
        lmax_fit_rows(b, "file", &l->fit_file);
}

static void outputs_rows(sk_text *b, const sk_outputs_bench *o)
{
    char s[32];
    snprintf(s, sizeof s, "%d outputs", o->noutputs);
    row(b, "outputs", s, o->threads_per_process, "processes_seconds", o->processes_seconds, "s");
    row(b, "outputs", s, o->budget, "sequential_seconds", o->sequential_seconds, "s");
    row(b, "outputs", s, 0, "ratio", o->ratio, "");
}

char *sk_report_csv(const sk_report *r)
{
    sk_text b = {0};
    sk_text_puts(&b, "stage,series,threads,quantity,value,unit\n");
    if (r->machine)
        machine_rows(&b, r->machine);
    if (r->sweep)
        scaling_rows(&b, "sweep", "read", r->sweep);
    if (r->storage)
        storage_rows(&b, r->storage);
    if (r->read)
        read_rows(&b, r->read);
    if (r->convert)
        convert_rows(&b, r->convert);
    for (int i = 0; r->project && i < r->project->ncases; i++)
        scaling_rows(&b, "project", r->project->cases[i].name, &r->project->cases[i].scaling);
    if (r->lmax)
        lmax_rows(&b, r->lmax);
    if (r->outputs)
        outputs_rows(&b, r->outputs);
    if (r->project_grid)
        skb_grid_csv(&b, r->project_grid);
    if (r->atoms)
        skb_atoms_csv(&b, r->atoms);
    if (r->clumps)
        skb_clumps_csv(&b, r->clumps);
    if (r->ranks)
        skb_ranks_csv(&b, r->ranks);
    return sk_text_take(&b);
}

/* The row writers, for the stages whose rows live beside them. */
void skb_csv_row(sk_text *b, const char *stage, const char *series, int threads,
                 const char *quantity, double value, const char *unit)
{
    row(b, stage, series, threads, quantity, value, unit);
}

void skb_csv_scaling(sk_text *b, const char *stage, const char *series, const sk_scaling *s)
{
    scaling_rows(b, stage, series, s);
}

static int write_file(const char *dir, const char *name, const void *data, size_t n, sk_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sk_atomic_file *f = NULL;
    int rc = sk_atomic_open(&f, path, err);
    if (rc == SK_OK)
        rc = sk_atomic_write(f, data, n, err);
    if (rc == SK_OK)
        return sk_atomic_commit(f, err);
    sk_atomic_abort(f);
    return rc;
}

static int write_text(const char *dir, const char *name, char *text, sk_error *err)
{
    if (!text)
        return sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory writing %s", name);
    int rc = write_file(dir, name, text, strlen(text), err);
    sk_free(text);
    return rc;
}

static char *with_newline(const char *text)
{
    size_t n = strlen(text);
    char *s = sk_malloc(n + 2);
    if (s) {
        memcpy(s, text, n);
        memcpy(s + n, "\n", 2);
    }
    return s;
}

int sk_report_write(const sk_report *r, const char *dir, sk_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sk_fail_errno(err, dir, errno, "cannot create the report folder");
    int rc = write_text(dir, "report.txt", sk_report_text(r), err);
    if (rc == SK_OK)
        rc = write_text(dir, "report.csv", sk_report_csv(r), err);
    if (rc == SK_OK) {
        sk_json j;
        sk_json_init(&j, 1);
        sk_report_json(r, &j);
        rc = write_text(dir, "report.json", j.failed ? NULL : with_newline(sk_json_text(&j)), err);
        sk_json_free(&j);
    }
    static const char *const formats[] = {"png", "svg", "pdf"};
    for (int i = 0; i < 3 && rc == SK_OK; i++) {
        char *bytes = NULL, name[32];
        size_t size = 0;
        snprintf(name, sizeof name, "report.%s", formats[i]);
        rc = sk_report_figure(r, formats[i], &bytes, &size, err);
        if (rc == SK_OK)
            rc = write_file(dir, name, bytes, size, err);
        sk_free(bytes);
    }
    return rc;
}
