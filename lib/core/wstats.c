/* Weighted statistics, the accumulator: each batch's rows kept as doubles
 * with their weights (exact quantiles need every value), merged by moving
 * blocks, encoded for the ranks of an MPI job. Nothing here depends on the
 * order of the rows: wstats_result.c sums exactly and sorts. */
#include <math.h>
#include <string.h>

#include "core/cellvol.h"
#include "core/schema_names.h"
#include "core/wstats_internal.h"
#include "snapkit/memory.h"

static const char *const k_weight_names[] = {"none", "mass", "volume"};

int sk_weight_parse(const char *name, sk_weight *out, sk_error *err)
{
    for (int k = 0; k < 3; k++)
        if (name && !strcmp(name, k_weight_names[k])) {
            *out = (sk_weight)k;
            return SK_OK;
        }
    return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown weight '%s' (mass, volume or none)",
                   name ? name : "");
}

const char *sk_weight_name(sk_weight w)
{
    return (int)w >= 0 && (int)w < 3 ? k_weight_names[w] : NULL;
}

int ws_is_cell_index(const char *name)
{
    return !strcmp(name, "level") || !strcmp(name, "cx") || !strcmp(name, "cy") ||
           !strcmp(name, "cz");
}

static int nomem(sk_error *err)
{
    return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for weighted statistics");
}

/* The counted columns (all but a cell table's index columns) from the
 * names; 0 when out of memory. */
static int setup_columns(sk_wstats_acc *a)
{
    a->col = sk_calloc((size_t)(a->nschema ? a->nschema : 1), sizeof *a->col);
    if (!a->col)
        return 0;
    a->ncols = 0;
    for (int j = 0; j < a->nschema; j++)
        if (!(a->is_cells && ws_is_cell_index(a->names[j])) && j != a->clip_col)
            a->col[a->ncols++] = j;
    return 1;
}

/* Cell volumes when the schema is a cell table. */
static void cell_volumes(sk_wstats_acc *a, const sk_table *t)
{
    a->level_col = core_cell_volumes(t, a->per_level, WS_MAX_LEVEL);
    a->is_cells = a->level_col >= 0;
}

/* The column mass weights come from (cells: density; particles: mass;
 * sinks: msink; clumps: mass_cl), or a refusal naming what is missing. */
static int weight_column(sk_wstats_acc *a, const sk_table *t, sk_error *err)
{
    a->weight_col = -1;
    const char *comp = sk_table_meta_get(t, "component"), *kind = sk_table_meta_get(t, "kind");
    const char *what = comp && *comp ? comp : kind && *kind ? kind : "rows";
    if (a->weight == SK_WEIGHT_VOLUME && !a->is_cells)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "volume weights need cells: the %s table has no cell volumes "
                       "(use mass or none)", what);
    if (a->weight != SK_WEIGHT_MASS)
        return SK_OK;
    static const char *const masses[] = {"mass", "msink", "mass_cl"};
    for (int k = 0; k < 3 && !a->is_cells && a->weight_col < 0; k++)
        a->weight_col = sk_table_index(t, masses[k]);
    if (a->is_cells)
        a->weight_col = sk_table_index(t, "density");
    if (a->weight_col < 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "mass weights need the %s column, which the %s table lacks (read it "
                       "too, or use %s)", a->is_cells ? "density" : "mass", what,
                       a->is_cells ? "volume or none" : "none");
    return SK_OK;
}

