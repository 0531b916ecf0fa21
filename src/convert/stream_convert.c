/* Converting a component without holding its table: the RAMSES stream
 * hands over one CPU file at a time; each is sorted along the curve on
 * its reading thread and goes to the store's appender in table order.
 * RAMSES's CPU files are consecutive pieces of its Hilbert curve, the
 * curve of the file order, so the sorted files end to end are the sorted
 * table and the file is the one the whole-table writer makes. A file that
 * arrives before the ones above it waits, copied; the thread whose file is
 * next appends it and then the waiting ones that follow. Should a file's
 * first key fall below the previous file's last (an output whose domains
 * are not pieces of this curve), the table is taken back and the caller
 * writes it whole. */
#include <string.h>

#include "convert/convert_internal.h"
#include "core/clock.h"
#include "core/table_rows.h"
#include "snapkit/memory.h"
#include "snapkit/stream.h"
#include "store/order.h"
#include "store/writer_internal.h"

/* A sorted copy of a file that arrived early, or a spare one to reuse. */
typedef struct held {
    int64_t row, cap;
    sk_table *t;
    uint64_t *key; /* the rows' curve keys */
} held;

typedef struct stream_state {
    sk_store_writer *w;
    const char *name;
    sk_table *schema;
    st_geometry g;
    st_appender *a;
    st_batch_order *orders; /* one per thread */
    int nthreads;
    int64_t next;           /* the table row the appender needs next */
    int busy;               /* a thread is appending */
    int out_of_order;
    held *waiting, *spare;
    int nwaiting, nspare, cap;
    double append_seconds;
} stream_state;

static void held_free(held *h)
{
    sk_table_free(h->t);
    sk_free(h->key);
}

static void state_free(stream_state *s)
{
    sk_table_free(s->schema);
    for (int i = 0; s->orders && i < s->nthreads; i++)
        st_batch_order_free(&s->orders[i]);
    sk_free(s->orders);
    for (int i = 0; i < s->nwaiting; i++)
        held_free(&s->waiting[i]);
    for (int i = 0; i < s->nspare; i++)
        held_free(&s->spare[i]);
    sk_free(s->waiting);
    sk_free(s->spare);
}

static int on_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    stream_state *s = ctx;
    st_geometry_detect(schema, &s->g);
    s->nthreads = nthreads;
    s->orders = sk_calloc((size_t)nthreads, sizeof *s->orders);
    int rc = s->orders ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return rc == SK_OK ? st_copy_schema(schema, &s->schema, err) : rc;
}

/* Under the lock: the waiting file that starts at the next row, moved to
 * *h; 0 when it has not arrived. */
static int take_next(stream_state *s, held *h)
{
    for (int i = 0; i < s->nwaiting; i++)
        if (s->waiting[i].row == s->next) {
            *h = s->waiting[i];
            s->waiting[i] = s->waiting[--s->nwaiting];
            return 1;
        }
    return 0;
}

/* Append t's rows in the order perm (NULL: as they are), then every
 * waiting file that follows, until the next one has not arrived. The
 * caller holds the turn (busy); it is given up here. */
static int append_run(stream_state *s, const sk_table *t, const int64_t *perm,
                      const uint64_t *key, held *own, sk_error *err)
{
    int rc = SK_OK;
    for (;;) {
        int in_order = 1;
        double t0 = monotonic_seconds();
        rc = st_append(s->a, t, perm, key, &in_order, err);
        double dt = monotonic_seconds() - t0;
        if (rc == SK_OK && !in_order)
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                         "%s: the CPU files are not consecutive pieces of the curve", s->name);
        int more = 0;
        held h;
#pragma omp critical(cv_stream)
        {
            s->append_seconds += dt;
            s->out_of_order |= !in_order;
            s->next += sk_table_nrows(t);
            if (own && own->t) /* its copy can serve another early file */
                s->spare[s->nspare++] = *own;
            more = rc == SK_OK && take_next(s, &h);
            s->busy = more;
        }
        if (!more)
            return rc;
        *own = h;
        t = h.t;
        perm = NULL;
        key = h.key;
    }
}

