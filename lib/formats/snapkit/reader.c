/* Opening a .snapkit file: the fixed tail, then the footer it points to,
 * both checked before anything else is believed. */
#include "formats/snapkit/plan.h"
#include "formats/snapkit/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/openfile.h"
#include "snapkit/memory.h"
#include "formats/snapkit/codec.h"

static int in_file(const sk_store *s, size_t n, int64_t offset, sk_error *err)
{
    if (offset < 0 || offset > s->size || (int64_t)n > s->size - offset)
        return sk_fail(err, SK_ERR_FORMAT, s->path, offset,
                       "%zu bytes asked for, the file ends at byte %lld (truncated?)", n,
                       (long long)s->size);
    return SK_OK;
}

static const uint8_t *bytes_of(const sk_store *s)
{
    return __atomic_load_n(&s->mem, __ATOMIC_ACQUIRE);
}

const uint8_t *st_bytes_at(const sk_store *s, uint8_t *buf, size_t n, int64_t offset,
                           sk_error *err)
{
    const uint8_t *mem = bytes_of(s);
    if (mem)
        return in_file(s, n, offset, err) == SK_OK ? mem + offset : NULL;
    return st_read_at(s, buf, n, offset, err) == SK_OK ? buf : NULL;
}

int st_read_at(const sk_store *s, void *buf, size_t n, int64_t offset, sk_error *err)
{
    int rc = in_file(s, n, offset, err);
    if (rc != SK_OK)
        return rc;
    const uint8_t *mem = bytes_of(s);
    if (mem) {
        memcpy(buf, mem + offset, n);
        return SK_OK;
    }
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t got = pread(s->fd, p, n, (off_t)offset);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return sk_fail_errno(err, s->path, errno, "read failed");
        if (got == 0)
            return sk_fail(err, SK_ERR_FORMAT, s->path, offset,
                           "the file ends early (truncated while open?)");
        p += got;
        n -= (size_t)got;
        offset += got;
    }
    return SK_OK;
}

/* What a missing end marker means: a file that starts like ours but does
 * not end like it was cut short (or its write never finished). */
static int no_tail(sk_store *s, sk_error *err)
{
    uint8_t head[8];
    if (s->size >= 8 && st_read_at(s, head, 8, 0, NULL) == SK_OK &&
        memcmp(head, ST_HEADER_MAGIC, 8) == 0)
        return sk_fail(err, SK_ERR_FORMAT, s->path, s->size - 8,
                       "truncated or damaged snapkit file: the end marker is missing");
    return sk_fail(err, SK_ERR_FORMAT, s->path, -1, "not a snapkit file (no end marker)");
}

