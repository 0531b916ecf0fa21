/* Writing one table batch by batch: the rows come sorted a piece at a
 * time (a RAMSES CPU file along the curve) in table order, and the writer
 * cuts the chunks sk_store_writer_add would cut from the whole table.
 * Pieces may overlap a little along the curve: a RAMSES cell belongs to
 * the domain holding its centre, but is ordered by its first key, so a
 * coarse leaf on a domain's edge sorts among its neighbour's last cells.
 * So rows wait in a sorted tail until a later piece starts above them:
 * each piece is merged into the tail (tail first on equal keys, as a
 * stable sort of the whole table would place them), the tail's rows below
 * the piece's first key are final, and every full chunk of final rows is
 * encoded and appended. The writer holds about one piece and one chunk,
 * not the table; a piece starting below a row already written breaks the
 * order, and the caller writes that table whole. */
#include <string.h>

#include "snapkit/util/hilbert.h"
#include "snapkit/memory.h"
#include "core/atomicfile.h"
#include "formats/snapkit/writer_internal.h"

/* Rows waiting for their place: a table of `cap` rows, `n` used, and
 * their keys. */
typedef struct tail {
    sk_table *t;
    uint64_t *key;
    int64_t n, cap;
} tail;

struct st_appender {
    sk_store_writer *w;
    int table;              /* index of its footer entry */
    st_geometry g;
    const sk_table *schema; /* the footer entry's */
    int64_t chunk_rows;
    int64_t rows;           /* rows appended */
    int64_t written;        /* of those, rows in chunks */
    int64_t start;          /* file offset of the table's first chunk */
    int64_t cap_chunks;     /* room in the entry's chunks and cc */
    tail tail, spare;       /* the waiting rows; those set aside for a merge */
    int64_t *merge;         /* merge order: tail row i, or batch row -1 - j */
    int64_t *iota;          /* 0, 1, ...: the identity permutation */
    int64_t cap_iota;
    int top;                /* finest cell level appended */
    uint64_t last_key;      /* key of the last row written */
};

static st_table *entry(const st_appender *a)
{
    return &a->w->footer.tables[a->table];
}

static void appender_free(st_appender *a)
{
    sk_table_free(a->tail.t);
    sk_free(a->tail.key);
    sk_table_free(a->spare.t);
    sk_free(a->spare.key);
    sk_free(a->merge);
    sk_free(a->iota);
    sk_free(a);
}

/* The identity permutation and the merge order, for n rows. */
static int grow_iota(st_appender *a, int64_t n, sk_error *err)
{
    if (n <= a->cap_iota)
        return SK_OK;
    n += n / 4;
    int64_t *p = sk_realloc(a->iota, (size_t)n * sizeof *p);
    if (p)
        a->iota = p;
    int64_t *m = p ? sk_realloc(a->merge, (size_t)n * sizeof *m) : NULL;
    if (!m)
        return sk_fail(err, SK_ERR_NOMEM, a->w->path, -1, "out of memory");
    a->merge = m;
    for (int64_t i = a->cap_iota; i < n; i++)
        p[i] = i;
    a->cap_iota = n;
    return SK_OK;
}

int st_append_begin(sk_store_writer *w, const char *name, const sk_table *schema, int64_t nrows,
                    st_appender **out, sk_error *err)
{
    *out = NULL;
    char buf[32];
    name = st_table_name(w, name, schema, buf, sizeof buf);
    st_appender *a = sk_calloc(1, sizeof *a);
    if (!a)
        return sk_fail(err, SK_ERR_NOMEM, w->path, -1, "out of memory");
    a->w = w;
    st_geometry_detect(schema, &a->g);
    if (a->g.refined >= 0) {
        sk_free(a);
        return sk_fail(err, SK_ERR_ARG, w->path, -1,
                       "table %s: refined cells are ordered with the whole table", name);
    }
    a->chunk_rows = st_rows_per_chunk(&w->opt, nrows);
    a->start = sk_atomic_tell(w->file);
    st_table *st = NULL;
    int rc = st_add_table_entry(w, name, schema, &st, err);
    if (rc != SK_OK) {
        sk_free(a);
        return rc;
    }
    a->table = w->footer.ntables - 1;
    a->schema = st->schema;
    st->geometry = a->g.kind;
    rc = st_stats_begin(st, err);
    if (rc == SK_OK)
        rc = grow_iota(a, a->chunk_rows, err);
    if (rc != SK_OK) {
        st_append_discard(a, NULL);
        return rc;
    }
    *out = a;
    return SK_OK;
}

