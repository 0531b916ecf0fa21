/* The .snapkit side of commands that take either a RAMSES output or a
 * compact file (info, stats), and what convert and verify share. */
#ifndef SNAPKIT_CLI_STORE_H
#define SNAPKIT_CLI_STORE_H

#include "cli.h"

/* The selection of the command-line options in box units, with the units
 * of the stored table `table` (or of the file's first table when NULL). */
int cli_store_selection(const sk_store *s, const char *table, const cli_selection *cs,
                        sk_selection *sel, sk_error *err);

/* The same for a RAMSES output. */
int cli_ramses_selection(const sk_ramses *r, const cli_selection *cs, sk_selection *sel,
                         sk_error *err);

/* Read `component` of the .snapkit file `path` with the options'
 * selection; *chunks_total gets the table's chunk count. */
int cli_store_read(const char *path, const char *component, const cli_selection *cs,
                   const sk_read_options *opt, const sk_consumer *consumer, sk_table **out,
                   sk_read_stats *stats, int *chunks_total, sk_error *err);

/* The statistics stored with `component` of the .snapkit file `path` for
 * the options' selection (sk_store_stored_stats), res filled as for a read
 * of no chunk. The column names live in *keep, which the caller closes
 * after use. SK_ERR_EMPTY when the file stores none or the selection keeps
 * part of the rows. */
int cli_store_stored_stats(const char *path, const char *component, const cli_selection *cs,
                           sk_store **keep, sk_table_stats *out, cli_source_read *res,
                           sk_error *err);

/* `snapkit info FILE.snapkit [--json]`. Returns the exit status. */
int cli_store_info(const char *path, int json);

#endif
