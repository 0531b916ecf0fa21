/* Converting a component without holding its table: the RAMSES stream
 * hands over one CPU file at a time, in file order (an ordered consumer:
 * the files are read in parallel, handed over in turn); each is sorted
 * along the curve and goes to the store's appender, which merges it into
 * the rows waiting for their place and writes the chunks that became
 * final. RAMSES's CPU files are consecutive pieces of its Hilbert curve,
 * the curve of the file order, overlapping only at the domains' edges, so
 * the file is the one the whole-table writer makes. Should a file start
 * below rows already written (an output whose domains are not pieces of
 * this curve), the table is taken back and the caller writes it whole. */
#include <string.h>

#include "formats/snapkit/convert_internal.h"
#include "snapkit/util/clock.h"
#include "snapkit/stream.h"
#include "formats/snapkit/order.h"
#include "formats/snapkit/writer_internal.h"

typedef struct stream_state {
    sk_store_writer *w;
    const char *name;
    sk_table *schema;
    st_geometry g;
    st_appender *a;
    st_batch_order order;   /* reused from file to file */
    int out_of_order;
    double append_seconds;
} stream_state;

static int on_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    (void)nthreads;
    stream_state *s = ctx;
    st_geometry_detect(schema, &s->g);
    return st_copy_schema(schema, &s->schema, err);
}

/* Calls come one at a time, in file order. */
static int on_batch(void *ctx, int thread, const sk_table *t, const sk_batch_info *info,
                    sk_error *err)
{
    (void)thread;
    stream_state *s = ctx;
    double t0 = sk_monotonic_seconds();
    int rc = s->a ? SK_OK : st_append_begin(s->w, s->name, s->schema, info->rows, &s->a, err);
    if (rc == SK_OK)
        rc = st_batch_order_sort(&s->order, t, &s->g, err);
    int in_order = 1;
    if (rc == SK_OK)
        rc = st_append(s->a, t, s->order.idx, s->order.key, &in_order, err);
    s->append_seconds += sk_monotonic_seconds() - t0;
    s->out_of_order |= !in_order;
    if (rc == SK_OK && !in_order)
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                     "%s: CPU file %lld starts below the rows written before it", s->name,
                     (long long)info->source);
    return rc;
}

int cv_stream_component(sk_ramses *r, sk_store_writer *w, const char *name,
                        const sk_selection *sel, const sk_read_options *ro, cv_streamed *out,
                        sk_error *err)
{
    memset(out, 0, sizeof *out);
    stream_state s = {.w = w, .name = name};
    sk_consumer c = {.ctx = &s, .begin = on_begin, .batch = on_batch, .ordered = 1};
    double t0 = sk_monotonic_seconds();
    int rc = sk_ramses_stream(r, name, sel, ro, &c, NULL, err);
    /* The appends run inside the stream, one at a time: the rest is reading. */
    out->read_seconds = sk_monotonic_seconds() - t0 - s.append_seconds;
    if (s.out_of_order) {
        out->fallback = 1;
        sk_error_clear(err);
        rc = st_append_discard(s.a, err);
    } else {
        if (rc == SK_OK && !s.a)
            rc = st_append_begin(w, name, s.schema, 0, &s.a, err);
        t0 = sk_monotonic_seconds();
        if (rc == SK_OK)
            rc = st_append_end(s.a, &out->rows, err);
        else
            st_append_discard(s.a, NULL);
        for (int j = 0; rc == SK_OK && j < sk_table_ncols(s.schema); j++)
            out->bytes_raw += out->rows * (int64_t)sk_dtype_size(sk_table_col(s.schema, j)->type);
        out->write_seconds = s.append_seconds + sk_monotonic_seconds() - t0;
    }
    st_batch_order_free(&s.order);
    sk_table_free(s.schema);
    return rc;
}
