/* Reading a component of a SOURCE with a selection: the one place of the
 * command line that knows the kinds of source (a RAMSES output folder or a
 * .snapkit file), so that another kind plugs in here for every command. */
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "store_cli.h"
#include "snapkit/util/mpi.h"

/* Read into res->table, or stream to consumer when it is not NULL. */
static int read_or_stream(const char *source, const char *component, const cli_selection *cs,
                          int threads, const sk_consumer *consumer, cli_source_read *res,
                          sk_error *err)
{
    memset(res, 0, sizeof *res);
    if (sk_store_is_file(source)) {
        sk_read_options opt = {.threads = threads};
        cli_mpi_share(&opt);
        res->chunks = 1;
        return cli_store_read(source, component, cs, &opt, consumer, &res->table,
                              &res->stats, &res->files_total, err);
    }
    sk_ramses *r = NULL;
    int rc = sk_ramses_open(&r, source, err);
    if (cli_mpi_world()->size > 1) { /* rank 0 stats the files for every rank */
        rc = sk_mpi_agree(rc, err);
        if (rc == SK_OK)
            rc = sk_mpi_ramses_sizes(r, err);
        if (rc != SK_OK)
            sk_ramses_close(r);
    }
    if (rc != SK_OK)
        return rc;
    sk_selection sel;
    sk_selection_init(&sel);
    rc = cli_ramses_selection(r, cs, &sel, err);
    cli_progress prog;
    cli_progress_init(&prog, "reading");
    sk_read_options opt = {.threads = threads, .progress = cli_progress_hook(&prog)};
    cli_mpi_share(&opt);
    if (rc == SK_OK)
        rc = consumer ? sk_ramses_stream(r, component, &sel, &opt, consumer, &res->stats, err)
                      : sk_ramses_read(r, component, &sel, &opt, &res->table, &res->stats, err);
    cli_progress_done(&prog);
    res->files_total = sk_ramses_get_info(r)->ncpu;
    sk_selection_clear(&sel);
    sk_ramses_close(r);
    return rc;
}

int cli_read_source(const char *source, const char *component, const cli_selection *cs,
                    int threads, cli_source_read *res, sk_error *err)
{
    return read_or_stream(source, component, cs, threads, NULL, res, err);
}

int cli_stream_source(const char *source, const char *component, const cli_selection *cs,
                      int threads, const sk_consumer *consumer, cli_source_read *res,
                      sk_error *err)
{
    return read_or_stream(source, component, cs, threads, consumer, res, err);
}
