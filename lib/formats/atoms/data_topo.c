/* Molecular topology of LAMMPS data files. Bonds, Angles, Dihedrals and
 * Impropers are checked (field count, type within the header's count, atoms
 * that exist) and kept as lammps.bonds ... metadata: one "id type a1 a2 ..."
 * row per line with single spaces, as write_data writes them. Coeffs
 * sections are kept verbatim (keyword line, blank line, rows) as
 * lammps.coeffs.<name>. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/atoms/data_internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

static const struct topo_kind {
    const char *section, *meta, *types_meta, *word, *what;
    int natoms, count, types;
} k_topo[4] = {
    {"Bonds", "lammps.bonds", "lammps.bond_types", "bond", "atom1 atom2", 2, C_BONDS,
     C_BOND_TYPES},
    {"Angles", "lammps.angles", "lammps.angle_types", "angle", "atom1 atom2 atom3", 3, C_ANGLES,
     C_ANGLE_TYPES},
    {"Dihedrals", "lammps.dihedrals", "lammps.dihedral_types", "dihedral",
     "atom1 atom2 atom3 atom4", 4, C_DIHEDRALS, C_DIHEDRAL_TYPES},
    {"Impropers", "lammps.impropers", "lammps.improper_types", "improper",
     "atom1 atom2 atom3 atom4", 4, C_IMPROPERS, C_IMPROPER_TYPES},
};

/* The order write_data writes the Coeffs sections in. */
static const char *const k_coeffs[] = {
    "Pair Coeffs",           "PairIJ Coeffs",         "Bond Coeffs",
    "Angle Coeffs",          "BondBond Coeffs",       "BondAngle Coeffs",
    "Dihedral Coeffs",       "MiddleBondTorsion Coeffs", "EndBondTorsion Coeffs",
    "AngleTorsion Coeffs",   "AngleAngleTorsion Coeffs", "BondBond13 Coeffs",
    "Improper Coeffs",       "AngleAngle Coeffs",
};

/* ---- the set of atom ids ------------------------------------------------ */

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int at_id_set_build(id_set *s, const sk_column *id, int64_t n)
{
    memset(s, 0, sizeof *s);
    int64_t max = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)sk_column_get_double(id, i);
        max = v > max ? v : max;
    }
    s->max = max;
    if (max <= 8 * n + 1024) {
        s->bits = sk_calloc((size_t)(max / 8 + 1), 1);
        if (!s->bits)
            return SK_ERR_NOMEM;
        for (int64_t i = 0; i < n; i++) {
            int64_t v = (int64_t)sk_column_get_double(id, i);
            if (v >= 0)
                s->bits[v >> 3] |= (uint8_t)(1u << (v & 7));
        }
        return SK_OK;
    }
    s->sorted = sk_malloc((size_t)(n ? n : 1) * sizeof *s->sorted);
    if (!s->sorted)
        return SK_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++)
        s->sorted[i] = (int64_t)sk_column_get_double(id, i);
    s->n = n;
    qsort(s->sorted, (size_t)n, sizeof *s->sorted, cmp_int64);
    return SK_OK;
}

int at_id_set_has(const id_set *s, int64_t v)
{
    if (v < 1 || v > s->max)
        return 0;
    if (s->bits)
        return (s->bits[v >> 3] >> (v & 7)) & 1;
    return bsearch(&v, s->sorted, (size_t)s->n, sizeof v, cmp_int64) != NULL;
}

void at_id_set_free(id_set *s)
{
    sk_free(s->bits);
    sk_free(s->sorted);
    memset(s, 0, sizeof *s);
}

/* ---- reading ------------------------------------------------------------- */

static const struct topo_kind *topo_of(const char *section)
{
    for (int k = 0; k < 4; k++)
        if (strcmp(section, k_topo[k].section) == 0)
            return &k_topo[k];
    return NULL;
}

/* One row: id type atoms..., each a whole number; the type within the
 * header's count and every atom an id of the Atoms section. */
