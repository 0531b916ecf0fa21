/* Fortran unformatted sequential records over bytes in memory.
 *
 * Each record is an int32 byte count, the payload, and the same count
 * again. The cursor checks both markers, that they agree and that the
 * record fits in the file, and names file, record number and byte offset
 * on any error. Payloads are not aligned: read values with rd_* below. */
#ifndef SNAPKIT_RAMSES_FORTRAN_H
#define SNAPKIT_RAMSES_FORTRAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "snapkit/error.h"

typedef struct fr_cursor {
    const char *path;
    const uint8_t *data;
    size_t size;
    size_t pos;     /* offset of the next record's head marker */
    int64_t record; /* records consumed so far (the next one is record + 1) */
} fr_cursor;

void fr_init(fr_cursor *c, const char *path, const void *data, size_t size);

/* The next record: its payload and length in bytes. */
int fr_next(fr_cursor *c, const uint8_t **payload, size_t *len, sk_error *err);
/* The next record, which must hold exactly `bytes` bytes. */
int fr_expect(fr_cursor *c, size_t bytes, const uint8_t **payload, sk_error *err);
/* Skip n records (each still checked). */
int fr_skip(fr_cursor *c, int64_t n, sk_error *err);
/* Skip n records that must each hold exactly `bytes` bytes. */
int fr_skip_sized(fr_cursor *c, int64_t n, size_t bytes, sk_error *err);
/* n records that must each hold exactly `bytes` bytes: their payloads. */
int fr_records_sized(fr_cursor *c, int64_t n, size_t bytes, const uint8_t **payloads,
                     sk_error *err);
/* A record of n int32 values, copied to out. */
int fr_int32s(fr_cursor *c, int32_t *out, int n, sk_error *err);
/* A record of one float64. */
int fr_float64(fr_cursor *c, double *out, sk_error *err);
/* A record of one integer stored as int32 or int64 (RAMSES's i8b). */
int fr_int_any(fr_cursor *c, int64_t *out, int *width, sk_error *err);

/* SK_ERR_FORMAT for the record just read (number and head offset). */
int fr_fail_last(const fr_cursor *c, size_t len, sk_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline int32_t rd_i32(const uint8_t *p, size_t i)
{
    int32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
}

static inline int64_t rd_i64(const uint8_t *p, size_t i)
{
    int64_t v;
    memcpy(&v, p + 8 * i, 8);
    return v;
}

static inline double rd_f64(const uint8_t *p, size_t i)
{
    double v;
    memcpy(&v, p + 8 * i, 8);
    return v;
}

#endif
