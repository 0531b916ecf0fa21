/* Each stage's results as text a user can paste anywhere (plain ASCII,
 * fixed columns). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/format.h"
#include "snapkit/util/text.h"
#include "bench/atoms.h"
#include "bench/clumps.h"
#include "bench/ranks.h"
#include "bench/bench.h"
#include "bench/project_grid.h"
#include "snapkit/memory.h"

static const char *plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

static void machine(sk_text *b, const sk_machine *m)
{
    char ram[32], avail[32];
    sk_text_printf(b, "machine\n");
    sk_text_printf(b, "  cpu       %s\n", m->cpu_model);
    sk_text_printf(b, "  cores     %d logical, %d physical\n", m->logical_cpus, m->physical_cores);
    sk_text_printf(b, "  ram       %s (%s available)\n", skb_bytes((double)m->ram_bytes, ram, sizeof ram),
               skb_bytes((double)m->ram_available, avail, sizeof avail));
    sk_text_printf(b, "  system    %s\n", m->os);
    sk_text_printf(b, "  threads   the job owns %d CPU%s (set by %s; affinity mask %d, machine %d)\n",
               m->budget.owned, plural(m->budget.owned), m->budget.limited_by, m->budget.affinity,
               m->budget.machine);
    if (m->touch.bytes > 0)
        sk_text_printf(b, "  memory    first touch %.2f GB/s (%.2f GB/s with MADV_HUGEPAGE; THP %s, "
                          "defrag %s), second touch %.1f GB/s, on %lld MB\n",
                       m->touch.gb_per_s, m->touch.huge_gb_per_s, m->touch.thp_enabled,
                       m->touch.thp_defrag, m->touch.second_gb_per_s,
                       (long long)(m->touch.bytes >> 20));
    char warning[256];
    if (sk_thread_warning(&m->budget, "--max-threads", warning, sizeof warning))
        sk_text_printf(b, "  %s\n", warning);
}

static void source(sk_text *b, const skb_source_usage *s)
{
    char size[32];
    sk_text_printf(b, "source\n  path      %s (%s)\n  fs        %s\n  files     %lld, %s\n", s->path,
               s->kind, s->fs_type, (long long)s->files, skb_bytes((double)s->bytes, size, sizeof size));
    for (int i = 0; i < s->ncomponents; i++)
        sk_text_printf(b, "  %-9s %6lld file%s %10s %5.1f%%\n", s->components[i].name,
                   (long long)s->components[i].files, s->components[i].files == 1 ? " " : "s",
                   skb_bytes((double)s->components[i].bytes, size, sizeof size),
                   s->bytes > 0 ? 100.0 * s->components[i].bytes / s->bytes : 0.0);
}

static void storage(sk_text *b, const sk_storage_result *s)
{
    char a[32], c[32], t[32], w[32];
    sk_text_printf(b, "storage  %s (%s)\n", s->dir, s->fs_type);
    sk_text_printf(b, "  sampled %d of %lld files (%s of %s), read %s in %s, %d run%s per level\n",
               s->files_sampled, (long long)s->files_total, skb_bytes((double)s->bytes_sampled, a, sizeof a),
               skb_bytes((double)s->bytes_total, c, sizeof c), skb_bytes((double)s->bytes_read, t, sizeof t),
               skb_seconds(s->seconds, w, sizeof w), s->runs, plural(s->runs));
    sk_text_printf(b, "  threads  open+close/s  latency  MB/s per reader  MB/s total\n");
    for (int i = 0; i < s->npoints; i++) {
        const sk_storage_point *p = &s->points[i];
        sk_text_printf(b, "  %7d  %12.0f  %7s  %15.1f  %10.1f\n", p->threads, p->iops,
                   skb_seconds(p->open_close_seconds, a, sizeof a), p->reader_bps / 1e6,
                   p->total_bps / 1e6);
    }
    if (s->levels_dropped)
        sk_text_printf(b, "  %d level%s above the %d CPUs the job owns not run\n", s->levels_dropped,
                   plural(s->levels_dropped), s->budget.owned);
}

static void scaling(sk_text *b, const sk_scaling *s, const char *what)
{
    char t[32], m[32];
    sk_text_printf(b, "%s\n  threads      time  speedup  efficiency  spread  memory held\n", what);
    for (int i = 0; i < s->npoints; i++) {
        const sk_sweep_point *p = &s->points[i];
        sk_text_printf(b, "  %7d  %8s  %7.2f  %9.0f%%", p->threads, skb_seconds(p->seconds, t, sizeof t),
                   p->speedup, 100 * p->efficiency);
        if (p->runs > 1)
            sk_text_printf(b, "  %5.0f%%", 100 * p->spread);
        else
            sk_text_printf(b, "       -");
        sk_text_printf(b, "  %11s\n", p->peak_bytes > 0 ? skb_bytes((double)p->peak_bytes, m, sizeof m) : "-");
    }
    sk_text_printf(b, "  fastest %d thread%s; sweet spot %d (within 5%%); economical %d (within 10%%)\n",
               s->fastest, plural(s->fastest), s->sweet_spot, s->economical);
    char trade[256];
    sk_scaling_trade(s, trade, sizeof trade);
    sk_text_printf(b, "  %s\n", trade);
    sk_scaling_shares sh;
    sk_scaling_shares_get(s, &sh);
    if (isfinite(sh.cores_share) && s->npoints > 1)
        sk_text_printf(b, "  economical point: %d of %d threads, %.0f%% of the cores, for %.0f%% of "
                       "the best speed\n", s->economical, sh.most_threads, 100 * sh.cores_share,
                       100 * sh.speed_share);
    const sk_amdahl *a = &s->amdahl;
    if (a->points_used < 2) {
        sk_text_printf(b, "  Amdahl fit: no rising part to fit (%s)\n",
                   s->npoints < 2 ? "one thread level" : "more threads were not faster");
        return;
    }
    char ceiling[48];
    if (isfinite(a->ceiling))
        snprintf(ceiling, sizeof ceiling, "%.3gx", a->ceiling);
    else
        snprintf(ceiling, sizeof ceiling, "none (no serial part measured)");
    sk_text_printf(b, "  Amdahl fit on %d points: parallel fraction %.3f, serial time %s, ceiling %s\n",
               a->points_used, a->parallel_fraction, skb_seconds(a->serial_seconds, t, sizeof t),
               ceiling);
    if (isfinite(sh.ceiling_share))
        sk_text_printf(b, "  the fastest point (%d thread%s) reaches %.0f%% of the Amdahl ceiling\n",
                       s->fastest, plural(s->fastest), 100 * sh.ceiling_share);
}

static void read_bench(sk_text *b, const sk_read_bench *r)
{
    char m[32], sd[32], cold[32], res[32], al[32], rss[32];
    sk_text_printf(b, "read  (%d thread%s)\n", r->threads, plural(r->threads));
    sk_text_printf(b, "  component  runs   warm mean      +-sd       cold        rows     result  allocated  peak RSS\n");
    for (int i = 0; i < r->ncomponents; i++) {
        const sk_read_component *c = &r->components[i];
        sk_text_printf(b, "  %-9s  %4d  %10s  %8s  %9s  %10lld  %9s  %9s  %8s\n", c->name, c->runs,
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
        sk_text_printf(b, "  cold: the files were dropped from the page cache first\n");
    else if (some_cold)
        sk_text_printf(b, "  cold: measured where the files left the page cache; '-' where not (%s)\n", why);
    else
        sk_text_printf(b, "  cold: not measured (%s)\n", why);
    if (r->touch.bytes > 0) /* beside the read figures, to compare machines */
        sk_text_printf(b, "  machine: first touch %.2f GB/s (%.2f GB/s with MADV_HUGEPAGE; THP %s, "
                          "defrag %s), second touch %.1f GB/s, on %lld MB\n",
                       r->touch.gb_per_s, r->touch.huge_gb_per_s, r->touch.thp_enabled,
                       r->touch.thp_defrag, r->touch.second_gb_per_s,
                       (long long)(r->touch.bytes >> 20));
}