static int topo_row(const data_file *d, const struct topo_kind *k, const id_set *ids,
                    const char *b, const char *e, int64_t line, sk_text *out, sk_error *err)
{
    const char *path = d->f->src.path, *lb = b;
    const char *hash = memchr(b, '#', (size_t)(e - b));
    if (hash)
        e = hash;
    int want = 2 + k->natoms, got = 0;
    int64_t ntypes = d->counts[k->types];
    for (const char *p = skip_blank(b, e); p < e; p = skip_blank(p, e), got++) {
        const char *stop, *tok_end = token_end(p, e);
        int64_t v;
        int64_t col = (int64_t)(p - lb) + 1;
        if (got == want)
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, col,
                                "%s: more fields than the %d of 'id type %s'", k->section, want,
                                k->what);
        if (!number_parse_int64(p, tok_end, &v, &stop) || stop != tok_end || v < 1)
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, col,
                                "%s: expected a positive whole number, not '%.*s'", k->section,
                                (int)(tok_end - p > 40 ? 40 : tok_end - p), p);
        if (got == 1 && v > ntypes)
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, col,
                                "%s: %s type %lld is not between 1 and the header's %lld",
                                k->section, k->word, (long long)v, (long long)ntypes);
        if (got >= 2 && !at_id_set_has(ids, v))
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, col,
                                "%s: atom %lld does not exist (no such id in Atoms)",
                                k->section, (long long)v);
        sk_text_printf(out, got ? " %lld" : "%lld", (long long)v);
        p = tok_end;
    }
    if (got < want)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(e - lb) + 1,
                            "%s: %d fields where 'id type %s' needs %d", k->section, got,
                            k->what, want);
    sk_text_puts(out, "\n");
    return SK_OK;
}

