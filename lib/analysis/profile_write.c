/* Profiles, the outputs: a table of the bins (and from it text, CSV,
 * FITS and .npy), and JSON; every file written atomically. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/profile_internal.h"
#include "snapkit/memory.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/h5export.h"
#include "snapkit/util/fits.h"
#include "snapkit/util/json.h"
#include "snapkit/util/npy.h"
#include "snapkit/util/number.h"
#include "snapkit/util/text.h"

/* A float64 column `name` (unit `unit`) with the nbins values v. */
static int add_column(sk_table *t, const char *name, const char *unit, const double *v, int n,
                      sk_error *err)
{
    double *d = sk_table_add(t, name, SK_FLOAT64, err);
    if (!d)
        return err->code ? err->code : SK_ERR_NOMEM;
    memcpy(d, v, sizeof *d * (size_t)n);
    if (unit && *unit) {
        char key[160];
        snprintf(key, sizeof key, "units.%s", name);
        sk_table_meta_set(t, key, unit);
    }
    return SK_OK;
}

static int add_int_column(sk_table *t, const char *name, const int64_t *v, int n, sk_error *err)
{
    int64_t *d = sk_table_add(t, name, SK_INT64, err);
    if (!d)
        return err->code ? err->code : SK_ERR_NOMEM;
    memcpy(d, v, sizeof *d * (size_t)n);
    return SK_OK;
}

/* The bins' edges and centres. */
static int bin_columns(const sk_profile *p, sk_table *t, sk_error *err)
{
    int n = p->bins.n;
    double *c = sk_malloc(sizeof *c * (size_t)n);
    if (!c)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int j = 0; j < n; j++)
        c[j] = sk_bins_center(&p->bins, j);
    const char *u = p->unit[0];
    int rc = add_column(t, "bin_lo", u, p->edges, n, err);
    if (rc == SK_OK)
        rc = add_column(t, "bin_hi", u, p->edges + 1, n, err);
    if (rc == SK_OK)
        rc = add_column(t, "bin_center", u, c, n, err);
    sk_free(c);
    return rc;
}

static int quantity_columns(const sk_profile *p, int i, sk_table *t, sk_error *err)
{
    static const char *const suffix[] = {"mean", "std", "sum", "cum_sum", "cum_mean"};
    int n = p->bins.n, rc = SK_OK;
    char name[128];
    for (int s = 0; s < 3 + 2 * p->opt.cumulative && rc == SK_OK; s++) {
        snprintf(name, sizeof name, "%s_%s", p->names[i + 1], suffix[s]);
        rc = add_column(t, name, p->unit[i + 1], sk_profile_values(p, i, (sk_profile_stat)s), n,
                        err);
        if (s == 2 && rc == SK_OK) /* the percentiles after the sum */
            for (int k = 0; k < p->opt.npercentiles && rc == SK_OK; k++) {
                char pc[SK_NUMBER_BUFSIZE];
                sk_format_double(p->opt.percentiles[k], pc);
                snprintf(name, sizeof name, "%s_p%s", p->names[i + 1], pc);
                rc = add_column(t, name, p->unit[i + 1], sk_profile_percentiles(p, i, k), n, err);
            }
    }
    return rc;
}

int sk_profile_table(const sk_profile *p, sk_table **out, sk_error *err)
{
    *out = NULL;
    int n = p->bins.n;
    sk_table *t = sk_table_new(n);
    if (!t)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = bin_columns(p, t, err);
    if (rc == SK_OK)
        rc = add_int_column(t, "count", p->count, n, err);
    if (rc == SK_OK)
        rc = add_column(t, "weight", NULL, p->weight, n, err);
    for (int i = 0; i < p->nq && rc == SK_OK; i++)
        rc = quantity_columns(p, i, t, err);
    if (rc == SK_OK && p->opt.cumulative)
        rc = add_int_column(t, "cum_count", p->cum_count, n, err);
    if (rc == SK_OK && p->opt.cumulative)
        rc = add_column(t, "cum_weight", NULL, p->cum_weight, n, err);
    if (rc == SK_OK) {
        sk_table_meta_set(t, "bin", p->names[0]);
        sk_table_meta_set(t, "weight", sk_weight_name(p->opt.weight));
        sk_table_meta_set(t, "log", p->opt.log ? "1" : "0");
    }
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    return SK_OK;
}