/* Room in the footer entry for `more` chunks after those written. */
static int chunk_room(st_appender *a, int64_t more, sk_error *err)
{
    st_table *st = entry(a);
    int64_t need = st->nchunks + more;
    if (need <= a->cap_chunks)
        return SK_OK;
    int64_t cap = a->cap_chunks ? 2 * a->cap_chunks : 64;
    cap = cap < need ? need : cap;
    st_chunk *chunks = sk_realloc(st->chunks, (size_t)cap * sizeof *chunks);
    if (chunks)
        st->chunks = chunks;
    st_cc *cc = chunks ? sk_realloc(st->cc, (size_t)(cap * st->ncols) * sizeof *cc + 1) : NULL;
    if (!cc)
        return sk_fail(err, SK_ERR_NOMEM, a->w->path, -1, "out of memory for the chunk index");
    st->cc = cc;
    a->cap_chunks = cap;
    return SK_OK;
}

/* Encode rows perm[0 .. nchunks x chunk_rows) of t (file rows from
 * a->written on) as full chunks. */
static int write_chunks(st_appender *a, const sk_table *t, const int64_t *perm, int64_t nchunks,
                        int64_t last_rows, sk_error *err)
{
    int64_t *start = sk_malloc((size_t)(nchunks + 1) * sizeof *start);
    uint8_t *kind = sk_malloc((size_t)nchunks);
    int rc = start && kind ? chunk_room(a, nchunks, err)
                           : sk_fail(err, SK_ERR_NOMEM, a->w->path, -1, "out of memory");
    st_table *st = entry(a);
    if (rc == SK_OK) {
        for (int64_t c = 0; c <= nchunks; c++)
            start[c] = c * a->chunk_rows;
        if (last_rows)
            start[nchunks] = start[nchunks - 1] + last_rows;
        memset(kind, ST_KIND_ROWS, (size_t)nchunks);
        st_order o = {.perm = (int64_t *)perm, .nrows = start[nchunks], .nchunks = nchunks,
                      .start = start, .kind = kind};
        rc = st_encode_to_file(a->w, t, &a->g, &o, st, st->nchunks, a->written, a->chunk_rows,
                               0, err);
    }
    if (rc == SK_OK) {
        st->nchunks += nchunks;
        a->written += start[nchunks];
    }
    sk_free(start);
    sk_free(kind);
    return rc;
}

static void note_levels(st_appender *a, const sk_table *t)
{
    if (a->g.kind != SK_STORE_CELLS)
        return;
    const int32_t *lv = sk_table_col(t, a->g.level)->data;
    for (int64_t i = 0; i < sk_table_nrows(t); i++)
        a->top = lv[i] > a->top ? lv[i] : a->top;
}

/* Room for n rows in x (its rows are not kept). */
static int tail_room(st_appender *a, tail *x, int64_t n, sk_error *err)
{
    if (n <= x->cap)
        return SK_OK;
    int64_t cap = n + n / 4 + a->chunk_rows;
    sk_table_free(x->t);
    sk_free(x->key);
    x->t = NULL;
    x->key = sk_malloc((size_t)cap * sizeof *x->key);
    int rc = x->key ? st_table_like(a->schema, cap, &x->t, err)
                    : sk_fail(err, SK_ERR_NOMEM, a->w->path, -1, "out of memory");
    x->cap = rc == SK_OK ? cap : 0;
    return rc;
}

/* Copy rows from two sources by the merge order m[0..n): tail row i, or
 * row perm[-1 - i] of b. */
static void merge_column(const sk_column *from_tail, const sk_column *from_b,
                         const int64_t *perm, const int64_t *m, int64_t n, sk_column *dst)
{
#define MERGE(T)                                                                      \
    do {                                                                              \
        const T *x = from_tail ? from_tail->data : NULL, *y = from_b->data;           \
        T *out = dst->data;                                                           \
        for (int64_t r = 0; r < n; r++)                                               \
            out[r] = m[r] >= 0 ? x[m[r]] : y[perm[-1 - m[r]]];                        \
    } while (0)
    switch (sk_dtype_size(dst->type)) {
    case 1: MERGE(uint8_t); break;
    case 2: MERGE(uint16_t); break;
    case 4: MERGE(uint32_t); break;
    default: MERGE(uint64_t); break;
    }
#undef MERGE
}

/* The new tail: the tail's rows from..n merged with b's rows in the order
 * perm (keys `key`), tail first on equal keys. The tail's rows are set
 * aside first (few: the last partial chunk and the rows above the batch's
 * start), so that the merge fills the tail's own buffer and the appender
 * holds one batch's rows, not two. */
