/* Bounds-checked Fortran record reading. */
#include "formats/ramses/fortran.h"

#include <stdarg.h>
#include <stdio.h>

void fr_init(fr_cursor *c, const char *path, const void *data, size_t size)
{
    c->path = path;
    c->data = data;
    c->size = size;
    c->pos = 0;
    c->record = 0;
}

int fr_next(fr_cursor *c, const uint8_t **payload, size_t *len, sk_error *err)
{
    int64_t rec = c->record + 1;
    size_t at = c->pos;
    /* Set on failure too: callers that inline this cannot see that an
     * error status is never SK_OK. */
    *payload = NULL;
    *len = 0;
    if (c->size - at < 4) {
        if (at == c->size)
            return sk_fail_record(err, SK_ERR_FORMAT, c->path, rec, (int64_t)at,
                                  "file ends where a record should start (truncated?)");
        return sk_fail_record(err, SK_ERR_FORMAT, c->path, rec, (int64_t)at,
                              "file ends inside a record marker (truncated?)");
    }
    int32_t head = rd_i32(c->data + at, 0);
    if (head < 0)
        return sk_fail_record(err, SK_ERR_FORMAT, c->path, rec, (int64_t)at,
                              "negative record marker %d (a record split into subrecords, or not "
                              "a Fortran file)", (int)head);
    size_t n = (size_t)head;
    if (c->size - at - 4 < n || c->size - at - 4 - n < 4)
        return sk_fail_record(err, SK_ERR_FORMAT, c->path, rec, (int64_t)at,
                              "record of %zu bytes runs past the end of the file (%zu bytes "
                              "left; truncated?)", n, c->size - at - 4);
    int32_t tail = rd_i32(c->data + at + 4 + n, 0);
    if (tail != head)
        return sk_fail_record(err, SK_ERR_FORMAT, c->path, rec, (int64_t)at,
                              "record markers disagree: head says %d bytes, tail says %d",
                              (int)head, (int)tail);
    *payload = c->data + at + 4;
    *len = n;
    c->pos = at + 8 + n;
    c->record = rec;
    return SK_OK;
}

int fr_fail_last(const fr_cursor *c, size_t len, sk_error *err, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int64_t at = (int64_t)(c->pos - 8 - len);
    return sk_fail_record(err, SK_ERR_FORMAT, c->path, c->record, at, "%s", text);
}

int fr_expect(fr_cursor *c, size_t bytes, const uint8_t **payload, sk_error *err)
{
    size_t len;
    int rc = fr_next(c, payload, &len, err);
    if (rc != SK_OK)
        return rc;
    if (len != bytes)
        return fr_fail_last(c, len, err, "record holds %zu bytes, expected %zu", len, bytes);
    return SK_OK;
}

int fr_skip(fr_cursor *c, int64_t n, sk_error *err)
{
    const uint8_t *p;
    size_t len;
    for (int64_t i = 0; i < n; i++) {
        int rc = fr_next(c, &p, &len, err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

int fr_records_sized(fr_cursor *c, int64_t n, size_t bytes, const uint8_t **payloads,
                     sk_error *err)
{
    /* Positions follow from the expected size, so the marker loads do not
     * depend on each other and the CPU overlaps their cache misses; on any
     * mismatch the records are walked again one by one for the message. */
    size_t pos = c->pos;
    uint32_t bad = 0;
    int64_t i = 0;
    if (bytes <= INT32_MAX) {
        for (; i < n && c->size - pos >= 8 && c->size - pos - 8 >= bytes; i++) {
            bad |= (uint32_t)(rd_i32(c->data + pos, 0) ^ (int32_t)bytes) |
                   (uint32_t)(rd_i32(c->data + pos + 4 + bytes, 0) ^ (int32_t)bytes);
            if (payloads)
                payloads[i] = c->data + pos + 4;
            pos += 8 + bytes;
        }
    }
    if (i == n && !bad) {
        c->pos = pos;
        c->record += n;
        return SK_OK;
    }
    const uint8_t *p;
    for (i = 0; i < n; i++) {
        int rc = fr_expect(c, bytes, &p, err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

int fr_skip_sized(fr_cursor *c, int64_t n, size_t bytes, sk_error *err)
{
    return fr_records_sized(c, n, bytes, NULL, err);
}

int fr_int32s(fr_cursor *c, int32_t *out, int n, sk_error *err)
{
    const uint8_t *p;
    int rc = fr_expect(c, 4 * (size_t)n, &p, err);
    if (rc == SK_OK)
        memcpy(out, p, 4 * (size_t)n);
    return rc;
}

int fr_float64(fr_cursor *c, double *out, sk_error *err)
{
    const uint8_t *p;
    int rc = fr_expect(c, 8, &p, err);
    if (rc == SK_OK)
        *out = rd_f64(p, 0);
    return rc;
}

int fr_int_any(fr_cursor *c, int64_t *out, int *width, sk_error *err)
{
    const uint8_t *p;
    size_t len;
    int rc = fr_next(c, &p, &len, err);
    if (rc != SK_OK)
        return rc;
    if (len == 4)
        *out = rd_i32(p, 0);
    else if (len == 8)
        *out = rd_i64(p, 0);
    else
        return fr_fail_last(c, len, err, "record holds %zu bytes, expected one 4- or 8-byte "
                            "integer", len);
    if (width)
        *width = (int)len;
    return SK_OK;
}
