/* Each stage's results as JSON: the value of its key in report.json and
 * what `snapkit bench <stage> --json` prints. */
#include <math.h>

#include "snapkit/bench.h"

void sk_thread_budget_json(const sk_thread_budget *b, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_int(j, "threads", b->threads);
    sk_json_kv_int(j, "requested", b->requested);
    sk_json_kv_int(j, "owned", b->owned);
    sk_json_kv_string(j, "limited_by", b->limited_by);
    sk_json_kv_int(j, "affinity", b->affinity);
    sk_json_kv_int(j, "machine", b->machine);
    sk_json_object_end(j);
}

void sk_machine_json(const sk_machine *m, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_string(j, "cpu_model", m->cpu_model);
    sk_json_kv_int(j, "logical_cpus", m->logical_cpus);
    sk_json_kv_int(j, "physical_cores", m->physical_cores);
    sk_json_kv_int(j, "ram_bytes", m->ram_bytes);
    sk_json_kv_int(j, "ram_available_bytes", m->ram_available);
    sk_json_kv_string(j, "os", m->os);
    sk_json_key(j, "threads");
    sk_thread_budget_json(&m->budget, j);
    char warning[256];
    if (sk_thread_warning(&m->budget, "--max-threads", warning, sizeof warning))
        sk_json_kv_string(j, "warning", warning);
    sk_json_object_end(j);
}

