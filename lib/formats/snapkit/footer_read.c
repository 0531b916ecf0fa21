/* Checked decoding of the footer for the reader. Every count read from the
 * file is checked against the bytes left before anything is allocated for
 * it, so a damaged footer fails cleanly. */
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/store.h"
#include "formats/snapkit/format.h"
#include "formats/snapkit/order.h"

typedef struct cursor {
    const uint8_t *base;
    size_t pos, end;
    int64_t file_offset; /* of base[0] */
    const char *path;
    sk_error *err;
    int failed;
    int code; /* the failure's status */
} cursor;

static int bad(cursor *c, sk_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(cursor *c, sk_status code, const char *fmt, ...)
{
    if (c->failed)
        return c->code;
    c->failed = 1;
    c->code = code;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return sk_fail(c->err, code, c->path, c->file_offset + (int64_t)c->pos,
                   "footer: %s", text);
}

static const uint8_t *take(cursor *c, size_t n, const char *what)
{
    if (c->failed)
        return NULL;
    if (n > c->end - c->pos) {
        bad(c, SK_ERR_FORMAT, "%s runs past the end of its record", what);
        return NULL;
    }
    const uint8_t *p = c->base + c->pos;
    c->pos += n;
    return p;
}

static uint8_t get_u8(cursor *c, const char *what)
{
    const uint8_t *p = take(c, 1, what);
    return p ? *p : 0;
}
static uint16_t get_u16(cursor *c, const char *what)
{
    const uint8_t *p = take(c, 2, what);
    return p ? st_get_u16(p) : 0;
}
static uint32_t get_u32(cursor *c, const char *what)
{
    const uint8_t *p = take(c, 4, what);
    return p ? st_get_u32(p) : 0;
}
static uint64_t get_u64(cursor *c, const char *what)
{
    const uint8_t *p = take(c, 8, what);
    return p ? st_get_u64(p) : 0;
}

/* A new NUL-terminated copy, or NULL (c->failed set). */
static char *get_str(cursor *c, const char *what)
{
    uint32_t n = get_u32(c, what);
    const uint8_t *p = take(c, n, what);
    if (!p)
        return NULL;
    if (memchr(p, '\0', n)) {
        bad(c, SK_ERR_FORMAT, "%s holds a NUL byte", what);
        return NULL;
    }
    char *s = sk_strndup((const char *)p, n);
    if (!s)
        bad(c, SK_ERR_NOMEM, "out of memory");
    return s;
}

/* A count of items of at least min_bytes each that must fit in what is left. */
static uint64_t get_count(cursor *c, size_t min_bytes, const char *what)
{
    uint64_t n = get_u64(c, what);
    if (!c->failed && min_bytes && n > (c->end - c->pos) / min_bytes) {
        bad(c, SK_ERR_FORMAT, "%s (%llu) is more than the footer can hold", what,
            (unsigned long long)n);
        return 0;
    }
    return n;
}
static uint32_t get_count32(cursor *c, size_t min_bytes, const char *what)
{
    uint32_t n = get_u32(c, what);
    if (!c->failed && min_bytes && n > (c->end - c->pos) / min_bytes) {
        bad(c, SK_ERR_FORMAT, "%s (%u) is more than the footer can hold", what, n);
        return 0;
    }
    return n;
}

static int get_meta(cursor *c, sk_table *dst)
{
    uint32_t n = get_count32(c, 8, "metadata count");
    for (uint32_t i = 0; i < n && !c->failed; i++) {
        char *k = get_str(c, "metadata key");
        char *v = k ? get_str(c, "metadata value") : NULL;
        if (v && sk_table_meta_set(dst, k, v) != SK_OK)
            bad(c, SK_ERR_NOMEM, "out of memory");
        sk_free(k);
        sk_free(v);
    }
    return c->failed ? c->code : SK_OK;
}

static int get_column(cursor *c, st_table *t, int j)
{
    char *name = get_str(c, "column name");
    uint8_t type = get_u8(c, "column type");
    take(c, 3, "column type");
    uint32_t nlabels = get_count32(c, 4, "label count");
    if (c->failed) {
        sk_free(name);
        return c->code;
    }
    if (sk_dtype_size((sk_dtype)type) == 0) {
        sk_free(name);
        return bad(c, SK_ERR_FORMAT, "table %s, column %d: unknown type %u", t->name, j + 1,
                   type);
    }
    if (sk_table_find(t->schema, name)) {
        bad(c, SK_ERR_FORMAT, "table %s: two columns are called %s", t->name, name);
        sk_free(name);
        return c->code;
    }
    if (!sk_table_add(t->schema, name, (sk_dtype)type, NULL)) {
        sk_free(name);
        return bad(c, SK_ERR_NOMEM, "out of memory");
    }
    int rc = SK_OK;
    if (type == SK_CATEGORY) {
        char **labels = sk_calloc(nlabels ? nlabels : 1, sizeof *labels);
        if (!labels)
            bad(c, SK_ERR_NOMEM, "out of memory");
        for (uint32_t k = 0; labels && k < nlabels && !c->failed; k++)
            labels[k] = get_str(c, "label");
        if (!c->failed && sk_table_set_labels(t->schema, name, (const char *const *)labels,
                                              (int32_t)nlabels, NULL) != SK_OK)
            bad(c, SK_ERR_NOMEM, "out of memory");
        for (uint32_t k = 0; labels && k < nlabels; k++)
            sk_free(labels[k]);
        sk_free(labels);
    } else if (nlabels) {
        bad(c, SK_ERR_FORMAT, "table %s, column %s: labels on a %s column", t->name, name,
            sk_dtype_name((sk_dtype)type));
    }
    sk_free(name);
    return c->failed ? c->code : rc;
}

static int check_geometry(cursor *c, const st_table *t)
{
    static const char *const cells[4] = {"level", "cx", "cy", "cz"};
    if (t->geometry == SK_STORE_CELLS) {
        int dims = (int)sk_table_meta_double(t->schema, "ndim", 3.0);
        for (int k = 0; k <= (dims == 1 || dims == 2 ? dims : 3); k++) {
            const sk_column *col = sk_table_find(t->schema, cells[k]);
            if (!col || col->type != SK_INT32)
                return bad(c, SK_ERR_FORMAT, "table %s: cell table without int32 column %s",
                           t->name, cells[k]);
        }
        if (!st_cell_dims(t->schema))
            return bad(c, SK_ERR_FORMAT, "table %s: cell table with index columns for %s axes "
                       "but metadata ndim %d", t->name,
                       sk_table_find(t->schema, "cz") ? "3" : "fewer", dims);
    } else if (t->geometry == SK_STORE_POINTS) {
        int pos[3];
        if (!st_point_columns(t->schema, pos))
            return bad(c, SK_ERR_FORMAT,
                       "table %s: point table without float position columns (%s)", t->name,
                       sk_table_meta_get(t->schema, "position_columns")
                           ? sk_table_meta_get(t->schema, "position_columns")
                           : "position_x,position_y,position_z");
    } else if (t->geometry != SK_STORE_ROWS) {
        return bad(c, SK_ERR_FORMAT, "table %s: unknown geometry %d", t->name, t->geometry);
    }
    if (t->curve_bits > 21)
        return bad(c, SK_ERR_FORMAT, "table %s: curve bits %d above 21", t->name,
                   t->curve_bits);
    return SK_OK;
}

/* One chunk-column entry: known codec and encoding, sizes that agree with
 * the row count, bytes inside the data area. */
static int check_cc(cursor *c, const st_table *t, int64_t ci, int j, int64_t data_end)
{
    const st_cc *cc = st_cc_at(t, ci, j);
    const sk_column *col = sk_table_col(t->schema, j);
    int64_t nrows = t->chunks[ci].nrows;
    size_t size = sk_dtype_size(col->type);
#define BAD_CC(...)                                                                      \
    do {                                                                                 \
        char what_[512];                                                                 \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                      \
        bad(c, SK_ERR_FORMAT, "table %s, chunk %lld of %lld, column %s: %s", t->name,    \
            (long long)ci + 1, (long long)t->nchunks, col->name, what_);                 \
        if (c->err)                                                                      \
            c->err->record = ci + 1;                                                     \
        return SK_ERR_FORMAT;                                                            \
    } while (0)
    if (cc->codec > ST_CODEC_LZ4)
        BAD_CC("unknown codec %u (written by a newer snapkit?)", cc->codec);
    int is_int = sk_dtype_is_integer(col->type) || col->type == SK_CATEGORY;
    if (cc->encoding == ST_ENC_FOR) {
        if (!is_int)
            BAD_CC("frame-of-reference encoding on a %s column", sk_dtype_name(col->type));
        if (cc->width != 0 && cc->width != 1 && cc->width != 2 && cc->width != 4 &&
            cc->width != 8)
            BAD_CC("integer width %u is not 0, 1, 2, 4 or 8", cc->width);
    } else if (cc->encoding == ST_ENC_PLAIN || cc->encoding == ST_ENC_SHUFFLE) {
        if (cc->width != size)
            BAD_CC("width %u for a %s column", cc->width, sk_dtype_name(col->type));
    } else {
        BAD_CC("unknown encoding %u (written by a newer snapkit?)", cc->encoding);
    }
    int64_t raw = nrows * cc->width;
    if (cc->codec == ST_CODEC_RAW && cc->stored != raw)
        BAD_CC("%lld bytes stored raw, but %lld rows of width %u make %lld",
               (long long)cc->stored, (long long)nrows, cc->width, (long long)raw);
    if (cc->codec == ST_CODEC_LZ4 &&
        (cc->stored <= 0 || raw > LZ4_MAX_INPUT_SIZE || cc->stored > LZ4_compressBound((int)raw)))
        BAD_CC("%lld LZ4 bytes cannot hold %lld bytes", (long long)cc->stored, (long long)raw);
    if (cc->offset < ST_HEADER_BYTES || cc->stored < 0 || cc->offset > data_end ||
        cc->stored > data_end - cc->offset)
        BAD_CC("bytes %lld..%lld lie outside the data area (%d..%lld)",
               (long long)cc->offset, (long long)cc->offset + cc->stored, ST_HEADER_BYTES,
               (long long)data_end);
#undef BAD_CC
    return SK_OK;
}

static int get_chunk(cursor *c, st_table *t, int64_t ci, size_t chunk_bytes, size_t cc_bytes,
                     int64_t data_end)
{
    st_chunk *ch = &t->chunks[ci];
    size_t start = c->pos;
    uint64_t nrows = get_u64(c, "chunk rows");
    ch->kind = get_u8(c, "chunk kind");
    ch->level_min = get_u8(c, "chunk level");
    ch->level_max = get_u8(c, "chunk level");
    ch->flags = get_u8(c, "chunk flags");
    get_u32(c, "chunk");
    for (int a = 0; a < 3; a++)
        ch->lo[a] = st_bits_f64(get_u64(c, "chunk box"));
    for (int a = 0; a < 3; a++)
        ch->hi[a] = st_bits_f64(get_u64(c, "chunk box"));
    if (c->failed)
        return c->code;
    c->pos = start + chunk_bytes; /* skip fields of newer minor versions */
    if (nrows == 0 || nrows > ST_MAX_CHUNK_ROWS)
        return bad(c, SK_ERR_FORMAT, "table %s, chunk %lld: %llu rows (1..%d allowed)", t->name,
                   (long long)ci + 1, (unsigned long long)nrows, ST_MAX_CHUNK_ROWS);
    if (ch->kind > ST_KIND_REFINED || ch->level_min > ch->level_max ||
        ch->level_max > ST_MAX_LEVEL)
        return bad(c, SK_ERR_FORMAT, "table %s, chunk %lld: bad kind %u or levels %u..%u",
                   t->name, (long long)ci + 1, ch->kind, ch->level_min, ch->level_max);
    if (ch->kind == ST_KIND_REFINED && !(t->flags & ST_TABLE_HAS_REFINED))
        return bad(c, SK_ERR_FORMAT, "table %s, chunk %lld: refined cells (kind 1) in a table whose "
                   "flags say it stores none",
                   t->name, (long long)ci + 1);
    if (t->geometry != SK_STORE_ROWS && !(ch->flags & ST_CHUNK_HAS_BBOX))
        return bad(c, SK_ERR_FORMAT, "table %s, chunk %lld: no bounding box", t->name,
                   (long long)ci + 1);
    ch->nrows = (int64_t)nrows;
    ch->row0 = ci ? t->chunks[ci - 1].row0 + t->chunks[ci - 1].nrows : 0;
    for (int j = 0; j < t->ncols; j++) {
        st_cc *cc = st_cc_at(t, ci, j);
        size_t cstart = c->pos;
        cc->offset = (int64_t)get_u64(c, "chunk offset");
        cc->stored = (int64_t)get_u64(c, "chunk size");
        cc->codec = get_u8(c, "codec");
        cc->encoding = get_u8(c, "encoding");
        cc->width = get_u8(c, "width");
        take(c, 5, "chunk column");
        cc->min = get_u64(c, "minimum");
        cc->max = get_u64(c, "maximum");
        cc->hash = get_u64(c, "checksum");
        if (c->failed)
            return c->code;
        c->pos = cstart + cc_bytes;
        int rc = check_cc(c, t, ci, j, data_end);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

static int get_chunks(cursor *c, st_table *t, int64_t data_end)
{
    uint32_t chunk_bytes = get_u32(c, "chunk header size");
    uint32_t cc_bytes = get_u32(c, "chunk column size");
    if (!c->failed && (chunk_bytes < ST_CHUNK_HEADER_BYTES || cc_bytes < ST_CHUNK_COLUMN_BYTES))
        return bad(c, SK_ERR_FORMAT, "table %s: chunk entries of %u and %u bytes are too small",
                   t->name, chunk_bytes, cc_bytes);
    size_t per_chunk = chunk_bytes + (size_t)cc_bytes * (size_t)t->ncols;
    uint64_t n = get_count(c, per_chunk, "chunk count");
    if (c->failed)
        return c->code;
    t->chunks = sk_calloc(n ? n : 1, sizeof *t->chunks);
    t->cc = sk_calloc(n * (uint64_t)t->ncols + 1, sizeof *t->cc);
    if (!t->chunks || !t->cc)
        return bad(c, SK_ERR_NOMEM, "out of memory for %llu chunks", (unsigned long long)n);
    t->nchunks = (int64_t)n;
    for (int64_t ci = 0; ci < t->nchunks; ci++) {
        int rc = get_chunk(c, t, ci, chunk_bytes, cc_bytes, data_end);
        if (rc != SK_OK)
            return rc;
    }
    int64_t rows = t->nchunks ? t->chunks[t->nchunks - 1].row0 + t->chunks[t->nchunks - 1].nrows : 0;
    if (rows != t->nrows)
        return bad(c, SK_ERR_FORMAT, "table %s: chunks hold %lld rows, the table %lld", t->name,
                   (long long)rows, (long long)t->nrows);
    return SK_OK;
}

/* Rows of the table's leaf chunks (kind 0): what its statistics cover. */
static int64_t leaf_rows(const st_table *t)
{
    int64_t rows = 0;
    for (int64_t ci = 0; ci < t->nchunks; ci++)
        if (t->chunks[ci].kind == ST_KIND_ROWS)
            rows += t->chunks[ci].nrows;
    return rows;
}

/* The per-column f64s of one statistics entry. */
static void get_column_stats(cursor *c, sk_column_stats *cs)
{
    double *v[6] = {&cs->min, &cs->max, &cs->sum, &cs->abs_sum, &cs->volume_sum,
                    &cs->abs_volume_sum};
    for (int k = 0; k < 6; k++)
        *v[k] = st_bits_f64(get_u64(c, "column statistics"));
}

/* The statistics block of a 1.1 table record (section 4), checked against
 * the chunks: its rows are the leaf rows, its levels add up to them. */
static int get_stats(cursor *c, st_table *t)
{
    uint32_t size = get_u32(c, "statistics size");
    if (c->failed || size == 0)
        return c->failed ? c->code : SK_OK;
    size_t end = c->pos + size;
    if (size > c->end - c->pos)
        return bad(c, SK_ERR_FORMAT, "table %s: statistics of %u bytes run past its record",
                   t->name, size);
    sk_table_stats *s = t->stats = sk_calloc(1, sizeof *s);
    if (!s)
        return bad(c, SK_ERR_NOMEM, "out of memory");
    s->rows = (int64_t)get_u64(c, "statistics rows");
    uint32_t flags = get_u32(c, "statistics flags");
    uint32_t nlevels = get_u32(c, "statistics level count");
    if (!c->failed &&
        (s->rows != leaf_rows(t) || flags > 1 || nlevels > SK_STATS_MAX_LEVEL + 1 ||
         (flags == 0 && nlevels > 0) ||
         (uint64_t)size != ST_STATS_HEAD_BYTES + 8 * (uint64_t)nlevels +
                               ST_STATS_COLUMN_BYTES * (uint64_t)t->ncols))
        return bad(c, SK_ERR_FORMAT,
                   "table %s: statistics of %u bytes for %lld rows and %u levels do not fit "
                   "its %d columns and %lld rows",
                   t->name, size, (long long)s->rows, nlevels, t->ncols,
                   (long long)leaf_rows(t));
    s->is_cells = (int)(flags & 1);
    uint64_t level_rows = 0; /* each count at most the rows: the sum cannot wrap */
    for (uint32_t l = 0; l < nlevels; l++) {
        uint64_t n = get_u64(c, "statistics level rows");
        s->levels[l] = (int64_t)n;
        if (n > (uint64_t)s->rows)
            return bad(c, SK_ERR_FORMAT, "table %s: statistics count %llu rows at level %u, "
                       "more than the table's %lld", t->name, (unsigned long long)n, l,
                       (long long)s->rows);
        level_rows += n;
    }
    if (!c->failed && s->is_cells && level_rows != (uint64_t)s->rows)
        return bad(c, SK_ERR_FORMAT, "table %s: statistics count %lld rows by level, not %lld",
                   t->name, (long long)level_rows, (long long)s->rows);
    s->cols = sk_calloc((size_t)t->ncols + 1, sizeof *s->cols);
    if (!s->cols)
        return bad(c, SK_ERR_NOMEM, "out of memory");
    s->ncols = t->ncols;
    for (int j = 0; j < t->ncols && !c->failed; j++) {
        s->cols[j].name = sk_table_col(t->schema, j)->name;
        s->cols[j].is_cell_index = (int)(get_u32(c, "column statistics flags") & 1);
        get_u32(c, "column statistics");
        get_column_stats(c, &s->cols[j]);
    }
    c->pos = end;
    return c->failed ? c->code : SK_OK;
}

static int get_table(cursor *c, st_footer *f, int64_t data_end)
{
    size_t start = c->pos;
    uint64_t len = get_u64(c, "table record length");
    if (c->failed)
        return c->code;
    if (len < 8 || len > c->end - start)
        return bad(c, SK_ERR_FORMAT, "table record of %llu bytes does not fit the footer",
                   (unsigned long long)len);
    size_t saved_end = c->end;
    c->end = start + (size_t)len;
    st_table *t = &f->tables[f->ntables++];
    t->name = get_str(c, "table name");
    t->geometry = get_u8(c, "geometry");
    t->flags = get_u8(c, "table flags");
    t->curve_bits = get_u8(c, "curve bits");
    get_u8(c, "table");
    t->nrows = (int64_t)get_u64(c, "table rows");
    t->ncols = (int)get_count32(c, 12, "column count");
    if (c->failed)
        return c->code;
    if (t->nrows < 0)
        return bad(c, SK_ERR_FORMAT, "table %s: negative row count", t->name);
    for (int i = 0; i < f->ntables - 1; i++)
        if (strcmp(f->tables[i].name, t->name) == 0)
            return bad(c, SK_ERR_FORMAT, "two tables are called %s", t->name);
    t->schema = sk_table_new(0);
    if (!t->schema)
        return bad(c, SK_ERR_NOMEM, "out of memory");
    for (int j = 0; j < t->ncols; j++) {
        int rc = get_column(c, t, j);
        if (rc != SK_OK)
            return rc;
    }
    int rc = get_meta(c, t->schema);
    if (rc == SK_OK)
        rc = check_geometry(c, t);
    if (rc == SK_OK)
        rc = get_chunks(c, t, data_end);
    if (rc == SK_OK && f->minor >= 1)
        rc = get_stats(c, t);
    if (rc != SK_OK)
        return rc;
    c->pos = c->end; /* skip fields of newer minor versions */
    c->end = saved_end;
    return SK_OK;
}

int st_footer_decode(st_footer *f, const uint8_t *body, size_t size, int64_t body_offset,
                     int64_t data_end, const char *path, sk_error *err)
{
    memset(f, 0, sizeof *f);
    cursor c = {.base = body, .end = size, .file_offset = body_offset, .path = path, .err = err};
    f->major = get_u16(&c, "version");
    f->minor = get_u16(&c, "version");
    get_u32(&c, "flags");
    if (c.failed)
        return c.code;
    if (f->major != SK_STORE_VERSION_MAJOR)
        return sk_fail(err, SK_ERR_VERSION, path, body_offset,
                       "footer: format version %d.%d, this snapkit reads %d.x", f->major,
                       f->minor, SK_STORE_VERSION_MAJOR);
    f->meta = sk_table_new(0);
    if (!f->meta)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    int rc = get_meta(&c, f->meta);
    uint32_t n = rc == SK_OK ? get_count32(&c, 8, "table count") : 0;
    if (rc == SK_OK && !c.failed) {
        f->tables = sk_calloc(n ? n : 1, sizeof *f->tables);
        if (!f->tables)
            rc = bad(&c, SK_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n && rc == SK_OK && !c.failed; i++)
        rc = get_table(&c, f, data_end);
    if (rc == SK_OK && c.failed)
        rc = c.code;
    if (rc != SK_OK)
        st_footer_clear(f);
    return rc;
}
