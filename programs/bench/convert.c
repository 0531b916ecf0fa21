/* Whether converting to the compact file pays: the store module's own
 * conversion (which times its read and its write) against re-reads of the
 * file it writes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "snapkit/convert.h"
#include "snapkit/memory.h"
#include "snapkit/store.h"

void sk_convert_derive(sk_convert_bench *c)
{
    c->speedup = c->reread_seconds > 0 ? c->read_seconds / c->reread_seconds : INFINITY;
    /* The first use reads the source either way; converting adds the
     * write, and each later use saves read - reread. */
    double saved = c->read_seconds - c->reread_seconds;
    c->break_even_rereads = saved > 0 ? c->write_seconds / saved : INFINITY;
    c->break_even_conversion = saved > 0 ? (c->read_seconds + c->write_seconds) / saved : INFINITY;
    c->churn_ratio = c->alloc_reread > 0 ? (double)c->alloc_read / (double)c->alloc_reread : NAN;
}

static uint64_t allocated_so_far(void)
{
    sk_mem_stats m;
    sk_mem_get(&m);
    return m.total;
}

static void step(const sk_convert_bench_options *opt, int64_t *done, int64_t total)
{
    if (opt->progress.fn)
        opt->progress.fn(opt->progress.ctx, ++*done, total, 0);
}

/* Is `name` one of the comma-separated `list`? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Every component `names` lists (comma-separated; NULL: all present) of
 * src once: seconds and bytes allocated. */
static int read_all(sk_source *src, const char *names, const sk_selection *sel,
                    int threads, double *seconds, int64_t *allocated, sk_error *err)
{
    const char *present[4];
    int n = sk_source_components(src, present, SKB_MAX_COMPONENTS);
    *seconds = 0;
    *allocated = 0;
    for (int i = 0; i < n; i++) {
        if (names && !in_list(names, present[i]))
            continue;
        sk_table *t = NULL;
        sk_read_stats st;
        int rc = sk_bench_source_read(src, present[i], sel, threads, &t, &st, err);
        sk_table_free(t);
        if (rc != SK_OK)
            return rc;
        *seconds += st.seconds;
        *allocated += st.bytes_allocated;
    }
    return SK_OK;
}

static int rereads(const sk_convert_bench_options *opt, int runs, sk_convert_bench *out,
                   int64_t *done, int64_t total, sk_error *err)
{
    sk_source *file;
    int rc = sk_source_open(&file, opt->path, err);
    if (rc != SK_OK)
        return rc;
    double t, times[256];
    rc = read_all(file, NULL, NULL, opt->threads, &t, &out->alloc_reread, err);
    for (int r = 0; r < runs && rc == SK_OK; r++) {
        rc = read_all(file, NULL, NULL, opt->threads, &times[r], &out->alloc_reread, err);
        step(opt, done, total);
    }
    sk_source_close(file);
    if (rc == SK_OK)
        out->reread_seconds = sk_bench_median(times, runs);
    return rc;
}

int sk_bench_convert(const char *dir, const sk_convert_bench_options *opt, sk_convert_bench *out,
                     sk_error *err)
{
    memset(out, 0, sizeof *out);
    int runs = opt->runs > 0 ? opt->runs : 3;
    if (runs > 256)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most 256 runs, not %d", runs);
    sk_source *src;
    int rc = sk_source_open(&src, dir, err);
    if (rc != SK_OK)
        return rc;
    if (sk_source_kind(src) == SK_SOURCE_SNAPKIT) {
        sk_source_close(src);
        return sk_fail(err, SK_ERR_ARG, dir, -1,
                       "already a .snapkit file: bench convert measures converting a RAMSES output");
    }
    double t;
    rc = read_all(src, opt->components, opt->selection, opt->threads, &t, &out->alloc_read, err);
    sk_source_close(src);
    sk_store_convert_options copt;
    sk_store_convert_options_init(&copt);
    copt.components = opt->components;
    copt.selection = opt->selection;
    copt.write.threads = opt->threads;
    double reads[256], writes[256];
    int64_t done = 0, total = 2 * (int64_t)runs;
    for (int r = 0; r < runs && rc == SK_OK; r++) {
        sk_store_convert_stats cs;
        uint64_t before = allocated_so_far();
        rc = sk_store_convert(dir, opt->path, &copt, &cs, err);
        int64_t alloc = (int64_t)(allocated_so_far() - before);
        reads[r] = cs.read_seconds;
        writes[r] = cs.write_seconds;
        out->alloc_write = alloc > out->alloc_read ? alloc - out->alloc_read : 0;
        out->bytes_ramses = cs.bytes_source;
        out->bytes_file = cs.bytes_file;
        step(opt, &done, total);
    }
    if (rc == SK_OK) {
        out->read_seconds = sk_bench_median(reads, runs);
        out->write_seconds = sk_bench_median(writes, runs);
        rc = rereads(opt, runs, out, &done, total, err);
    }
    if (rc == SK_OK)
        sk_convert_derive(out);
    return rc;
}
