/* The writer: per table, order the rows, encode chunks in parallel batches,
 * append them in order (so the same tables always give the same bytes),
 * and keep their index for the footer. Everything goes through an atomic
 * file: the target appears complete at commit or not at all. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <omp.h>

#include "snapkit/util/clock.h"
#include "core/table_rows.h"
#include "core/atomicfile.h"
#include "core/testhooks.h"
#include "snapkit/memory.h"
#include "snapkit/snapkit.h"
#include "snapkit/store.h"
#include "snapkit/threads.h"
#include "formats/snapkit/codec.h"
#include "formats/snapkit/format.h"
#include "formats/snapkit/order.h"
#include "formats/snapkit/writer_internal.h"

void sk_store_write_options_init(sk_store_write_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->compress = 1;
    opt->fail_after_bytes = -1;
}

int sk_store_writer_open(sk_store_writer **out, const char *path,
                         const sk_store_write_options *opt, sk_error *err)
{
    *out = NULL;
    sk_store_writer *w = sk_calloc(1, sizeof *w);
    if (!w || !(w->path = sk_strdup(path))) {
        sk_store_writer_abort(w);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    if (opt)
        w->opt = *opt;
    else
        sk_store_write_options_init(&w->opt);
    w->start = sk_monotonic_seconds();
    int rc = sk_atomic_open(&w->file, path, err);
    if (rc != SK_OK) {
        sk_store_writer_abort(w);
        return rc;
    }
    /* Always flushed before the rename: a compact file is made once to be
     * read many times, and its convert costs far more than the fsync. */
    sk_atomic_set_fsync(w->file, 1);
    if (w->opt.fail_after_bytes >= 0)
        sk_atomic_fail_after(w->file, w->opt.fail_after_bytes);
    uint8_t header[ST_HEADER_BYTES];
    st_header_bytes(header);
    rc = sk_atomic_write(w->file, header, sizeof header, err);
    if (rc == SK_OK && st_footer_init(&w->footer) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    if (rc != SK_OK) {
        sk_store_writer_abort(w);
        return rc;
    }
    *out = w;
    return SK_OK;
}

void sk_store_writer_abort(sk_store_writer *w)
{
    if (!w)
        return;
    sk_atomic_abort(w->file);
    st_footer_clear(&w->footer);
    sk_free(w->path);
    sk_free(w);
}

int sk_store_writer_set_meta(sk_store_writer *w, const char *key, const char *value,
                             sk_error *err)
{
    if (sk_table_meta_set(w->footer.meta, key, value) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, w->path, -1, "out of memory");
    return SK_OK;
}

int st_copy_schema(const sk_table *t, sk_table **out, sk_error *err)
{
    return st_table_like(t, 0, out, err);
}

int st_table_like(const sk_table *t, int64_t nrows, sk_table **out, sk_error *err)
{
    sk_table *s = sk_table_new(nrows);
    if (!s || sk_table_meta_copy(s, t) != SK_OK) {
        sk_table_free(s);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    for (int j = 0; j < sk_table_ncols(t); j++) {
        const sk_column *c = sk_table_col(t, j);
        if (!sk_table_add(s, c->name, c->type, err) ||
            (c->type == SK_CATEGORY &&
             sk_table_set_labels(s, c->name, (const char *const *)c->labels, c->nlabels, err) !=
                 SK_OK)) {
            sk_table_free(s);
            return err ? err->code : SK_ERR_NOMEM;
        }
    }
    *out = s;
    return SK_OK;
}

int64_t st_rows_per_chunk(const sk_store_write_options *opt, int64_t nrows)
{
    if (opt->chunk_rows > 0)
        return opt->chunk_rows < ST_MAX_CHUNK_ROWS ? opt->chunk_rows : ST_MAX_CHUNK_ROWS;
    /* About a thousand chunks per table: a region of 1% of the rows then
     * spans ten chunks or more, so the partly covered chunks at its edge
     * cost little; within [1024, 65536] rows so that chunks stay cheap to
     * decode and the footer small. */
    int64_t r = SK_STORE_CHUNK_ROWS_MIN;
    while (r < SK_STORE_CHUNK_ROWS_MAX && 2 * r <= nrows / 1024)
        r *= 2;
    return r;
}

/* Copy the rows perm[0..n) of column c into dst. */
void st_gather(const sk_column *c, const int64_t *perm, int64_t n, void *dst)
{
    switch (sk_dtype_size(c->type)) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            ((uint8_t *)dst)[i] = ((const uint8_t *)c->data)[perm[i]];
        break;
    case 2:
        for (int64_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i] = ((const uint16_t *)c->data)[perm[i]];
        break;
    case 4:
        for (int64_t i = 0; i < n; i++)
            ((uint32_t *)dst)[i] = ((const uint32_t *)c->data)[perm[i]];
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            ((uint64_t *)dst)[i] = ((const uint64_t *)c->data)[perm[i]];
        break;
    }
}

