/* Writing LAMMPS data files in the layout of LAMMPS' write_data: header
 * counts and box, Masses, Coeffs, Atoms with the style hint (and image flags
 * when the frame has ix iy iz), Velocities when it has vx vy vz, then the
 * topology sections (data_topo.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/atoms/data_internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

#define MAX_OUT 24

typedef struct data_out {
    const sk_table *t;
    int64_t n;
    int64_t *ids;     /* generated 1..n when the frame has no id */
    int32_t *types;   /* generated when it has no type */
    int types_from_element;
    int64_t ntypes;
    char style[96];
    lmp_style lmp;
    out_field atoms[MAX_OUT];
    int natoms_fields;
} data_out;

static int has_float(const sk_table *t, const char *name)
{
    const sk_column *c = sk_table_find(t, name);
    return c && sk_dtype_is_float(c->type);
}

static int style_fits(const sk_table *t, const char *style)
{
    lmp_style ls;
    if (!at_lmp_style(style, &ls))
        return 0;
    char buf[160];
    snprintf(buf, sizeof buf, "%s", ls.atoms);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        if (strcmp(tok, "id") != 0 && strcmp(tok, "type") != 0 && !sk_table_find(t, tok))
            return 0;
    return 1;
}

static void pick_style(data_out *d)
{
    const char *meta = sk_table_meta_get(d->t, "lammps.atom_style");
    const char *style = meta && style_fits(d->t, meta) ? meta
                        : sk_table_find(d->t, "mol") && has_float(d->t, "q") ? "full"
                        : has_float(d->t, "q")                                 ? "charge"
                        : sk_table_find(d->t, "mol")                           ? "molecular"
                                                                               : "atomic";
    snprintf(d->style, sizeof d->style, "%s", style);
    at_lmp_style(d->style, &d->lmp);
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A data file's atom ids are whole numbers from 1, each once (LAMMPS's
 * read_data and snapkit's reader refuse others): checked here, so that a
 * dump with other ids is refused at conversion, naming the atom. */
static int check_ids(const sk_column *id, int64_t n, sk_error *err)
{
    int64_t *v = sk_malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = SK_OK;
    for (int64_t i = 0; i < n && rc == SK_OK; i++) {
        v[i] = (int64_t)sk_column_get_double(id, i);
        if (v[i] < 1)
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                         "atom %lld of the frame has id %lld: a LAMMPS data file needs ids "
                         "from 1", (long long)i + 1, (long long)v[i]);
    }
    if (rc == SK_OK)
        qsort(v, (size_t)n, sizeof *v, by_value);
    for (int64_t i = 1; i < n && rc == SK_OK; i++)
        if (v[i] == v[i - 1]) {
            int64_t first = -1, second = -1;
            for (int64_t k = 0; k < n && second < 0; k++) {
                if ((int64_t)sk_column_get_double(id, k) != v[i])
                    continue;
                if (first < 0)
                    first = k + 1;
                else
                    second = k + 1;
            }
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                         "atoms %lld and %lld of the frame both have id %lld: a LAMMPS data "
                         "file needs each id once", (long long)first, (long long)second,
                         (long long)v[i]);
        }
    sk_free(v);
    return rc;
}

/* lo < hi and every bound and tilt finite, as read_data needs. */
static int check_box(const lmp_box *b, sk_error *err)
{
    static const char *const axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++)
        if (!(isfinite(b->lo[i]) && isfinite(b->hi[i]) && b->lo[i] < b->hi[i]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the box's %s bounds are %g %g: a LAMMPS data file needs finite "
                           "bounds with %slo < %shi", axis[i], b->lo[i], b->hi[i], axis[i],
                           axis[i]);
    if (b->triclinic && !(isfinite(b->xy) && isfinite(b->xz) && isfinite(b->yz)))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the box's tilts %g %g %g are not finite numbers", b->xy, b->xz, b->yz);
    return SK_OK;
}

