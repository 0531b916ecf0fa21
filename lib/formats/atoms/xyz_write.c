/* Writing extended XYZ: species and positions first (as ASE writes them),
 * then the other columns grouped back into multi-component properties. */
#include <stdio.h>
#include <string.h>

#include "core/number_calls.h"
#include "formats/atoms/internal.h"
#include "formats/atoms/xyz_kv.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

typedef struct group {
    char name[128];
    char type; /* S R I L */
    int first, count; /* column indexes: order[first .. first+count) */
} group;

static char type_letter(const sk_column *c, int64_t nrows)
{
    switch (c->type) {
    case SK_FLOAT64:
    case SK_FLOAT32: return 'R';
    case SK_CATEGORY: return 'S';
    case SK_UINT8: {
        const uint8_t *v = c->data;
        for (int64_t i = 0; i < nrows; i++)
            if (v[i] > 1)
                return 'I';
        return 'L';
    }
    default: return 'I';
    }
}

/* Columns named prefix+x, +y, +z (or the given three) of one type. */
static int triple(const sk_table *t, const char *const names[3], const int *used, int idx[3])
{
    for (int k = 0; k < 3; k++) {
        idx[k] = sk_table_index(t, names[k]);
        if (idx[k] < 0 || used[idx[k]] ||
            sk_table_col(t, idx[k])->type != sk_table_col(t, idx[0])->type)
            return 0;
    }
    return 1;
}

/* Does column j continue "name_k" with k = expected? Sets base length. */
static int component_of(const char *col, const char *base, size_t blen, int k)
{
    char want[160];
    snprintf(want, sizeof want, "%.*s_%d", (int)blen, base, k);
    return strcmp(col, want) == 0;
}

typedef struct layout {
    group *groups;
    int ngroups;
    int *order; /* column indexes in output order; SPECIES: the species below */
    int norder;
    sk_column species; /* element names from a data file's masses, when the frame has none */
} layout;

#define SPECIES (-1)
#define MAX_TYPES 4096

static const sk_column *column_at(const sk_table *t, const layout *l, int index)
{
    return index == SPECIES ? &l->species : sk_table_col(t, index);
}

/* A LAMMPS data file names no elements, but its Masses often do (as
 * to_ase() reads them): when the frame has no element column and every
 * atom type's mass is an element's, a species column from the types.
 * 0 when it has none (l->species stays empty). */