static int read_tail(sk_store *s, sk_error *err)
{
    if (s->size < ST_HEADER_BYTES + ST_TAIL_BYTES) {
        if (s->size >= 8)
            return no_tail(s, err);
        return sk_fail(err, SK_ERR_FORMAT, s->path, -1,
                       "not a snapkit file (%lld bytes, too short)", (long long)s->size);
    }
    uint8_t tail[ST_TAIL_BYTES];
    int64_t at = s->size - ST_TAIL_BYTES;
    int rc = st_read_at(s, tail, sizeof tail, at, err);
    if (rc != SK_OK)
        return rc;
    if (memcmp(tail + 32, ST_TAIL_MAGIC, 8) != 0)
        return no_tail(s, err);
    uint8_t head[8];
    if ((rc = st_read_at(s, head, 8, 0, err)) != SK_OK)
        return rc;
    if (memcmp(head, ST_HEADER_MAGIC, 8) != 0)
        return sk_fail(err, SK_ERR_FORMAT, s->path, 0,
                       "damaged snapkit file: bad magic (the end marker is right)");
    int major = st_get_u16(tail + 24), minor = st_get_u16(tail + 26);
    if (major > SK_STORE_VERSION_MAJOR)
        return sk_fail(err, SK_ERR_VERSION, s->path, at + 24,
                       "format version %d.%d is newer than this snapkit reads (%d.x); "
                       "upgrade snapkit",
                       major, minor, SK_STORE_VERSION_MAJOR);
    if (major < 1)
        return sk_fail(err, SK_ERR_FORMAT, s->path, at + 24, "format version %d.%d is not valid",
                       major, minor);
    uint64_t off = st_get_u64(tail), len = st_get_u64(tail + 8);
    if (off < ST_HEADER_BYTES || off > (uint64_t)at || len != (uint64_t)at - off)
        return sk_fail(err, SK_ERR_FORMAT, s->path, at,
                       "the footer (bytes %" PRIu64 "..+%" PRIu64 ") does not end where the "
                       "tail starts (byte %lld): truncated or damaged",
                       off, len, (long long)at);
    s->footer_offset = (int64_t)off;
    s->footer_bytes = (int64_t)len;
    uint64_t want = st_get_u64(tail + 16);
    uint8_t *body = sk_malloc((size_t)len + 1);
    if (!body)
        return sk_fail(err, SK_ERR_NOMEM, s->path, -1, "out of memory for a %" PRIu64
                       "-byte footer", len);
    rc = st_read_at(s, body, (size_t)len, (int64_t)off, err);
    if (rc == SK_OK && !s->skip_checksums && st_hash(body, (size_t)len) != want)
        rc = sk_fail(err, SK_ERR_CHECKSUM, s->path, (int64_t)off,
                     "footer checksum mismatch (stored %016" PRIx64 ", computed %016" PRIx64
                     "): the file is damaged",
                     want, st_hash(body, (size_t)len));
    if (rc == SK_OK)
        rc = st_footer_decode(&s->footer, body, (size_t)len, (int64_t)off, (int64_t)off,
                              s->path, err);
    sk_free(body);
    return rc;
}

static int open_common(sk_store *s, const sk_store_open_options *opt, sk_store **out,
                       sk_error *err)
{
    s->skip_checksums = opt && opt->skip_checksums;
    int rc = read_tail(s, err);
    if (rc != SK_OK) {
        sk_store_close(s);
        return rc;
    }
    *out = s;
    return SK_OK;
}

/* A handle read again decodes straight from a read-only mapping of the
 * file: a pread copies every stored byte out of the page cache (a fifth
 * of a warm whole-table read), while a mapping faults each page in once
 * for all the reads of the handle (Python's loops). A handle read once (a
 * command) keeps pread: there a mapping costs a fault per 64 KB, mapping
 * the columns around the ones read too, and an unmap per page (a
 * projection from the 1.1M-cell file: 78 -> 83 ms mapped). The fd stays
 * open, so reads already under way on other threads finish with pread; a
 * second mapping made at the same time is dropped. As with the RAMSES
 * files, a file cut short by another process while mapped would end the
 * process (SIGBUS); ours are written beside and renamed. */
void st_read_begins(sk_store *s)
{
    st_checks_read_begins(s);
    if (s->fd < 0 || __atomic_fetch_add(&s->reads, 1, __ATOMIC_RELAXED) < 1 || bytes_of(s) ||
        s->size <= 0 || (uint64_t)s->size > SIZE_MAX)
        return;
    void *p = mmap(NULL, (size_t)s->size, PROT_READ, MAP_PRIVATE, s->fd, 0);
    if (p == MAP_FAILED)
        return;
    const uint8_t *none = NULL;
    if (__atomic_compare_exchange_n(&s->mem, &none, (const uint8_t *)p, 0, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED))
        s->mapped = (size_t)s->size;
    else
        munmap(p, (size_t)s->size);
}

