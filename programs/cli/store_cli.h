/* What only a .snapkit file answers, for commands that take either a
 * RAMSES output or a compact file (info, stats). */
#ifndef SNAPKIT_CLI_STORE_H
#define SNAPKIT_CLI_STORE_H

#include "cli.h"

/* The statistics stored with `component` of the .snapkit file src
 * (sk_store_stored_stats) for the options' selection, res filled as for a
 * read of no chunk. The column names live in src. SK_ERR_EMPTY when the
 * file stores none or the selection keeps part of the rows. */
int cli_store_stored_stats(const sk_source *src, const char *component, const cli_selection *cs,
                           sk_table_stats *out, cli_source_read *res, sk_error *err);

/* `snapkit info FILE.snapkit` as text (--json is sk_store_info_json). */
int cli_store_info_text(const sk_store *s, const char *path, sk_error *err);

#endif
