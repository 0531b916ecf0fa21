/* Each stage's results as text a user can paste anywhere (plain ASCII,
 * fixed columns). */
#include <math.h>
#include <stdio.h>

#include "bench/strbuf.h"
#include "snapkit/bench.h"

static const char *plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

static void machine(skb_buf *b, const sk_machine *m)
{
    char ram[32], avail[32];
    skb_printf(b, "machine\n");
    skb_printf(b, "  cpu       %s\n", m->cpu_model);
    skb_printf(b, "  cores     %d logical, %d physical\n", m->logical_cpus, m->physical_cores);
    skb_printf(b, "  ram       %s (%s available)\n", skb_bytes((double)m->ram_bytes, ram, sizeof ram),
               skb_bytes((double)m->ram_available, avail, sizeof avail));
    skb_printf(b, "  system    %s\n", m->os);
    skb_printf(b, "  threads   the job owns %d CPU%s (set by %s; affinity mask %d, machine %d)\n",
               m->budget.owned, plural(m->budget.owned), m->budget.limited_by, m->budget.affinity,
               m->budget.machine);
    char warning[256];
    if (sk_thread_warning(&m->budget, "--max-threads", warning, sizeof warning))
        skb_printf(b, "  %s\n", warning);
}

static void source(skb_buf *b, const sk_source_usage *s)
{
    char size[32];
    skb_printf(b, "source\n  path      %s (%s)\n  fs        %s\n  files     %lld, %s\n", s->path,
               s->kind, s->fs_type, (long long)s->files, skb_bytes((double)s->bytes, size, sizeof size));
    for (int i = 0; i < s->ncomponents; i++)
        skb_printf(b, "  %-9s %6lld file%s %10s %5.1f%%\n", s->components[i].name,
                   (long long)s->components[i].files, s->components[i].files == 1 ? " " : "s",
                   skb_bytes((double)s->components[i].bytes, size, sizeof size),
                   s->bytes > 0 ? 100.0 * s->components[i].bytes / s->bytes : 0.0);
}

static void storage(skb_buf *b, const sk_storage_result *s)
{
    char a[32], c[32], t[32], w[32];
    skb_printf(b, "storage  %s (%s)\n", s->dir, s->fs_type);
    skb_printf(b, "  sampled %d of %lld files (%s of %s), read %s in %s, %d run%s per level\n",
               s->files_sampled, (long long)s->files_total, skb_bytes((double)s->bytes_sampled, a, sizeof a),
               skb_bytes((double)s->bytes_total, c, sizeof c), skb_bytes((double)s->bytes_read, t, sizeof t),
               skb_seconds(s->seconds, w, sizeof w), s->runs, plural(s->runs));
    skb_printf(b, "  threads  open+close/s  latency  MB/s per reader  MB/s total\n");
    for (int i = 0; i < s->npoints; i++) {
        const sk_storage_point *p = &s->points[i];
        skb_printf(b, "  %7d  %12.0f  %7s  %15.1f  %10.1f\n", p->threads, p->iops,
                   skb_seconds(p->open_close_seconds, a, sizeof a), p->reader_bps / 1e6,
                   p->total_bps / 1e6);
    }
    if (s->levels_dropped)
        skb_printf(b, "  %d level%s above the %d CPUs the job owns not run\n", s->levels_dropped,
                   plural(s->levels_dropped), s->budget.owned);
}

