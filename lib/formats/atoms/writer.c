/* Ordered output of text formatted in parallel: each thread formats a
 * piece of rows into its own buffer (and gzips it into a member when the
 * file is .gz); the pieces are written to the temporary file in row order
 * as they complete. */
#include <fcntl.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "core/atomicfile.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

#define PIECE_TARGET (4 << 20) /* bytes of text per piece */

struct out_sink {
    sk_atomic_file *file;
    char *path;
    int gzip_level; /* 0: plain */
    int threads;
};

int at_sink_open(out_sink **out, const char *path, int gzip_level, int threads, int fsync_on,
                 sk_error *err)
{
    *out = NULL;
    out_sink *s = sk_calloc(1, sizeof *s);
    if (!s || !(s->path = sk_strdup(path))) {
        sk_free(s);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    int rc = sk_atomic_open(&s->file, path, err);
    if (rc != SK_OK) {
        sk_free(s->path);
        sk_free(s);
        return rc;
    }
    sk_atomic_set_fsync(s->file, fsync_on);
    s->gzip_level = gzip_level;
    s->threads = threads > 0 ? threads : 1;
    *out = s;
    return SK_OK;
}

/* Write bytes that are already final (plain, or a gzip member), and start
 * their writeback now so that the fsync of the commit finds little left. */
static int put_raw(out_sink *s, const void *data, size_t n, sk_error *err)
{
    if (n == 0)
        return SK_OK;
    int64_t at = sk_atomic_tell(s->file);
    int rc = sk_atomic_write(s->file, data, n, err);
#ifdef SYNC_FILE_RANGE_WRITE
    if (rc == SK_OK && n >= (1u << 20))
        sync_file_range(sk_atomic_fd(s->file), at, (off_t)n, SYNC_FILE_RANGE_WRITE);
#else
    (void)at;
#endif
    return rc;
}

int at_sink_write(out_sink *s, const void *data, size_t n, sk_error *err)
{
    if (!s->gzip_level || n == 0)
        return put_raw(s, data, n, err);
    char *member;
    size_t m;
    int rc = at_gzip_member(s->path, data, n, s->gzip_level, &member, &m, err);
    if (rc == SK_OK)
        rc = put_raw(s, member, m, err);
    sk_free(member);
    return rc;
}

static void free_sink(out_sink *s)
{
    sk_free(s->path);
    sk_free(s);
}

int at_sink_commit(out_sink *s, sk_error *err)
{
    int rc = sk_atomic_commit(s->file, err);
    free_sink(s);
    return rc;
}

void at_sink_abort(out_sink *s)
{
    if (!s)
        return;
    sk_atomic_abort(s->file);
    free_sink(s);
}

/* ---- rows ------------------------------------------------------------- */

int at_out_field_for(const sk_column *c, out_field *f, sk_error *err)
{
    memset(f, 0, sizeof *f);
    f->data = c->data;
    f->type = c->type;
    if (c->type == SK_CATEGORY) {
        f->labels = c->labels;
        f->nlabels = c->nlabels;
    }
    if (sk_dtype_size(c->type) == 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "column %s has an unknown type", c->name);
    return SK_OK;
}

static size_t field_width(const out_field *f)
{
    switch (f->type) {
    case SK_FLOAT64:
    case SK_FLOAT32: return SK_NUMBER_BUFSIZE;
    case SK_INT64:
    case SK_UINT64: return 21;
    case SK_CATEGORY: {
        size_t w = 1;
        for (int32_t i = 0; i < f->nlabels; i++) {
            size_t n = strlen(f->labels[i]);
            w = n > w ? n : w;
        }
        return w;
    }
    default: return 12;
    }
}

static char *put_uint(char *p, uint64_t u)
{
    char tmp[24];
    char *e = tmp + sizeof tmp, *q = e;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    memcpy(p, q, (size_t)(e - q));
    return p + (e - q);
}

static char *put_int(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_uint(p, 0 - (uint64_t)v);
    }
    return put_uint(p, (uint64_t)v);
}

