/* A table as a FITS binary table, built by fitslib.c (in memory, on disk
 * whole or not at all). */
#include "snapkit/util/fits.h"

#include <stdio.h>
#include <string.h>

#include "export/fitslib.h"

/* The TFORM letter and cfitsio's type of a column; 0 when FITS has none. */
static char tform(sk_dtype t, int *fits_type)
{
    static const struct {
        sk_dtype type;
        char form;
        int fits;
    } k_types[] = {{SK_UINT8, 'B', TBYTE},   {SK_INT16, 'I', TSHORT},     {SK_UINT16, 'U', TUSHORT},
                   {SK_INT32, 'J', TINT},    {SK_UINT32, 'V', TUINT},     {SK_INT64, 'K', TLONGLONG},
                   {SK_FLOAT32, 'E', TFLOAT}, {SK_FLOAT64, 'D', TDOUBLE}, {SK_CATEGORY, 'J', TINT}};
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (k_types[i].type == t) {
            *fits_type = k_types[i].fits;
            return k_types[i].form;
        }
    return 0;
}

static int wanted(const char *key, const char *const *patterns)
{
    for (const char *const *p = patterns; p && *p; p++) {
        size_t n = strlen(*p);
        if (n > 0 && (*p)[n - 1] == '*' ? strncmp(key, *p, n - 1) == 0 : strcmp(key, *p) == 0)
            return 1;
    }
    return 0;
}

static void meta_keys(fitsfile *ff, const sk_table *t, const char *const *patterns, int *st)
{
    for (int k = 0; k < sk_table_meta_count(t) && !*st; k++) {
        const char *key = sk_table_meta_key(t, k), *v = sk_table_meta_value(t, k);
        if (!wanted(key, patterns))
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

typedef struct table_file {
    const sk_table *t;
    const sk_fits_table_options *opt;
} table_file;

static void write_table(fitsfile *ff, const sk_table *t, const sk_fits_table_options *opt, int *st)
{
    int nc = sk_table_ncols(t), types[64];
    int64_t nr = sk_table_nrows(t);
    char names[64][32], forms[64][4], units[64][32];
    char *pn[64], *pf[64], *pu[64];
    if (nc > 64) {
        *st = BAD_TFORM;
        return;
    }
    for (int c = 0; c < nc; c++) {
        const sk_column *col = sk_table_col(t, c);
        char key[80];
        snprintf(key, sizeof key, "units.%s", col->name);
        const char *u = sk_table_meta_get(t, key);
        snprintf(names[c], sizeof names[c], "%s", col->name);
        snprintf(forms[c], sizeof forms[c], "1%c", tform(col->type, &types[c]));
        snprintf(units[c], sizeof units[c], "%s", u ? u : "");
        pn[c] = names[c], pf[c] = forms[c], pu[c] = units[c];
    }
    fits_create_tbl(ff, BINARY_TBL, (LONGLONG)nr, nc, pn, pf, pu, opt->extname, st);
    meta_keys(ff, t, opt->meta_keys, st);
    for (int c = 0; c < nc && nr > 0 && !*st; c++)
        fits_write_col(ff, types[c], c + 1, 1, 1, (LONGLONG)nr, sk_table_col(t, c)->data, st);
}

static void build_table(fitsfile *ff, const void *ctx, int *st)
{
    const table_file *tf = ctx;
    fits_create_img(ff, BYTE_IMG, 0, NULL, st);
    write_table(ff, tf->t, tf->opt, st);
}

int sk_fits_write_table(const char *path, const sk_table *t, const sk_fits_table_options *opt,
                        sk_error *err)
{
    const char *what = opt->what ? opt->what : "table";
    for (int c = 0; c < sk_table_ncols(t); c++) {
        int type;
        const sk_column *col = sk_table_col(t, c);
        if (!tform(col->type, &type))
            return sk_fail(err, SK_ERR_ARG, path, -1, "%s: column %s (%s) has no FITS type", what,
                           col->name, sk_dtype_name(col->type));
    }
    table_file tf = {t, opt};
    return fitslib_write(path, build_table, &tf, 1, what, err);
}