static void convert(sk_text *b, const sk_convert_bench *c)
{
    char t[32], a[32], s1[32], s2[32];
    sk_text_printf(b, "convert\n");
    sk_text_printf(b, "  read source         %9s  allocated %s\n", skb_seconds(c->read_seconds, t, sizeof t),
               skb_bytes((double)c->alloc_read, a, sizeof a));
    sk_text_printf(b, "  write .snapkit      %9s  allocated %s\n", skb_seconds(c->write_seconds, t, sizeof t),
               skb_bytes((double)c->alloc_write, a, sizeof a));
    sk_text_printf(b, "  one-off conversion  %9s\n", skb_seconds(c->read_seconds + c->write_seconds, t, sizeof t));
    sk_text_printf(b, "  warm re-read        %9s  allocated %s  (%.3gx faster than reading the source)\n",
               skb_seconds(c->reread_seconds, t, sizeof t), skb_bytes((double)c->alloc_reread, a, sizeof a),
               c->speedup);
    sk_text_printf(b, "  size on disk        %s -> %s (%.0f%%)\n", skb_bytes((double)c->bytes_ramses, s1, sizeof s1),
               skb_bytes((double)c->bytes_file, s2, sizeof s2),
               c->bytes_ramses > 0 ? 100.0 * c->bytes_file / c->bytes_ramses : 0.0);
    if (isfinite(c->break_even_rereads)) {
        sk_text_printf(b, "  break-even          converting pays after %.3g re-read%s (write / (read - re-read): "
                          "the first read paid either way)\n",
                       c->break_even_rereads, c->break_even_rereads == 1 ? "" : "s");
        sk_text_printf(b, "                      the whole conversion after %.3g ((read + write) / (read - re-read))\n",
                       c->break_even_conversion);
    } else {
        sk_text_printf(b, "  break-even          never: re-reading is not faster than reading the source\n");
    }
    if (isfinite(c->churn_ratio))
        sk_text_printf(b, "  churn               %.3gx the bytes allocated reading the source as reading the file\n",
                       c->churn_ratio);
}