static void json_values(sk_json *j, const char *key, const double *v, int n)
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int i = 0; i < n; i++) {
        if (isfinite(v[i]))
            sk_json_double(j, v[i]);
        else
            sk_json_null(j);
    }
    sk_json_array_end(j);
}

static void json_ints(sk_json *j, const char *key, const int64_t *v, int n)
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int i = 0; i < n; i++)
        sk_json_int(j, v[i]);
    sk_json_array_end(j);
}

static void json_quantity(const sk_profile *p, int i, sk_json *j)
{
    int n = p->bins.n;
    sk_json_key(j, p->names[i + 1]);
    sk_json_object_begin(j);
    sk_json_kv_string(j, "unit", p->unit[i + 1]);
    json_values(j, "mean", sk_profile_values(p, i, SK_PROFILE_MEAN), n);
    json_values(j, "std", sk_profile_values(p, i, SK_PROFILE_STD), n);
    json_values(j, "sum", sk_profile_values(p, i, SK_PROFILE_SUM), n);
    if (p->opt.npercentiles) {
        sk_json_key(j, "percentiles");
        sk_json_object_begin(j);
        for (int k = 0; k < p->opt.npercentiles; k++) {
            char pc[SK_NUMBER_BUFSIZE];
            sk_format_double(p->opt.percentiles[k], pc);
            json_values(j, pc, sk_profile_percentiles(p, i, k), n);
        }
        sk_json_object_end(j);
    }
    if (p->opt.cumulative) {
        json_values(j, "cum_sum", sk_profile_values(p, i, SK_PROFILE_CUM_SUM), n);
        json_values(j, "cum_mean", sk_profile_values(p, i, SK_PROFILE_CUM_MEAN), n);
    }
    sk_json_object_end(j);
}

void sk_profile_json(const sk_profile *p, sk_json *j)
{
    int n = p->bins.n;
    sk_json_object_begin(j);
    sk_json_kv_string(j, "bin", p->names[0]);
    sk_json_kv_string(j, "bin_unit", p->unit[0]);
    sk_json_key(j, "log");
    sk_json_bool(j, p->opt.log);
    sk_json_kv_string(j, "weight_field", sk_weight_name(p->opt.weight));
    json_values(j, "edges", p->edges, n + 1);
    json_ints(j, "count", p->count, n);
    json_values(j, "weight", p->weight, n);
    if (p->opt.cumulative) {
        json_ints(j, "cum_count", p->cum_count, n);
        json_values(j, "cum_weight", p->cum_weight, n);
    }
    sk_json_key(j, "quantities");
    sk_json_object_begin(j);
    for (int i = 0; i < p->nq; i++)
        json_quantity(p, i, j);
    sk_json_object_end(j);
    sk_json_kv_int(j, "rows", p->rows);
    sk_json_kv_int(j, "binned", p->binned);
    sk_json_object_end(j);
}

static int write_text(const char *path, const char *text, sk_error *err)
{
    sk_atomic_file *f;
    int rc = sk_atomic_open(&f, path, err);
    if (rc != SK_OK)
        return rc;
    rc = sk_atomic_write(f, text, strlen(text), err);
    if (rc != SK_OK) {
        sk_atomic_abort(f);
        return rc;
    }
    return sk_atomic_commit(f, err);
}

static void cell_text(const sk_column *c, int64_t r, char *buf)
{
    if (c->type == SK_INT64)
        sk_format_int64(((const int64_t *)c->data)[r], buf);
    else
        sk_format_double(((const double *)c->data)[r], buf);
}

