/* The storage probe: how fast files open and close, and how fast whole
 * files stream to concurrent readers, at each thread level. */
#include "bench/bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapkit/util/clock.h"
#include "snapkit/memory.h"

enum { MIN_OPENS = 2048, READ_BLOCK = 1 << 20, MAX_READERS = 4096 };
static const double MIN_SECONDS = 0.2; /* time each measurement at least this long */

typedef struct sample {
    int n;
    char **paths;
    int64_t *sizes;
} sample;

static void sample_free(sample *s)
{
    for (int i = 0; i < s->n; i++)
        sk_free(s->paths[i]);
    sk_free(s->paths);
    sk_free(s->sizes);
    memset(s, 0, sizeof *s);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the regular files in dir, sorted. */
static int list_files(const char *dir, char ***names, int64_t *count, sk_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sk_fail_errno(err, dir, errno, "cannot open the folder");
    int64_t n = 0, cap = 0;
    char **v = NULL;
    int rc = SK_OK;
    struct dirent *e;
    while (rc == SK_OK && (e = readdir(d)) != NULL) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **w = sk_realloc(v, (size_t)cap * sizeof *w);
            if (!w) {
                rc = sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory listing the folder");
                break;
            }
            v = w;
        }
        if (!(v[n] = sk_strdup(e->d_name)))
            rc = sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory listing the folder");
        else
            n++;
    }
    closedir(d);
    if (rc == SK_OK && n > 0)
        qsort(v, (size_t)n, sizeof *v, cmp_name);
    *names = v;
    *count = n;
    return rc;
}

/* At most nmax files, evenly spread over the sorted names, so a sample of
 * a RAMSES output holds every kind of file in proportion. */
/* A single file (a .snapkit file) is its own sample. */
static int take_file(const char *path, int64_t size, sample *s, sk_storage_result *out,
                     sk_error *err)
{
    s->paths = sk_calloc(1, sizeof *s->paths);
    s->sizes = sk_calloc(1, sizeof *s->sizes);
    if (!s->paths || !s->sizes || !(s->paths[0] = sk_strdup(path)))
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    s->sizes[0] = size;
    s->n = 1;
    out->files_total = out->files_sampled = 1;
    out->bytes_total = out->bytes_sampled = size;
    return SK_OK;
}

static int take_sample(const char *dir, int nmax, sample *s, sk_storage_result *out,
                       sk_error *err)
{
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISREG(st.st_mode))
        return take_file(dir, st.st_size, s, out, err);
    char **names = NULL;
    int64_t count = 0;
    int rc = list_files(dir, &names, &count, err);
    if (rc == SK_OK && count == 0)
        rc = sk_fail(err, SK_ERR_EMPTY, dir, -1, "no regular files to probe");
    int take = count < nmax ? (int)count : nmax;
    if (rc == SK_OK) {
        s->paths = sk_calloc((size_t)take, sizeof *s->paths);
        s->sizes = sk_calloc((size_t)take, sizeof *s->sizes);
        if (!s->paths || !s->sizes)
            rc = sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory");
    }
    for (int64_t i = 0; rc == SK_OK && i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        out->files_total++;
        out->bytes_total += st.st_size;
        int64_t k = s->n;
        if (k < take && i == k * count / take) {
            if (!(s->paths[k] = sk_strdup(path))) {
                rc = sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory");
                break;
            }
            s->sizes[k] = st.st_size;
            s->n++;
            out->bytes_sampled += st.st_size;
        }
    }
    for (int64_t i = 0; i < count; i++)
        sk_free(names[i]);
    sk_free(names);
    out->files_sampled = s->n;
    return rc;
}

/* Read a whole file; returns bytes read or -1 with errno set. */
static int64_t read_whole(const char *path, char *buf)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int64_t total = 0;
    ssize_t got;
    while ((got = read(fd, buf, READ_BLOCK)) > 0)
        total += got;
    int saved = errno;
    close(fd);
    errno = saved;
    return got < 0 ? -1 : total;
}

typedef struct measure {
    double iops, latency, reader_bps, total_bps;
} measure;

/* Start the thread team before timing, so the first measurement at a
 * level does not pay for creating threads. */
static void start_team(int threads)
{
    int started = 0;
#pragma omp parallel num_threads(threads) reduction(+ : started)
    started = 1;
    (void)started;
}

