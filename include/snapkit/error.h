/* snapkit/error.h - status codes and the error value every call fills.
 *
 * Every fallible function returns an int status (SK_OK == 0) and takes an
 * sk_error* it fills on failure. The error holds one ready-to-print line that
 * names the file and where in it the problem is (byte offset, record, or
 * line and column), plus the same facts as fields. err may be NULL.
 */
#ifndef SNAPKIT_ERROR_H
#define SNAPKIT_ERROR_H

#include "snapkit/export.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_status {
    SK_OK = 0,
    SK_ERR_ARG,       /* the caller passed something invalid */
    SK_ERR_IO,        /* open, read, write or rename failed */
    SK_ERR_FORMAT,    /* the input does not follow its format */
    SK_ERR_NOMEM,     /* allocation failed */
    SK_ERR_CHECKSUM,  /* stored checksum does not match the data */
    SK_ERR_VERSION,   /* a newer file version than this library reads */
    SK_ERR_RANGE,     /* a value or a budget out of range */
    SK_ERR_EMPTY      /* the selection holds nothing */
} sk_status;

typedef struct sk_error {
    sk_status code;
    int64_t offset;   /* byte offset in path, -1 when not known */
    int64_t record;   /* 1-based record, chunk or frame number, -1 when not known */
    int64_t line;     /* 1-based text line, -1 when not known */
    int64_t column;   /* 1-based text column, -1 when not known */
    char path[1024];
    char message[2048]; /* "path: byte N, record R: what went wrong" */
} sk_error;

/* Reset err to SK_OK with no message. */
SK_API void sk_error_clear(sk_error *err);

/* Fill err (when not NULL) and return code. path may be NULL; offset -1
 * leaves the position out of the message. */
SK_API int sk_fail(sk_error *err, sk_status code, const char *path, int64_t offset,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* As sk_fail, with the record (Fortran record, chunk, frame) named too. */
SK_API int sk_fail_record(sk_error *err, sk_status code, const char *path,
                          int64_t record, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* For text formats: names line and column instead of a byte offset. */
SK_API int sk_fail_text(sk_error *err, sk_status code, const char *path, int64_t line,
                        int64_t column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* SK_ERR_IO (or SK_ERR_NOMEM for ENOMEM) with strerror(errnum) appended:
 * "path: cannot open: No such file or directory". */
SK_API int sk_fail_errno(sk_error *err, const char *path, int errnum, const char *what);

/* Copy src into dst unless dst already holds an error: when threads each
 * fill their own sk_error, the first failure is the one reported. */
SK_API void sk_error_keep_first(sk_error *dst, const sk_error *src);

/* Short fixed name of a status ("format", "io", ...). */
SK_API const char *sk_status_name(int status);

#ifdef __cplusplus
}
#endif
#endif
