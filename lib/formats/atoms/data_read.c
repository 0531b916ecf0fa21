/* LAMMPS data files: the Atoms, Velocities and Masses sections parsed into
 * a table (the layout comes from data_scan.c; topology in data_topo.c;
 * other sections are skipped and named in lammps.skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/atoms/data_internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

#define MAX_FIELDS 24

/* ---- Atoms ------------------------------------------------------------ */

typedef struct atom_columns {
    char style[96];
    lmp_style lmp;
    int n, base;         /* columns with image flags, and without */
    char names[MAX_FIELDS][16];
} atom_columns;

static int fields_on_line(const char *b, const char *end)
{
    const char *nl = memchr(b, '\n', (size_t)(end - b));
    const char *e = nl ? nl : end;
    const char *hash = memchr(b, '#', (size_t)(e - b));
    if (hash)
        e = hash;
    int n = 0;
    for (const char *p = skip_blank(b, e); p < e; p = skip_blank(p, e)) {
        p = token_end(p, e);
        n++;
    }
    return n;
}

/* The style: --atom-style, else the hint (all of "hybrid A B"), else by
 * the field count of the first line (atomic, charge or full). */
static int choose_style(data_file *d, atom_columns *ac, sk_error *err)
{
    const section *s = &d->sec[d->atoms];
    const char *style = d->f->atom_style ? d->f->atom_style : s->hint[0] ? s->hint : NULL;
    int have = s->body < s->end ? fields_on_line(s->body, s->end) : 0;
    if (!style)
        style = have == 5 || have == 8 ? "atomic" : have == 6 || have == 9 ? "charge"
                : have == 7 || have == 10 ? "full" : NULL;
    if (!style)
        return sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, s->body_line, 1,
                            "cannot tell the atom style from %d fields; write it as "
                            "'Atoms # style' or pass it", have);
    if (strcmp(style, "hybrid") == 0)
        return sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, s->keyword_line,
                            s->hint_column,
                            "'Atoms # hybrid' does not say its sub-styles: pass them as "
                            "--atom-style \"hybrid STYLE...\" (e.g. \"hybrid charge sphere\", "
                            "as in the input script)");
    if (!at_lmp_style(style, &ac->lmp))
        return sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, s->keyword_line,
                            d->f->atom_style ? -1 : s->hint_column,
                            "unknown atom style '%s' (known: %s)", style,
                            at_lmp_style_known());
    snprintf(ac->style, sizeof ac->style, "%s", style);
    ac->base = 0;
    char cols[160];
    snprintf(cols, sizeof cols, "%s", ac->lmp.atoms);
    for (char *save = NULL, *tok = strtok_r(cols, " ", &save); tok && ac->base < MAX_FIELDS - 3;
         tok = strtok_r(NULL, " ", &save))
        snprintf(ac->names[ac->base++], 16, "%s", tok);
    ac->n = ac->base;
    if (have == ac->base + 3) {
        snprintf(ac->names[ac->n++], 16, "ix");
        snprintf(ac->names[ac->n++], 16, "iy");
        snprintf(ac->names[ac->n++], 16, "iz");
    }
    return SK_OK;
}

static field_kind kind_of(const char *name)
{
    if (strcmp(name, "id") == 0)
        return FIELD_INT64;
    return at_lammps_int32_column(name) || strcmp(name, "ellipsoidflag") == 0 ? FIELD_INT32
                                                                             : FIELD_FLOAT64;
}

/* The Velocities columns after the id ("vx vy vz", then wx wy wz ...). */
static int velocity_names(const atom_columns *ac, char names[][16])
{
    char cols[96];
    snprintf(cols, sizeof cols, "%s", ac->lmp.vel);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(cols, " ", &save); tok && n < 8;
         tok = strtok_r(NULL, " ", &save))
        if (strcmp(tok, "id") != 0)
            snprintf(names[n++], 16, "%s", tok);
    return n;
}