static int read_topo(const data_file *d, const section *s, const struct topo_kind *k,
                     const id_set *ids, sk_table *t, sk_error *err)
{
    cursor c = {s->body, s->end, s->body_line};
    const char *b, *e;
    sk_text out = {0};
    int rc = SK_OK;
    while (rc == SK_OK && at_cursor_next(&c, &b, &e))
        rc = topo_row(d, k, ids, b, e, c.line - 1, &out, err);
    if (rc == SK_OK && out.failed)
        rc = sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    if (rc == SK_OK && sk_table_meta_set(t, k->meta, out.buf ? out.buf : "") != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    sk_text_free(&out);
    return rc;
}

/* "Pair Coeffs" -> "lammps.coeffs.pair" */
static void coeffs_key(const char *section, char *key, size_t n)
{
    size_t k = (size_t)snprintf(key, n, "lammps.coeffs.");
    for (const char *p = section; *p && *p != ' ' && k + 1 < n; p++)
        key[k++] = (char)tolower((unsigned char)*p);
    key[k] = '\0';
}

static int read_coeffs(const data_file *d, const section *s, sk_table *t, sk_error *err)
{
    const char *end = s->end;
    while (end > s->body && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    char key[64];
    coeffs_key(at_data_section_name(s->kind), key, sizeof key);
    sk_text v = {0};
    sk_text_printf(&v, "%.*s\n\n%.*s", (int)(s->key_end - s->key), s->key,
                   (int)(end - s->body), s->body);
    int rc = v.failed || sk_table_meta_set(t, key, v.buf) != SK_OK
                 ? sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory")
                 : SK_OK;
    sk_text_free(&v);
    return rc;
}

int at_data_is_topology(int kind)
{
    const char *name = at_data_section_name(kind);
    size_t n = strlen(name);
    return topo_of(name) || (n > 7 && strcmp(name + n - 7, " Coeffs") == 0);
}

int at_data_topology_read(const data_file *d, sk_table *t, int with_atoms, sk_error *err)
{
    int rc = SK_OK;
    for (int k = 0; k < 4 && rc == SK_OK; k++)
        if (d->counts[k_topo[k].types] > 0)
            rc = sk_table_meta_setf(t, k_topo[k].types_meta, "%lld",
                                    (long long)d->counts[k_topo[k].types]);
    id_set ids = {0};
    const sk_column *id = with_atoms ? sk_table_find(t, "id") : NULL;
    if (rc == SK_OK && id && at_id_set_build(&ids, id, sk_table_nrows(t)) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    for (int i = 0; i < d->nsec && rc == SK_OK; i++) {
        const section *s = &d->sec[i];
        const struct topo_kind *k = topo_of(at_data_section_name(s->kind));
        if (k && id)
            rc = read_topo(d, s, k, &ids, t, err);
        else if (!k && at_data_is_topology(s->kind))
            rc = read_coeffs(d, s, t, err);
    }
    at_id_set_free(&ids);
    return rc;
}

/* ---- writing -------------------------------------------------------------- */

static int64_t rows_of(const char *text)
{
    int64_t n = 0;
    for (const char *p = text; p && (p = strchr(p, '\n')); p++)
        n++;
    return n;
}

int at_data_topology_header(sk_text *h, const sk_table *t, const char *style, int allowed,
                            sk_error *err)
{
    for (int k = 0; k < 4; k++) {
        const char *rows = sk_table_meta_get(t, k_topo[k].meta);
        const char *types = sk_table_meta_get(t, k_topo[k].types_meta);
        int64_t n = rows_of(rows), nt = types ? atoll(types) : 0;
        if (n == 0 && nt == 0)
            continue;
        if (k >= allowed)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the frame has %s but atom style %s cannot hold them (use full, "
                           "molecular, bond or angle)", k_topo[k].section, style);
        sk_text_printf(h, "%lld %ss\n%lld %s types\n", (long long)n, k_topo[k].word,
                       (long long)nt, k_topo[k].word);
    }
    return SK_OK;
}

void at_data_coeffs_text(sk_text *h, const sk_table *t)
{
    for (size_t i = 0; i < sizeof k_coeffs / sizeof k_coeffs[0]; i++) {
        char key[64];
        coeffs_key(k_coeffs[i], key, sizeof key);
        const char *v = sk_table_meta_get(t, key);
        if (v)
            sk_text_printf(h, "\n%s\n", v);
    }
}

/* Every atom a row names must be written too (a selection may have
 * dropped it). */
static int check_rows(const struct topo_kind *k, const char *rows, const id_set *ids,
                      sk_error *err)
{
    const char *p = rows, *end = rows + strlen(rows);
    for (int64_t row = 1; p < end; row++) {
        int64_t v[6];
        for (int f = 0; f < 2 + k->natoms; f++) {
            p = skip_blank(p, end);
            if (!number_parse_int64(p, end, &v[f], &p))
                return sk_fail(err, SK_ERR_ARG, NULL, -1, "metadata %s: row %lld is malformed",
                               k->meta, (long long)row);
            if (f >= 2 && !at_id_set_has(ids, v[f]))
                return sk_fail(err, SK_ERR_ARG, NULL, -1,
                               "%s %lld names atom %lld, which the frame does not have",
                               k->word, (long long)v[0], (long long)v[f]);
        }
        p = skip_blank(p, end);
        if (p < end && *p != '\n')
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "metadata %s: row %lld is malformed",
                           k->meta, (long long)row);
        p += p < end;
    }
    return SK_OK;
}

int at_data_topology_write(out_sink *s, const sk_table *t, const sk_column *id,
                           const int64_t *gen_ids, int64_t n, sk_error *err)
{
    int any = 0;
    for (int k = 0; k < 4; k++)
        any |= rows_of(sk_table_meta_get(t, k_topo[k].meta)) > 0;
    if (!any)
        return SK_OK;
    id_set ids = {0};
    int rc = SK_OK;
    if (gen_ids) {
        ids.max = n;
        ids.bits = sk_calloc((size_t)(n / 8 + 1), 1);
        for (int64_t i = 1; ids.bits && i <= n; i++)
            ids.bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        rc = ids.bits ? SK_OK : SK_ERR_NOMEM;
    } else {
        rc = at_id_set_build(&ids, id, n);
    }
    if (rc != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int k = 0; k < 4 && rc == SK_OK; k++) {
        const char *rows = sk_table_meta_get(t, k_topo[k].meta);
        if (rows_of(rows) == 0)
            continue;
        rc = check_rows(&k_topo[k], rows, &ids, err);
        char head[32];
        int hn = snprintf(head, sizeof head, "\n%s\n\n", k_topo[k].section);
        if (rc == SK_OK)
            rc = at_sink_write(s, head, (size_t)hn, err);
        if (rc == SK_OK)
            rc = at_sink_write(s, rows, strlen(rows), err);
    }
    at_id_set_free(&ids);
    return rc;
}

int sk_atoms_has_topology(const sk_table *t)
{
    for (int k = 0; k < 4; k++)
        if (rows_of(sk_table_meta_get(t, k_topo[k].meta)) > 0)
            return 1;
    return 0;
}
