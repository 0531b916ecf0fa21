/* A clump catalogue as a FITS binary table (extension CLUMPS: one column
 * per catalogue column, TUNITn from units.<column>, the run's clumps.*
 * settings as HIERARCH keys), written by lib/export/fitslib.c. */
#include <stdio.h>
#include <string.h>

#include "clumps_write.h"
#include "export/fitslib.h"

static char tform(sk_dtype t)
{
    switch (t) {
    case SK_INT32:
        return 'J';
    case SK_INT64:
        return 'K';
    case SK_UINT8:
        return 'B';
    default:
        return 'D';
    }
}

static int fits_type(sk_dtype t)
{
    switch (t) {
    case SK_INT32:
        return TINT;
    case SK_INT64:
        return TLONGLONG;
    case SK_UINT8:
        return TBYTE;
    default:
        return TDOUBLE;
    }
}

/* The run's settings and units: clumps.*, unit_*, boxlen, time. */
static void meta_keys(fitsfile *ff, const sk_table *cat, int *st)
{
    for (int k = 0; k < sk_table_meta_count(cat) && !*st; k++) {
        const char *key = sk_table_meta_key(cat, k), *v = sk_table_meta_value(cat, k);
        if (strncmp(key, "clumps.", 7) && strncmp(key, "unit_", 5) && strcmp(key, "boxlen") &&
            strcmp(key, "time"))
            continue;
        if (strlen(key) + strlen(v) > 60)
            continue; /* one 80-character card; such values are paths, not settings */
        char name[80];
        snprintf(name, sizeof name, "HIERARCH %s", key);
        char value[68];
        snprintf(value, sizeof value, "%s", v);
        fits_write_key_str(ff, name, value, NULL, st);
    }
}

static void write_table(fitsfile *ff, const sk_table *cat, int *st)
{
    int nc = sk_table_ncols(cat);
    int64_t nr = sk_table_nrows(cat);
    char names[64][32], forms[64][4], units[64][32];
    char *pn[64], *pf[64], *pu[64];
    if (nc > 64) {
        *st = BAD_TFORM;
        return;
    }
    for (int c = 0; c < nc; c++) {
        const sk_column *col = sk_table_col(cat, c);
        char key[80];
        snprintf(key, sizeof key, "units.%s", col->name);
        const char *u = sk_table_meta_get(cat, key);
        snprintf(names[c], sizeof names[c], "%s", col->name);
        snprintf(forms[c], sizeof forms[c], "1%c", tform(col->type));
        snprintf(units[c], sizeof units[c], "%s", u ? u : "");
        pn[c] = names[c], pf[c] = forms[c], pu[c] = units[c];
    }
    fits_create_tbl(ff, BINARY_TBL, (LONGLONG)nr, nc, pn, pf, pu, "CLUMPS", st);
    meta_keys(ff, cat, st);
    for (int c = 0; c < nc && nr > 0 && !*st; c++) {
        const sk_column *col = sk_table_col(cat, c);
        fits_write_col(ff, fits_type(col->type), c + 1, 1, 1, (LONGLONG)nr, col->data, st);
    }
}

static void build_catalogue(fitsfile *ff, const void *ctx, int *st)
{
    fits_create_img(ff, BYTE_IMG, 0, NULL, st);
    write_table(ff, ctx, st);
}

int cli_clumps_write_fits(const sk_table *cat, const char *path, sk_error *err)
{
    return fitslib_write(path, build_catalogue, cat, 1, "clump catalogue", err);
}