/* ---- Velocities --------------------------------------------------------- */

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Velocities listed in another order than the atoms: match them by id. */
static int match_velocities(data_file *d, sk_table *t, const int64_t *vid, char names[][16],
                            int nv, sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    const int64_t *id = sk_table_find(t, "id")->data;
    int64_t *pa = sk_malloc((size_t)(2 * n) * sizeof *pa), *pv = sk_malloc((size_t)(2 * n) * sizeof *pv);
    double *tmp = sk_malloc((size_t)n * sizeof *tmp);
    int rc = SK_OK;
    if (!pa || !pv || !tmp)
        rc = sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    for (int64_t i = 0; rc == SK_OK && i < n; i++) {
        pa[2 * i] = id[i];
        pa[2 * i + 1] = i;
        pv[2 * i] = vid[i];
        pv[2 * i + 1] = i;
    }
    if (rc == SK_OK) {
        qsort(pa, (size_t)n, 2 * sizeof *pa, cmp_pair);
        qsort(pv, (size_t)n, 2 * sizeof *pv, cmp_pair);
    }
    const section *s = &d->sec[d->velocities];
    for (int64_t i = 0; rc == SK_OK && i < n; i++)
        if (pa[2 * i] != pv[2 * i] || (i > 0 && pa[2 * i] == pa[2 * i - 2]))
            rc = sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, s->body_line + pv[2 * i + 1], 1,
                              "Velocities and Atoms list different atom ids (%lld)",
                              (long long)pv[2 * i]);
    for (int k = 0; rc == SK_OK && k < nv; k++) {
        double *v = sk_table_find(t, names[k])->data;
        for (int64_t i = 0; i < n; i++)
            tmp[pa[2 * i + 1]] = v[pv[2 * i + 1]];
        memcpy(v, tmp, (size_t)n * sizeof *v);
    }
    sk_free(pa);
    sk_free(pv);
    sk_free(tmp);
    return rc;
}

static int read_velocities(data_file *d, const atom_columns *ac, sk_table *t, sk_error *err)
{
    const section *s = &d->sec[d->velocities];
    int64_t n = sk_table_nrows(t);
    int64_t *vid = sk_malloc((size_t)(n ? n : 1) * sizeof *vid);
    if (!vid)
        return sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    char names[8][16];
    int nv = velocity_names(ac, names);
    field fields[9] = {{FIELD_INT64, vid, "id"}};
    int rc = SK_OK;
    for (int k = 0; k < nv && rc == SK_OK; k++)
        rc = at_field_add(t, names[k], FIELD_FLOAT64, &fields[k + 1], err);
    if (rc == SK_OK && n > 0) {
        body b = {.path = d->f->src.path, .begin = s->body, .end = s->end,
                  .first_line = s->body_line, .nrows = n, .fields = fields, .nfields = nv + 1,
                  .nrequired = nv + 1, .comment = '#', .threads = d->f->threads};
        rc = at_body_parse(&b, t, err);
    }
    if (rc == SK_OK) {
        const int64_t *id = sk_table_find(t, "id")->data;
        int64_t same = 1;
        for (int64_t i = 0; i < n && same; i++)
            same = id[i] == vid[i];
        if (!same)
            rc = match_velocities(d, t, vid, names, nv, err);
    }
    sk_free(vid);
    return rc;
}

/* ---- Masses and metadata ------------------------------------------------ */

