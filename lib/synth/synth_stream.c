/* Fortran unformatted sequential records (int32 length, payload, int32
 * length; little-endian like the x86-64 builds RAMSES runs on) written
 * through a buffer into an atomic file, so that the many tiny records of
 * many-CPU outputs cost memcpy, not system calls. */
#include <stdio.h>
#include <string.h>

#include "synth/synth_internal.h"
#include "snapkit/memory.h"

#define STREAM_BUFFER ((size_t)1 << 20)

int synth_stream_open(synth_stream *s, const char *path, sk_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    s->buf = sk_malloc(STREAM_BUFFER);
    if (!s->buf)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the write buffer");
    s->cap = STREAM_BUFFER;
    int rc = sk_atomic_open(&s->file, path, err);
    if (rc) {
        sk_free(s->buf);
        s->buf = NULL;
    }
    return rc;
}

int synth_stream_flush(synth_stream *s, sk_error *err)
{
    if (s->len == 0)
        return SK_OK;
    int rc = sk_atomic_write(s->file, s->buf, s->len, err);
    s->len = 0;
    return rc;
}

int synth_stream_raw(synth_stream *s, const void *data, size_t bytes, sk_error *err)
{
    if (bytes == 0) /* an empty record's payload; data may be NULL */
        return SK_OK;
    s->bytes += (int64_t)bytes;
    if (s->len + bytes > s->cap) {
        int rc = synth_stream_flush(s, err);
        if (rc)
            return rc;
        if (bytes >= s->cap)
            return sk_atomic_write(s->file, data, bytes, err);
    }
    memcpy(s->buf + s->len, data, bytes);
    s->len += bytes;
    return SK_OK;
}

int synth_stream_record(synth_stream *s, const void *data, size_t bytes, sk_error *err)
{
    if (bytes > INT32_MAX)
        return sk_fail(err, SK_ERR_RANGE, s->path, s->bytes,
                       "a record of %zu bytes is longer than a Fortran record marker holds", bytes);
    int32_t marker = (int32_t)bytes;
    int rc = synth_stream_raw(s, &marker, sizeof marker, err);
    if (rc == SK_OK)
        rc = synth_stream_raw(s, data, bytes, err);
    if (rc == SK_OK)
        rc = synth_stream_raw(s, &marker, sizeof marker, err);
    return rc;
}

int synth_stream_i32(synth_stream *s, int32_t v, sk_error *err)
{
    return synth_stream_record(s, &v, sizeof v, err);
}

int synth_stream_commit(synth_stream *s, sk_error *err)
{
    int rc = synth_stream_flush(s, err);
    if (rc) {
        synth_stream_abort(s);
        return rc;
    }
    rc = sk_atomic_commit(s->file, err);
    s->file = NULL;
    sk_free(s->buf);
    s->buf = NULL;
    return rc;
}

void synth_stream_abort(synth_stream *s)
{
    sk_atomic_abort(s->file);
    s->file = NULL;
    sk_free(s->buf);
    s->buf = NULL;
}

void synth_record_into(char **p, const void *data, size_t bytes)
{
    int32_t marker = (int32_t)bytes;
    memcpy(*p, &marker, sizeof marker);
    memcpy(*p + 4, data, bytes);
    memcpy(*p + 4 + bytes, &marker, sizeof marker);
    *p += bytes + 8;
}