int sk_wstats_acc_new(const sk_table *schema, sk_weight weight, sk_wstats_acc **out,
                      sk_error *err)
{
    *out = NULL;
    if (!sk_weight_name(weight))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown weight %d", (int)weight);
    sk_wstats_acc *a = sk_calloc(1, sizeof *a);
    int n = sk_table_ncols(schema);
    if (a) {
        a->weight = weight;
        a->nschema = n;
        a->names = sk_calloc((size_t)(n ? n : 1), sizeof *a->names);
    }
    int ok = a && a->names;
    for (int j = 0; ok && j < n; j++)
        ok = (a->names[j] = sk_strdup(sk_table_col(schema, j)->name)) != NULL;
    if (ok) {
        cell_volumes(a, schema);
        const sk_column *clip = sk_table_find(schema, "clip");
        a->clip_col = clip && clip->type == SK_FLOAT64 ? sk_table_index(schema, "clip") : -1;
    }
    if (!ok || !setup_columns(a)) {
        sk_wstats_acc_free(a);
        return nomem(err);
    }
    int rc = weight_column(a, schema, err);
    if (rc != SK_OK) {
        sk_wstats_acc_free(a);
        return rc;
    }
    *out = a;
    return SK_OK;
}

static void free_blocks(sk_wstats_acc *a)
{
    for (int64_t b = 0; b < a->nblocks; b++)
        sk_free(a->blocks[b].w);
    sk_free(a->blocks);
    a->blocks = NULL;
    a->nblocks = a->cap = 0;
    a->rows = 0;
}

void sk_wstats_acc_free(sk_wstats_acc *a)
{
    if (!a)
        return;
    free_blocks(a);
    for (int j = 0; a->names && j < a->nschema; j++)
        sk_free(a->names[j]);
    sk_free(a->names);
    sk_free(a->col);
    sk_free(a);
}

int64_t sk_wstats_acc_rows(const sk_wstats_acc *a)
{
    return a->rows;
}

#define TO_DOUBLE(ctype)                                                            \
    do {                                                                            \
        const ctype *d = c->data;                                                   \
        for (int64_t i = 0; i < n; i++)                                             \
            out[i] = (double)d[i];                                                  \
    } while (0)

/* The n values of column c as doubles (category columns: their codes). */
static void to_double(const sk_column *c, int64_t n, double *out)
{
    switch (c->type) {
    case SK_INT8: TO_DOUBLE(int8_t); break;
    case SK_UINT8: TO_DOUBLE(uint8_t); break;
    case SK_INT16: TO_DOUBLE(int16_t); break;
    case SK_UINT16: TO_DOUBLE(uint16_t); break;
    case SK_INT32: TO_DOUBLE(int32_t); break;
    case SK_CATEGORY: TO_DOUBLE(int32_t); break;
    case SK_UINT32: TO_DOUBLE(uint32_t); break;
    case SK_INT64: TO_DOUBLE(int64_t); break;
    case SK_UINT64: TO_DOUBLE(uint64_t); break;
    case SK_FLOAT32: TO_DOUBLE(float); break;
    case SK_FLOAT64: TO_DOUBLE(double); break;
    }
}

/* The batch's weights into w: mass weights read the weight column first
 * (the densities or masses), then cells multiply by their volume. */
static int weights(const sk_wstats_acc *a, const sk_table *t, double *w, sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    if (a->weight == SK_WEIGHT_MASS)
        to_double(sk_table_col(t, a->weight_col), n, w);
    else
        for (int64_t i = 0; i < n; i++)
            w[i] = 1.0;
    if (a->is_cells && a->weight != SK_WEIGHT_NONE) {
        const int32_t *level = sk_table_col(t, a->level_col)->data;
        for (int64_t i = 0; i < n; i++) {
            if (level[i] < 0 || level[i] > WS_MAX_LEVEL)
                return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                               "level %d out of range (row %lld of the rows added)",
                               (int)level[i], (long long)i);
            w[i] = a->weight == SK_WEIGHT_VOLUME ? a->per_level[level[i]]
                                                 : w[i] * a->per_level[level[i]];
        }
    }
    if (a->clip_col >= 0) { /* each row for the part of its cell inside the region */
        const double *f = sk_table_col(t, a->clip_col)->data;
        for (int64_t i = 0; i < n; i++)
            w[i] *= f[i];
    }
    for (int64_t i = 0; i < n; i++)
        if (w[i] < 0 || isinf(w[i]))
            return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                           "%s weight %g is %s (row %lld of the rows added)",
                           k_weight_names[a->weight], w[i], w[i] < 0 ? "negative" : "infinite",
                           (long long)i);
    return SK_OK;
}