static int make_ids_and_types(data_out *d, sk_error *err)
{
    const sk_column *id = sk_table_find(d->t, "id"), *type = sk_table_find(d->t, "type"),
                    *el = sk_table_find(d->t, "element");
    if (id && sk_dtype_is_integer(id->type)) {
        int rc = check_ids(id, d->n, err);
        if (rc != SK_OK)
            return rc;
    } else {
        d->ids = sk_malloc((size_t)(d->n ? d->n : 1) * sizeof *d->ids);
        if (!d->ids)
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        for (int64_t i = 0; i < d->n; i++)
            d->ids[i] = i + 1;
    }
    int64_t maxtype = 0;
    if (type && sk_dtype_is_integer(type->type)) {
        for (int64_t i = 0; i < d->n; i++) {
            double v = sk_column_get_double(type, i);
            if (v < 1)
                return sk_fail(err, SK_ERR_ARG, NULL, -1,
                               "atom type %g in row %lld: LAMMPS types start at 1", v,
                               (long long)i);
            maxtype = (int64_t)v > maxtype ? (int64_t)v : maxtype;
        }
    } else {
        d->types = sk_malloc((size_t)(d->n ? d->n : 1) * sizeof *d->types);
        if (!d->types)
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        d->types_from_element = el && el->type == SK_CATEGORY;
        for (int64_t i = 0; i < d->n; i++)
            d->types[i] = d->types_from_element ? ((const int32_t *)el->data)[i] + 1 : 1;
        maxtype = d->types_from_element ? el->nlabels : 1;
    }
    const char *declared = sk_table_meta_get(d->t, "lammps.atom_types");
    long long ntypes = declared ? atoll(declared) : 0;
    d->ntypes = !d->types && ntypes > maxtype ? ntypes : maxtype;
    if (d->ntypes < 1)
        d->ntypes = 1;
    return SK_OK;
}

static int atom_fields(data_out *d, sk_error *err)
{
    char buf[192];
    snprintf(buf, sizeof buf, "%s ix iy iz", d->lmp.atoms);
    int with_images = sk_table_find(d->t, "ix") && sk_table_find(d->t, "iy") &&
                      sk_table_find(d->t, "iz");
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (tok[0] == 'i' && tok[1] && tok[2] == '\0' && strchr("xyz", tok[1]) && !with_images)
            break;
        out_field *f = &d->atoms[n++];
        if (strcmp(tok, "id") == 0 && d->ids) {
            *f = (out_field){d->ids, SK_INT64, NULL, 0, 0};
            continue;
        }
        if (strcmp(tok, "type") == 0 && d->types) {
            *f = (out_field){d->types, SK_INT32, NULL, 0, 0};
            continue;
        }
        const sk_column *c = sk_table_find(d->t, tok);
        if (!c || c->type == SK_CATEGORY)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "atom style %s needs a numeric column %s", d->style, tok);
        int rc = at_out_field_for(c, f, err);
        if (rc != SK_OK)
            return rc;
    }
    d->natoms_fields = n;
    return SK_OK;
}

/* Masses per type from lammps.masses, else from the element of each type:
 * 1 when every type has one, 0 when none has (no Masses section), else -1
 * - 1 - k for the first type k without one (some known, some not: writing
 * none would silently drop the known ones). */
static int64_t masses(const data_out *d, double *mass, const char **label)
{
    for (int64_t k = 0; k < d->ntypes; k++) {
        mass[k] = NAN;
        label[k] = NULL;
    }
    const char *meta = sk_table_meta_get(d->t, "lammps.masses");
    if (meta && *meta) {
        const char *p = meta, *end = meta + strlen(meta);
        for (int64_t k = 0; k < d->ntypes; k++) {
            p = skip_blank(p, end);
            if (!number_parse_double(p, end, &mass[k], &p))
                break;
        }
    }
    const sk_column *el = sk_table_find(d->t, "element");
    const sk_column *type = sk_table_find(d->t, "type");
    if (el && el->type == SK_CATEGORY) {
        for (int64_t i = 0; i < d->n; i++) {
            int64_t k = (d->types ? d->types[i] : (int64_t)sk_column_get_double(type, i)) - 1;
            int32_t code = ((const int32_t *)el->data)[i];
            if (k < 0 || k >= d->ntypes || label[k] || code < 0 || code >= el->nlabels)
                continue;
            label[k] = el->labels[code];
            if (isnan(mass[k]) && sk_element_mass(label[k]) > 0)
                mass[k] = sk_element_mass(label[k]);
        }
    }
    int64_t missing = -1, known = 0;
    for (int64_t k = 0; k < d->ntypes; k++) {
        if (!isnan(mass[k]))
            known++;
        else if (missing < 0)
            missing = k;
    }
    return missing < 0 ? 1 : known == 0 ? 0 : -1 - missing;
}