/* One round: every open+close of the round, spread over the threads; the
 * latencies of the first round are kept for the median. */
static int open_round(const sample *s, int threads, double *lat, int64_t nops, int *failed_at)
{
    int failed_errno = 0;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < nops; i++) {
        int f = (int)(i % s->n);
        double a = sk_monotonic_seconds();
        int fd = open(s->paths[f], O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            close(fd);
        if (lat)
            lat[i] = sk_monotonic_seconds() - a;
        if (fd < 0) {
#pragma omp critical(sk_storage_fail)
            if (*failed_at < 0) {
                *failed_at = f;
                failed_errno = errno;
            }
        }
    }
    return failed_errno;
}

/* Open and close the sample's files round-robin from `threads` threads,
 * in rounds until MIN_SECONDS have passed, so fast storage is timed over
 * more than a blink. */
static int measure_opens(const sample *s, int threads, double *lat, int64_t nops, measure *m,
                         int64_t *opens, sk_error *err)
{
    start_team(threads);
    double wall = 0;
    int64_t done = 0;
    int failed_at = -1;
    do {
        double t0 = sk_monotonic_seconds();
        int e = open_round(s, threads, done == 0 ? lat : NULL, nops, &failed_at);
        wall += sk_monotonic_seconds() - t0;
        done += nops;
        if (failed_at >= 0)
            return sk_fail_errno(err, s->paths[failed_at], e, "cannot open");
    } while (wall < MIN_SECONDS);
    *opens += done;
    m->iops = (double)done / wall;
    m->latency = sk_bench_median(lat, nops);
    return SK_OK;
}

typedef struct reader {
    int64_t bytes;
    double busy;
} reader;

/* One pass: every file of the sample read whole once, shared among the
 * threads; each thread adds its bytes and its busy time. */
static int read_pass(const sample *s, int threads, reader *readers, int *failed_at)
{
    int failed_errno = 0;
#pragma omp parallel num_threads(threads)
    {
        reader *me = &readers[omp_get_thread_num()];
        char *buf = sk_malloc(READ_BLOCK);
#pragma omp for schedule(dynamic, 1)
        for (int f = 0; f < s->n; f++) {
            if (!buf)
                continue;
            double a = sk_monotonic_seconds();
            int64_t got = read_whole(s->paths[f], buf);
            me->busy += sk_monotonic_seconds() - a;
            if (got >= 0) {
                me->bytes += got;
                continue;
            }
#pragma omp critical(sk_storage_fail)
            if (*failed_at < 0) {
                *failed_at = f;
                failed_errno = errno;
            }
        }
        if (!buf) {
#pragma omp critical(sk_storage_fail)
            if (*failed_at < 0) {
                *failed_at = 0;
                failed_errno = ENOMEM;
            }
        }
        sk_free(buf);
    }
    return failed_errno;
}

/* Passes over the sample until MIN_SECONDS have passed; a reader's rate is
 * its bytes over its own busy time, averaged over the readers. */
static int measure_reads(const sample *s, int threads, measure *m, int64_t *bytes_read,
                         sk_error *err)
{
    reader readers[MAX_READERS] = {{0}};
    start_team(threads);
    double wall = 0;
    int failed_at = -1;
    do {
        double t0 = sk_monotonic_seconds();
        int e = read_pass(s, threads, readers, &failed_at);
        wall += sk_monotonic_seconds() - t0;
        if (failed_at >= 0)
            return sk_fail_errno(err, s->paths[failed_at], e, "cannot read");
    } while (wall < MIN_SECONDS);
    double rate_sum = 0;
    int active = 0;
    int64_t total = 0;
    for (int t = 0; t < threads; t++) {
        total += readers[t].bytes;
        if (readers[t].busy > 0) {
            rate_sum += (double)readers[t].bytes / readers[t].busy;
            active++;
        }
    }
    *bytes_read += total;
    m->reader_bps = active ? rate_sum / active : 0;
    m->total_bps = (double)total / wall;
    return SK_OK;
}