static int check_schema(const sk_wstats_acc *a, const sk_table *t, sk_error *err)
{
    return schema_names_match(t, a->names, a->nschema) ? SK_OK
              : sk_fail(err, SK_ERR_ARG, NULL, -1,
                        "weighted statistics: the batch's columns are not the schema's");
}

/* Leave out the rows whose weight is NaN: each of the block's arrays
 * (weights, then values) keeps the rows [0, m) of the weights it had. */
static int64_t drop_nan_weights(const sk_wstats_acc *a, double *block, int64_t n)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        m += block[i] == block[i];
    if (m == n)
        return n;
    for (int j = a->ncols; j >= 0; j--) { /* values first: the weights say which rows */
        double *v = block + (int64_t)j * n;
        int64_t k = 0;
        for (int64_t i = 0; i < n; i++)
            if (block[i] == block[i])
                v[k++] = v[i];
    }
    return m;
}

/* Room for `more` blocks. */
static int reserve(sk_wstats_acc *a, int64_t more, sk_error *err)
{
    if (a->nblocks + more <= a->cap)
        return SK_OK;
    int64_t cap = a->cap ? 2 * a->cap : 16;
    cap = cap < a->nblocks + more ? a->nblocks + more : cap;
    ws_block *nb = sk_realloc(a->blocks, sizeof *nb * (size_t)cap);
    if (!nb)
        return nomem(err);
    a->blocks = nb;
    a->cap = cap;
    return SK_OK;
}

int sk_wstats_acc_add(sk_wstats_acc *a, const sk_table *t, sk_error *err)
{
    int rc = check_schema(a, t, err);
    int64_t n = sk_table_nrows(t);
    if (rc != SK_OK || n == 0)
        return rc;
    double *block = sk_malloc(sizeof *block * (size_t)n * (size_t)(a->ncols + 1));
    if (!block)
        return nomem(err);
    rc = weights(a, t, block, err);
    for (int j = 0; rc == SK_OK && j < a->ncols; j++)
        to_double(sk_table_col(t, a->col[j]), n, block + (int64_t)(j + 1) * n);
    if (rc == SK_OK)
        rc = reserve(a, 1, err);
    if (rc != SK_OK) {
        sk_free(block);
        return rc;
    }
    ws_block b = {.n = drop_nan_weights(a, block, n), .stride = n, .w = block};
    a->blocks[a->nblocks++] = b;
    a->rows += b.n;
    return SK_OK;
}

static int same_kind(const sk_wstats_acc *a, const sk_wstats_acc *b)
{
    int ok = a->nschema == b->nschema && a->weight == b->weight && a->is_cells == b->is_cells &&
             a->clip_col == b->clip_col;
    for (int j = 0; ok && j < a->nschema; j++)
        ok = !strcmp(a->names[j], b->names[j]);
    return ok;
}

int sk_wstats_acc_merge(sk_wstats_acc *a, sk_wstats_acc *from, sk_error *err)
{
    if (!same_kind(a, from)) {
        /* A read with no rows may know fewer columns (an MPI rank whose
         * share of a catalogue's files is empty): it adds nothing. */
        if (from->rows == 0)
            return SK_OK;
        if (a->rows != 0)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "weighted statistics: merging accumulators of different columns "
                           "or weights");
        sk_wstats_acc t = *a; /* a has no rows: it becomes from, from the empty one */
        *a = *from;
        *from = t;
        return SK_OK;
    }
    int rc = reserve(a, from->nblocks, err);
    if (rc != SK_OK)
        return rc;
    if (from->nblocks)
        memcpy(a->blocks + a->nblocks, from->blocks,
               sizeof *from->blocks * (size_t)from->nblocks);
    a->nblocks += from->nblocks;
    a->rows += from->rows;
    from->nblocks = 0;
    from->rows = 0;
    return SK_OK;
}