static int species_from_masses(const sk_table *t, layout *l, sk_error *err)
{
    const char *meta = sk_table_meta_get(t, "lammps.masses");
    const sk_column *type = sk_table_find(t, "type");
    if (sk_table_find(t, "element") || !meta || !*meta || !type ||
        sk_dtype_is_float(type->type) || type->type == SK_CATEGORY)
        return 0;
    const char *names[MAX_TYPES];
    int ntypes = 0;
    const char *p = meta, *end = meta + strlen(meta);
    for (double m; ntypes < MAX_TYPES && (p = skip_blank(p, end)) < end; ntypes++)
        if (!number_parse_double(p, end, &m, &p) || !(names[ntypes] = sk_element_from_mass(m)))
            return 0;
    int64_t n = sk_table_nrows(t);
    int32_t *codes = sk_malloc((size_t)(n ? n : 1) * sizeof *codes);
    char **labels = sk_malloc((size_t)(ntypes ? ntypes : 1) * sizeof *labels);
    int ok = codes && labels;
    for (int64_t i = 0; ok && i < n; i++) {
        double k = sk_column_get_double(type, i);
        ok = k >= 1 && k <= ntypes;
        codes[i] = ok ? (int32_t)k - 1 : 0;
    }
    if (!ok) {
        sk_free(codes);
        sk_free(labels);
        return codes && labels ? 0 : (sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory"), -1);
    }
    memcpy(labels, names, (size_t)ntypes * sizeof *labels); /* the element table's strings */
    l->species = (sk_column){.name = "species", .type = SK_CATEGORY, .data = codes,
                             .nlabels = ntypes, .labels = labels};
    return 1;
}

static void add_group(layout *l, const sk_table *t, const char *name, const int *cols, int n)
{
    group *g = &l->groups[l->ngroups++];
    snprintf(g->name, sizeof g->name, "%s", name);
    g->type = type_letter(column_at(t, l, cols[0]), sk_table_nrows(t));
    g->first = l->norder;
    g->count = n;
    for (int i = 0; i < n; i++)
        l->order[l->norder++] = cols[i];
}

static int plan(const sk_table *t, layout *l, sk_error *err)
{
    int nc = sk_table_ncols(t);
    l->groups = sk_calloc((size_t)nc + 1, sizeof *l->groups);
    l->order = sk_calloc((size_t)nc + 1, sizeof *l->order);
    int *used = sk_calloc((size_t)nc + 1, sizeof *used);
    if (!l->groups || !l->order || !used) {
        sk_free(used);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    static const char *const pos[3] = {"x", "y", "z"}, *const vel[3] = {"vx", "vy", "vz"},
                             *const frc[3] = {"fx", "fy", "fz"};
    int idx[3];
    int el = sk_table_index(t, "element");
    if (el >= 0 && sk_table_col(t, el)->type == SK_CATEGORY) {
        add_group(l, t, "species", &el, 1);
        used[el] = 1;
    } else {
        int named = species_from_masses(t, l, err);
        if (named < 0) {
            sk_free(used);
            return SK_ERR_NOMEM;
        }
        if (named) {
            el = SPECIES;
            add_group(l, t, "species", &el, 1);
        }
    }
    if (triple(t, pos, used, idx) && sk_dtype_is_float(sk_table_col(t, idx[0])->type)) {
        add_group(l, t, "pos", idx, 3);
        used[idx[0]] = used[idx[1]] = used[idx[2]] = 1;
    }
    for (int j = 0; j < nc; j++) {
        if (used[j])
            continue;
        const char *name = sk_table_col(t, j)->name;
        if (strpbrk(name, ": \t\"=") || !*name) {
            sk_free(used);
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "column '%s' cannot be an extxyz property name", name);
        }
        if (strcmp(name, "vx") == 0 && triple(t, vel, used, idx)) {
            add_group(l, t, "velo", idx, 3);
        } else if (strcmp(name, "fx") == 0 && triple(t, frc, used, idx)) {
            add_group(l, t, "forces", idx, 3);
        } else {
            const char *us = strrchr(name, '_');
            int cols[512], n = 0;
            if (us && strcmp(us, "_0") == 0) { /* name_0, name_1, ... of one type */
                size_t blen = (size_t)(us - name);
                for (int k = j; k < nc && n < 512; k++) {
                    const sk_column *c = sk_table_col(t, k);
                    if (used[k] || !component_of(c->name, name, blen, n) ||
                        c->type != sk_table_col(t, j)->type)
                        break;
                    cols[n++] = k;
                }
                char base[128];
                snprintf(base, sizeof base, "%.*s", (int)blen, name);
                if (n > 1)
                    add_group(l, t, base, cols, n);
                else
                    add_group(l, t, name, &j, 1);
            } else {
                add_group(l, t, name, &j, 1);
            }
        }
        for (int k = l->groups[l->ngroups - 1].first; k < l->norder; k++)
            used[l->order[k]] = 1;
    }
    sk_free(used);
    return SK_OK;
}

static int comment_line(sk_text *h, const sk_table *t, const layout *l, sk_error *err)
{
    sk_box box;
    int rc = sk_atoms_get_box(t, &box, err);
    int has_box = rc == SK_OK;
    if (rc != SK_OK && rc != SK_ERR_EMPTY)
        return rc;
    if (has_box) {
        const double *v[3] = {box.a, box.b, box.c};
        sk_text_puts(h, "Lattice=\"");
        for (int i = 0; i < 9; i++) {
            at_text_double(h, v[i / 3][i % 3]);
            sk_text_puts(h, i < 8 ? " " : "\" ");
        }
    }
    sk_text_puts(h, "Properties=");
    for (int g = 0; g < l->ngroups; g++)
        sk_text_printf(h, "%s%s:%c:%d", g ? ":" : "", l->groups[g].name, l->groups[g].type,
                    l->groups[g].count);
    int has_step = 0;
    for (int i = 0; i < sk_table_meta_count(t); i++) {
        const char *k = sk_table_meta_key(t, i), *v = sk_table_meta_value(t, i);
        if (strncmp(k, "extxyz.", 7) != 0)
            continue;
        k += 7;
        if (strcmp(k, "Properties") == 0 || strcmp(k, "Lattice") == 0 ||
            (has_box && (strcmp(k, "pbc") == 0 || strcmp(k, "Origin") == 0)))
            continue; /* written from the columns and the box */
        has_step |= strcmp(k, "timestep") == 0;
        sk_text_puts(h, " ");
        at_kv_put_key(h, k);
        if (*v) {
            sk_text_puts(h, "=");
            if (at_kv_put_value(h, v) != SK_OK)
                return sk_fail(err, SK_ERR_ARG, NULL, -1,
                               "metadata extxyz.%s = '%s' cannot be written as an extxyz value "
                               "(a number in it is too large for a double)", k, v);
        }
    }
    const char *plain = sk_table_meta_get(t, "xyz.comment");
    if (plain && *plain && !sk_table_meta_get(t, "extxyz.comment")) {
        sk_text_puts(h, " comment=");
        at_kv_put_quoted(h, plain);
    }
    const char *step = sk_table_meta_get(t, "timestep");
    if (step && !has_step)
        sk_text_printf(h, " timestep=%s", step);
    if (has_box) {
        if (box.origin[0] != 0 || box.origin[1] != 0 || box.origin[2] != 0) {
            sk_text_puts(h, " Origin=\"");
            for (int i = 0; i < 3; i++) {
                at_text_double(h, box.origin[i]);
                sk_text_puts(h, i < 2 ? " " : "\"");
            }
        }
        sk_text_printf(h, " pbc=\"%c %c %c\"", box.pbc[0] ? 'T' : 'F', box.pbc[1] ? 'T' : 'F',
                    box.pbc[2] ? 'T' : 'F');
    }
    sk_text_puts(h, "\n");
    return SK_OK;
}

int at_xyz_write(out_sink *s, const sk_table *t, sk_error *err)
{
    layout l = {0};
    sk_text h = {0};
    out_field *fields = NULL;
    int rc = plan(t, &l, err);
    if (rc == SK_OK && l.norder == 0)
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "the frame has no columns to write");
    if (rc == SK_OK) {
        sk_text_printf(&h, "%lld\n", (long long)sk_table_nrows(t));
        rc = comment_line(&h, t, &l, err);
    }
    if (rc == SK_OK && !(fields = sk_calloc((size_t)l.norder, sizeof *fields)))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int g = 0; rc == SK_OK && g < l.ngroups; g++)
        for (int k = 0; rc == SK_OK && k < l.groups[g].count; k++) {
            int at = l.groups[g].first + k;
            rc = at_out_field_for(column_at(t, &l, l.order[at]), &fields[at], err);
            fields[at].as_bool = l.groups[g].type == 'L';
        }
    if (rc == SK_OK && h.failed)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK)
        rc = at_sink_write(s, h.buf, h.len, err);
    if (rc == SK_OK)
        rc = at_sink_rows(s, fields, l.norder, sk_table_nrows(t), err);
    sk_free(fields);
    sk_free(l.species.data);
    sk_free(l.species.labels);
    sk_free(l.groups);
    sk_free(l.order);
    sk_text_free(&h);
    return rc;
}