void sk_source_json(const sk_source_usage *s, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_string(j, "path", s->path);
    sk_json_kv_string(j, "kind", s->kind);
    sk_json_kv_string(j, "fs_type", s->fs_type);
    sk_json_kv_int(j, "files", s->files);
    sk_json_kv_int(j, "bytes", s->bytes);
    sk_json_key(j, "components");
    sk_json_array_begin(j);
    for (int i = 0; i < s->ncomponents; i++) {
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", s->components[i].name);
        sk_json_kv_int(j, "files", s->components[i].files);
        sk_json_kv_int(j, "bytes", s->components[i].bytes);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

void sk_storage_json(const sk_storage_result *s, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_string(j, "dir", s->dir);
    sk_json_kv_string(j, "fs_type", s->fs_type);
    sk_json_kv_int(j, "files_total", s->files_total);
    sk_json_kv_int(j, "bytes_total", s->bytes_total);
    sk_json_kv_int(j, "files_sampled", s->files_sampled);
    sk_json_kv_int(j, "bytes_sampled", s->bytes_sampled);
    sk_json_kv_int(j, "bytes_read", s->bytes_read);
    sk_json_kv_int(j, "opens", s->opens);
    sk_json_kv_int(j, "runs", s->runs);
    sk_json_kv_int(j, "threads_owned", s->budget.owned);
    sk_json_kv_int(j, "levels_dropped", s->levels_dropped);
    sk_json_kv_double(j, "seconds", s->seconds);
    sk_json_key(j, "points");
    sk_json_array_begin(j);
    for (int i = 0; i < s->npoints; i++) {
        const sk_storage_point *p = &s->points[i];
        sk_json_object_begin(j);
        sk_json_kv_int(j, "threads", p->threads);
        sk_json_kv_double(j, "iops", p->iops);
        sk_json_kv_double(j, "iops_min", p->iops_min);
        sk_json_kv_double(j, "iops_max", p->iops_max);
        sk_json_kv_double(j, "open_close_seconds", p->open_close_seconds);
        sk_json_kv_double(j, "reader_bytes_per_second", p->reader_bps);
        sk_json_kv_double(j, "reader_bytes_per_second_min", p->reader_bps_min);
        sk_json_kv_double(j, "reader_bytes_per_second_max", p->reader_bps_max);
        sk_json_kv_double(j, "total_bytes_per_second", p->total_bps);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

void sk_scaling_json(const sk_scaling *s, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_key(j, "points");
    sk_json_array_begin(j);
    for (int i = 0; i < s->npoints; i++) {
        const sk_sweep_point *p = &s->points[i];
        sk_json_object_begin(j);
        sk_json_kv_int(j, "threads", p->threads);
        sk_json_kv_int(j, "runs", p->runs);
        sk_json_kv_double(j, "seconds", p->seconds);
        sk_json_kv_double(j, "seconds_min", p->seconds_min);
        sk_json_kv_double(j, "seconds_max", p->seconds_max);
        sk_json_kv_double(j, "speedup", p->speedup);
        sk_json_kv_double(j, "efficiency", p->efficiency);
        sk_json_kv_double(j, "spread", p->spread);
        sk_json_kv_int(j, "peak_bytes", p->peak_bytes);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_kv_int(j, "fastest", s->fastest);
    sk_json_kv_int(j, "sweet_spot", s->sweet_spot);
    sk_json_kv_int(j, "economical", s->economical);
    char trade[256];
    sk_scaling_trade(s, trade, sizeof trade);
    sk_json_kv_string(j, "trade", trade);
    sk_json_key(j, "amdahl");
    sk_json_object_begin(j);
    sk_json_kv_double(j, "parallel_fraction", s->amdahl.parallel_fraction);
    sk_json_kv_double(j, "serial_seconds", s->amdahl.serial_seconds);
    sk_json_kv_double(j, "one_thread_seconds", s->amdahl.one_thread_seconds);
    sk_json_kv_double(j, "ceiling", s->amdahl.ceiling);
    sk_json_kv_int(j, "points_used", s->amdahl.points_used);
    sk_json_object_end(j);
    sk_json_object_end(j);
}

void sk_read_bench_json(const sk_read_bench *r, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_int(j, "threads", r->threads);
    sk_json_key(j, "cache_dropped");
    sk_json_bool(j, r->cache_dropped);
    if (r->cache_note[0])
        sk_json_kv_string(j, "cache_note", r->cache_note);
    sk_json_key(j, "components");
    sk_json_array_begin(j);
    for (int i = 0; i < r->ncomponents; i++) {
        const sk_read_component *c = &r->components[i];
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", c->name);
        sk_json_kv_int(j, "runs", c->runs);
        sk_json_kv_double(j, "mean_seconds", c->mean_seconds);
        sk_json_kv_double(j, "stddev_seconds", c->stddev_seconds);
        sk_json_kv_double(j, "cold_seconds", c->cold_seconds >= 0 ? c->cold_seconds : NAN);
        sk_json_kv_int(j, "rows", c->rows);
        sk_json_kv_int(j, "bytes_result", c->bytes_result);
        sk_json_kv_int(j, "bytes_read", c->bytes_read);
        sk_json_kv_int(j, "bytes_allocated", c->bytes_allocated);
        sk_json_kv_int(j, "peak_rss_bytes", c->peak_rss);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

void sk_convert_json(const sk_convert_bench *c, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_double(j, "read_seconds", c->read_seconds);
    sk_json_kv_double(j, "write_seconds", c->write_seconds);
    sk_json_kv_double(j, "conversion_seconds", c->read_seconds + c->write_seconds);
    sk_json_kv_double(j, "reread_seconds", c->reread_seconds);
    sk_json_kv_double(j, "speedup", c->speedup);
    sk_json_kv_double(j, "break_even_rereads", c->break_even_rereads);
    sk_json_kv_int(j, "bytes_ramses", c->bytes_ramses);
    sk_json_kv_int(j, "bytes_file", c->bytes_file);
    sk_json_kv_double(j, "size_percent",
                      c->bytes_ramses > 0 ? 100.0 * c->bytes_file / c->bytes_ramses : NAN);
    sk_json_kv_int(j, "bytes_allocated_read", c->alloc_read);
    sk_json_kv_int(j, "bytes_allocated_write", c->alloc_write);
    sk_json_kv_int(j, "bytes_allocated_reread", c->alloc_reread);
    sk_json_object_end(j);
}

void sk_project_json(const sk_project_bench *p, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_string(j, "quantities", p->quantities);
    sk_json_kv_int(j, "rows", p->rows);
    sk_json_kv_int(j, "nx", p->nx);
    sk_json_kv_int(j, "ny", p->ny);
    sk_json_key(j, "cases");
    sk_json_array_begin(j);
    for (int i = 0; i < p->ncases; i++) {
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", p->cases[i].name);
        sk_json_key(j, "scaling");
        sk_scaling_json(&p->cases[i].scaling, j);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

void sk_outputs_json(const sk_outputs_bench *o, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_int(j, "outputs", o->noutputs);
    sk_json_kv_int(j, "budget", o->budget);
    sk_json_kv_int(j, "threads_per_process", o->threads_per_process);
    sk_json_kv_double(j, "processes_seconds", o->processes_seconds);
    sk_json_kv_double(j, "sequential_seconds", o->sequential_seconds);
    sk_json_kv_double(j, "ratio", o->ratio);
    sk_json_object_end(j);
}

void sk_report_json(const sk_report *r, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_key(j, "machine");
    sk_machine_json(r->machine, j);
    if (r->source) {
        sk_json_key(j, "source");
        sk_source_json(r->source, j);
    }
    if (r->sweep) {
        sk_json_key(j, "sweep");
        sk_scaling_json(r->sweep, j);
    }
    if (r->storage) {
        sk_json_key(j, "storage");
        sk_storage_json(r->storage, j);
    }
    if (r->read) {
        sk_json_key(j, "read");
        sk_read_bench_json(r->read, j);
    }
    if (r->convert) {
        sk_json_key(j, "convert");
        sk_convert_json(r->convert, j);
    }
    if (r->project) {
        sk_json_key(j, "project");
        sk_project_json(r->project, j);
    }
    sk_json_object_end(j);
}
