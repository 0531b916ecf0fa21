/* The footer's bytes, for the writer (docs/format.md, sections 3 and 4),
 * and freeing the in-memory footer. */
#include <string.h>

#include "snapkit/memory.h"
#include "formats/snapkit/format.h"

void st_table_clear(st_table *t)
{
    sk_free(t->name);
    sk_table_free(t->schema);
    sk_free(t->chunks);
    sk_free(t->cc);
    sk_stats_acc_free(t->acc);
    if (t->stats)
        sk_table_stats_free(t->stats);
    sk_free(t->stats);
    memset(t, 0, sizeof *t);
}

void st_footer_clear(st_footer *f)
{
    for (int i = 0; i < f->ntables; i++)
        st_table_clear(&f->tables[i]);
    sk_free(f->tables);
    sk_table_free(f->meta);
    memset(f, 0, sizeof *f);
}

typedef struct outbuf {
    uint8_t *p;
    size_t len, cap;
    int failed;
} outbuf;

static uint8_t *grow(outbuf *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = sk_realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    uint8_t *at = b->p + b->len;
    b->len += n;
    return at;
}

static void put_u8(outbuf *b, uint8_t v)
{
    uint8_t *p = grow(b, 1);
    if (p)
        *p = v;
}
static void put_u16(outbuf *b, uint16_t v)
{
    uint8_t *p = grow(b, 2);
    if (p)
        st_put_u16(p, v);
}
static void put_u32(outbuf *b, uint32_t v)
{
    uint8_t *p = grow(b, 4);
    if (p)
        st_put_u32(p, v);
}
static void put_u64(outbuf *b, uint64_t v)
{
    uint8_t *p = grow(b, 8);
    if (p)
        st_put_u64(p, v);
}
static void put_str(outbuf *b, const char *s)
{
    size_t n = strlen(s);
    put_u32(b, (uint32_t)n);
    uint8_t *p = grow(b, n);
    if (p)
        memcpy(p, s, n);
}

static void put_meta(outbuf *b, const sk_table *t)
{
    int n = sk_table_meta_count(t);
    put_u32(b, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        put_str(b, sk_table_meta_key(t, i));
        put_str(b, sk_table_meta_value(t, i));
    }
}

static void put_chunk(outbuf *b, const st_table *t, int64_t c)
{
    const st_chunk *ch = &t->chunks[c];
    put_u64(b, (uint64_t)ch->nrows);
    put_u8(b, ch->kind);
    put_u8(b, ch->level_min);
    put_u8(b, ch->level_max);
    put_u8(b, ch->flags);
    put_u32(b, 0);
    for (int a = 0; a < 3; a++)
        put_u64(b, st_f64_bits(ch->lo[a]));
    for (int a = 0; a < 3; a++)
        put_u64(b, st_f64_bits(ch->hi[a]));
    for (int j = 0; j < t->ncols; j++) {
        const st_cc *cc = st_cc_at(t, c, j);
        put_u64(b, (uint64_t)cc->offset);
        put_u64(b, (uint64_t)cc->stored);
        put_u8(b, cc->codec);
        put_u8(b, cc->encoding);
        put_u8(b, cc->width);
        put_u8(b, 0);
        put_u32(b, 0);
        put_u64(b, cc->min);
        put_u64(b, cc->max);
        put_u64(b, cc->hash);
    }
}

/* The statistics block (format 1.1): a u32 size, then the rows, whether
 * levels and volume sums were kept, the rows per level and, per column,
 * flags and six f64. Size 0 when the table has none. */
static void put_stats(outbuf *b, const sk_table_stats *s, int ncols)
{
    if (!s || s->ncols != ncols) {
        put_u32(b, 0);
        return;
    }
    uint32_t nlevels = 0;
    for (int l = 0; s->is_cells && l <= SK_STATS_MAX_LEVEL; l++)
        if (s->levels[l])
            nlevels = (uint32_t)l + 1;
    put_u32(b, (uint32_t)(ST_STATS_HEAD_BYTES + 8 * nlevels +
                          ST_STATS_COLUMN_BYTES * (uint32_t)ncols));
    put_u64(b, (uint64_t)s->rows);
    put_u32(b, s->is_cells ? 1u : 0u);
    put_u32(b, nlevels);
    for (uint32_t l = 0; l < nlevels; l++)
        put_u64(b, (uint64_t)s->levels[l]);
    for (int j = 0; j < ncols; j++) {
        const sk_column_stats *c = &s->cols[j];
        put_u32(b, c->is_cell_index ? 1u : 0u);
        put_u32(b, 0);
        const double v[6] = {c->min, c->max, c->sum, c->abs_sum, c->volume_sum,
                             c->abs_volume_sum};
        for (int k = 0; k < 6; k++)
            put_u64(b, st_f64_bits(v[k]));
    }
}

/* The writer's statistics of t: the result of its accumulator, or what a
 * reader decoded (a footer written again). */
static void put_table_stats(outbuf *b, const st_table *t)
{
    if (!t->acc) {
        put_stats(b, t->stats, t->ncols);
        return;
    }
    sk_table_stats s;
    if (sk_stats_acc_result(t->acc, &s, NULL) != SK_OK) {
        b->failed = 1;
        return;
    }
    put_stats(b, &s, t->ncols);
    sk_table_stats_free(&s);
}

static void put_table(outbuf *b, const st_table *t)
{
    size_t start = b->len;
    put_u64(b, 0); /* record length, patched below */
    put_str(b, t->name);
    put_u8(b, (uint8_t)t->geometry);
    put_u8(b, (uint8_t)t->flags);
    put_u8(b, (uint8_t)t->curve_bits);
    put_u8(b, 0);
    put_u64(b, (uint64_t)t->nrows);
    put_u32(b, (uint32_t)t->ncols);
    for (int j = 0; j < t->ncols; j++) {
        const sk_column *col = sk_table_col(t->schema, j);
        put_str(b, col->name);
        put_u8(b, (uint8_t)col->type);
        put_u8(b, 0);
        put_u16(b, 0);
        put_u32(b, (uint32_t)col->nlabels);
        for (int32_t k = 0; k < col->nlabels; k++)
            put_str(b, col->labels[k]);
    }
    put_meta(b, t->schema);
    put_u32(b, ST_CHUNK_HEADER_BYTES);
    put_u32(b, ST_CHUNK_COLUMN_BYTES);
    put_u64(b, (uint64_t)t->nchunks);
    for (int64_t c = 0; c < t->nchunks; c++)
        put_chunk(b, t, c);
    put_table_stats(b, t);
    if (!b->failed)
        st_put_u64(b->p + start, (uint64_t)(b->len - start));
}

int st_footer_encode(const st_footer *f, uint8_t **out, size_t *size, sk_error *err)
{
    outbuf b = {0};
    put_u16(&b, (uint16_t)f->major);
    put_u16(&b, (uint16_t)f->minor);
    put_u32(&b, 0);
    put_meta(&b, f->meta);
    put_u32(&b, (uint32_t)f->ntables);
    for (int i = 0; i < f->ntables; i++)
        put_table(&b, &f->tables[i]);
    if (b.failed) {
        sk_free(b.p);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the footer");
    }
    *out = b.p;
    *size = b.len;
    return SK_OK;
}