/* One value; NULL when a category code has no label. */
static char *put_value(char *p, const out_field *f, int64_t r)
{
    switch (f->type) {
    case SK_FLOAT64: return p + number_format_double(((const double *)f->data)[r], p);
    case SK_FLOAT32: return p + number_format_double(((const float *)f->data)[r], p);
    case SK_INT64: return put_int(p, ((const int64_t *)f->data)[r]);
    case SK_UINT64: return put_uint(p, ((const uint64_t *)f->data)[r]);
    case SK_INT32: return put_int(p, ((const int32_t *)f->data)[r]);
    case SK_UINT32: return put_uint(p, ((const uint32_t *)f->data)[r]);
    case SK_INT16: return put_int(p, ((const int16_t *)f->data)[r]);
    case SK_UINT16: return put_uint(p, ((const uint16_t *)f->data)[r]);
    case SK_INT8: return put_int(p, ((const int8_t *)f->data)[r]);
    case SK_UINT8:
        if (f->as_bool) {
            *p++ = ((const uint8_t *)f->data)[r] ? 'T' : 'F';
            return p;
        }
        return put_uint(p, ((const uint8_t *)f->data)[r]);
    case SK_CATEGORY: {
        int32_t code = ((const int32_t *)f->data)[r];
        if (code < 0 || code >= f->nlabels)
            return NULL;
        size_t n = strlen(f->labels[code]);
        memcpy(p, f->labels[code], n);
        return p + n;
    }
    }
    return NULL;
}

/* Rows [r0, r1) into buf; returns the length or -1 on a bad category code. */
static int64_t format_rows(const out_field *fields, int nfields, int64_t r0, int64_t r1,
                           char *buf)
{
    char *p = buf;
    for (int64_t r = r0; r < r1; r++) {
        for (int i = 0; i < nfields; i++) {
            p = put_value(p, &fields[i], r);
            if (!p)
                return -1;
            *p++ = i + 1 < nfields ? ' ' : '\n';
        }
    }
    return p - buf;
}

int at_sink_rows(out_sink *s, const out_field *fields, int nfields, int64_t nrows, sk_error *err)
{
    if (nrows == 0 || nfields == 0)
        return SK_OK;
    size_t row_max = 1;
    for (int i = 0; i < nfields; i++)
        row_max += field_width(&fields[i]) + 1;
    int64_t rows_per_piece = (int64_t)(PIECE_TARGET / row_max) + 1;
    int64_t npieces = (nrows + rows_per_piece - 1) / rows_per_piece;
    int nt = s->threads < npieces ? s->threads : (int)npieces;
    int failed = 0;
    sk_error first;
    sk_error_clear(&first);
#pragma omp parallel num_threads(nt)
    {
        char *buf = sk_malloc((size_t)rows_per_piece * row_max);
        sk_error mine;
        sk_error_clear(&mine);
        if (!buf)
            sk_fail(&mine, SK_ERR_NOMEM, s->path, -1, "out of memory formatting rows");
#pragma omp for ordered schedule(dynamic, 1)
        for (int64_t i = 0; i < npieces; i++) {
            int64_t r0 = i * rows_per_piece;
            int64_t r1 = r0 + rows_per_piece < nrows ? r0 + rows_per_piece : nrows;
            int64_t len = 0;
            char *member = NULL;
            size_t mlen = 0;
            int skip;
#pragma omp atomic read
            skip = failed;
            if (!skip && mine.code == SK_OK) {
                len = format_rows(fields, nfields, r0, r1, buf);
                if (len < 0)
                    sk_fail(&mine, SK_ERR_ARG, s->path, -1,
                            "a category column holds a code without a label (row %lld..)",
                            (long long)r0);
                else if (s->gzip_level)
                    at_gzip_member(s->path, buf, (size_t)len, s->gzip_level, &member, &mlen, &mine);
            }
#pragma omp ordered
            {
                if (mine.code != SK_OK) {
#pragma omp critical(sk_sink_error)
                    sk_error_keep_first(&first, &mine);
#pragma omp atomic write
                    failed = 1;
                } else if (!failed) {
                    int rc = s->gzip_level ? put_raw(s, member, mlen, &mine)
                                           : put_raw(s, buf, (size_t)len, &mine);
                    if (rc != SK_OK) {
#pragma omp critical(sk_sink_error)
                        sk_error_keep_first(&first, &mine);
#pragma omp atomic write
                        failed = 1;
                    }
                }
            }
            sk_free(member);
        }
        sk_free(buf);
    }
    if (failed) {
        if (err)
            *err = first;
        return first.code ? (int)first.code : SK_ERR_IO;
    }
    return SK_OK;
}