static void scaling(skb_buf *b, const sk_scaling *s, const char *what)
{
    char t[32], m[32];
    skb_printf(b, "%s\n  threads      time  speedup  efficiency  spread  memory held\n", what);
    for (int i = 0; i < s->npoints; i++) {
        const sk_sweep_point *p = &s->points[i];
        skb_printf(b, "  %7d  %8s  %7.2f  %9.0f%%", p->threads, skb_seconds(p->seconds, t, sizeof t),
                   p->speedup, 100 * p->efficiency);
        if (p->runs > 1)
            skb_printf(b, "  %5.0f%%", 100 * p->spread);
        else
            skb_printf(b, "       -");
        skb_printf(b, "  %11s\n", p->peak_bytes > 0 ? skb_bytes((double)p->peak_bytes, m, sizeof m) : "-");
    }
    skb_printf(b, "  fastest %d thread%s; sweet spot %d (within 5%%); economical %d (within 10%%)\n",
               s->fastest, plural(s->fastest), s->sweet_spot, s->economical);
    char trade[256];
    sk_scaling_trade(s, trade, sizeof trade);
    skb_printf(b, "  %s\n", trade);
    const sk_amdahl *a = &s->amdahl;
    if (a->points_used < 2) {
        skb_printf(b, "  Amdahl fit: no rising part to fit (%s)\n",
                   s->npoints < 2 ? "one thread level" : "more threads were not faster");
        return;
    }
    char ceiling[48];
    if (isfinite(a->ceiling))
        snprintf(ceiling, sizeof ceiling, "%.3gx", a->ceiling);
    else
        snprintf(ceiling, sizeof ceiling, "none (no serial part measured)");
    skb_printf(b, "  Amdahl fit on %d points: parallel fraction %.3f, serial time %s, ceiling %s\n",
               a->points_used, a->parallel_fraction, skb_seconds(a->serial_seconds, t, sizeof t),
               ceiling);
}

static void read_bench(skb_buf *b, const sk_read_bench *r)
{
    char m[32], sd[32], cold[32], res[32], al[32], rss[32];
    skb_printf(b, "read  (%d thread%s)\n", r->threads, plural(r->threads));
    skb_printf(b, "  component  runs   warm mean      +-sd       cold        rows     result  allocated  peak RSS\n");
    for (int i = 0; i < r->ncomponents; i++) {
        const sk_read_component *c = &r->components[i];
        skb_printf(b, "  %-9s  %4d  %10s  %8s  %9s  %10lld  %9s  %9s  %8s\n", c->name, c->runs,
                   skb_seconds(c->mean_seconds, m, sizeof m),
                   c->runs > 1 ? skb_seconds(c->stddev_seconds, sd, sizeof sd) : "-",
                   c->cold_seconds >= 0 ? skb_seconds(c->cold_seconds, cold, sizeof cold) : "-",
                   (long long)c->rows, skb_bytes((double)c->bytes_result, res, sizeof res),
                   skb_bytes((double)c->bytes_allocated, al, sizeof al),
                   skb_bytes((double)c->peak_rss, rss, sizeof rss));
    }
    int some_cold = 0;
    for (int i = 0; i < r->ncomponents; i++)
        some_cold |= r->components[i].cold_seconds >= 0;
    const char *why = r->cache_note[0] ? r->cache_note : "the cache could not be dropped";
    if (r->cache_dropped)
        skb_printf(b, "  cold: the files were dropped from the page cache first\n");
    else if (some_cold)
        skb_printf(b, "  cold: measured where the files left the page cache; '-' where not (%s)\n", why);
    else
        skb_printf(b, "  cold: not measured (%s)\n", why);
}

static void convert(skb_buf *b, const sk_convert_bench *c)
{
    char t[32], a[32], s1[32], s2[32];
    skb_printf(b, "convert\n");
    skb_printf(b, "  read source         %9s  allocated %s\n", skb_seconds(c->read_seconds, t, sizeof t),
               skb_bytes((double)c->alloc_read, a, sizeof a));
    skb_printf(b, "  write .snapkit      %9s  allocated %s\n", skb_seconds(c->write_seconds, t, sizeof t),
               skb_bytes((double)c->alloc_write, a, sizeof a));
    skb_printf(b, "  one-off conversion  %9s\n", skb_seconds(c->read_seconds + c->write_seconds, t, sizeof t));
    skb_printf(b, "  warm re-read        %9s  allocated %s  (%.3gx faster than reading the source)\n",
               skb_seconds(c->reread_seconds, t, sizeof t), skb_bytes((double)c->alloc_reread, a, sizeof a),
               c->speedup);
    skb_printf(b, "  size on disk        %s -> %s (%.0f%%)\n", skb_bytes((double)c->bytes_ramses, s1, sizeof s1),
               skb_bytes((double)c->bytes_file, s2, sizeof s2),
               c->bytes_ramses > 0 ? 100.0 * c->bytes_file / c->bytes_ramses : 0.0);
    if (isfinite(c->break_even_rereads))
        skb_printf(b, "  break-even          converting pays after %.3g re-read%s\n", c->break_even_rereads,
                   c->break_even_rereads == 1 ? "" : "s");
    else
        skb_printf(b, "  break-even          never: re-reading is not faster than reading the source\n");
}

