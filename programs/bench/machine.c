/* Facts about the machine and the job: CPU model, cores, RAM, the
 * filesystem under a path, and the thread levels a sweep may use. */
#include "bench/bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "snapkit/memory.h"

/* Value of "key<spaces>: value" when line starts with key. */
static const char *field_value(const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0)
        return NULL;
    const char *p = line + n;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void copy_line(char *dst, size_t n, const char *src)
{
    size_t len = strcspn(src, "\n");
    while (len > 0 && isspace((unsigned char)src[len - 1]))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void sk_machine_parse_cpuinfo(const char *text, sk_machine *out)
{
    /* Distinct (physical id, core id) pairs, one per processor block. */
    enum { MAX_PAIRS = 4096 };
    static const int none = -1;
    long pairs[MAX_PAIRS][2];
    int npairs = 0, processors = 0;
    long phys = none, core = none;
    int have_core_ids = 0;
    for (const char *line = text; line && *line;) {
        const char *v;
        if ((v = field_value(line, "model name")) && strcmp(out->cpu_model, "unknown") == 0)
            copy_line(out->cpu_model, sizeof out->cpu_model, v);
        else if ((v = field_value(line, "processor")))
            processors++;
        else if ((v = field_value(line, "physical id")))
            phys = strtol(v, NULL, 10);
        else if ((v = field_value(line, "core id"))) {
            core = strtol(v, NULL, 10);
            have_core_ids = 1;
        }
        const char *nl = strchr(line, '\n');
        int block_end = !nl || nl[1] == '\n' || nl[1] == '\0';
        if (block_end && core != none) {
            int seen = 0;
            for (int i = 0; i < npairs && !seen; i++)
                seen = pairs[i][0] == phys && pairs[i][1] == core;
            if (!seen && npairs < MAX_PAIRS) {
                pairs[npairs][0] = phys;
                pairs[npairs][1] = core;
                npairs++;
            }
            phys = core = none;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (have_core_ids && npairs > 0)
        out->physical_cores = npairs;
    else if (processors > 0 && out->physical_cores == 0)
        out->physical_cores = processors;
}

/* "MemTotal:       24576000 kB" -> bytes; 0 (unknown) when the value is
 * not a positive size whose bytes fit an int64. */
static int64_t meminfo_bytes(const char *v)
{
    char *end = NULL;
    errno = 0;
    long long kb = strtoll(v, &end, 10);
    if (errno == ERANGE || kb <= 0 || kb > INT64_MAX / 1024)
        return 0;
    return (int64_t)kb * 1024;
}

void sk_machine_parse_meminfo(const char *text, sk_machine *out)
{
    int64_t free_bytes = 0;
    for (const char *line = text; line && *line;) {
        const char *v;
        if ((v = field_value(line, "MemTotal")))
            out->ram_bytes = meminfo_bytes(v);
        else if ((v = field_value(line, "MemAvailable")))
            out->ram_available = meminfo_bytes(v);
        else if ((v = field_value(line, "MemFree")))
            free_bytes = meminfo_bytes(v);
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    if (out->ram_available == 0)
        out->ram_available = free_bytes;
}

/* Whole small file (a /proc file: size unknown in advance) as text. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *s = sk_malloc(cap);
    while (s) {
        size_t got = fread(s + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
        if (cap - len - 1 == 0) {
            char *t = sk_realloc(s, cap * 2);
            if (!t) {
                sk_free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (s)
        s[len] = '\0';
    return s;
}

/* A memory limit file's value: a byte count, or 0 for "max" and the huge
 * numbers cgroup v1 writes for no limit. */
static int64_t limit_file(const char *path)
{
    char *text = slurp(path);
    if (!text)
        return 0;
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    sk_free(text);
    return end != text && v > 0 && v < (1LL << 60) ? (int64_t)v : 0;
}

/* The cgroup memory limit of this process (v2, else v1), 0 when none. */
static int64_t cgroup_memory_limit(void)
{
    char *groups = slurp("/proc/self/cgroup");
    int64_t limit = 0;
    for (const char *line = groups; line && *line && !limit;) {
        char path[4096];
        size_t len = strcspn(line, "\n");
        if (strncmp(line, "0::", 3) == 0 && len - 3 < 3000) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%.*s/memory.max", (int)(len - 3), line + 3);
            limit = limit_file(path);
        }
        line = line[len] ? line + len + 1 : NULL;
    }
    sk_free(groups);
    if (!limit)
        limit = limit_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    return limit;
}

int64_t sk_machine_memory(const sk_machine *m)
{
    return m->ram_limit > 0 && m->ram_limit < m->ram_bytes ? m->ram_limit : m->ram_bytes;
}

void sk_machine_get(int requested_threads, sk_machine *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->cpu_model, sizeof out->cpu_model, "unknown");
    sk_thread_budget_get(requested_threads, &out->budget);
    out->logical_cpus = out->budget.machine;
    char *text = slurp("/proc/cpuinfo");
    if (text)
        sk_machine_parse_cpuinfo(text, out);
    sk_free(text);
    text = slurp("/proc/meminfo");
    if (text)
        sk_machine_parse_meminfo(text, out);
    sk_free(text);
    out->ram_limit = cgroup_memory_limit();
    if (out->physical_cores <= 0 || out->physical_cores > out->logical_cpus)
        out->physical_cores = out->logical_cpus;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(out->os, sizeof out->os, "%.30s %.60s %.30s", u.sysname, u.release, u.machine);
    else
        snprintf(out->os, sizeof out->os, "unknown");
}

const char *sk_fs_name(uint64_t magic)
{
    static const struct {
        uint64_t magic;
        const char *name;
    } k_fs[] = {
        {0xEF53, "ext2/3/4"},       {0x58465342, "xfs"},      {0x9123683E, "btrfs"},
        {0x2FC12FC1, "zfs"},        {0xF2F52010, "f2fs"},     {0x01021994, "tmpfs"},
        {0x858458F6, "ramfs"},      {0x794C7630, "overlayfs"},{0x6969, "nfs"},
        {0x0BD00BD0, "lustre"},     {0x47504653, "gpfs"},     {0x19830326, "beegfs"},
        {0x00C36400, "ceph"},       {0x20030528, "orangefs"}, {0xFF534D42, "cifs"},
        {0xFE534D42, "smb2"},       {0x65735546, "fuse"},     {0x01021997, "9p"},
        {0x73717368, "squashfs"},   {0x5346544E, "ntfs"},     {0x4D44, "vfat"},
        {0x2011BAB0, "exfat"},      {0x9660, "iso9660"},      {0x9FA0, "proc"},
        {0x62656572, "sysfs"},      {0x0187, "autofs"},       {0x6E667364, "nfsd"},
    };
    for (size_t i = 0; i < sizeof k_fs / sizeof k_fs[0]; i++)
        if (k_fs[i].magic == magic)
            return k_fs[i].name;
    return NULL;
}

int sk_fs_type(const char *path, char *name, size_t n, sk_error *err)
{
    struct statfs st;
    if (statfs(path, &st) != 0)
        return sk_fail_errno(err, path, errno, "cannot stat the filesystem");
    uint64_t magic = (uint64_t)(unsigned long)st.f_type & 0xFFFFFFFFu;
    const char *known = sk_fs_name(magic);
    if (known)
        snprintf(name, n, "%s", known);
    else
        snprintf(name, n, "unknown (0x%llx)", (unsigned long long)magic);
    return SK_OK;
}

int sk_thread_warning(const sk_thread_budget *b, const char *flag, char *buf, size_t n)
{
    if (b->requested <= b->owned)
        return 0;
    snprintf(buf, n, "warning: %d threads were asked for but the job owns %d (set by %s); use %s %d",
             b->requested, b->owned, b->limited_by, flag ? flag : "--threads", b->owned);
    return 1;
}

int sk_bench_default_levels(int max, int *levels, int cap)
{
    int n = 0;
    if (max < 1)
        max = 1;
    for (int t = 1; t < max && n < cap; t *= 2)
        levels[n++] = t;
    if (n < cap)
        levels[n++] = max;
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int sk_bench_parse_levels(const char *text, int *levels, int cap, sk_error *err)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end = NULL;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > 65536 || (*end && *end != ',')) {
            sk_fail(err, SK_ERR_ARG, NULL, -1,
                    "thread list '%s': expected positive counts separated by commas", text);
            return -1;
        }
        if (n == cap) {
            sk_fail(err, SK_ERR_ARG, NULL, -1, "thread list '%s': more than %d levels", text, cap);
            return -1;
        }
        levels[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (n == 0) {
        sk_fail(err, SK_ERR_ARG, NULL, -1, "empty thread list");
        return -1;
    }
    qsort(levels, (size_t)n, sizeof *levels, cmp_int);
    int m = 1;
    for (int i = 1; i < n; i++)
        if (levels[i] != levels[m - 1])
            levels[m++] = levels[i];
    return m;
}

int sk_bench_clamp_levels(int *levels, int n, int owned)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (levels[i] <= owned)
            levels[m++] = levels[i];
    return m;
}

int sk_bench_plan_levels(const int *asked, int n, int *levels, int *dropped)
{
    sk_thread_budget budget;
    sk_thread_budget_get(0, &budget);
    if (n > 0)
        memcpy(levels, asked, (size_t)n * sizeof *levels);
    else
        n = sk_bench_default_levels(budget.owned, levels, SK_BENCH_MAX_LEVELS);
    int kept = sk_bench_clamp_levels(levels, n, budget.owned);
    if (dropped)
        *dropped = n - kept;
    return kept;
}
