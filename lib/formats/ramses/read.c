/* sk_ramses_read: choose the CPU files, read them with the two-pass driver
 * the components share, label the table, measure. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/util/clock.h"
#include "formats/ramses/internal.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

sk_dtype rs_dtype(char type)
{
    switch (type) {
    case 'd': return SK_FLOAT64;
    case 'f': return SK_FLOAT32;
    case 'i': return SK_INT32;
    case 'q': return SK_INT64;
    case 'h': return SK_INT16;
    case 'b': return SK_INT8;
    case '?': return SK_INT32;
    default: return (sk_dtype)0;
    }
}

/* Report one more file done to the progress callback (serialised). */
void rs_progress_step(rs_read_ctx *ctx, int64_t *done, int64_t bytes)
{
    const sk_progress *p = &ctx->opt->progress;
    if (!p->fn)
        return;
#pragma omp critical(rs_progress)
    {
        (*done)++;
        ctx->progress_bytes += bytes;
        p->fn(p->ctx, *done, ctx->ncpus, ctx->progress_bytes);
    }
}

static int larger_first(const void *a, const void *b, void *rows)
{
    int64_t x = ((const int64_t *)rows)[*(const int *)a], y = ((const int64_t *)rows)[*(const int *)b];
    return (x < y) - (x > y);
}

/* Turn per-file row counts into starting rows (in file order) and return
 * the total; order[] gets the files largest first. */
static int64_t prefix_rows(int64_t *rows, int *order, int n)
{
    for (int f = 0; f < n; f++)
        order[f] = f;
    qsort_r(order, (size_t)n, sizeof *order, larger_first, rows);
    int64_t total = 0;
    for (int f = 0; f < n; f++) {
        int64_t c = rows[f];
        rows[f] = total;
        total += c;
    }
    return total;
}

enum { KEEP_MAPS_MAX = 4096 };

int rs_keep_maps(rs_read_ctx *ctx, sk_error *err)
{
    ctx->kept = NULL;
    int n = ctx->r->info.ncpu;
    if (ctx->ncpus > KEEP_MAPS_MAX || n <= 0)
        return SK_OK;
    ctx->kept = sk_calloc((size_t)n, sizeof *ctx->kept);
    return ctx->kept ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
}

void rs_release_maps(rs_read_ctx *ctx)
{
    for (int i = 0; ctx->kept && i < ctx->r->info.ncpu; i++)
        rs_unmap(&ctx->kept[i]);
    sk_free(ctx->kept);
    ctx->kept = NULL;
}

int rs_walk_map(rs_read_ctx *ctx, rs_kind kind, int icpu, char *path, size_t n, rs_mapped *m,
                sk_error *err)
{
    rs_mapped *kept = ctx->kept ? &ctx->kept[icpu - 1] : NULL;
    if (kept && kept->data) {
        rs_cpu_path(ctx->r, kind, icpu, path, n);
        *m = *kept;
        memset(kept, 0, sizeof *kept);
        return SK_OK;
    }
    return rs_map_cpu(ctx->r, kind, icpu, path, n, m, err);
}

void rs_walk_unmap(rs_read_ctx *ctx, int icpu, int counted, rs_mapped *m)
{
    if (counted && ctx->kept)
        ctx->kept[icpu - 1] = *m;
    else
        rs_unmap(m);
    memset(m, 0, sizeof *m);
}

/* One pass over the selected files, from inside the parallel region:
 * count (out == NULL) into rows[f], or write file f's rows from row
 * rows[f]. order[k] is the k-th file to start (NULL: in order).
 * *failed_at is the lowest file index that failed (ncpus: none). Files
 * above it are skipped, files below it still run, and the error kept is the
 * lowest file's: the same message whatever the thread count or timing. */
void rs_walk_files(rs_read_ctx *ctx, const rs_file_reader *fr, const void *out,
                       int64_t *rows, const int *order, void *scratch, int *failed_at,
                       int64_t *done, sk_error *err)
{
    sk_error e;
    sk_error_clear(&e);
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < ctx->ncpus; k++) {
        int first_failed, f = order ? order[k] : k;
#pragma omp atomic read
        first_failed = *failed_at;
        if (f > first_failed)
            continue;
        int64_t bytes = 0;
        if (fr->walk_file(ctx, fr->plan, ctx->cpus[f], out, &rows[f], scratch, &bytes, &e) !=
            SK_OK) {
#pragma omp critical(rs_read_error)
            if (f < *failed_at) {
                *err = e;
#pragma omp atomic write
                *failed_at = f;
            }
        } else if (out) {
#pragma omp atomic
            ctx->bytes_read += bytes;
            rs_progress_step(ctx, done, bytes);
        }
    }
}