static double float_at(const sk_column *c, int64_t i)
{
    return c->type == SK_FLOAT32 ? (double)((const float *)c->data)[i]
                                 : ((const double *)c->data)[i];
}

/* Bounding box of the row positions and the level range of one chunk. */
static void chunk_extent(const sk_table *t, const st_geometry *g, const int64_t *perm,
                         int64_t n, st_chunk *ch)
{
    for (int a = 0; a < 3; a++) {
        ch->lo[a] = INFINITY;
        ch->hi[a] = -INFINITY;
    }
    if (g->kind == SK_STORE_ROWS) {
        for (int a = 0; a < 3; a++)
            ch->lo[a] = ch->hi[a] = 0.0;
        return;
    }
    ch->flags |= ST_CHUNK_HAS_BBOX;
    if (g->kind == SK_STORE_POINTS) {
        for (int a = 0; a < 3; a++) {
            const sk_column *c = sk_table_col(t, g->pos[a]);
            for (int64_t i = 0; i < n; i++) {
                double x = float_at(c, perm[i]) / g->boxlen;
                if (x < ch->lo[a])
                    ch->lo[a] = x;
                if (x > ch->hi[a])
                    ch->hi[a] = x;
            }
        }
        return;
    }
    const int32_t *lv = sk_table_col(t, g->level)->data;
    const int32_t *cc[3] = {sk_table_col(t, g->cx)->data,
                            g->dims >= 2 ? sk_table_col(t, g->cy)->data : NULL,
                            g->dims == 3 ? sk_table_col(t, g->cz)->data : NULL};
    int32_t lmin = lv[perm[0]], lmax = lv[perm[0]];
    for (int64_t i = 0; i < n; i++) {
        int32_t l = lv[perm[i]];
        if (l < lmin)
            lmin = l;
        if (l > lmax)
            lmax = l;
        for (int a = 0; a < 3; a++) {
            double x = st_cell_centre_of(cc[a], perm[i], l);
            if (x < ch->lo[a])
                ch->lo[a] = x;
            if (x > ch->hi[a])
                ch->hi[a] = x;
        }
    }
    ch->level_min = (uint8_t)lmin;
    ch->level_max = (uint8_t)lmax;
}

typedef struct batch {
    const sk_table *t;
    const st_geometry *g;
    const st_order *o;
    st_table *st;
    int compress;
    size_t chunk_cap;   /* bytes of one chunk's output buffer */
    uint8_t *out;       /* nbatch x chunk_cap */
    int64_t first, count;
    int64_t chunk0, row0; /* o's chunk 0 is st's chunk chunk0 and starts at file row row0 */
} batch;

/* One thread's buffers: the chunk's rows gathered column by column into
 * a table (so that its statistics can be taken), the codec's scratch,
 * and the thread's statistics of the chunks it encoded. */
typedef struct worker {
    sk_table *rows;
    uint8_t *scratch;
    sk_stats_acc *acc;
    int no_stats; /* a chunk's statistics could not be taken (a level beyond 63) */
} worker;

/* Encode one chunk's columns into its slot of the batch buffer; offsets
 * are relative to the slot until the chunk is written. */
