/* The parts of `snapkit info`'s text that a RAMSES output and a .snapkit
 * file print alike, from the metadata both carry. */
#ifndef SNAPKIT_CLI_INFO_TEXT_H
#define SNAPKIT_CLI_INFO_TEXT_H

#include "snapkit/table.h"

/* The keys under prefix as a block under title (bound_key left out). */
void info_print_prefixed(const sk_table *meta, const char *prefix, const char *title);
/* The hydro and particle descriptors' column lists. */
void info_print_descriptors(const sk_table *meta);
/* The namelist, when the output has one. */
void info_print_namelist(const sk_table *meta);
/* `snapkit info RUN [--json]`: the outputs of a run (info_run.c). Returns
 * the exit status. */
int info_run(const char *dir, int json);

#endif