/* The encoded state: a header, each schema name as its length and bytes,
 * then the rows' weights and each counted column's values, as they lie in
 * memory (the same build and machine kind at both ends, as MPI ranks of
 * one job are). */
typedef struct ws_head {
    char magic[8];
    int32_t weight, nschema, is_cells, level_col, weight_col, clip_col;
    int64_t rows;
    double per_level[WS_MAX_LEVEL + 1];
} ws_head;

static const char k_magic[8] = "SKWST01";

int sk_wstats_acc_encode(const sk_wstats_acc *a, void **bytes, size_t *size, sk_error *err)
{
    size_t n = sizeof(ws_head) + sizeof(double) * (size_t)a->rows * (size_t)(a->ncols + 1) +
               schema_names_size(a->names, a->nschema);
    unsigned char *b = sk_malloc(n);
    if (!b)
        return nomem(err);
    ws_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, k_magic, sizeof h.magic);
    h.weight = a->weight;
    h.nschema = a->nschema;
    h.is_cells = a->is_cells;
    h.level_col = a->level_col;
    h.weight_col = a->weight_col;
    h.clip_col = a->clip_col;
    h.rows = a->rows;
    memcpy(h.per_level, a->per_level, sizeof h.per_level);
    memcpy(b, &h, sizeof h);
    size_t at = sizeof h + schema_names_encode(b + sizeof h, a->names, a->nschema);
    for (int j = 0; j <= a->ncols; j++) /* the weights, then each column */
        for (int64_t k = 0; k < a->nblocks; k++) {
            const ws_block *blk = &a->blocks[k];
            size_t len = sizeof(double) * (size_t)blk->n;
            if (len)
                memcpy(b + at, blk->w + (int64_t)j * blk->stride, len);
            at += len;
        }
    *bytes = b;
    *size = n;
    return SK_OK;
}

static int bad_encoding(sk_wstats_acc *a, sk_error *err)
{
    sk_wstats_acc_free(a);
    return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                   "weighted statistics: the bytes are not an encoded accumulator");
}

int sk_wstats_acc_decode(const void *bytes, size_t size, sk_wstats_acc **out, sk_error *err)
{
    *out = NULL;
    const unsigned char *b = bytes;
    ws_head h;
    if (size < sizeof h)
        return bad_encoding(NULL, err);
    memcpy(&h, b, sizeof h);
    if (memcmp(h.magic, k_magic, sizeof h.magic) != 0 || h.nschema < 0 || h.rows < 0 ||
        !sk_weight_name((sk_weight)h.weight) || (size_t)h.nschema > size - sizeof h)
        return bad_encoding(NULL, err);
    sk_wstats_acc *a = sk_calloc(1, sizeof *a);
    if (a)
        a->names = sk_calloc((size_t)(h.nschema ? h.nschema : 1), sizeof *a->names);
    if (!a || !a->names) {
        sk_wstats_acc_free(a);
        return nomem(err);
    }
    a->weight = h.weight;
    a->nschema = h.nschema;
    a->is_cells = h.is_cells;
    a->level_col = h.level_col;
    a->weight_col = h.weight_col;
    a->clip_col = h.clip_col;
    memcpy(a->per_level, h.per_level, sizeof h.per_level);
    size_t at = sizeof h;
    if (!schema_names_decode(a->names, a->nschema, b, size, &at) || !setup_columns(a))
        return bad_encoding(a, err);
    size_t per_row = sizeof(double) * (size_t)(a->ncols + 1);
    if ((size - at) % per_row || (size - at) / per_row != (size_t)h.rows)
        return bad_encoding(a, err);
    if (h.rows) {
        ws_block blk = {.n = h.rows, .stride = h.rows, .w = sk_malloc(size - at)};
        if (!blk.w || reserve(a, 1, err) != SK_OK) {
            sk_free(blk.w);
            sk_wstats_acc_free(a);
            return nomem(err);
        }
        memcpy(blk.w, b + at, size - at);
        a->blocks[a->nblocks++] = blk;
        a->rows = h.rows;
    }
    *out = a;
    return SK_OK;
}