static int encode_chunk(batch *b, int64_t ci, worker *k, sk_error *err)
{
    const int64_t *perm = b->o->perm + b->o->start[ci];
    int64_t n = b->o->start[ci + 1] - b->o->start[ci];
    st_chunk *ch = &b->st->chunks[b->chunk0 + ci];
    memset(ch, 0, sizeof *ch);
    ch->nrows = n;
    ch->row0 = b->row0 + b->o->start[ci];
    ch->kind = b->o->kind[ci];
    chunk_extent(b->t, b->g, perm, n, ch);
    uint8_t *out = b->out + (size_t)(ci - b->first) * b->chunk_cap;
    int64_t pos = 0;
    tb_set_nrows(k->rows, n);
    for (int j = 0; j < b->st->ncols; j++) {
        const sk_column *c = sk_table_col(b->t, j);
        st_cc *cc = st_cc_at(b->st, b->chunk0 + ci, j);
        void *gathered = sk_table_col(k->rows, j)->data;
        st_gather(c, perm, n, gathered);
        st_encode(c->type, gathered, n, b->compress, k->scratch, out + pos, cc);
        cc->offset = pos;
        pos += cc->stored;
    }
    /* Leaf chunks only: the statistics are those of the rows a plain read
     * returns. The first row orders equal extremes as a chunk number would.
     * Rows the statistics refuse (a level beyond 63) are stored all the
     * same, in a table without statistics. */
    if (!k->acc || ch->kind != ST_KIND_ROWS)
        return SK_OK;
    int rc = sk_stats_acc_add(k->acc, k->rows, ch->row0, err);
    if (rc == SK_ERR_NOMEM)
        return rc;
    if (rc != SK_OK) {
        sk_error_clear(err);
        k->no_stats = 1;
    }
    return SK_OK;
}

static int worker_init(worker *k, const batch *b, int64_t chunk_rows, sk_error *err)
{
    memset(k, 0, sizeof *k);
    k->scratch = sk_malloc((size_t)chunk_rows * 8);
    int rc = k->scratch ? st_table_like(b->t, chunk_rows, &k->rows, err)
                        : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK && b->st->acc)
        rc = sk_stats_acc_new(b->t, &k->acc, err);
    return rc;
}

static void worker_free(worker *k)
{
    sk_table_free(k->rows);
    sk_free(k->scratch);
    sk_stats_acc_free(k->acc);
}

static int64_t chunk_bytes(const st_table *st, int64_t ci)
{
    int64_t sum = 0;
    for (int j = 0; j < st->ncols; j++)
        sum += st_cc_at(st, ci, j)->stored;
    return sum;
}

/* Where encoded chunks go, in order: fn appends n bytes and says where
 * they start (the atomic file, or memory for an MPI rank's share). */
typedef struct chunk_sink {
    int (*fn)(void *ctx, const void *data, size_t n, int64_t *at, sk_error *err);
    void *ctx;
    const char *path;
    sk_progress progress;
} chunk_sink;

/* Append the encoded chunks of the batch, in order, fixing their offsets. */
static int write_batch(const chunk_sink *sink, batch *b, sk_error *err)
{
    for (int64_t ci = b->first; ci < b->first + b->count; ci++) {
        int64_t base = 0;
        int64_t n = chunk_bytes(b->st, b->chunk0 + ci);
        int rc = sink->fn(sink->ctx, b->out + (size_t)(ci - b->first) * b->chunk_cap, (size_t)n,
                          &base, err);
        if (rc != SK_OK)
            return rc;
        for (int j = 0; j < b->st->ncols; j++)
            st_cc_at(b->st, b->chunk0 + ci, j)->offset += base;
    }
    return SK_OK;
}

/* One worker per thread, made once for all batches; SK_OK or the first
 * failure. */
static int workers_init(worker *k, int threads, const batch *b, int64_t chunk_rows,
                        sk_error *err)
{
    int rc = SK_OK;
    for (int i = 0; i < threads && rc == SK_OK; i++)
        rc = worker_init(&k[i], b, chunk_rows, err);
    return rc;
}

/* The threads' statistics into the table's (none at all when a chunk's
 * could not be taken), then every worker freed. */
static int workers_finish(worker *k, int threads, st_table *st, int rc, sk_error *err)
{
    for (int i = 0; i < threads; i++)
        if (k[i].no_stats) {
            sk_stats_acc_free(st->acc);
            st->acc = NULL;
        }
    for (int i = 0; i < threads; i++) {
        if (rc == SK_OK && k[i].acc && st->acc)
            rc = sk_stats_acc_merge(st->acc, k[i].acc, err);
        worker_free(&k[i]);
    }
    return rc;
}