static int read_masses(data_file *d, sk_table *t, sk_error *err)
{
    const section *s = &d->sec[d->masses];
    int64_t ntypes = d->counts[C_ATOM_TYPES];
    double *mass = sk_malloc((size_t)(ntypes ? ntypes : 1) * sizeof *mass);
    if (!mass)
        return sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    for (int64_t i = 0; i < ntypes; i++)
        mass[i] = __builtin_nan("");
    cursor c = {s->body, s->end, s->body_line};
    const char *b, *e;
    int rc = SK_OK;
    while (rc == SK_OK && at_cursor_next(&c, &b, &e)) {
        int64_t line = c.line - 1, type;
        const char *lb = b, *stop, *p = skip_blank(b, e);
        const char *hash = memchr(b, '#', (size_t)(e - b));
        if (hash)
            e = hash;
        double m;
        if (!number_parse_int64(p, e, &type, &stop) || type < 1 || type > ntypes) {
            rc = sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, line, (int64_t)(p - lb) + 1,
                              "Masses: expected an atom type in 1..%lld", (long long)ntypes);
            break;
        }
        p = skip_blank(stop, e);
        if (!number_parse_double(p, e, &m, &stop) || !at_only_space(stop, e))
            rc = sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, line, (int64_t)(p - lb) + 1,
                              "Masses: expected 'type mass'");
        else
            mass[type - 1] = m;
    }
    sk_text tx = {0};
    for (int64_t i = 0; rc == SK_OK && i < ntypes; i++) {
        if (i)
            sk_text_puts(&tx, " ");
        at_text_double(&tx, mass[i]);
    }
    if (rc == SK_OK)
        rc = tx.failed ? SK_ERR_NOMEM : sk_table_meta_set(t, "lammps.masses", tx.buf ? tx.buf : "");
    sk_text_free(&tx);
    sk_free(mass);
    return rc;
}

static int data_meta(data_file *d, sk_table *t, const atom_columns *ac)
{
    int rc = sk_table_meta_set(t, "lammps.title", d->title);
    rc = rc ? rc : sk_table_meta_set(t, "lammps.atom_style", ac->style);
    rc = rc ? rc : sk_table_meta_setf(t, "lammps.atom_types", "%lld", (long long)d->counts[C_ATOM_TYPES]);
    rc = rc ? rc : at_lmp_box_store(t, &d->box);
    sk_text skipped = {0};
    for (int i = 0; i < d->nsec; i++)
        if (i != d->atoms && i != d->velocities && i != d->masses &&
            !at_data_is_topology(d->sec[i].kind) &&
            strcmp(at_data_section_name(d->sec[i].kind), "Ellipsoids") != 0) {
            if (skipped.len)
                sk_text_puts(&skipped, ",");
            sk_text_puts(&skipped, at_data_section_name(d->sec[i].kind));
        }
    if (rc == SK_OK && skipped.len)
        rc = sk_table_meta_set(t, "lammps.skipped", skipped.buf);
    sk_text_free(&skipped);
    return rc;
}

/* Row i of the Atoms section is on line body_line + i: the section is
 * read as one line per atom. */
static int atom_fail(const data_file *d, int64_t row, sk_error *err, const char *what)
{
    return sk_fail_text(err, SK_ERR_FORMAT, d->f->src.path, d->sec[d->atoms].body_line + row, 1,
                        "%s", what);
}

/* Atom ids are positive and unique: LAMMPS refuses other files. A bitmap
 * when the ids are dense (the usual 1..n), else a sorted copy. */
static int check_ids(const data_file *d, const sk_column *c, int64_t n, sk_error *err)
{
    char msg[96];
    int64_t max = 0;
    for (int64_t i = 0; c && i < n; i++) {
        int64_t id = (int64_t)sk_column_get_double(c, i);
        if (id < 1) {
            snprintf(msg, sizeof msg, "atom id %lld is not positive", (long long)id);
            return atom_fail(d, i, err, msg);
        }
        max = id > max ? id : max;
    }
    if (!c || n < 2)
        return SK_OK;
    int dense = max <= 8 * n + 1024;
    uint8_t *seen = dense ? sk_calloc((size_t)(max / 8 + 1), 1) : NULL;
    int64_t *sorted = dense ? NULL : sk_malloc((size_t)n * sizeof *sorted);
    if (!seen && !sorted)
        return sk_fail(err, SK_ERR_NOMEM, d->f->src.path, -1, "out of memory");
    int rc = SK_OK;
    for (int64_t i = 0; i < n && rc == SK_OK; i++) {
        int64_t id = (int64_t)sk_column_get_double(c, i);
        if (sorted) {
            sorted[i] = id;
        } else if (seen[id >> 3] & (1u << (id & 7))) {
            snprintf(msg, sizeof msg, "atom id %lld appears twice", (long long)id);
            rc = atom_fail(d, i, err, msg);
        } else {
            seen[id >> 3] |= (uint8_t)(1u << (id & 7));
        }
    }
    if (sorted) {
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_pair);
        for (int64_t i = 1; i < n && rc == SK_OK; i++)
            if (sorted[i] == sorted[i - 1])
                rc = sk_fail(err, SK_ERR_FORMAT, d->f->src.path, -1,
                             "atom id %lld appears twice in the Atoms section",
                             (long long)sorted[i]);
    }
    sk_free(seen);
    sk_free(sorted);
    return rc;
}

