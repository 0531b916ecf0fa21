/* Error values: one ready-to-print line plus the position as fields. */
#include "snapkit/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sk_error_clear(sk_error *err)
{
    if (!err)
        return;
    err->code = SK_OK;
    err->offset = err->record = err->line = err->column = -1;
    err->path[0] = '\0';
    err->message[0] = '\0';
}

/* Compose "path: <where>: text" into err->message. `where` may be empty. */
static int fill(sk_error *err, sk_status code, const char *path, const char *where,
                const char *fmt, va_list ap)
{
    char text[1536];
    vsnprintf(text, sizeof text, fmt, ap);
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    err->code = code;
    size_t n = 0;
    if (path && *path)
        n += (size_t)snprintf(err->message, sizeof err->message, "%s: ", path);
    if (where[0] && n < sizeof err->message)
        n += (size_t)snprintf(err->message + n, sizeof err->message - n, "%s: ", where);
    if (n < sizeof err->message)
        snprintf(err->message + n, sizeof err->message - n, "%s", text);
    return (int)code;
}

int sk_fail(sk_error *err, sk_status code, const char *path, int64_t offset,
            const char *fmt, ...)
{
    if (!err)
        return (int)code;
    sk_error_clear(err);
    err->offset = offset;
    char where[64] = "";
    if (offset >= 0)
        snprintf(where, sizeof where, "byte %lld", (long long)offset);
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, path, where, fmt, ap);
    va_end(ap);
    return (int)code;
}

int sk_fail_record(sk_error *err, sk_status code, const char *path, int64_t record,
                   int64_t offset, const char *fmt, ...)
{
    if (!err)
        return (int)code;
    sk_error_clear(err);
    err->offset = offset;
    err->record = record;
    char where[96];
    if (offset >= 0)
        snprintf(where, sizeof where, "record %lld at byte %lld", (long long)record,
                 (long long)offset);
    else
        snprintf(where, sizeof where, "record %lld", (long long)record);
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, path, where, fmt, ap);
    va_end(ap);
    return (int)code;
}

int sk_fail_text(sk_error *err, sk_status code, const char *path, int64_t line,
                 int64_t column, const char *fmt, ...)
{
    if (!err)
        return (int)code;
    sk_error_clear(err);
    err->line = line;
    err->column = column;
    char where[96] = "";
    if (line > 0 && column > 0)
        snprintf(where, sizeof where, "line %lld, column %lld", (long long)line,
                 (long long)column);
    else if (line > 0)
        snprintf(where, sizeof where, "line %lld", (long long)line);
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, path, where, fmt, ap);
    va_end(ap);
    return (int)code;
}

int sk_fail_errno(sk_error *err, const char *path, int errnum, const char *what)
{
    sk_status code = errnum == ENOMEM ? SK_ERR_NOMEM : SK_ERR_IO;
    return sk_fail(err, code, path, -1, "%s: %s", what, strerror(errnum));
}

void sk_error_keep_first(sk_error *dst, const sk_error *src)
{
    if (dst && src && dst->code == SK_OK && src->code != SK_OK)
        *dst = *src;
}

const char *sk_status_name(int status)
{
    switch (status) {
    case SK_OK: return "ok";
    case SK_ERR_ARG: return "argument";
    case SK_ERR_IO: return "io";
    case SK_ERR_FORMAT: return "format";
    case SK_ERR_NOMEM: return "memory";
    case SK_ERR_CHECKSUM: return "checksum";
    case SK_ERR_VERSION: return "version";
    case SK_ERR_RANGE: return "range";
    case SK_ERR_EMPTY: return "empty";
    default: return "unknown";
    }
}