/* Encode chunks first .. first + count - 1 of the batch on `threads`
 * threads; the failure of the lowest chunk wins, whatever the schedule. */
static int encode_batch(batch *b, worker *k, int threads, sk_error *err)
{
    sk_error first;
    sk_error_clear(&first);
    int64_t first_at = -1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t ci = b->first; ci < b->first + b->count; ci++) {
        sk_error e;
        sk_error_clear(&e);
        if (encode_chunk(b, ci, &k[omp_get_thread_num()], &e) != SK_OK) {
#pragma omp critical(st_encode_error)
            if (first_at < 0 || ci < first_at) {
                first = e;
                first_at = ci;
            }
        }
    }
    if (first_at < 0)
        return SK_OK;
    if (err)
        *err = first;
    return first.code;
}

static int encode_all(const chunk_sink *sink, batch *b, int threads, int64_t chunk_rows,
                      sk_error *err)
{
    int64_t nbatch = 4 * (int64_t)threads;
    b->out = sk_malloc((size_t)nbatch * b->chunk_cap);
    worker *k = sk_calloc((size_t)threads, sizeof *k);
    int rc = b->out && k ? workers_init(k, threads, b, chunk_rows, err)
                         : sk_fail(err, SK_ERR_NOMEM, sink->path, -1,
                                   "out of memory for %lld chunk buffers", (long long)nbatch);
    for (b->first = 0; b->first < b->o->nchunks && rc == SK_OK; b->first += nbatch) {
        b->count = b->o->nchunks - b->first < nbatch ? b->o->nchunks - b->first : nbatch;
        rc = encode_batch(b, k, threads, err);
        int64_t end = 0;
        if (rc == SK_OK)
            rc = write_batch(sink, b, err);
        if (rc == SK_OK && sink->progress.fn && sink->fn(sink->ctx, NULL, 0, &end, err) == SK_OK)
            sink->progress.fn(sink->progress.ctx, b->first + b->count, b->o->nchunks, end);
    }
    if (k)
        rc = workers_finish(k, threads, b->st, rc, err);
    sk_free(k);
    sk_free(b->out);
    return rc;
}

static int to_file(void *ctx, const void *data, size_t n, int64_t *at, sk_error *err)
{
    sk_atomic_file *f = ctx;
    *at = sk_atomic_tell(f);
    return n ? sk_atomic_write(f, data, n, err) : SK_OK;
}

typedef struct mem_sink {
    uint8_t *data;
    size_t n, cap;
} mem_sink;

static int to_memory(void *ctx, const void *data, size_t n, int64_t *at, sk_error *err)
{
    mem_sink *m = ctx;
    *at = (int64_t)m->n;
    if (m->n + n > m->cap) {
        size_t cap = m->cap ? m->cap : 1 << 16;
        while (cap < m->n + n)
            cap *= 2;
        uint8_t *d = sk_realloc(m->data, cap);
        if (!d)
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for encoded chunks");
        m->data = d;
        m->cap = cap;
    }
    if (n)
        memcpy(m->data + m->n, data, n);
    m->n += n;
    return SK_OK;
}

int st_encode_to_memory(const sk_table *t, const st_geometry *g, const st_order *o,
                        st_table *st, int64_t row0, int compress, int threads,
                        int64_t chunk_rows, uint8_t **bytes, int64_t *nbytes, sk_error *err)
{
    size_t cap = 0;
    for (int j = 0; j < st->ncols; j++)
        cap += st_encode_bound(sk_table_col(t, j)->type, chunk_rows);
    batch b = {.t = t, .g = g, .o = o, .st = st, .compress = compress != 0,
               .chunk_cap = cap + 64, .row0 = row0};
    mem_sink m = {0};
    chunk_sink sink = {to_memory, &m, NULL, {0}};
    int rc = encode_all(&sink, &b, threads < 1 ? 1 : threads, chunk_rows, err);
    if (rc != SK_OK) {
        sk_free(m.data);
        return rc;
    }
    *bytes = m.data;
    *nbytes = (int64_t)m.n;
    return SK_OK;
}