static int warm(const sample *s, int64_t *bytes_read, sk_error *err)
{
    char *buf = sk_malloc(READ_BLOCK);
    if (!buf)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = SK_OK;
    for (int f = 0; f < s->n && rc == SK_OK; f++) {
        int64_t got = read_whole(s->paths[f], buf);
        if (got < 0)
            rc = sk_fail_errno(err, s->paths[f], errno, "cannot read");
        else
            *bytes_read += got;
    }
    sk_free(buf);
    return rc;
}

/* Median, least and most of v[0..n-1] (sorts v). */
static void stats3(double *v, int n, double *med, double *lo, double *hi)
{
    *med = sk_bench_median(v, n);
    *lo = v[0];
    *hi = v[n - 1];
}

static void summarise(sk_storage_point *p, measure *m, int runs)
{
    double v[256];
    for (int r = 0; r < runs; r++)
        v[r] = m[r].iops;
    stats3(v, runs, &p->iops, &p->iops_min, &p->iops_max);
    for (int r = 0; r < runs; r++)
        v[r] = m[r].latency;
    p->open_close_seconds = sk_bench_median(v, runs);
    for (int r = 0; r < runs; r++)
        v[r] = m[r].reader_bps;
    stats3(v, runs, &p->reader_bps, &p->reader_bps_min, &p->reader_bps_max);
    for (int r = 0; r < runs; r++)
        v[r] = m[r].total_bps;
    p->total_bps = sk_bench_median(v, runs);
}

int sk_bench_storage(const char *dir, const sk_storage_options *opt, sk_storage_result *out,
                     sk_error *err)
{
    double t_start = sk_monotonic_seconds();
    memset(out, 0, sizeof *out);
    snprintf(out->dir, sizeof out->dir, "%s", dir);
    sk_thread_budget_get(0, &out->budget);
    int runs = opt->runs > 0 ? opt->runs : 3;
    if (runs > 256)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most 256 runs, not %d", runs);
    int levels[SK_BENCH_MAX_LEVELS];
    int nlevels = sk_bench_plan_levels(opt->levels, opt->nlevels, levels, &out->levels_dropped);
    if (nlevels > 0 && levels[nlevels - 1] > MAX_READERS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most %d threads, not %d",
                       MAX_READERS, levels[nlevels - 1]);
    if (nlevels == 0)
        return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                       "every thread level is above the %d CPUs the job owns (set by %s)",
                       out->budget.owned, out->budget.limited_by);
    int rc = sk_fs_type(dir, out->fs_type, sizeof out->fs_type, err);
    sample s = {0};
    if (rc == SK_OK)
        rc = take_sample(dir, opt->nfiles > 0 ? opt->nfiles : 64, &s, out, err);
    int64_t nops = s.n * 32 > MIN_OPENS ? s.n * 32 : MIN_OPENS;
    double *lat = rc == SK_OK ? sk_malloc((size_t)nops * sizeof *lat) : NULL;
    measure *m = rc == SK_OK ? sk_calloc((size_t)nlevels * (size_t)runs, sizeof *m) : NULL;
    if (rc == SK_OK && (!lat || !m))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int64_t total = 1 + (int64_t)nlevels * runs, done = 0;
    if (rc == SK_OK)
        rc = warm(&s, &out->bytes_read, err);
    if (rc == SK_OK && opt->progress.fn)
        opt->progress.fn(opt->progress.ctx, ++done, total, out->bytes_read);
    /* Interleaved runs: a disturbance on a shared machine spreads over
     * every level instead of skewing one. */
    for (int r = 0; r < runs && rc == SK_OK; r++)
        for (int i = 0; i < nlevels && rc == SK_OK; i++) {
            measure *mi = &m[i * runs + r];
            rc = measure_opens(&s, levels[i], lat, nops, mi, &out->opens, err);
            if (rc == SK_OK)
                rc = measure_reads(&s, levels[i], mi, &out->bytes_read, err);
            if (rc == SK_OK && opt->progress.fn)
                opt->progress.fn(opt->progress.ctx, ++done, total, out->bytes_read);
        }
    if (rc == SK_OK) {
        out->runs = runs;
        out->npoints = nlevels;
        for (int i = 0; i < nlevels; i++) {
            out->points[i].threads = levels[i];
            summarise(&out->points[i], &m[i * runs], runs);
        }
    }
    sk_free(lat);
    sk_free(m);
    sample_free(&s);
    out->seconds = sk_monotonic_seconds() - t_start;
    return rc;
}
