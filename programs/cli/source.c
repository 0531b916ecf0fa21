/* Reading a component of a SOURCE (snapkit/source.h: a RAMSES output
 * folder or a .snapkit file) with the command line's selection options. */
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"

int cli_selection_in_units(const cli_selection *cs, const sk_units *u, sk_selection *sel,
                           sk_error *err)
{
    if (cs->region.inverse && !cs->region.shape)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "--inverse needs a shape (--sphere, --shell, --cylinder, "
                       "--cylinder-shell)");
    sel->lmax = cs->lmax;
    int rc = sk_selection_set_region(sel, &cs->region, u, err);
    if (rc == SK_OK && cs->vars[0])
        rc = sk_selection_set_vars(sel, cs->vars, err);
    if (rc == SK_OK && cs->families[0])
        rc = sk_selection_set_families(sel, cs->families, err);
    return rc;
}

int cli_source_selection(const sk_source *src, const char *component, const cli_selection *cs,
                         sk_selection *sel, sk_error *err)
{
    sk_units u;
    int rc = sk_source_units(src, component, &u, err);
    return rc == SK_OK ? cli_selection_in_units(cs, &u, sel, err) : rc;
}

/* Read into res->table, or stream to consumer when it is not NULL. */
static int read_or_stream(sk_source *src, const char *component, const cli_selection *cs,
                          int threads, const sk_consumer *consumer, cli_source_read *res,
                          sk_error *err)
{
    memset(res, 0, sizeof *res);
    res->chunks = sk_source_kind(src) == SK_SOURCE_SNAPKIT;
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = cli_source_selection(src, component, cs, &sel, err);
    if (rc == SK_OK && cs->clip)
        rc = sk_clip_widen(src, component, &sel, err);
    cli_progress prog;
    cli_progress_init(&prog, "reading");
    sk_read_options opt = {.threads = threads, .progress = cli_progress_hook(&prog)};
    cli_mpi_share(&opt);
    if (rc == SK_OK)
        rc = consumer ? sk_source_stream(src, component, &sel, &opt, consumer, &res->stats, err)
                      : sk_source_read(src, component, &sel, &opt, &res->table, &res->stats, err);
    cli_progress_done(&prog);
    int64_t total = 0;
    if (rc == SK_OK)
        sk_source_file_count(src, component, &total, NULL);
    res->files_total = (int)total;
    sk_selection_clear(&sel);
    return rc;
}

int cli_read_source(sk_source *src, const char *component, const cli_selection *cs, int threads,
                    cli_source_read *res, sk_error *err)
{
    return read_or_stream(src, component, cs, threads, NULL, res, err);
}

int cli_stream_source(sk_source *src, const char *component, const cli_selection *cs,
                      int threads, const sk_consumer *consumer, cli_source_read *res,
                      sk_error *err)
{
    return read_or_stream(src, component, cs, threads, consumer, res, err);
}

static int meta_feed_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    cli_meta_feed *f = ctx;
    f->meta = sk_table_new(0);
    if (!f->meta || sk_table_meta_copy(f->meta, schema) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return f->inner.begin(f->inner.ctx, nthreads, schema, err);
}

static int meta_feed_batch(void *ctx, int thread, const sk_table *batch,
                           const sk_batch_info *info, sk_error *err)
{
    cli_meta_feed *f = ctx;
    return f->inner.batch(f->inner.ctx, thread, batch, info, err);
}

sk_consumer cli_meta_feed_consumer(cli_meta_feed *feed)
{
    return (sk_consumer){.ctx = feed, .begin = meta_feed_begin, .batch = meta_feed_batch,
                         .ordered = feed->inner.ordered};
}