int sk_store_open(sk_store **out, const char *path, const sk_store_open_options *opt,
                  sk_error *err)
{
    *out = NULL;
    sk_store *s = sk_calloc(1, sizeof *s);
    if (!s || !(s->path = sk_strdup(path))) {
        sk_free(s);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    struct stat st;
    int rc = sk_open_regular(path, &s->fd, &st, err);
    if (rc != SK_OK) {
        s->fd = -1;
        sk_store_close(s);
        return rc;
    }
    s->size = (int64_t)st.st_size;
    st_checks_init(s, &st);
    return open_common(s, opt, out, err);
}

int sk_store_open_memory(sk_store **out, const void *data, size_t size, const char *name,
                         const sk_store_open_options *opt, sk_error *err)
{
    *out = NULL;
    sk_store *s = sk_calloc(1, sizeof *s);
    if (!s || !(s->path = sk_strdup(name ? name : "<memory>"))) {
        sk_free(s);
        return sk_fail(err, SK_ERR_NOMEM, name, -1, "out of memory");
    }
    s->fd = -1;
    s->mem = data;
    s->size = (int64_t)size;
    st_checks_init(s, NULL);
    return open_common(s, opt, out, err);
}

void sk_store_close(sk_store *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->mapped)
        munmap((void *)s->mem, s->mapped);
    st_footer_clear(&s->footer);
    pthread_mutex_destroy(&s->checks_lock);
    sk_free(s->path);
    sk_free(s);
}

int sk_store_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

void sk_store_get_file_info(const sk_store *s, sk_store_file_info *out)
{
    out->version_major = s->footer.major;
    out->version_minor = s->footer.minor;
    out->ntables = s->footer.ntables;
    out->file_bytes = s->size;
    out->footer_bytes = s->footer_bytes;
}

int sk_store_table_index(const sk_store *s, const char *name)
{
    for (int i = 0; i < s->footer.ntables; i++)
        if (strcmp(s->footer.tables[i].name, name) == 0)
            return i;
    return -1;
}

const st_table *st_find_table(const sk_store *s, const char *name, sk_error *err)
{
    int i = sk_store_table_index(s, name);
    if (i >= 0)
        return &s->footer.tables[i];
    char list[512] = "";
    size_t n = 0;
    for (int k = 0; k < s->footer.ntables && n < sizeof list; k++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "",
                              s->footer.tables[k].name);
    sk_fail(err, SK_ERR_ARG, s->path, -1, "no table %s in this file (it holds: %s)", name,
            s->footer.ntables ? list : "nothing");
    return NULL;
}

int sk_store_get_table_info(const sk_store *s, int i, sk_store_table_info *out, sk_error *err)
{
    if (i < 0 || i >= s->footer.ntables)
        return sk_fail(err, SK_ERR_ARG, s->path, -1, "no table %d (the file holds %d)", i,
                       s->footer.ntables);
    const st_table *t = &s->footer.tables[i];
    memset(out, 0, sizeof *out);
    out->name = t->name;
    out->geometry = (sk_store_geometry)t->geometry;
    out->has_refined = (t->flags & ST_TABLE_HAS_REFINED) != 0;
    out->ncols = t->ncols;
    out->rows = t->nrows;
    out->chunks = t->nchunks;
    out->curve_bits = t->curve_bits;
    out->level_min = t->nchunks ? 255 : 0;
    /* Refined cells at a recorded level cap are the capped output's leaves. */
    int cap = (int)sk_table_meta_double(t->schema, "selection.lmax", 0);
    for (int64_t c = 0; c < t->nchunks; c++) {
        const st_chunk *ch = &t->chunks[c];
        if (ch->kind == ST_KIND_REFINED && !(cap > 0 && ch->level_min >= cap)) {
            out->refined_rows += ch->nrows;
            out->refined_chunks++;
        }
        if (ch->level_min < out->level_min)
            out->level_min = ch->level_min;
        if (ch->level_max > out->level_max)
            out->level_max = ch->level_max;
        for (int j = 0; j < t->ncols; j++) {
            const st_cc *cc = st_cc_at(t, c, j);
            out->bytes_stored += cc->stored;
            out->bytes_raw += ch->nrows * (int64_t)sk_dtype_size(sk_table_col(t->schema, j)->type);
            out->compressed_columns += cc->codec == ST_CODEC_LZ4;
        }
    }
    return SK_OK;
}

int sk_store_meta_count(const sk_store *s) { return sk_table_meta_count(s->footer.meta); }
const char *sk_store_meta_key(const sk_store *s, int i) { return sk_table_meta_key(s->footer.meta, i); }
const char *sk_store_meta_value(const sk_store *s, int i)
{
    return sk_table_meta_value(s->footer.meta, i);
}

