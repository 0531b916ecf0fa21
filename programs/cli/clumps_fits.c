/* A clump catalogue as a FITS binary table (extension CLUMPS: one column
 * per catalogue column, TUNITn from units.<column>, the run's clumps.*
 * settings and units as HIERARCH keys), written by snapkit/util/fits.h. */
#include "clumps_write.h"
#include "snapkit/util/fits.h"

int cli_clumps_write_fits(const sk_table *cat, const char *path, sk_error *err)
{
    static const char *const keys[] = {"clumps.*", "unit_*", "boxlen", "time", NULL};
    sk_fits_table_options opt = {.extname = "CLUMPS", .meta_keys = keys,
                                 .what = "clump catalogue"};
    return sk_fits_write_table(path, cat, &opt, err);
}