int st_encode_to_file(sk_store_writer *w, const sk_table *t, const st_geometry *g,
                      const st_order *o, st_table *st, int64_t chunk0, int64_t row0,
                      int64_t chunk_rows, int progress, sk_error *err)
{
    sk_thread_budget budget;
    int threads = sk_thread_budget_get(w->opt.threads, &budget);
    size_t cap = 0;
    for (int j = 0; j < st->ncols; j++)
        cap += st_encode_bound(sk_table_col(t, j)->type, chunk_rows);
    batch b = {.t = t, .g = g, .o = o, .st = st, .compress = w->opt.compress != 0,
               .chunk_cap = cap + 64, .chunk0 = chunk0, .row0 = row0};
    chunk_sink sink = {to_file, w->file, w->path, {0}};
    if (progress)
        sink.progress = w->opt.progress;
    return encode_all(&sink, &b, threads, chunk_rows, err);
}

const char *st_table_name(const sk_store_writer *w, const char *name, const sk_table *t,
                          char *buf, size_t n)
{
    if (name && *name)
        return name;
    const char *comp = sk_table_meta_get(t, "component");
    if (comp && *comp)
        return comp;
    snprintf(buf, n, "table%d", w->footer.ntables + 1);
    return buf;
}

int st_add_table_entry(sk_store_writer *w, const char *name, const sk_table *t, st_table **out,
                       sk_error *err)
{
    for (int i = 0; i < w->footer.ntables; i++)
        if (strcmp(w->footer.tables[i].name, name) == 0)
            return sk_fail(err, SK_ERR_ARG, w->path, -1, "two tables called %s in one file",
                           name);
    if (w->footer.ntables == w->cap_tables) {
        int cap = w->cap_tables ? 2 * w->cap_tables : 4;
        st_table *tables = sk_realloc(w->footer.tables, (size_t)cap * sizeof *tables);
        if (!tables)
            return sk_fail(err, SK_ERR_NOMEM, w->path, -1, "out of memory");
        w->footer.tables = tables;
        w->cap_tables = cap;
    }
    st_table *st = &w->footer.tables[w->footer.ntables];
    memset(st, 0, sizeof *st);
    st->ncols = sk_table_ncols(t);
    st->nrows = sk_table_nrows(t);
    st->name = sk_strdup(name);
    int rc = st->name ? st_copy_schema(t, &st->schema, err)
                      : sk_fail(err, SK_ERR_NOMEM, w->path, -1, "out of memory");
    if (rc != SK_OK) {
        st_table_clear(st);
        return rc;
    }
    w->footer.ntables++;
    *out = st;
    return SK_OK;
}

int st_stats_begin(st_table *st, sk_error *err)
{
    if (st->flags & ST_TABLE_HAS_REFINED)
        return SK_OK;
    return sk_stats_acc_new(st->schema, &st->acc, err);
}

int sk_store_writer_add(sk_store_writer *w, const char *name, const sk_table *t, sk_error *err)
{
    char buf[32];
    name = st_table_name(w, name, t, buf, sizeof buf);
    st_geometry g;
    st_geometry_detect(t, &g);
    int64_t chunk_rows = st_rows_per_chunk(&w->opt, sk_table_nrows(t));
    st_order o;
    int rc = st_order_plan(t, &g, chunk_rows, &o, err);
    if (rc != SK_OK) {
        if (err && err->path[0] == '\0') {
            char text[sizeof err->message];
            memcpy(text, err->message, sizeof text);
            sk_fail(err, err->code, w->path, -1, "table %s: %s", name, text);
        }
        return rc;
    }
    st_table *st = NULL;
    rc = st_add_table_entry(w, name, t, &st, err);
    if (rc == SK_OK) {
        st->geometry = g.kind;
        st->curve_bits = o.curve_bits;
        st->flags = g.refined >= 0 ? ST_TABLE_HAS_REFINED : 0;
        st->chunks = sk_calloc((size_t)o.nchunks + 1, sizeof *st->chunks);
        st->cc = sk_calloc((size_t)(o.nchunks * st->ncols) + 1, sizeof *st->cc);
        st->nchunks = o.nchunks;
        if (!st->chunks || !st->cc)
            rc = sk_fail(err, SK_ERR_NOMEM, w->path, -1, "out of memory for the chunk index");
        if (rc == SK_OK)
            rc = st_stats_begin(st, err);
    }
    if (rc == SK_OK)
        rc = st_encode_to_file(w, t, &g, &o, st, 0, 0, chunk_rows, 1, err);
    if (rc == SK_OK) {
        w->rows += st->nrows;
        w->chunks += st->nchunks;
        w->bytes_raw += sk_table_bytes(t);
    }
    st_order_free(&o);
    return rc;
}

