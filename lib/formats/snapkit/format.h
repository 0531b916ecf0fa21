/* The .snapkit layout (docs/format.md is the specification): constants, the
 * in-memory footer the writer fills and the reader decodes, and
 * little-endian byte helpers. */
#ifndef SNAPKIT_STORE_FORMAT_H
#define SNAPKIT_STORE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "snapkit/colstats.h"
#include "snapkit/error.h"
#include "snapkit/table.h"

#define ST_HEADER_MAGIC "SNAPKIT\0"  /* 8 bytes at byte 0 */
#define ST_TAIL_MAGIC "SKFOOTER"     /* 8 bytes that end the file */
#define ST_HEADER_BYTES 16
#define ST_TAIL_BYTES 40
#define ST_CHUNK_HEADER_BYTES 64     /* v1.0 sizes; the footer records them */
#define ST_CHUNK_COLUMN_BYTES 48
#define ST_STATS_HEAD_BYTES 16       /* v1.1 statistics block: rows, flags, level count */
#define ST_STATS_COLUMN_BYTES 56     /* flags, 7 reserved, 6 f64 */
#define ST_MAX_CHUNK_ROWS (1 << 24)  /* a format limit: readers may refuse more */
#define ST_MAX_LEVEL 63

/* Codecs: how a chunk-column's encoded bytes are stored. */
enum { ST_CODEC_RAW = 0, ST_CODEC_LZ4 = 1 };
/* Encodings: how values become bytes before the codec. */
enum { ST_ENC_PLAIN = 0, ST_ENC_FOR = 1, ST_ENC_SHUFFLE = 2 };
/* Chunk kinds. */
enum { ST_KIND_ROWS = 0, ST_KIND_REFINED = 1 };
/* Table flags. */
enum { ST_TABLE_HAS_REFINED = 1 };
/* Chunk flags. */
enum { ST_CHUNK_HAS_BBOX = 1 };

/* One column of one chunk. min/max hold the bits of an int64 (signed
 * integers, category), a uint64 (unsigned) or a float64 (floats). */
typedef struct st_cc {
    int64_t offset, stored;
    uint8_t codec, encoding, width;
    uint32_t checked;          /* reader: the generation its hash matched in (checks.c) */
    uint64_t min, max;
    uint64_t hash;
} st_cc;

typedef struct st_chunk {
    int64_t nrows, row0;       /* row0: first row in file order (not stored) */
    uint8_t kind, level_min, level_max, flags;
    double lo[3], hi[3];       /* bounding box of row positions, box units */
} st_chunk;

typedef struct st_table {
    char *name;
    int geometry, flags, curve_bits;
    int64_t nrows;
    sk_table *schema;          /* 0 rows: columns, types, labels; all metadata */
    int ncols;
    int64_t nchunks;
    st_chunk *chunks;
    st_cc *cc;                 /* nchunks x ncols, chunk-major */
    /* The table's column statistics (format 1.1, docs/format.md section
     * 4): the writer feeds `acc` chunk by chunk and stores its result; the
     * reader decodes them into `stats` (NULL: none stored). */
    sk_stats_acc *acc;
    sk_table_stats *stats;
} st_table;

typedef struct st_footer {
    int major, minor;
    sk_table *meta;            /* file-level metadata (0 rows) */
    int ntables;
    st_table *tables;
} st_footer;

static inline st_cc *st_cc_at(const st_table *t, int64_t chunk, int col)
{
    return &t->cc[chunk * t->ncols + col];
}

void st_table_clear(st_table *t);
void st_footer_clear(st_footer *f);

/* Footer body bytes (an sk_malloc block the caller frees). */
int st_footer_encode(const st_footer *f, uint8_t **out, size_t *size, sk_error *err);
/* Decode and check a footer body. data_end is where chunk data must end
 * (the footer's offset); path names the file in messages. */
int st_footer_decode(st_footer *f, const uint8_t *body, size_t size, int64_t body_offset,
                     int64_t data_end, const char *path, sk_error *err);

/* ---- little-endian bytes ---- */

static inline void st_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void st_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void st_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t st_get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t st_get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static inline uint64_t st_get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static inline uint64_t st_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static inline double st_bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

#endif
