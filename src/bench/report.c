/* The report as CSV, and all of its files written at once. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/strbuf.h"
#include "snapkit/atomicfile.h"
#include "snapkit/bench.h"
#include "snapkit/memory.h"

/* One CSV row; the series is quoted because names may hold commas. */
static void row(skb_buf *b, const char *stage, const char *series, int threads,
                const char *quantity, double value, const char *unit)
{
    skb_printf(b, "%s,\"", stage);
    for (const char *s = series; *s; s++)
        skb_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    skb_puts(b, "\",");
    if (threads > 0)
        skb_printf(b, "%d", threads);
    if (isfinite(value))
        skb_printf(b, ",%s,%.17g,%s\n", quantity, value, unit);
    else
        skb_printf(b, ",%s,,%s\n", quantity, unit);
}

static void scaling_rows(skb_buf *b, const char *stage, const char *series, const sk_scaling *s)
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

static void machine_rows(skb_buf *b, const sk_machine *m)
{
    row(b, "machine", m->cpu_model, 0, "logical_cpus", m->logical_cpus, "count");
    row(b, "machine", m->cpu_model, 0, "physical_cores", m->physical_cores, "count");
    row(b, "machine", m->cpu_model, 0, "ram_bytes", (double)m->ram_bytes, "B");
    row(b, "machine", m->budget.limited_by, 0, "threads_owned", m->budget.owned, "count");
}

static void storage_rows(skb_buf *b, const sk_storage_result *s)
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

static void read_rows(skb_buf *b, const sk_read_bench *r)
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

static void convert_rows(skb_buf *b, const sk_convert_bench *c)
{
    row(b, "convert", "", 0, "read_seconds", c->read_seconds, "s");
    row(b, "convert", "", 0, "write_seconds", c->write_seconds, "s");
    row(b, "convert", "", 0, "reread_seconds", c->reread_seconds, "s");
    row(b, "convert", "", 0, "speedup", c->speedup, "");
    row(b, "convert", "", 0, "break_even_rereads", c->break_even_rereads, "count");
    row(b, "convert", "", 0, "bytes_ramses", (double)c->bytes_ramses, "B");
    row(b, "convert", "", 0, "bytes_file", (double)c->bytes_file, "B");
    row(b, "convert", "", 0, "bytes_allocated_read", (double)c->alloc_read, "B");
    row(b, "convert", "", 0, "bytes_allocated_write", (double)c->alloc_write, "B");
    row(b, "convert", "", 0, "bytes_allocated_reread", (double)c->alloc_reread, "B");
}

char *sk_report_csv(const sk_report *r)
{
    skb_buf b = {0};
    skb_puts(&b, "stage,series,threads,quantity,value,unit\n");
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
    return skb_take(&b);
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
    if (rc == SK_OK)
        rc = write_text(dir, "report.svg", sk_report_svg(r), err);
    uint8_t *png = NULL;
    size_t size = 0;
    if (rc == SK_OK)
        rc = sk_report_png(r, &png, &size, err);
    if (rc == SK_OK)
        rc = write_file(dir, "report.png", png, size, err);
    sk_free(png);
    return rc;
}