void st_header_bytes(uint8_t header[ST_HEADER_BYTES])
{
    memset(header, 0, ST_HEADER_BYTES);
    memcpy(header, ST_HEADER_MAGIC, 8);
    st_put_u16(header + 8, SK_STORE_VERSION_MAJOR);
    st_put_u16(header + 10, SK_STORE_VERSION_MINOR);
}

int st_footer_init(st_footer *f)
{
    memset(f, 0, sizeof *f);
    f->major = SK_STORE_VERSION_MAJOR;
    f->minor = SK_STORE_VERSION_MINOR;
    char version[32];
    snprintf(version, sizeof version, "snapkit %s", sk_version());
    if (!(f->meta = sk_table_new(0)) || sk_table_meta_set(f->meta, "writer", version) != SK_OK)
        return SK_ERR_NOMEM;
    return SK_OK;
}

int st_footer_bytes(const st_footer *f, int64_t at, uint8_t **out, size_t *n, sk_error *err)
{
    uint8_t *body = NULL;
    size_t size = 0;
    int rc = st_footer_encode(f, &body, &size, err);
    if (rc != SK_OK)
        return rc;
    uint8_t *all = sk_realloc(body, size + ST_TAIL_BYTES);
    if (!all) {
        sk_free(body);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the footer");
    }
    uint8_t *tail = all + size;
    memset(tail, 0, ST_TAIL_BYTES);
    st_put_u64(tail, (uint64_t)at);
    st_put_u64(tail + 8, (uint64_t)size);
    st_put_u64(tail + 16, st_hash(all, size));
    st_put_u16(tail + 24, SK_STORE_VERSION_MAJOR);
    st_put_u16(tail + 26, SK_STORE_VERSION_MINOR);
    memcpy(tail + 32, ST_TAIL_MAGIC, 8);
    *out = all;
    *n = size + ST_TAIL_BYTES;
    return SK_OK;
}

static int write_footer(sk_store_writer *w, sk_error *err)
{
    uint8_t *bytes = NULL;
    size_t n = 0;
    int rc = st_footer_bytes(&w->footer, sk_atomic_tell(w->file), &bytes, &n, err);
    if (rc == SK_OK)
        rc = sk_atomic_write(w->file, bytes, n, err);
    sk_free(bytes);
    return rc;
}

int sk_store_writer_commit(sk_store_writer *w, sk_store_write_stats *stats, sk_error *err)
{
    int rc = write_footer(w, err);
    int64_t size = sk_atomic_tell(w->file);
    if (rc == SK_OK) {
        rc = sk_atomic_commit(w->file, err);
        w->file = NULL; /* commit frees it, also on failure */
    }
    if (rc == SK_OK && stats) {
        stats->ntables = w->footer.ntables;
        stats->rows = w->rows;
        stats->chunks = w->chunks;
        stats->bytes_raw = w->bytes_raw;
        stats->bytes_file = size;
        stats->seconds = sk_monotonic_seconds() - w->start;
    }
    sk_store_writer_abort(w);
    return rc;
}

int sk_store_save(const char *path, const sk_table *const *tables, const char *const *names,
                  int ntables, const sk_store_write_options *opt, sk_store_write_stats *stats,
                  sk_error *err)
{
    sk_store_writer *w;
    int rc = sk_store_writer_open(&w, path, opt, err);
    for (int i = 0; i < ntables && rc == SK_OK; i++)
        rc = sk_store_writer_add(w, names ? names[i] : NULL, tables[i], err);
    if (rc != SK_OK) {
        sk_store_writer_abort(w);
        return rc;
    }
    return sk_store_writer_commit(w, stats, err);
}
