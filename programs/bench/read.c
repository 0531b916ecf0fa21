/* Measuring reads: per component cold and warm, time and memory; and
 * thread sweeps of full reads. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/source.h"
#include "snapkit/util/clock.h"
#include "bench/bench.h"
#include "snapkit/memory.h"

/* Pages of the file still in the page cache, after asking the kernel to
 * drop them. Dirty pages (a file just written, copied or generated) cannot
 * be dropped, so they are written back first. mincore on a fresh mapping
 * tells what stayed without reading. */
static int drop_file(const char *path, int64_t *pages, int64_t *resident, int *fadvise_errno)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size == 0) {
        close(fd);
        return 0;
    }
    fdatasync(fd); /* a failure shows up as pages that stayed */
    int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (e && !*fadvise_errno)
        *fadvise_errno = e;
    long page = sysconf(_SC_PAGESIZE);
    size_t n = (size_t)((st.st_size + page - 1) / page);
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *vec = map != MAP_FAILED ? sk_malloc(n) : NULL;
    if (vec && mincore(map, (size_t)st.st_size, vec) == 0) {
        *pages += (int64_t)n;
        for (size_t i = 0; i < n; i++)
            *resident += vec[i] & 1;
    }
    sk_free(vec);
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    close(fd);
    return 0;
}

/* The pages of the files reading `component` opens: every file of the
 * component's kinds in a RAMSES folder, or the .snapkit file. Returns 0, or
 * -1 with the reason in note. */
static int drop_files(const sk_source *src, const char *component, int64_t *pages,
                      int64_t *resident, int *fadvise_errno, char *note, size_t n)
{
    if (sk_source_store(src)) {
        if (drop_file(sk_source_path(src), pages, resident, fadvise_errno) == 0)
            return 0;
        snprintf(note, n, "cannot open %.120s: %s", sk_source_path(src), strerror(errno));
        return -1;
    }
    const char *prefixes[2];
    int np = skb_source_file_kinds(component, prefixes);
    DIR *d = opendir(sk_source_path(src));
    if (!d) {
        snprintf(note, n, "cannot list %.120s: %s", sk_source_path(src), strerror(errno));
        return -1;
    }
    char path[4096];
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        for (int k = 0; k < np; k++)
            if (strncmp(e->d_name, prefixes[k], strlen(prefixes[k])) == 0) {
                snprintf(path, sizeof path, "%s/%s", sk_source_path(src), e->d_name);
                drop_file(path, pages, resident, fadvise_errno);
            }
    closedir(d);
    return 0;
}

/* Drop the files a component's read opens from the page cache. Returns 1
 * when (almost) none of their pages stayed cached, else 0 with the reason
 * in note. */
static int drop_component(const sk_source *src, const char *component, char *note,
                          size_t n)
{
    int64_t pages = 0, resident = 0;
    int fadvise_errno = 0;
    if (drop_files(src, component, &pages, &resident, &fadvise_errno, note, n) != 0)
        return 0;
    if (fadvise_errno) {
        snprintf(note, n, "posix_fadvise(DONTNEED) failed: %s", strerror(fadvise_errno));
        return 0;
    }
    /* A few pages may be read back by others meanwhile; most must go. */
    if (pages > 0 && resident * 20 > pages) {
        snprintf(note, n,
                 "%.0f%% of the %s files' pages stayed cached after posix_fadvise(DONTNEED) "
                 "(a memory-backed or network filesystem keeps them)",
                 100.0 * (double)resident / (double)pages, component);
        return 0;
    }
    return 1;
}

/* The kernel's per-process peak resident set can be reset (Linux 4.0+);
 * then VmHWM measures one component's reads. */
static int reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return 0;
    int ok = fputs("5", f) >= 0;
    return (fclose(f) == 0) && ok;
}

static int64_t peak_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb >= 0)
        return (int64_t)kb * 1024;
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (int64_t)ru.ru_maxrss * 1024 : 0;
}

typedef struct one_read {
    double seconds;
    int64_t rows, bytes_result, bytes_read, bytes_allocated, peak_bytes;
} one_read;

static int timed_read(sk_source *src, const char *component, const sk_selection *sel,
                      int threads, one_read *r, sk_error *err)
{
    sk_mem_stats before, after;
    sk_mem_get(&before);
    sk_mem_reset_peak();
    sk_table *t = NULL;
    sk_read_stats st;
    double t0 = sk_monotonic_seconds();
    int rc = sk_bench_source_read(src, component, sel, threads, &t, &st, err);
    r->seconds = sk_monotonic_seconds() - t0;
    sk_mem_get(&after);
    if (rc != SK_OK)
        return rc;
    r->rows = sk_table_nrows(t);
    r->bytes_result = sk_table_bytes(t);
    r->bytes_read = st.bytes_read;
    r->bytes_allocated = st.bytes_allocated;
    r->peak_bytes = (int64_t)(after.peak - before.current);
    sk_table_free(t);
    return SK_OK;
}