/* Does the plan take every leaf row whole: no box or level cap that
 * drops a row, no family filter? */
static int takes_every_leaf(const st_plan *p, const sk_selection *sel)
{
    if (sel && sel->has_family)
        return 0;
    int64_t leaves = 0;
    for (int64_t ci = 0; ci < p->t->nchunks; ci++)
        leaves += p->t->chunks[ci].kind == ST_KIND_ROWS;
    for (int64_t i = 0; i < p->nchunks; i++)
        if (p->chunks[i].partial)
            return 0;
    return p->nchunks == leaves;
}

int sk_store_stored_stats(const sk_store *s, const char *name, const sk_selection *sel,
                          sk_table_stats *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    const st_table *t = st_find_table(s, name, err);
    if (!t)
        return SK_ERR_ARG;
    if (!t->stats)
        return sk_fail(err, SK_ERR_EMPTY, s->path, -1,
                       "table %s: the file stores no statistics (format %d.%d)", name,
                       s->footer.major, s->footer.minor);
    st_plan plan;
    int rc = st_plan_make(&plan, s, t, sel, 0, err);
    if (rc != SK_OK)
        return rc;
    if (!takes_every_leaf(&plan, sel)) {
        st_plan_free(&plan);
        return sk_fail(err, SK_ERR_EMPTY, s->path, -1,
                       "table %s: the selection keeps part of the rows; their statistics are "
                       "not stored", name);
    }
    *out = *t->stats;
    out->ncols = plan.nout;
    out->cols = sk_malloc(((size_t)plan.nout + 1) * sizeof *out->cols);
    if (!out->cols) {
        st_plan_free(&plan);
        memset(out, 0, sizeof *out);
        return sk_fail(err, SK_ERR_NOMEM, s->path, -1, "out of memory");
    }
    for (int k = 0; k < plan.nout; k++)
        out->cols[k] = t->stats->cols[plan.out[k]];
    st_plan_free(&plan);
    return SK_OK;
}

int sk_store_describe(const sk_store *s, const char *name, sk_table **out, sk_error *err)
{
    *out = NULL;
    const st_table *t = st_find_table(s, name, err);
    if (!t)
        return SK_ERR_ARG;
    sk_table *d = sk_table_new(0);
    int rc = d && sk_table_meta_copy(d, t->schema) == SK_OK ? SK_OK : SK_ERR_NOMEM;
    for (int j = 0; j < t->ncols && rc == SK_OK; j++) {
        const sk_column *c = sk_table_col(t->schema, j);
        if (!sk_table_add(d, c->name, c->type, err))
            rc = SK_ERR_NOMEM;
        else if (c->type == SK_CATEGORY)
            rc = sk_table_set_labels(d, c->name, (const char *const *)c->labels, c->nlabels,
                                     err);
    }
    if (rc != SK_OK) {
        sk_table_free(d);
        return sk_fail(err, SK_ERR_NOMEM, s->path, -1, "out of memory");
    }
    *out = d;
    return SK_OK;
}

int st_decode_cc(const sk_store *s, const st_table *t, int64_t ci, int j, const uint8_t *stored,
                 void *dst, uint8_t *scratch, sk_error *err)
{
    const st_cc *cc = st_cc_at(t, ci, j);
    const sk_column *col = sk_table_col(t->schema, j);
    int rc = st_check_hash(s, t, ci, j, stored, err);
    if (rc != SK_OK)
        return rc;
    char why[256];
    if (st_decode(col->type, cc, t->chunks[ci].nrows, stored, dst, scratch, why, sizeof why)) {
        sk_fail(err, SK_ERR_FORMAT, s->path, cc->offset, "table %s, chunk %lld of %lld, column %s: %s",
                t->name, (long long)ci + 1, (long long)t->nchunks, col->name, why);
        if (err)
            err->record = ci + 1;
        return SK_ERR_FORMAT;
    }
    return SK_OK;
}
