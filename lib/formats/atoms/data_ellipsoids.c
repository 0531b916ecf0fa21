/* The Ellipsoids section of LAMMPS data files (atom style ellipsoid, or a
 * hybrid with it): "id shapex shapey shapez quatw quati quatj quatk" for
 * each atom whose ellipsoidflag is 1, held as seven columns of the same
 * names (0 for the other atoms) and written back after the topology, as
 * write_data does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/atoms/data_internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

static const char *const k_cols[7] = {"shapex", "shapey", "shapez", "quatw",
                                      "quati",  "quatj",  "quatk"};

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static int find_section(const data_file *d)
{
    for (int i = 0; i < d->nsec; i++)
        if (strcmp(at_data_section_name(d->sec[i].kind), "Ellipsoids") == 0)
            return i;
    return -1;
}

/* One row into the columns; pairs are (id, row) sorted by id. */
static int ellipsoid_row(const data_file *d, const int64_t *pairs, int64_t n, const int32_t *flag,
                         double *const *cols, const char *b, const char *e, int64_t line,
                         sk_error *err)
{
    const char *path = d->f->src.path, *lb = b, *stop;
    const char *hash = memchr(b, '#', (size_t)(e - b));
    if (hash)
        e = hash;
    const char *p = skip_blank(b, e), *tok = token_end(p, e);
    int64_t key[2];
    if (!number_parse_int64(p, tok, &key[0], &stop) || stop != tok)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(p - lb) + 1,
                            "Ellipsoids: expected an atom id");
    const int64_t *hit = bsearch(key, pairs, (size_t)n, 2 * sizeof *pairs, cmp_pair);
    if (!hit)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(p - lb) + 1,
                            "Ellipsoids: atom %lld does not exist (no such id in Atoms)",
                            (long long)key[0]);
    if (flag[hit[1]] != 1)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(p - lb) + 1,
                            "Ellipsoids: atom %lld has ellipsoidflag %d, not 1",
                            (long long)key[0], (int)flag[hit[1]]);
    for (int k = 0; k < 7; k++) {
        p = skip_blank(tok, e);
        tok = token_end(p, e);
        if (p == e || !number_parse_double(p, tok, &cols[k][hit[1]], &stop) || stop != tok)
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(p - lb) + 1,
                                "Ellipsoids: expected 8 numbers 'id shapex shapey shapez quatw "
                                "quati quatj quatk'");
    }
    if (!at_only_space(tok, e))
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(skip_blank(tok, e) - lb) + 1,
                            "Ellipsoids: more fields than the 8 expected");
    return SK_OK;
}

static int fill(const data_file *d, const section *s, sk_table *t, double *const *cols,
                sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    const int64_t *id = sk_table_find(t, "id")->data;
    const int32_t *flag = sk_table_find(t, "ellipsoidflag")->data;
    int64_t *pairs = sk_malloc((size_t)(2 * (n ? n : 1)) * sizeof *pairs);
    if (!pairs)
        return sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        pairs[2 * i] = id[i];
        pairs[2 * i + 1] = i;
    }
    qsort(pairs, (size_t)n, 2 * sizeof *pairs, cmp_pair);
    cursor c = {s->body, s->end, s->body_line};
    const char *b, *e;
    int rc = SK_OK;
    while (rc == SK_OK && at_cursor_next(&c, &b, &e))
        rc = ellipsoid_row(d, pairs, n, flag, cols, b, e, c.line - 1, err);
    sk_free(pairs);
    return rc;
}

int at_data_ellipsoids_read(const data_file *d, sk_table *t, int with_atoms, sk_error *err)
{
    int sec = find_section(d);
    const sk_column *flag = sk_table_find(t, "ellipsoidflag");
    if (sec >= 0 && !flag)
        return sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, d->sec[sec].keyword_line, 1,
                            "section Ellipsoids needs atom style ellipsoid (or a hybrid with "
                            "it)");
    if (!flag)
        return SK_OK;
    int64_t n = sk_table_nrows(t);
    double *cols[7];
    for (int k = 0; k < 7; k++) {
        cols[k] = sk_table_add(t, k_cols[k], SK_FLOAT64, err);
        if (!cols[k])
            return SK_ERR_NOMEM;
        memset(cols[k], 0, (size_t)n * sizeof *cols[k]);
    }
    return with_atoms && sec >= 0 ? fill(d, &d->sec[sec], t, cols, err) : SK_OK;
}

/* Atoms whose ellipsoidflag is set; -1 when the frame has no such column. */
static int64_t count_flagged(const sk_table *t)
{
    const sk_column *flag = sk_table_find(t, "ellipsoidflag");
    if (!flag)
        return -1;
    int64_t n = 0;
    for (int64_t i = 0; i < sk_table_nrows(t); i++)
        n += sk_column_get_double(flag, i) != 0;
    return n;
}

void at_data_ellipsoids_header(sk_text *h, const sk_table *t, const lmp_style *ls)
{
    int64_t n = count_flagged(t);
    if (strstr(ls->atoms, "ellipsoidflag"))
        sk_text_printf(h, "%lld ellipsoids\n", (long long)(n < 0 ? 0 : n));
}

int at_data_ellipsoids_write(out_sink *s, const sk_table *t, const int64_t *gen_ids,
                             sk_error *err)
{
    int64_t m = count_flagged(t);
    if (m <= 0)
        return SK_OK;
    for (int k = 0; k < 7; k++)
        if (!sk_table_find(t, k_cols[k]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the frame has ellipsoids but no column %s", k_cols[k]);
    const sk_column *flag = sk_table_find(t, "ellipsoidflag"), *id = sk_table_find(t, "id");
    int64_t *ids = sk_malloc((size_t)m * sizeof *ids);
    double *v = sk_malloc((size_t)(7 * m) * sizeof *v);
    int rc = ids && v ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int64_t i = 0, j = 0; rc == SK_OK && i < sk_table_nrows(t); i++) {
        if (sk_column_get_double(flag, i) == 0)
            continue;
        ids[j] = gen_ids ? gen_ids[i] : (int64_t)sk_column_get_double(id, i);
        for (int k = 0; k < 7; k++)
            v[k * m + j] = sk_column_get_double(sk_table_find(t, k_cols[k]), i);
        j++;
    }
    out_field f[8] = {{ids, SK_INT64, NULL, 0, 0}};
    for (int k = 0; k < 7; k++)
        f[k + 1] = (out_field){v + k * m, SK_FLOAT64, NULL, 0, 0};
    if (rc == SK_OK)
        rc = at_sink_write(s, "\nEllipsoids\n\n", 13, err);
    if (rc == SK_OK)
        rc = at_sink_rows(s, f, 8, m, err);
    sk_free(ids);
    sk_free(v);
    return rc;
}
