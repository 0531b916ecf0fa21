/* sk_ramses_read: choose the CPU files, read them with the two-pass driver
 * the components share, label the table, measure. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "ramses/internal.h"
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
static void progress_step(rs_read_ctx *ctx, int64_t *done, int64_t bytes)
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

/* One pass over the selected files, from inside the parallel region:
 * count (out == NULL) into rows[f], or write file f's rows from row
 * rows[f]. order[k] is the k-th file to start (NULL: in order). */
static void walk_files(rs_read_ctx *ctx, const rs_file_reader *fr, const void *out,
                       int64_t *rows, const int *order, void *scratch, int *failed,
                       int64_t *done, sk_error *err)
{
    sk_error e;
    sk_error_clear(&e);
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < ctx->ncpus; k++) {
        int stop, f = order ? order[k] : k;
#pragma omp atomic read
        stop = *failed;
        if (stop)
            continue;
        int64_t bytes = 0;
        if (fr->walk_file(ctx, fr->plan, ctx->cpus[f], out, &rows[f], scratch, &bytes, &e) !=
            SK_OK) {
#pragma omp critical(rs_read_error)
            sk_error_keep_first(err, &e);
#pragma omp atomic write
            *failed = 1;
        } else if (out) {
#pragma omp atomic
            ctx->bytes_read += bytes;
            progress_step(ctx, done, bytes);
        }
    }
}

int rs_read_files(rs_read_ctx *ctx, const rs_file_reader *fr, sk_table **out, sk_error *err)
{
    int64_t *rows = sk_calloc((size_t)(ctx->ncpus ? ctx->ncpus : 1), sizeof *rows);
    int *order = sk_malloc(sizeof *order * (size_t)(ctx->ncpus ? ctx->ncpus : 1));
    if (!rows || !order) {
        sk_free(rows);
        sk_free(order);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    sk_error_clear(err);
    int failed = 0, fill = 0;
    int64_t done = 0;
    sk_table *t = NULL;
    /* One parallel region: count (which also checks every record),
     * allocate once (one thread), fill. */
#pragma omp parallel num_threads(ctx->threads)
    {
        _Alignas(max_align_t) unsigned char scratch[RS_SCRATCH_BYTES] = {0};
        walk_files(ctx, fr, NULL, rows, NULL, scratch, &failed, &done, err);
#pragma omp single
        {
            int64_t total = prefix_rows(rows, order, ctx->ncpus);
            fill = !failed && fr->make_table(fr->plan, total, &t, fr->out, err) == SK_OK;
            failed = !fill;
        }
        if (fill)
            walk_files(ctx, fr, fr->out, rows, order, scratch, &failed, &done, err);
        fr->scratch_free(scratch);
    }
    sk_free(rows);
    sk_free(order);
    if (failed) {
        sk_table_free(t);
        return err && err->code ? err->code : SK_ERR_FORMAT;
    }
    *out = t;
    return SK_OK;
}

static int component_kind(const sk_ramses *r, const char *component, rs_kind *kind,
                          sk_error *err)
{
    const sk_ramses_info *in = &r->info;
    char path[4096];
    if (!component || !strcmp(component, "hydro"))
        *kind = RS_HYDRO;
    else if (!strcmp(component, "gravity"))
        *kind = RS_GRAV;
    else if (!strcmp(component, "particles"))
        *kind = RS_PART;
    else
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "unknown component '%s' (use hydro, gravity or particles)", component);
    int present = *kind == RS_HYDRO ? in->has_hydro : *kind == RS_GRAV ? in->has_gravity
                                                                        : in->has_particles;
    if (!present) {
        rs_cpu_path(r, *kind, 1, path, sizeof path);
        return sk_fail(err, SK_ERR_ARG, r->dir, -1, "the output has no %s (no %s)",
                       component ? component : "hydro", strrchr(path, '/') + 1);
    }
    return SK_OK;
}

static int label_table(const sk_ramses *r, rs_kind kind, const sk_selection *sel, sk_table *t,
                       sk_error *err)
{
    int rc = sk_ramses_describe(r, t, err);
    if (rc != SK_OK)
        return rc;
    static const char *const names[] = {"amr", "hydro", "gravity", "particles"};
    if (sk_table_meta_set(t, "kind", kind == RS_PART ? "particles" : "cells") != SK_OK ||
        sk_table_meta_set(t, "component", names[kind]) != SK_OK ||
        sk_selection_to_meta(sel, t) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return SK_OK;
}

int sk_ramses_read(sk_ramses *r, const char *component, const sk_selection *sel_in,
                   const sk_read_options *opt_in, sk_table **out, sk_read_stats *stats,
                   sk_error *err)
{
    sk_mem_stats m0, m1;
    sk_mem_get(&m0);
    double t0 = monotonic_seconds();
    *out = NULL;
    rs_kind kind = RS_HYDRO;
    int rc = component_kind(r, component, &kind, err);
    if (rc != SK_OK)
        return rc;
    sk_selection all;
    sk_selection_init(&all);
    const sk_selection *sel = sel_in ? sel_in : &all;
    sk_read_options defaults;
    memset(&defaults, 0, sizeof defaults);
    const sk_read_options *opt = opt_in ? opt_in : &defaults;

    int ncpu = r->info.ncpu;
    uint8_t *mask = sk_malloc((size_t)ncpu);
    int *cpus = sk_malloc(sizeof *cpus * (size_t)ncpu);
    if (!mask || !cpus) {
        sk_free(mask);
        sk_free(cpus);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    sk_ramses_cpus_for_component(r, component ? component : "hydro", sel, opt, mask);
    rs_read_ctx ctx = {.r = r, .sel = sel, .opt = opt, .cpus = cpus};
    for (int c = 0; c < ncpu; c++)
        if (mask[c])
            cpus[ctx.ncpus++] = c + 1;
    sk_free(mask);
    sk_thread_budget b;
    ctx.threads = sk_thread_budget_get(opt->threads, &b);
    if (ctx.threads > ctx.ncpus)
        ctx.threads = ctx.ncpus > 0 ? ctx.ncpus : 1;

    sk_table *t = NULL;
    rc = kind == RS_PART ? rs_read_particles(&ctx, &t, err) : rs_read_cells(&ctx, kind, &t, err);
    sk_free(cpus);
    if (rc == SK_OK)
        rc = label_table(r, kind, sel, t, err);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    if (stats) {
        sk_mem_get(&m1);
        stats->files_opened = ctx.ncpus;
        stats->bytes_read = ctx.bytes_read;
        stats->seconds = monotonic_seconds() - t0;
        stats->bytes_allocated = (int64_t)(m1.total - m0.total);
    }
    return SK_OK;
}
