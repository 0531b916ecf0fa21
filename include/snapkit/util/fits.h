/* snapkit/util/fits.h - a table as a FITS binary table, written whole or
 * not at all (cfitsio, loaded on first use: SNAPKIT_CFITSIO names another
 * copy).
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_UTIL_FITS_H
#define SNAPKIT_UTIL_FITS_H

#include "snapkit/export.h"

#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_fits_table_options {
    const char *extname;          /* the table extension's EXTNAME */
    /* Metadata written as HIERARCH keys: NULL-terminated names, a name
     * ending in '*' standing for every key it begins; NULL: none. Keys
     * whose name and value pass 60 characters are left out (one card). */
    const char *const *meta_keys;
    const char *what;             /* names the file in errors ("table") */
} sk_fits_table_options;

/* An empty primary HDU, then the table t as extension opt->extname: one
 * column per column of t (at most 64; any type but int8 and uint64,
 * category codes as int32), TUNITn from t's metadata "units.<column>". The
 * file is fsynced before it replaces path. SK_ERR_ARG for a column type
 * FITS cannot hold, SK_ERR_IO when cfitsio cannot be loaded or fails. */
SK_API int sk_fits_write_table(const char *path, const sk_table *t,
                               const sk_fits_table_options *opt, sk_error *err);

#ifdef __cplusplus
}
#endif

#endif
