/* The run's metadata (when, where, with what build, on what), carried by
 * report.json and by every row --csv appends, so that rows from different
 * days and machines can be told apart in one file. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "snapkit/util/text.h"
#include "snapkit/memory.h"
#include "snapkit/snapkit.h"

/* The GNU build id note of the running program: it names the exact binary
 * (two builds of one version differ), with no build-system hook. */
static int build_id_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    char *out = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *nh;
            const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                size_t n = nh->n_descsz < 20 ? nh->n_descsz : 20;
                for (size_t k = 0; k < n; k++)
                    snprintf(out + 2 * k, 3, "%02x", desc[k]);
                return 1;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1; /* the first object is the program itself: stop there */
}

static void build_id(char *out, size_t n)
{
    char hex[48] = "";
    dl_iterate_phdr(build_id_cb, hex);
    snprintf(out, n, "%s", hex[0] ? hex : "unknown");
}

void sk_bench_meta_get(const sk_machine *m, const char *source, const char *selection,
                       int threads, const char *cache, sk_bench_meta *out)
{
    memset(out, 0, sizeof *out);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out->utc, sizeof out->utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(out->host, sizeof out->host - 1) != 0)
        snprintf(out->host, sizeof out->host, "unknown");
    snprintf(out->version, sizeof out->version, "%s", sk_version());
    build_id(out->build_id, sizeof out->build_id);
    snprintf(out->cpu_model, sizeof out->cpu_model, "%s", m->cpu_model);
    out->cpus_owned = m->budget.owned;
    snprintf(out->source, sizeof out->source, "%s", source ? source : "");
    sk_error err;
    if (!source || !source[0] || sk_fs_type(source, out->fs_type, sizeof out->fs_type, &err) != SK_OK)
        snprintf(out->fs_type, sizeof out->fs_type, "unknown");
    snprintf(out->selection, sizeof out->selection, "%s", selection && selection[0] ? selection : "all");
    out->threads = threads > 0 ? threads : m->budget.threads;
    snprintf(out->cache, sizeof out->cache, "%s", cache ? cache : "warm");
}

void sk_bench_meta_json(const sk_bench_meta *m, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_string(j, "utc", m->utc);
    sk_json_kv_string(j, "host", m->host);
    sk_json_kv_string(j, "version", m->version);
    sk_json_kv_string(j, "build_id", m->build_id);
    sk_json_kv_string(j, "cpu_model", m->cpu_model);
    sk_json_kv_int(j, "cpus_owned", m->cpus_owned);
    sk_json_kv_string(j, "fs_type", m->fs_type);
    sk_json_kv_string(j, "source", m->source);
    sk_json_kv_string(j, "selection", m->selection);
    sk_json_kv_int(j, "threads", m->threads);
    sk_json_kv_string(j, "cache", m->cache);
    sk_json_object_end(j);
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void field(sk_text *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        sk_text_puts(b, s);
    } else {
        sk_text_puts(b, "\"");
        for (; *s; s++)
            sk_text_printf(b, *s == '"' ? "\"\"" : "%c", *s);
        sk_text_puts(b, "\"");
    }
    sk_text_puts(b, ",");
}

const char sk_bench_csv_header[] =
    "utc,host,version,build_id,cpu_model,cpus_owned,fs_type,source,selection,run_threads,"
    "cache,stage,series,threads,quantity,value,unit\n";

/* Whether a row of the report's CSV (stage,series,threads,quantity,...)
 * measured a cold read: its quantity names it. */
static const char *row_cache(const char *line, size_t n)
{
    return memmem(line, n, "cold_", 5) ? "cold" : "warm";
}

char *sk_bench_csv_rows(const sk_bench_meta *meta, const sk_report *r)
{
    char *csv = sk_report_csv(r);
    if (!csv)
        return NULL;
    sk_text b = {0};
    char owned[16], threads[16];
    snprintf(owned, sizeof owned, "%d", meta->cpus_owned);
    snprintf(threads, sizeof threads, "%d", meta->threads);
    const char *line = strchr(csv, '\n'); /* past the header */
    line = line ? line + 1 : csv + strlen(csv);
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        /* The machine's rows are facts, not measurements: the metadata
         * columns carry them. */
        if (strncmp(line, "machine,", 8) != 0) {
            const char *cols[] = {meta->utc, meta->host, meta->version, meta->build_id,
                                  meta->cpu_model, owned, meta->fs_type, meta->source,
                                  meta->selection, threads, row_cache(line, n)};
            for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
                field(&b, cols[k]);
            sk_text_printf(&b, "%.*s\n", (int)n, line);
        }
        line += n + (end != NULL);
    }
    sk_free(csv);
    return sk_text_take(&b);
}

/* A file rows may be appended to: a regular file, empty, or starting with
 * the header and ending with a whole line (else the rows would be glued to
 * a cut line or sit under another table's header). */
static int check_appendable(int fd, const char *path, const struct stat *st, sk_error *err)
{
    if (!S_ISREG(st->st_mode))
        return sk_fail(err, SK_ERR_ARG, path, -1, "is not a regular file to append CSV rows to");
    if (st->st_size == 0)
        return SK_OK;
    char head[256], last = 0;
    size_t n = strlen(sk_bench_csv_header);
    if (n > sizeof head)
        n = sizeof head; /* its first 256 bytes tell */
    ssize_t got = pread(fd, head, n, 0);
    if (got != (ssize_t)n || memcmp(head, sk_bench_csv_header, n) != 0)
        return sk_fail(err, SK_ERR_FORMAT, path, 0,
                       "its first line is not snapkit bench's CSV header (utc,host,...,unit): "
                       "not a file of bench rows; give another --csv");
    if (pread(fd, &last, 1, st->st_size - 1) != 1 || last != '\n')
        return sk_fail(err, SK_ERR_FORMAT, path, (int64_t)st->st_size,
                       "its last line is cut (no newline at the end): new rows would be glued "
                       "to it; mend or move the file");
    return SK_OK;
}

/* One write(2) with O_APPEND, so that rows of runs appending to one file
 * at once do not interleave within a row. The header goes first when the
 * file is new or empty. */
int sk_bench_csv_append(const char *path, const sk_bench_meta *meta, const sk_report *r,
                        sk_error *err)
{
    char *rows = sk_bench_csv_rows(meta, r);
    if (!rows)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory writing the CSV rows");
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0) {
        sk_free(rows);
        return sk_fail_errno(err, path, errno, "cannot open the CSV file");
    }
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? check_appendable(fd, path, &st, err)
                                 : sk_fail_errno(err, path, errno, "cannot stat the CSV file");
    sk_text b = {0};
    if (rc == SK_OK && st.st_size == 0)
        sk_text_puts(&b, sk_bench_csv_header);
    sk_text_puts(&b, rows);
    sk_free(rows);
    char *text = sk_text_take(&b);
    if (rc != SK_OK) {
        /* refused: nothing appended */
    } else if (!text) {
        rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory writing the CSV rows");
    } else {
        size_t n = strlen(text), done = 0;
        while (done < n && rc == SK_OK) {
            ssize_t w = write(fd, text + done, n - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                rc = sk_fail_errno(err, path, errno, "cannot append to the CSV file");
            else
                done += (size_t)w;
        }
    }
    sk_free(text);
    if (close(fd) != 0 && rc == SK_OK)
        rc = sk_fail_errno(err, path, errno, "cannot close the CSV file");
    return rc;
}