static int header(sk_text *h, data_out *d, const lmp_box *b, sk_error *err)
{
    const char *title = sk_table_meta_get(d->t, "lammps.title");
    sk_text_printf(h, "%s\n\n%lld atoms\n%lld atom types\n",
                title && *title ? title : "LAMMPS data file written by snapkit", (long long)d->n,
                (long long)d->ntypes);
    int rc = at_data_topology_header(h, d->t, d->style, d->lmp.topology, err);
    if (rc != SK_OK)
        return rc;
    at_data_ellipsoids_header(h, d->t, &d->lmp);
    sk_text_puts(h, "\n");
    static const char *const axis[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
    for (int i = 0; i < 3; i++) {
        at_text_double(h, b->lo[i]);
        sk_text_puts(h, " ");
        at_text_double(h, b->hi[i]);
        sk_text_printf(h, " %s\n", axis[i]);
    }
    if (b->triclinic) {
        at_text_double(h, b->xy);
        sk_text_puts(h, " ");
        at_text_double(h, b->xz);
        sk_text_puts(h, " ");
        at_text_double(h, b->yz);
        sk_text_puts(h, " xy xz yz\n");
    }
    double *mass = sk_malloc((size_t)d->ntypes * sizeof *mass);
    const char **label = sk_malloc((size_t)d->ntypes * sizeof *label);
    if (!mass || !label) {
        sk_free(mass);
        sk_free(label);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    int64_t have = masses(d, mass, label);
    if (have < 0) {
        int64_t k = -1 - have;
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                         "atom type %lld%s%s%s has no known mass while other types have one: "
                         "give every type's mass (--masses M1,M2,...)", (long long)(k + 1),
                         label[k] ? " (element '" : "", label[k] ? label[k] : "",
                         label[k] ? "')" : "");
        sk_free(mass);
        sk_free(label);
        return rc;
    }
    if (have) {
        sk_text_puts(h, "\nMasses\n\n");
        for (int64_t k = 0; k < d->ntypes; k++) {
            sk_text_printf(h, "%lld ", (long long)(k + 1));
            at_text_double(h, mass[k]);
            if (label[k] && d->types_from_element)
                sk_text_printf(h, " # %s", label[k]);
            sk_text_puts(h, "\n");
        }
    }
    sk_free(mass);
    sk_free(label);
    at_data_coeffs_text(h, d->t);
    sk_text_printf(h, "\nAtoms # %s\n\n", d->lmp.hybrid ? "hybrid" : d->style);
    return h->failed ? sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory") : SK_OK;
}

/* Velocities when the frame has vx vy vz: the style's layout ("id vx vy vz
 * wx wy wz" for sphere), each of its columns needed. */
static int velocities(out_sink *s, const data_out *d, sk_error *err)
{
    if (!has_float(d->t, "vx") || !has_float(d->t, "vy") || !has_float(d->t, "vz"))
        return SK_OK;
    out_field f[10];
    f[0] = d->atoms[0]; /* the id */
    int n = 1;
    char buf[96];
    snprintf(buf, sizeof buf, "%s", d->lmp.vel);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && n < 10;
         tok = strtok_r(NULL, " ", &save)) {
        if (strcmp(tok, "id") == 0)
            continue;
        const sk_column *c = sk_table_find(d->t, tok);
        if (!c || !sk_dtype_is_float(c->type))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "atom style %s needs a column %s for its Velocities", d->style, tok);
        int rc = at_out_field_for(c, &f[n++], err);
        if (rc != SK_OK)
            return rc;
    }
    int rc = at_sink_write(s, "\nVelocities\n\n", 13, err);
    return rc ? rc : at_sink_rows(s, f, n, d->n, err);
}

int at_data_write(out_sink *s, const sk_table *t, sk_error *err)
{
    data_out d;
    memset(&d, 0, sizeof d);
    d.t = t;
    d.n = sk_table_nrows(t);
    lmp_box b;
    int rc = at_lmp_box_for(t, &b, err);
    if (rc == SK_OK)
        rc = check_box(&b, err);
    if (rc == SK_OK && !(has_float(t, "x") && has_float(t, "y") && has_float(t, "z")))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "the frame has no x y z columns");
    if (rc == SK_OK)
        rc = make_ids_and_types(&d, err);
    if (rc == SK_OK) {
        pick_style(&d);
        rc = atom_fields(&d, err);
    }
    sk_text h = {0};
    if (rc == SK_OK)
        rc = header(&h, &d, &b, err);
    if (rc == SK_OK)
        rc = at_sink_write(s, h.buf, h.len, err);
    if (rc == SK_OK)
        rc = at_sink_rows(s, d.atoms, d.natoms_fields, d.n, err);
    if (rc == SK_OK)
        rc = velocities(s, &d, err);
    if (rc == SK_OK)
        rc = at_data_topology_write(s, t, sk_table_find(t, "id"), d.ids, d.n, err);
    if (rc == SK_OK)
        rc = at_data_ellipsoids_write(s, t, d.ids, err);
    sk_text_free(&h);
    sk_free(d.ids);
    sk_free(d.types);
    return rc;
}