static int merge_in(st_appender *a, int64_t from, const sk_table *b, const int64_t *perm,
                    const uint64_t *key, sk_error *err)
{
    int64_t nb = sk_table_nrows(b), nt = a->tail.n - from, n = nt + nb;
    int rc = grow_iota(a, n, err); /* a->merge grows with it */
    if (rc == SK_OK)
        rc = tail_room(a, &a->spare, nt, err);
    for (int c = 0; rc == SK_OK && nt > 0 && c < sk_table_ncols(b); c++)
        st_gather(sk_table_col(a->tail.t, c), a->iota + from, nt,
                  sk_table_col(a->spare.t, c)->data);
    if (rc == SK_OK && nt > 0)
        memcpy(a->spare.key, a->tail.key + from, (size_t)nt * sizeof *a->spare.key);
    if (rc == SK_OK)
        rc = tail_room(a, &a->tail, n, err);
    if (rc != SK_OK)
        return rc;
    const uint64_t *tk = a->spare.key;
    int64_t i = 0, j = 0;
    for (int64_t r = 0; r < n; r++) {
        int from_tail = j == nb || (i < nt && tk[i] <= key[j]);
        a->tail.key[r] = from_tail ? tk[i] : key[j];
        a->merge[r] = from_tail ? i++ : -1 - j++;
    }
    for (int c = 0; c < sk_table_ncols(b); c++)
        merge_column(a->spare.t ? sk_table_col(a->spare.t, c) : NULL, sk_table_col(b, c), perm,
                     a->merge, n, sk_table_col(a->tail.t, c));
    a->tail.n = n;
    return SK_OK;
}

/* Number of tail rows whose keys are below k. */
static int64_t below(const tail *x, uint64_t k)
{
    int64_t lo = 0, hi = x->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (x->key[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Write the tail's first nchunks x chunk_rows rows (+ last_rows, the last
 * partial chunk), which are final. */
static int write_tail(st_appender *a, int64_t nchunks, int64_t last_rows, sk_error *err)
{
    int64_t n = nchunks * a->chunk_rows + last_rows;
    if (n == 0)
        return SK_OK;
    int rc = grow_iota(a, n, err);
    if (rc == SK_OK)
        rc = write_chunks(a, a->tail.t, a->iota, nchunks + (last_rows > 0), last_rows, err);
    if (rc == SK_OK)
        a->last_key = a->tail.key[n - 1];
    return rc;
}

int st_append(st_appender *a, const sk_table *t, const int64_t *perm, const uint64_t *key,
              int *in_order, sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    *in_order = a->g.kind == SK_STORE_ROWS || a->written == 0 || n == 0 || key[0] >= a->last_key;
    if (!*in_order || n == 0)
        return SK_OK;
    note_levels(a, t);
    /* Row tables keep their order: every waiting row is final. */
    int64_t final = a->g.kind == SK_STORE_ROWS ? a->tail.n : below(&a->tail, key[0]);
    int64_t full = final / a->chunk_rows;
    int rc = write_tail(a, full, 0, err);
    if (rc == SK_OK)
        rc = merge_in(a, full * a->chunk_rows, t, perm, key, err);
    if (rc == SK_OK)
        a->rows += n;
    return rc;
}

int st_append_end(st_appender *a, int64_t *rows, sk_error *err)
{
    *rows = a->rows;
    int64_t left = a->tail.n;
    int rc = write_tail(a, left / a->chunk_rows, left % a->chunk_rows, err);
    if (rc == SK_OK)
        rc = chunk_room(a, 1, err); /* a table of no rows still has an index */
    if (rc == SK_OK) {
        st_table *st = entry(a);
        st->nrows = a->rows;
        if (a->g.kind == SK_STORE_CELLS)
            st->curve_bits = a->top < 1 ? 1 : a->top > SK_HILBERT_MAX_BITS ? SK_HILBERT_MAX_BITS
                                                                            : a->top;
        else if (a->g.kind == SK_STORE_POINTS)
            st->curve_bits = SK_HILBERT_MAX_BITS;
        int64_t row_bytes = 0;
        for (int j = 0; j < st->ncols; j++)
            row_bytes += (int64_t)sk_dtype_size(sk_table_col(st->schema, j)->type);
        a->w->rows += st->nrows;
        a->w->chunks += st->nchunks;
        a->w->bytes_raw += st->nrows * row_bytes;
    }
    appender_free(a);
    return rc;
}

int st_append_discard(st_appender *a, sk_error *err)
{
    if (!a)
        return SK_OK;
    sk_store_writer *w = a->w;
    int rc = sk_atomic_truncate(w->file, a->start, err);
    st_table_clear(&w->footer.tables[a->table]);
    w->footer.ntables--;
    appender_free(a);
    return rc;
}