static void put_cell(sk_text *s, int csv, int c, const char *text)
{
    if (csv)
        sk_text_printf(s, "%s%s", c ? "," : "", text);
    else
        sk_text_printf(s, " %24s", text);
}

/* The table as text (csv: comma-separated with a header row; else '#'
 * lines, then aligned columns). */
static char *table_text(const sk_profile *p, const sk_table *t, int csv)
{
    sk_text s = {0};
    int nc = sk_table_ncols(t);
    if (!csv) {
        sk_text_printf(&s, "# profile of %s binned by %s [%s], %d %s bins, weight %s\n",
                       p->nq ? "quantities" : "counts", p->names[0], p->unit[0], p->bins.n,
                       p->opt.log ? "log" : "linear", sk_weight_name(p->opt.weight));
        sk_text_printf(&s, "# units:");
        for (int i = 0; i < p->nq; i++)
            sk_text_printf(&s, " %s [%s]", p->names[i + 1], p->unit[i + 1]);
        sk_text_printf(&s, "\n#");
    }
    for (int c = 0; c < nc; c++)
        put_cell(&s, csv, c, sk_table_col(t, c)->name);
    sk_text_puts(&s, "\n");
    for (int64_t r = 0; r < sk_table_nrows(t); r++) {
        for (int c = 0; c < nc; c++) {
            char b[SK_NUMBER_BUFSIZE];
            cell_text(sk_table_col(t, c), r, b);
            put_cell(&s, csv, c, b);
        }
        sk_text_puts(&s, "\n");
    }
    return sk_text_take(&s);
}

/* float64 (nbins, columns), row-major. */
static int write_npy(const char *path, const sk_table *t, sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    int nc = sk_table_ncols(t);
    double *a = sk_malloc(sizeof *a * (size_t)(n * nc + 1));
    if (!a)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int64_t r = 0; r < n; r++)
        for (int c = 0; c < nc; c++)
            a[r * nc + c] = sk_column_get_double(sk_table_col(t, c), r);
    int64_t shape[2] = {n, nc};
    int rc = sk_npy_write(path, "<f8", sizeof(double), shape, 2, a, err);
    sk_free(a);
    return rc;
}

static int ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), m = strlen(ext);
    return n > m && !strcmp(s + n - m, ext);
}

int sk_profile_write(const sk_profile *p, const char *path, sk_error *err)
{
    if (ends_with(path, ".json")) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_profile_json(p, &j);
        sk_text s = {0};
        sk_text_printf(&s, "%s\n", sk_json_text(&j));
        sk_json_free(&j);
        char *text = sk_text_take(&s);
        int rc = text ? write_text(path, text, err)
                      : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        sk_free(text);
        return rc;
    }
    int txt = ends_with(path, ".txt"), csv = ends_with(path, ".csv");
    int fits = ends_with(path, ".fits"), npy = ends_with(path, ".npy");
    int h5 = ends_with(path, ".h5") || ends_with(path, ".hdf5");
    if (!txt && !csv && !fits && !npy && !h5)
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "a profile is written as .txt, .csv, .json, .fits, .h5 or .npy");
    sk_table *t;
    int rc = sk_profile_table(p, &t, err);
    if (rc != SK_OK)
        return rc;
    if (fits) {
        static const char *const keys[] = {"bin", "weight", "log", NULL};
        sk_fits_table_options fo = {.extname = "PROFILE", .meta_keys = keys, .what = "profile"};
        rc = sk_fits_write_table(path, t, &fo, err);
    } else if (npy) {
        rc = write_npy(path, t, err);
    } else if (h5) {
        rc = sk_h5_write_table(path, t, "snapkit profile", NULL, err);
    } else {
        char *text = table_text(p, t, csv);
        rc = text ? write_text(path, text, err)
                  : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        sk_free(text);
    }
    sk_table_free(t);
    return rc;
}
