/* Each stage's results as JSON: the value of its key in report.json and
 * what `snapkit bench <stage> --json` prints. */
#include <math.h>

#include "bench/atoms.h"
#include "bench/clumps.h"
#include "bench/ranks.h"
#include "bench/bench.h"
#include "bench/project_grid.h"

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
    if (m->touch.bytes > 0) {
        sk_json_key(j, "first_touch");
        sk_json_object_begin(j);
        sk_json_kv_int(j, "bytes", m->touch.bytes);
        sk_json_kv_double(j, "gb_per_s", m->touch.gb_per_s);
        sk_json_kv_double(j, "madv_hugepage_gb_per_s", m->touch.huge_gb_per_s);
        sk_json_kv_double(j, "second_touch_gb_per_s", m->touch.second_gb_per_s);
        sk_json_kv_string(j, "thp_enabled", m->touch.thp_enabled);
        sk_json_kv_string(j, "thp_defrag", m->touch.thp_defrag);
        sk_json_object_end(j);
    }
    char warning[256];
    if (sk_thread_warning(&m->budget, "--max-threads", warning, sizeof warning))
        sk_json_kv_string(j, "warning", warning);
    sk_json_object_end(j);
}

void skb_source_json(const skb_source_usage *s, sk_json *j)
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
    sk_scaling_shares sh;
    sk_scaling_shares_get(s, &sh);
    sk_json_kv_double(j, "ceiling_share", sh.ceiling_share);
    sk_json_object_end(j);
    sk_json_key(j, "economical_cost");
    sk_json_object_begin(j);
    sk_json_kv_int(j, "threads", s->economical);
    sk_json_kv_int(j, "of_threads", sh.most_threads);
    sk_json_kv_double(j, "cores_share", sh.cores_share);
    sk_json_kv_double(j, "speed_share", sh.speed_share);
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
    if (r->touch.bytes > 0) {
        sk_json_key(j, "first_touch");
        sk_json_object_begin(j);
        sk_json_kv_int(j, "bytes", r->touch.bytes);
        sk_json_kv_double(j, "gb_per_s", r->touch.gb_per_s);
        sk_json_kv_double(j, "huge_gb_per_s", r->touch.huge_gb_per_s);
        sk_json_kv_double(j, "second_gb_per_s", r->touch.second_gb_per_s);
        sk_json_kv_string(j, "thp_enabled", r->touch.thp_enabled);
        sk_json_kv_string(j, "thp_defrag", r->touch.thp_defrag);
        sk_json_object_end(j);
    }
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
    sk_json_kv_double(j, "break_even_conversion", c->break_even_conversion);
    sk_json_kv_double(j, "churn_ratio", c->churn_ratio);
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

static void lmax_path_json(const sk_lmax_path *p, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_int(j, "rows", p->rows);
    sk_json_kv_int(j, "bytes_allocated", p->bytes_allocated);
    sk_json_kv_int(j, "bytes_read", p->bytes_read);
    sk_json_kv_double(j, "seconds", p->seconds);
    sk_json_kv_double(j, "seconds_min", p->seconds_min);
    sk_json_kv_double(j, "cold_seconds", p->cold_seconds);
    sk_json_object_end(j);
}

static void lmax_fit_json(const sk_lmax_fit *f, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_key(j, "ok");
    sk_json_bool(j, f->ok);
    sk_json_kv_double(j, "slope_seconds_per_byte", f->ok ? f->slope : NAN);
    sk_json_kv_double(j, "gb_per_second", f->gb_per_second);
    sk_json_kv_double(j, "intercept_seconds", f->ok ? f->intercept : NAN);
    sk_json_kv_double(j, "r2", f->ok ? f->r2 : NAN);
    sk_json_object_end(j);
}

static void lmax_fits_json(const sk_lmax_fits *f, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_key(j, "allocated");
    lmax_fit_json(&f->allocated, j);
    sk_json_key(j, "read");
    lmax_fit_json(&f->read, j);
    sk_json_kv_string(j, "explains", f->explains ? f->explains : "");
    sk_json_object_end(j);
}

void sk_lmax_json(const sk_lmax_bench *b, sk_json *j)
{
    int file = b->file[0] != 0;
    sk_json_object_begin(j);
    sk_json_kv_string(j, "component", b->component);
    sk_json_kv_int(j, "threads", b->threads);
    sk_json_kv_int(j, "runs", b->runs);
    sk_json_kv_int(j, "levelmin", b->levelmin);
    sk_json_kv_int(j, "levelmax", b->levelmax);
    sk_json_key(j, "cold");
    sk_json_bool(j, b->cold);
    sk_json_key(j, "cache_dropped");
    sk_json_bool(j, b->cache_dropped);
    if (b->cache_note[0])
        sk_json_kv_string(j, "cache_note", b->cache_note);
    if (file) {
        sk_json_kv_string(j, "file", b->file);
        sk_json_key(j, "file_exact");
        sk_json_bool(j, b->file_exact);
    }
    sk_json_key(j, "points");
    sk_json_array_begin(j);
    for (int i = 0; i < b->npoints; i++) {
        const sk_lmax_point *p = &b->points[i];
        sk_json_object_begin(j);
        sk_json_kv_int(j, "lmax", p->lmax);
        sk_json_key(j, "ramses");
        lmax_path_json(&p->ramses, j);
        if (file) {
            sk_json_key(j, "file");
            lmax_path_json(&p->file, j);
            sk_json_kv_double(j, "time_ratio", p->time_ratio);
            sk_json_kv_double(j, "alloc_ratio", p->alloc_ratio);
        }
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_key(j, "fit");
    sk_json_object_begin(j);
    sk_json_key(j, "ramses");
    lmax_fits_json(&b->fit_ramses, j);
    if (file) {
        sk_json_key(j, "file");
        lmax_fits_json(&b->fit_file, j);
    }
    sk_json_object_end(j);
    sk_json_object_end(j);
}

void sk_report_json(const sk_report *r, sk_json *j)
{
    sk_json_object_begin(j);
    if (r->meta) {
        sk_json_key(j, "metadata");
        sk_bench_meta_json(r->meta, j);
    }
    sk_json_key(j, "machine");
    sk_machine_json(r->machine, j);
    if (r->source) {
        sk_json_key(j, "source");
        skb_source_json(r->source, j);
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
    if (r->lmax) {
        sk_json_key(j, "lmax");
        sk_lmax_json(r->lmax, j);
    }
    if (r->project_grid) {
        sk_json_key(j, "project_grid");
        sk_project_grid_json(r->project_grid, j);
    }
    if (r->atoms) {
        sk_json_key(j, "atoms");
        sk_atoms_bench_json(r->atoms, j);
    }
    if (r->clumps) {
        sk_json_key(j, "clumps");
        sk_clumps_bench_json(r->clumps, j);
    }
    if (r->ranks) {
        sk_json_key(j, "ranks");
        sk_ranks_bench_json(r->ranks, j);
    }
    sk_json_object_end(j);
}