/* A table for n sorted rows: a spare one large enough, else a new one. */
static int held_table(stream_state *s, const sk_table *t, int64_t n, held *h, sk_error *err)
{
    int found = -1;
#pragma omp critical(cv_stream)
    {
        for (int i = 0; i < s->nspare && found < 0; i++)
            if (s->spare[i].cap >= n) {
                found = i;
                *h = s->spare[i];
                s->spare[i] = s->spare[--s->nspare];
            }
    }
    if (found < 0) {
        h->cap = n;
        h->key = sk_malloc((size_t)n * sizeof *h->key + 1);
        int rc = h->key ? st_table_like(t, n, &h->t, err)
                        : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        if (rc != SK_OK) {
            held_free(h);
            return rc;
        }
    }
    tb_set_nrows(h->t, n);
    return SK_OK;
}

/* Copy the sorted file and leave it waiting; if it became the next one
 * meanwhile and no thread appends, append it here. */
static int wait_copied(stream_state *s, const sk_table *t, const st_batch_order *o, int64_t row,
                       sk_error *err)
{
    held h = {.row = row};
    int rc = held_table(s, t, sk_table_nrows(t), &h, err);
    if (rc != SK_OK)
        return rc;
    for (int j = 0; j < sk_table_ncols(t); j++)
        st_gather(sk_table_col(t, j), o->idx, sk_table_nrows(t), sk_table_col(h.t, j)->data);
    memcpy(h.key, o->key, (size_t)sk_table_nrows(t) * sizeof *h.key);
    h.row = row;
    int mine = 0;
    held next = {0};
#pragma omp critical(cv_stream)
    {
        s->waiting[s->nwaiting++] = h;
        mine = !s->busy && !s->out_of_order && take_next(s, &next);
        s->busy |= mine;
    }
    return mine ? append_run(s, next.t, NULL, next.key, &next, err) : SK_OK;
}

static int on_batch(void *ctx, int thread, const sk_table *t, const sk_batch_info *info,
                    sk_error *err)
{
    stream_state *s = ctx;
    st_batch_order *o = &s->orders[thread];
    int rc = st_batch_order_sort(o, t, &s->g, err);
    int mine = 0;
#pragma omp critical(cv_stream)
    {
        /* Room for every file to wait (each index once), made once. */
        if (rc == SK_OK && !s->a) {
            s->cap = (int)info->nbatches + 1;
            s->waiting = sk_calloc((size_t)s->cap, sizeof *s->waiting);
            s->spare = sk_calloc((size_t)s->cap, sizeof *s->spare);
            rc = s->waiting && s->spare
                     ? st_append_begin(s->w, s->name, s->schema, info->rows, &s->a, err)
                     : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        }
        mine = rc == SK_OK && !s->busy && !s->out_of_order && info->row == s->next;
        s->busy |= mine;
    }
    if (rc != SK_OK || s->out_of_order)
        return rc == SK_OK ? sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: out of curve order", s->name)
                           : rc;
    if (mine) {
        held none = {0};
        return append_run(s, t, o->idx, o->key, &none, err);
    }
    return wait_copied(s, t, o, info->row, err);
}

int cv_stream_component(sk_ramses *r, sk_store_writer *w, const char *name,
                        const sk_selection *sel, const sk_read_options *ro, cv_streamed *out,
                        sk_error *err)
{
    memset(out, 0, sizeof *out);
    stream_state s = {.w = w, .name = name};
    sk_consumer c = {.ctx = &s, .begin = on_begin, .batch = on_batch};
    int rc = sk_ramses_stream(r, name, sel, ro, &c, &out->read, err);
    if (s.out_of_order) {
        out->fallback = 1;
        sk_error_clear(err);
        rc = st_append_discard(s.a, err);
        state_free(&s);
        return rc;
    }
    if (rc == SK_OK && !s.a)
        rc = st_append_begin(w, name, s.schema, 0, &s.a, err);
    if (rc == SK_OK && s.nwaiting > 0)
        rc = sk_fail(err, SK_ERR_FORMAT, NULL, -1, "%s: rows %lld.. never came", name,
                     (long long)s.next);
    if (rc != SK_OK) {
        st_append_discard(s.a, NULL);
        state_free(&s);
        return rc;
    }
    double t0 = monotonic_seconds();
    rc = st_append_end(s.a, err);
    out->write_seconds = s.append_seconds + monotonic_seconds() - t0;
    out->rows = s.next;
    int64_t row_bytes = 0;
    for (int j = 0; j < sk_table_ncols(s.schema); j++)
        row_bytes += (int64_t)sk_dtype_size(sk_table_col(s.schema, j)->type);
    out->bytes_raw = s.next * row_bytes;
    state_free(&s);
    return rc;
}
