/* Catalogue files of `snapkit clumps`: CSV, JSON, .snapkit (FITS in
 * clumps_fits.c), and the ids as .npy. */
#include <stdio.h>
#include <string.h>

#include "clumps_write.h"
#include "snapkit/h5export.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/util/json.h"
#include "snapkit/util/npy.h"
#include "snapkit/util/number.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy writer writes '<i4' data as it is in memory: little-endian only"
#endif

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

static void value_text(const sk_column *col, int64_t i, char *buf)
{
    if (sk_dtype_is_float(col->type))
        sk_format_double(sk_column_get_double(col, i), buf);
    else
        sk_format_int64((int64_t)sk_column_get_double(col, i), buf);
}

static int write_all(const char *path, const char *text, size_t n, sk_error *err)
{
    sk_atomic_file *f;
    int rc = sk_atomic_open(&f, path, err);
    if (rc != SK_OK)
        return rc;
    if ((rc = sk_atomic_write(f, text, n, err)) != SK_OK) {
        sk_atomic_abort(f);
        return rc;
    }
    return sk_atomic_commit(f, err);
}

static int write_csv(const sk_table *t, const char *path, sk_error *err)
{
    int nc = sk_table_ncols(t);
    int64_t nr = sk_table_nrows(t);
    size_t cap = 4096 + (size_t)nr * (size_t)nc * (SK_NUMBER_BUFSIZE + 2), len = 0;
    char *buf = sk_malloc(cap);
    if (!buf)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the catalogue text");
    for (int c = 0; c < nc; c++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", c ? "," : "",
                                sk_table_col(t, c)->name);
    buf[len++] = '\n';
    for (int64_t i = 0; i < nr; i++) {
        for (int c = 0; c < nc; c++) {
            char v[SK_NUMBER_BUFSIZE];
            value_text(sk_table_col(t, c), i, v);
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", c ? "," : "", v);
        }
        buf[len++] = '\n';
    }
    int rc = write_all(path, buf, len, err);
    sk_free(buf);
    return rc;
}

static int write_json(const sk_table *t, const char *path, sk_error *err)
{
    sk_json j;
    sk_json_init(&j, 1);
    sk_json_object_begin(&j);
    sk_json_key(&j, "meta");
    sk_json_object_begin(&j);
    for (int k = 0; k < sk_table_meta_count(t); k++) {
        const char *key = sk_table_meta_key(t, k);
        if (!strncmp(key, "clumps.", 7) || !strncmp(key, "unit", 4) || !strcmp(key, "boxlen") ||
            !strcmp(key, "time") || !strcmp(key, "source") || !strncmp(key, "selection.", 10))
            sk_json_kv_string(&j, key, sk_table_meta_value(t, k));
    }
    sk_json_object_end(&j);
    sk_json_key(&j, "clumps");
    sk_json_array_begin(&j);
    for (int64_t i = 0; i < sk_table_nrows(t); i++) {
        sk_json_object_begin(&j);
        for (int c = 0; c < sk_table_ncols(t); c++) {
            const sk_column *col = sk_table_col(t, c);
            sk_json_key(&j, col->name);
            if (sk_dtype_is_float(col->type))
                sk_json_double(&j, sk_column_get_double(col, i));
            else
                sk_json_int(&j, (int64_t)sk_column_get_double(col, i));
        }
        sk_json_object_end(&j);
    }
    sk_json_array_end(&j);
    sk_json_object_end(&j);
    const char *text = sk_json_text(&j);
    int rc = text ? SK_OK : sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the JSON");
    if (rc == SK_OK) {
        size_t n = strlen(text);
        char *withnl = sk_malloc(n + 2);
        if (!withnl) {
            rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the JSON");
        } else {
            memcpy(withnl, text, n);
            withnl[n] = '\n';
            rc = write_all(path, withnl, n + 1, err);
            sk_free(withnl);
        }
    }
    sk_json_free(&j);
    return rc;
}

static const char *const k_formats[] = {".csv", ".json", ".fits", ".snapkit", ".h5", ".hdf5"};

/* The index in k_formats of path's extension, or -1. */
static int catalogue_format(const char *path)
{
    for (int i = 0; i < (int)(sizeof k_formats / sizeof k_formats[0]); i++)
        if (ends_with(path, k_formats[i]))
            return i;
    return -1;
}

static int check_ids(const char *path, sk_error *err)
{
    return ends_with(path, ".npy") ? SK_OK
                                   : sk_fail(err, SK_ERR_ARG, path, -1, "--ids writes a .npy file");
}

int cli_clumps_check_targets(const char *out, const char *ids, sk_error *err)
{
    if (catalogue_format(out) < 0)
        return sk_fail(err, SK_ERR_ARG, out, -1,
                       "the catalogue is written as .csv, .json, .fits, .h5 or .snapkit");
    return ids ? check_ids(ids, err) : SK_OK;
}

int cli_clumps_write(const sk_table *cat, const char *path, sk_error *err)
{
    switch (catalogue_format(path)) {
    case 0:
        return write_csv(cat, path, err);
    case 1:
        return write_json(cat, path, err);
    case 2:
        return cli_clumps_write_fits(cat, path, err);
    case 3: {
        const sk_table *tables[1] = {cat};
        const char *names[1] = {"clumps"};
        return sk_store_save(path, tables, names, 1, NULL, NULL, err);
    }
    case 4:
    case 5:
        return sk_h5_write_table(path, cat, "snapkit clump catalogue", NULL, err);
    default:
        return cli_clumps_check_targets(path, NULL, err);
    }
}

int cli_clumps_write_ids(const int32_t *ids, int64_t n, const char *path, sk_error *err)
{
    int rc = check_ids(path, err);
    if (rc != SK_OK)
        return rc;
    const int64_t shape[1] = {n};
    return sk_npy_write(path, "<i4", sizeof *ids, shape, 1, ids, err);
}
