/* Derived quantities on the command line (snapkit/derive.h): the frame of
 * the selection options, quantities named in --vars, and their list. */
#ifndef SNAPKIT_CLI_DERIVE_H
#define SNAPKIT_CLI_DERIVE_H

#include "cli.h"

/* The frame of the selection options in the units of the source's
 * component: the centre (--center, code lengths), the bulk velocity
 * (--bulk-velocity) and the axis (--cylinder-axis; z when none). */
int cli_derive_frame(const sk_source *src, const char *component, const cli_selection *cs,
                     sk_frame *frame, sk_error *err);

/* The derived quantities named in cs->vars: *read gets the options with
 * those names replaced by the columns they need (the reader reads those),
 * *set the quantities to add to the rows (NULL, and *read a copy of *cs,
 * when --vars names none). The caller frees *set. */
int cli_derive_take_vars(const sk_source *src, const char *component, const cli_selection *cs,
                         cli_selection *read, sk_derive_set **set, sk_error *err);

/* The quantities among names that are taken in the frame (about the
 * centre, the axis or the bulk velocity), which a projection gets as
 * columns: *set, NULL when there are none. */
int cli_derive_frame_quantities(const sk_source *src, const char *component,
                                const cli_selection *cs, const char *const *names, int n,
                                sk_derive_set **set, sk_error *err);

/* `snapkit stats --list-quantities [--json]`: the list on stdout. */
int cli_derive_list(int json);

#endif
