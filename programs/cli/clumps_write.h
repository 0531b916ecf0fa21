/* Writing a clump catalogue (CSV or JSON) and per-cell ids (.npy). */
#ifndef SNAPKIT_CLI_CLUMPS_WRITE_H
#define SNAPKIT_CLI_CLUMPS_WRITE_H

#include "snapkit/snapkit.h"

/* By the extension of path: .csv (a header line of column names), .json
 * (meta, units and one object per clump), .fits (a binary table) or
 * .snapkit (a table "clumps" in a compact file). */
int cli_clumps_write(const sk_table *cat, const char *path, sk_error *err);
/* Refuse, before anything is read or written, a catalogue path without one
 * of those extensions or an ids path (NULL: none) not ending in .npy. */
int cli_clumps_check_targets(const char *out, const char *ids, sk_error *err);
/* The FITS binary table (clumps_fits.c). */
int cli_clumps_write_fits(const sk_table *cat, const char *path, sk_error *err);
/* A 1-D int32 .npy array. */
int cli_clumps_write_ids(const int32_t *ids, int64_t n, const char *path, sk_error *err);

#endif