static void project(skb_buf *b, const sk_project_bench *p)
{
    skb_printf(b, "project  %lld rows onto %dx%d pixels; quantities %s; times of the projection "
                  "alone\n",
               (long long)p->rows, p->nx, p->ny, p->quantities);
    for (int i = 0; i < p->ncases; i++) {
        char what[96];
        snprintf(what, sizeof what, "  %s", p->cases[i].name);
        scaling(b, &p->cases[i].scaling, what);
    }
}

static void outputs(skb_buf *b, const sk_outputs_bench *o)
{
    char a[32], c[32];
    skb_printf(b, "outputs  %d output%s, %d thread%s in all\n", o->noutputs, plural(o->noutputs),
               o->budget, plural(o->budget));
    skb_printf(b, "  one process each, %d thread%s each   %s\n", o->threads_per_process,
               plural(o->threads_per_process), skb_seconds(o->processes_seconds, a, sizeof a));
    skb_printf(b, "  one after another, %d thread%s       %s\n", o->budget, plural(o->budget),
               skb_seconds(o->sequential_seconds, c, sizeof c));
    skb_printf(b, "  ratio (one after another / processes) %.2f: %s\n", o->ratio,
               o->ratio > 1 ? "processes are faster" : "threads in one process are as fast or faster");
}

#define STAGE_TEXT(name, type, call)        \
    char *name(const type *x)                \
    {                                        \
        skb_buf b = {0};                     \
        call(&b, x);                         \
        return skb_take(&b);                 \
    }

STAGE_TEXT(sk_machine_text, sk_machine, machine)
STAGE_TEXT(sk_source_text, sk_source_usage, source)
STAGE_TEXT(sk_storage_text, sk_storage_result, storage)
STAGE_TEXT(sk_read_bench_text, sk_read_bench, read_bench)
STAGE_TEXT(sk_convert_text, sk_convert_bench, convert)
STAGE_TEXT(sk_project_text, sk_project_bench, project)
STAGE_TEXT(sk_outputs_text, sk_outputs_bench, outputs)

char *sk_scaling_text(const sk_scaling *s, const char *what)
{
    skb_buf b = {0};
    scaling(&b, s, what ? what : "sweep");
    return skb_take(&b);
}

char *sk_report_text(const sk_report *r)
{
    skb_buf b = {0};
    skb_puts(&b, "snapkit bench report\n\n");
    machine(&b, r->machine);
    if (r->source) {
        skb_puts(&b, "\n");
        source(&b, r->source);
    }
    if (r->sweep) {
        skb_puts(&b, "\n");
        scaling(&b, r->sweep, "sweep  (full reads; the stages below use its sweet spot)");
    }
    if (r->storage) {
        skb_puts(&b, "\n");
        storage(&b, r->storage);
    }
    if (r->read) {
        skb_puts(&b, "\n");
        read_bench(&b, r->read);
    }
    if (r->convert) {
        skb_puts(&b, "\n");
        convert(&b, r->convert);
    }
    if (r->project) {
        skb_puts(&b, "\n");
        project(&b, r->project);
    }
    return skb_take(&b);
}