/* The asked components (all present when none asked) into names[*n]. */
static int pick_components(sk_source *src, const char *const *asked, const char **names,
                           int *n, sk_error *err)
{
    const char *present[SKB_MAX_COMPONENTS];
    int np = sk_source_components(src, present, SKB_MAX_COMPONENTS);
    *n = 0;
    if (!asked || !asked[0]) {
        memcpy(names, present, (size_t)np * sizeof *names);
        *n = np;
    }
    for (int i = 0; asked && asked[i] && i < SKB_MAX_COMPONENTS; i++) {
        int found = 0;
        for (int k = 0; k < np; k++)
            found |= strcmp(asked[i], present[k]) == 0;
        if (!found)
            return sk_fail(err, SK_ERR_ARG, sk_source_path(src), -1, "no %s component to read", asked[i]);
        names[(*n)++] = asked[i];
    }
    if (*n == 0)
        return sk_fail(err, SK_ERR_EMPTY, sk_source_path(src), -1, "nothing to read");
    return SK_OK;
}

static void mean_sd(const double *v, int n, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    *mean = s / n;
    for (int i = 0; i < n; i++)
        q += (v[i] - *mean) * (v[i] - *mean);
    *sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

static int bench_component(sk_source *src, const sk_selection *sel,
                           const sk_read_bench_options *opt, const char *name, int runs,
                           sk_read_bench *out, int64_t *done, int64_t total, sk_error *err)
{
    sk_read_component *c = &out->components[out->ncomponents++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->runs = runs;
    c->cold_seconds = -1;
    out->rss_reset = reset_peak_rss();
    one_read r;
    char note[sizeof out->cache_note] = "";
    int cold = opt->cold && drop_component(src, name, note, sizeof note);
    if (opt->cold && !cold) {
        out->cache_dropped = 0;
        if (!out->cache_note[0])
            snprintf(out->cache_note, sizeof out->cache_note, "%s", note);
    }
    /* The first read is the cold one, or else an untimed warm-up. */
    int rc = SK_OK;
    if (cold || !opt->no_warmup) {
        rc = timed_read(src, name, sel, out->threads, &r, err);
        if (rc == SK_OK && cold)
            c->cold_seconds = r.seconds;
        if (opt->progress.fn)
            opt->progress.fn(opt->progress.ctx, ++*done, total, 0);
    }
    double times[256];
    for (int i = 0; i < runs && rc == SK_OK; i++) {
        rc = timed_read(src, name, sel, out->threads, &r, err);
        times[i] = r.seconds;
        if (r.peak_bytes > c->peak_bytes)
            c->peak_bytes = r.peak_bytes;
        if (opt->progress.fn)
            opt->progress.fn(opt->progress.ctx, ++*done, total, 0);
    }
    if (rc != SK_OK)
        return rc;
    mean_sd(times, runs, &c->mean_seconds, &c->stddev_seconds);
    c->rows = r.rows;
    c->bytes_result = r.bytes_result;
    c->bytes_read = r.bytes_read;
    c->bytes_allocated = r.bytes_allocated;
    c->peak_rss = peak_rss();
    return SK_OK;
}

int sk_bench_read(sk_source *src, const sk_selection *sel,
                  const sk_read_bench_options *opt, sk_read_bench *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    const char *names[SKB_MAX_COMPONENTS];
    int n;
    int rc = pick_components(src, opt->components, names, &n, err);
    if (rc != SK_OK)
        return rc;
    int runs = opt->runs > 0 ? opt->runs : 3;
    if (runs > 256)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most 256 runs, not %d", runs);
    sk_thread_budget b;
    out->threads = sk_thread_budget_get(opt->threads, &b);
    out->cache_dropped = opt->cold;
    if (!opt->cold)
        snprintf(out->cache_note, sizeof out->cache_note, "not asked for");
    int first = opt->cold || !opt->no_warmup;
    int64_t done = 0, total = (int64_t)n * (runs + first);
    for (int i = 0; i < n && rc == SK_OK; i++)
        rc = bench_component(src, sel, opt, names[i], runs, out, &done, total, err);
    return rc;
}

typedef struct sweep_ctx {
    sk_source *src;
    const sk_selection *sel;
    const char *names[SKB_MAX_COMPONENTS];
    int n;
} sweep_ctx;

static int full_read(void *p, int threads, double *seconds, int64_t *peak, sk_error *err)
{
    sweep_ctx *ctx = p;
    *seconds = 0;
    for (int i = 0; i < ctx->n; i++) {
        one_read r;
        int rc = timed_read(ctx->src, ctx->names[i], ctx->sel, threads, &r, err);
        if (rc != SK_OK)
            return rc;
        *seconds += r.seconds;
        if (r.peak_bytes > *peak)
            *peak = r.peak_bytes;
    }
    return SK_OK;
}

int sk_bench_read_sweep(sk_source *src, const sk_selection *sel,
                        const char *const *components, const sk_sweep_options *opt,
                        sk_scaling *out, int *dropped, sk_error *err)
{
    sweep_ctx ctx = {.src = src, .sel = sel};
    int rc = pick_components(src, components, ctx.names, &ctx.n, err);
    if (rc != SK_OK)
        return rc;
    sk_sweep_options o = *opt;
    o.warmup = 1;
    return sk_bench_sweep(&o, full_read, &ctx, out, dropped, err);
}

int skb_drop_component(const sk_source *src, const char *component, char *note, size_t n)
{
    return drop_component(src, component, note, n);
}
