/* The extended XYZ comment pairs into a frame: Lattice (nine numbers, or
 * the 3x3 matrix whose columns are the cell vectors), pbc (three bools, or
 * one for all three) and Origin into the box; the rest as extxyz.<key>. */
#include <math.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "formats/atoms/xyz_kv.h"
#include "snapkit/memory.h"

typedef struct where {
    const char *path, *comment;
    int64_t line;
} where;

static int fail_pair(const where *w, const char *at, const char *key, const char *what,
                     sk_error *err)
{
    return sk_fail_text(err, SK_ERR_FORMAT, w->path, w->line, (int64_t)(at - w->comment) + 1,
                        "comment line: %s %s", key, what);
}

static int typed(const where *w, const kv_pair *pr, sk_xyz_value *v, sk_error *err)
{
    kv_fail fail;
    int rc = at_kv_value(pr->raw, pr->raw_end, v, &fail);
    if (rc == SK_ERR_NOMEM)
        return sk_fail(err, SK_ERR_NOMEM, w->path, -1, "out of memory");
    return rc == SK_OK ? SK_OK
                       : sk_fail_text(err, SK_ERR_FORMAT, w->path, w->line,
                                      (int64_t)(fail.at - w->comment) + 1,
                                      "comment line: value of %s: %s", pr->key, fail.what);
}

/* The n numbers of v as doubles; 0 when v is not n numbers. */
static int numbers(const sk_xyz_value *v, double *out, int64_t n)
{
    if (v->n != n || (v->type != SK_XYZ_INT && v->type != SK_XYZ_FLOAT))
        return 0;
    for (int64_t i = 0; i < n; i++)
        out[i] = v->type == SK_XYZ_INT ? (double)((const int64_t *)v->data)[i]
                                       : ((const double *)v->data)[i];
    return 1;
}

static int lattice(const where *w, const kv_pair *pr, sk_box *box, sk_error *err)
{
    sk_xyz_value v;
    double m[9];
    int rc = typed(w, pr, &v, err);
    if (rc != SK_OK)
        return rc;
    int ok = numbers(&v, m, 9) && (v.ndim == 1 || (v.ndim == 2 && v.shape[0] == 3));
    int matrix = v.ndim == 2;
    sk_xyz_value_free(&v);
    if (!ok)
        return fail_pair(w, pr->raw, "Lattice",
                         "needs nine numbers (\"ax ay az bx by bz cx cy cz\") or a 3x3 array",
                         err);
    int nonzero = 0;
    for (int i = 0; i < 9; i++) {
        if (!isfinite(m[i])) /* nan or inf */
            return fail_pair(w, pr->raw, "Lattice", "has a number that is not finite", err);
        nonzero |= m[i] != 0.0;
    }
    if (!nonzero) /* no cell at all: write no Lattice rather than a zero one */
        return fail_pair(w, pr->raw, "Lattice", "is all zeros (no cell: leave the Lattice out)",
                         err);
    double *vec[3] = {box->a, box->b, box->c};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            vec[k][i] = matrix ? m[3 * i + k] : m[3 * k + i]; /* matrix: columns */
    box->pbc[0] = box->pbc[1] = box->pbc[2] = 1; /* extxyz default with a Lattice */
    return SK_OK;
}

static int pbc_flags(const where *w, const kv_pair *pr, int pbc[3], sk_error *err)
{
    sk_xyz_value v;
    int rc = typed(w, pr, &v, err);
    if (rc != SK_OK)
        return rc;
    int ok = (v.type == SK_XYZ_BOOL || v.type == SK_XYZ_INT) && v.ndim <= 1 &&
             (v.n == 1 || v.n == 3);
    for (int64_t i = 0; ok && i < 3; i++) {
        int64_t k = v.n == 1 ? 0 : i;
        int64_t flag = v.type == SK_XYZ_BOOL ? ((const uint8_t *)v.data)[k]
                                             : ((const int64_t *)v.data)[k];
        ok = flag == 0 || flag == 1;
        pbc[i] = (int)flag;
    }
    sk_xyz_value_free(&v);
    return ok ? SK_OK
              : fail_pair(w, pr->raw, "pbc", "needs three of T or F (or one for all three)", err);
}

static int origin(const where *w, const kv_pair *pr, double o[3], sk_error *err)
{
    sk_xyz_value v;
    int rc = typed(w, pr, &v, err);
    if (rc != SK_OK)
        return rc;
    int ok = numbers(&v, o, 3) && v.ndim == 1;
    sk_xyz_value_free(&v);
    return ok ? SK_OK : fail_pair(w, pr->raw, "Origin", "needs three numbers", err);
}

static int set_pair(sk_table *t, const kv_pair *pr)
{
    size_t n = strlen(pr->key);
    char *key = sk_malloc(n + 8);
    char *raw = sk_strndup(pr->raw, (size_t)(pr->raw_end - pr->raw));
    int rc = key && raw ? SK_OK : SK_ERR_NOMEM;
    if (rc == SK_OK) {
        memcpy(key, "extxyz.", 7);
        memcpy(key + 7, pr->key, n + 1);
        rc = sk_table_meta_set(t, key, raw);
    }
    sk_free(key);
    sk_free(raw);
    return rc;
}

int at_xyz_comment_meta(const char *path, int64_t line, const char *comment, const kv_line *kv,
                        sk_table *t, sk_error *err)
{
    where w = {path, comment, line};
    const kv_pair *lat = NULL, *pbc = NULL, *org = NULL;
    for (int i = 0; i < kv->n; i++) { /* the last one wins */
        const char *k = kv->pairs[i].key;
        lat = strcmp(k, "Lattice") == 0 ? &kv->pairs[i] : lat;
        pbc = strcmp(k, "pbc") == 0 ? &kv->pairs[i] : pbc;
        org = strcmp(k, "Origin") == 0 ? &kv->pairs[i] : org;
    }
    sk_box box;
    memset(&box, 0, sizeof box);
    int rc = lat ? lattice(&w, lat, &box, err) : SK_OK;
    if (rc == SK_OK && pbc)
        rc = pbc_flags(&w, pbc, box.pbc, err);
    if (rc == SK_OK && org)
        rc = origin(&w, org, box.origin, err);
    if (rc == SK_OK && lat && (rc = sk_atoms_set_box(t, &box)) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    for (int i = 0; i < kv->n && rc == SK_OK; i++) {
        const kv_pair *pr = &kv->pairs[i];
        if (strcmp(pr->key, "Properties") == 0 || strcmp(pr->key, "Lattice") == 0 ||
            (lat && (strcmp(pr->key, "pbc") == 0 || strcmp(pr->key, "Origin") == 0)))
            continue;
        sk_xyz_value v;
        if ((rc = typed(&w, pr, &v, err)) != SK_OK)
            break;
        sk_xyz_value_free(&v);
        if (set_pair(t, pr) != SK_OK)
            rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    return rc;
}