int rs_read_files(rs_read_ctx *ctx, const rs_file_reader *fr, sk_table **out, sk_error *err)
{
    if (ctx->consumer)
        return rs_stream_files(ctx, fr, err);
    int64_t *rows = sk_calloc((size_t)(ctx->ncpus ? ctx->ncpus : 1), sizeof *rows);
    int *order = sk_malloc(sizeof *order * (size_t)(ctx->ncpus ? ctx->ncpus : 1));
    if (!rows || !order) {
        sk_free(rows);
        sk_free(order);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    sk_error_clear(err);
    if (rs_keep_maps(ctx, err) != SK_OK) {
        sk_free(rows);
        sk_free(order);
        return SK_ERR_NOMEM;
    }
    int failed_at = ctx->ncpus, fill = 0;
    int64_t done = 0;
    sk_table *t = NULL;
    /* One parallel region: count (which also checks every record),
     * allocate once (one thread), fill. */
#pragma omp parallel num_threads(ctx->threads)
    {
        _Alignas(max_align_t) unsigned char scratch[RS_SCRATCH_BYTES] = {0};
        rs_walk_files(ctx, fr, NULL, rows, NULL, scratch, &failed_at, &done, err);
#pragma omp single
        {
            int64_t total = prefix_rows(rows, order, ctx->ncpus);
            fill = failed_at == ctx->ncpus &&
                   fr->make_table(fr->plan, total, &t, fr->out, err) == SK_OK;
            if (!fill)
                failed_at = -1;
        }
        if (fill)
            rs_walk_files(ctx, fr, fr->out, rows, order, scratch, &failed_at, &done, err);
        fr->scratch_free(scratch);
    }
    rs_release_maps(ctx);
    sk_free(rows);
    sk_free(order);
    if (failed_at != ctx->ncpus) {
        sk_table_free(t);
        return err && err->code ? err->code : SK_ERR_FORMAT;
    }
    *out = t;
    return SK_OK;
}

static const struct {
    const char *name;
    rs_kind kind;
} k_components[] = {{"hydro", RS_HYDRO},  {"gravity", RS_GRAV},           {"particles", RS_PART},
                    {"rt", RS_RT},        {"clump_field", RS_CLUMP_FIELD}, {"sinks", RS_SINKS},
                    {"clumps", RS_CLUMPS}};
enum { NCOMPONENTS = sizeof k_components / sizeof k_components[0] };
_Static_assert((int)RS_RT == SK_RAMSES_RT && (int)RS_CLUMPS == SK_RAMSES_CLUMPS,
               "a component's kind is its disk-usage kind");

const char *sk_ramses_component_name(int k)
{
    return k >= 0 && k < NCOMPONENTS ? k_components[k].name : NULL;
}

static int kind_present(const sk_ramses_info *in, rs_kind kind)
{
    switch (kind) {
    case RS_HYDRO: return in->has_hydro;
    case RS_GRAV: return in->has_gravity;
    case RS_PART: return in->has_particles;
    case RS_RT: return in->has_rt;
    case RS_CLUMP_FIELD: return in->has_clump_field;
    case RS_SINKS: return in->has_sinks;
    case RS_CLUMPS: return in->has_clumps;
    default: return 0;
    }
}

static int find_component(const char *name)
{
    for (int k = 0; k < NCOMPONENTS; k++)
        if (!strcmp(name, k_components[k].name))
            return k;
    return -1;
}

int sk_ramses_has_component(const sk_ramses *r, const char *component)
{
    int k = component ? find_component(component) : -1;
    return k >= 0 && kind_present(&r->info, k_components[k].kind);
}

static int component_kind(const sk_ramses *r, const char *component, rs_kind *kind,
                          sk_error *err)
{
    int k = find_component(component ? component : "hydro");
    if (k < 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "unknown component '%s' (use hydro, gravity, particles, rt, clump_field, "
                       "sinks or clumps)", component);
    *kind = k_components[k].kind;
    if (!kind_present(&r->info, *kind)) {
        char path[4096];
        if (*kind <= RS_CLUMP_FIELD)
            rs_cpu_path(r, *kind, 1, path, sizeof path);
        else
            snprintf(path, sizeof path, "/%s_%05d.%s", *kind == RS_SINKS ? "sink" : "clump",
                     r->info.output, *kind == RS_SINKS ? "csv" : "txt00001");
        return sk_fail(err, SK_ERR_ARG, r->dir, -1, "the output has no %s (no %s)",
                       k_components[k].name, strrchr(path, '/') + 1);
    }
    return SK_OK;
}

int rs_label_table(const sk_ramses *r, rs_kind kind, const sk_selection *sel, sk_table *t,
                   sk_error *err)
{
    int rc = sk_ramses_describe(r, t, err);
    if (rc != SK_OK)
        return rc;
    int cells = kind != RS_PART && kind != RS_SINKS && kind != RS_CLUMPS;
    if (sk_table_meta_set(t, "kind", cells ? "cells" : kind == RS_PART ? "particles" : "catalogue") != SK_OK ||
        sk_table_meta_set(t, "component", sk_ramses_kind_name(kind)) != SK_OK ||
        sk_selection_to_meta(sel, t) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return SK_OK;
}

/* A 1-D or 2-D output has no position on the axes beyond ndim, so a
 * range that leaves out part of [0, 1) there cannot be applied. */
static int check_axes(const sk_ramses *r, const sk_selection *sel, sk_error *err)
{
    static const char axis[] = "xyz";
    /* (a shape's bounding box spans the missing axes: its test ignores them) */
    for (int d = r->info.ndim; sel->has_box && sel->shape.kind == SK_SHAPE_NONE && d < 3; d++)
        if (sel->lo[d] > 0 || sel->hi[d] < 1)
            return sk_fail(err, SK_ERR_ARG, r->dir, -1,
                           "the output is %d-D: it has no %c axis, so a %c range [%.17g, %.17g) "
                           "(box units) selects nothing meaningful; leave it out",
                           r->info.ndim, axis[d], axis[d], sel->lo[d], sel->hi[d]);
    return SK_OK;
}

int rs_read_begin(sk_ramses *r, const char *component, const sk_selection *sel_in,
                  const sk_read_options *opt_in, rs_read_setup *su, sk_error *err)
{
    memset(su, 0, sizeof *su);
    su->kind = RS_HYDRO;
    int rc = component_kind(r, component, &su->kind, err);
    if (rc != SK_OK)
        return rc;
    sk_selection_init(&su->all);
    const sk_selection *sel = sel_in ? sel_in : &su->all;
    if ((rc = check_axes(r, sel, err)) != SK_OK)
        return rc;
    const sk_read_options *opt = opt_in ? opt_in : &su->defaults;

    int ncpu = r->info.ncpu;
    uint8_t *mask = sk_malloc((size_t)ncpu);
    int *cpus = sk_malloc(sizeof *cpus * (size_t)ncpu);
    if (!mask || !cpus) {
        sk_free(mask);
        sk_free(cpus);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    sk_ramses_cpus_for_component(r, component ? component : "hydro", sel, opt, mask);
    rs_share_mask(r, su->kind, opt, mask);
    rs_read_ctx *ctx = &su->ctx;
    *ctx = (rs_read_ctx){.r = r, .sel = sel, .opt = opt, .cpus = cpus};
    for (int c = 0; c < ncpu; c++)
        if (mask[c])
            cpus[ctx->ncpus++] = c + 1;
    sk_free(mask);
    sk_thread_budget b;
    ctx->threads = sk_thread_budget_get(opt->threads, &b);
    if (ctx->threads > ctx->ncpus)
        ctx->threads = ctx->ncpus > 0 ? ctx->ncpus : 1;
    return SK_OK;
}

void rs_read_end(rs_read_setup *su)
{
    sk_free((void *)su->ctx.cpus);
    su->ctx.cpus = NULL;
}

int rs_read_kind(rs_read_ctx *ctx, rs_kind kind, sk_table **t, sk_error *err)
{
    if (kind == RS_PART)
        return rs_read_particles(ctx, t, err);
    if (kind == RS_SINKS || kind == RS_CLUMPS)
        return rs_read_catalogue(ctx, kind, t, err);
    return rs_read_cells(ctx, kind, t, err);
}

void rs_read_stats(const rs_read_setup *su, const sk_mem_stats *m0, double t0,
                   sk_read_stats *stats)
{
    sk_mem_stats m1;
    sk_mem_get(&m1);
    stats->files_opened = su->ctx.ncpus;
    stats->bytes_read = su->ctx.bytes_read;
    stats->seconds = sk_monotonic_seconds() - t0;
    stats->bytes_allocated = (int64_t)(m1.total - m0->total);
}

int sk_ramses_read(sk_ramses *r, const char *component, const sk_selection *sel,
                   const sk_read_options *opt, sk_table **out, sk_read_stats *stats,
                   sk_error *err)
{
    sk_mem_stats m0;
    sk_mem_get(&m0);
    double t0 = sk_monotonic_seconds();
    *out = NULL;
    rs_read_setup su;
    int rc = rs_read_begin(r, component, sel, opt, &su, err);
    if (rc != SK_OK)
        return rc;
    sk_table *t = NULL;
    rc = rs_read_kind(&su.ctx, su.kind, &t, err);
    rs_read_end(&su);
    if (rc == SK_OK)
        rc = rs_label_table(r, su.kind, su.ctx.sel, t, err);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    if (stats)
        rs_read_stats(&su, &m0, t0, stats);
    return SK_OK;
}