static void project(sk_text *b, const sk_project_bench *p)
{
    sk_text_printf(b, "project  %lld rows onto %dx%d pixels; quantities %s; times of the projection "
                  "alone\n",
               (long long)p->rows, p->nx, p->ny, p->quantities);
    for (int i = 0; i < p->ncases; i++) {
        char what[96];
        snprintf(what, sizeof what, "  %s", p->cases[i].name);
        scaling(b, &p->cases[i].scaling, what);
    }
}

static void outputs(sk_text *b, const sk_outputs_bench *o)
{
    char a[32], c[32];
    sk_text_printf(b, "outputs  %d output%s, %d thread%s in all\n", o->noutputs, plural(o->noutputs),
               o->budget, plural(o->budget));
    sk_text_printf(b, "  one process each, %d thread%s each   %s\n", o->threads_per_process,
               plural(o->threads_per_process), skb_seconds(o->processes_seconds, a, sizeof a));
    sk_text_printf(b, "  one after another, %d thread%s       %s\n", o->budget, plural(o->budget),
               skb_seconds(o->sequential_seconds, c, sizeof c));
    sk_text_printf(b, "  ratio (one after another / processes) %.2f: %s\n", o->ratio,
               o->ratio > 1 ? "processes are faster" : "threads in one process are as fast or faster");
}

static void lmax_path(sk_text *b, const sk_lmax_path *p, int cold)
{
    char a[32], r[32], t[32], c[32];
    sk_text_printf(b, "  %10lld  %9s  %9s  %9s", (long long)p->rows,
                   skb_bytes((double)p->bytes_allocated, a, sizeof a),
                   skb_bytes((double)p->bytes_read, r, sizeof r), skb_seconds(p->seconds, t, sizeof t));
    if (cold)
        sk_text_printf(b, "  %9s", isfinite(p->cold_seconds) ? skb_seconds(p->cold_seconds, c, sizeof c) : "-");
}

static void lmax_fit(sk_text *b, const char *against, const sk_lmax_fit *f)
{
    char t[32];
    if (!f->ok) {
        sk_text_printf(b, "    against bytes %-9s no line: the bytes do not vary with lmax\n", against);
        return;
    }
    char rate[32];
    if (isfinite(f->gb_per_second))
        snprintf(rate, sizeof rate, "%.3g GB/s", f->gb_per_second);
    else
        snprintf(rate, sizeof rate, "- (time falls as bytes grow)");
    sk_text_printf(b, "    against bytes %-9s %s, intercept %s, R^2 %.4f\n", against, rate,
                   f->intercept < 0 ? "< 0" : skb_seconds(f->intercept, t, sizeof t), f->r2);
}

static void lmax_fits(sk_text *b, const char *what, const sk_lmax_fits *f)
{
    sk_text_printf(b, "  %s: time = intercept + bytes / rate\n", what);
    lmax_fit(b, "allocated", &f->allocated);
    lmax_fit(b, "read", &f->read);
    if (!f->explains[0])
        return;
    int alloc = strcmp(f->explains, "allocated") == 0;
    const sk_lmax_fit *best = alloc ? &f->allocated : &f->read, *other = alloc ? &f->read : &f->allocated;
    if (other->ok)
        sk_text_printf(b, "    the bytes %s explain the time better (R^2 %.4f against %.4f)\n",
                       alloc ? "allocated" : "read", best->r2, other->r2);
    else
        sk_text_printf(b, "    the bytes %s explain the time (R^2 %.4f)\n",
                       alloc ? "allocated" : "read", best->r2);
}