/* Atom types run from 1 to the header's "atom types". */
static int check_types(const data_file *d, const sk_column *c, int64_t n, sk_error *err)
{
    int64_t ntypes = d->counts[C_ATOM_TYPES];
    for (int64_t i = 0; c && i < n; i++) {
        int64_t ty = (int64_t)sk_column_get_double(c, i);
        if (ty < 1 || (ntypes > 0 && ty > ntypes)) {
            char msg[96];
            snprintf(msg, sizeof msg, "atom type %lld is not between 1 and the header's %lld",
                     (long long)ty, (long long)ntypes);
            return atom_fail(d, i, err, msg);
        }
    }
    return SK_OK;
}

int at_data_read(sk_atoms_file *f, int with_atoms, int64_t *natoms, sk_table **out, sk_error *err)
{
    *out = NULL;
    data_file *d = sk_calloc(1, sizeof *d);
    if (!d)
        return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    d->f = f;
    atom_columns ac = {0};
    int rc = at_data_scan(d, err);
    if (rc == SK_OK && d->atoms >= 0)
        rc = choose_style(d, &ac, err);
    else if (rc == SK_OK) {
        snprintf(ac.style, sizeof ac.style, "atomic");
        at_lmp_style("atomic", &ac.lmp);
    }
    int64_t n = with_atoms ? d->counts[C_ATOMS] : 0;
    sk_table *t = rc == SK_OK ? sk_table_new(n) : NULL;
    if (rc == SK_OK && !t)
        rc = sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    field fields[MAX_FIELDS];
    for (int i = 0; rc == SK_OK && i < ac.n; i++)
        rc = at_field_add(t, ac.names[i], kind_of(ac.names[i]), &fields[i], err);
    if (rc == SK_OK && n > 0) {
        const section *s = &d->sec[d->atoms];
        body b = {.path = f->src.path, .begin = s->body, .end = s->end,
                  .first_line = s->body_line, .nrows = n, .fields = fields, .nfields = ac.n,
                  .nrequired = ac.base, .comment = '#', .threads = f->threads};
        rc = at_body_parse(&b, t, err);
        if (rc == SK_OK)
            rc = check_ids(d, sk_table_find(t, "id"), n, err);
        if (rc == SK_OK)
            rc = check_types(d, sk_table_find(t, "type"), n, err);
    }
    if (rc == SK_OK && d->velocities >= 0) {
        char names[8][16];
        int nv = velocity_names(&ac, names);
        if (with_atoms)
            rc = read_velocities(d, &ac, t, err);
        else
            for (int k = 0; k < nv && rc == SK_OK; k++)
                rc = sk_table_add(t, names[k], SK_FLOAT64, err) ? SK_OK : SK_ERR_NOMEM;
    }
    if (rc == SK_OK && d->masses >= 0)
        rc = read_masses(d, t, err);
    if (rc == SK_OK)
        rc = data_meta(d, t, &ac);
    if (rc == SK_OK)
        rc = at_data_topology_read(d, t, with_atoms, err);
    if (rc == SK_OK)
        rc = at_data_ellipsoids_read(d, t, with_atoms, err);
    *natoms = d->counts[C_ATOMS];
    sk_free(d);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    return SK_OK;
}