static void lmax(sk_text *b, const sk_lmax_bench *l)
{
    int file = l->file[0] != 0;
    sk_text_printf(b, "lmax  %s, %d thread%s, median of %d warm run%s per lmax\n", l->component,
                   l->threads, plural(l->threads), l->runs, plural(l->runs));
    if (file)
        sk_text_printf(b, "  file %s%s\n", l->file,
                       l->file_exact ? "" : " (leaves only: its lmax reads drop finer cells, so its rows differ)");
    int cold = l->cold;
    int w = cold ? 52 : 41;
    sk_text_printf(b, "        %-*s", w, "  RAMSES output");
    if (file)
        sk_text_printf(b, "  %-*s  ratio RAMSES/file", w, "  compact file");
    const char *head = cold ? "       rows  allocated       read       warm       cold"
                            : "       rows  allocated       read       time";
    sk_text_printf(b, "\n  lmax %s", head);
    if (file)
        sk_text_printf(b, " %s   time  allocated", head);
    sk_text_puts(b, "\n");
    for (int i = 0; i < l->npoints; i++) {
        const sk_lmax_point *p = &l->points[i];
        sk_text_printf(b, "  %4d", p->lmax);
        lmax_path(b, &p->ramses, cold);
        if (file) {
            lmax_path(b, &p->file, cold);
            sk_text_printf(b, "  %5.2fx  %8.2fx", p->time_ratio, p->alloc_ratio);
        }
        sk_text_puts(b, "\n");
    }
    if (cold && l->cache_dropped)
        sk_text_printf(b, "  cold: the first read at each lmax, its files dropped from the page cache first\n");
    else if (cold)
        sk_text_printf(b, "  cold: '-' where the files stayed cached (%s)\n",
                       l->cache_note[0] ? l->cache_note : "the cache could not be dropped");
    lmax_fits(b, "RAMSES output", &l->fit_ramses);
    if (file)
        lmax_fits(b, "compact file", &l->fit_file);
}

#define STAGE_TEXT(name, type, call)        \
    char *name(const type *x)                \
    {                                        \
        sk_text b = {0};                     \
        call(&b, x);                         \
        return sk_text_take(&b);                 \
    }

STAGE_TEXT(sk_machine_text, sk_machine, machine)
STAGE_TEXT(skb_source_text, skb_source_usage, source)
STAGE_TEXT(sk_storage_text, sk_storage_result, storage)
STAGE_TEXT(sk_read_bench_text, sk_read_bench, read_bench)
STAGE_TEXT(sk_convert_text, sk_convert_bench, convert)
STAGE_TEXT(sk_project_text, sk_project_bench, project)
STAGE_TEXT(sk_outputs_text, sk_outputs_bench, outputs)
STAGE_TEXT(sk_lmax_text, sk_lmax_bench, lmax)

char *sk_scaling_text(const sk_scaling *s, const char *what)
{
    sk_text b = {0};
    scaling(&b, s, what ? what : "sweep");
    return sk_text_take(&b);
}

char *sk_report_text(const sk_report *r)
{
    sk_text b = {0};
    sk_text_puts(&b, "snapkit bench report\n\n");
    machine(&b, r->machine);
    if (r->source) {
        sk_text_puts(&b, "\n");
        source(&b, r->source);
    }
    if (r->sweep) {
        sk_text_puts(&b, "\n");
        scaling(&b, r->sweep, "sweep  (full reads; the stages below use its sweet spot)");
    }
    if (r->storage) {
        sk_text_puts(&b, "\n");
        storage(&b, r->storage);
    }
    if (r->read) {
        sk_text_puts(&b, "\n");
        read_bench(&b, r->read);
    }
    if (r->convert) {
        sk_text_puts(&b, "\n");
        convert(&b, r->convert);
    }
    if (r->project) {
        sk_text_puts(&b, "\n");
        project(&b, r->project);
    }
    if (r->lmax) {
        sk_text_puts(&b, "\n");
        lmax(&b, r->lmax);
    }
    /* The stages whose text lives beside them. */
    char *more[4] = {r->project_grid ? sk_project_grid_text(r->project_grid) : NULL,
                     r->atoms ? sk_atoms_bench_text(r->atoms) : NULL,
                     r->clumps ? sk_clumps_bench_text(r->clumps) : NULL,
                     r->ranks ? sk_ranks_bench_text(r->ranks) : NULL};
    for (int k = 0; k < 4; k++)
        if (more[k]) {
            sk_text_puts(&b, "\n");
            sk_text_puts(&b, more[k]);
            sk_free(more[k]);
        }
    return sk_text_take(&b);
}
