/* Quantities of a batch (batchq.h). */
#include "analysis/batchq.h"

#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/units.h"

/* Quantities that are > 0 wherever they are defined (yt takes their logs). */
static const char *const k_positive[] = {
    "density", "pressure", "thermal_pressure", "mass", "volume", "T", "r", "R", "cs", "v",
    "v_rel", "v_tan", "j", "entropy", "ekin", "eth", "mach", "n", "nH", "B",
    "magnetic_pressure", "plasma_beta", "alfven_speed", "count",
};

int an_quantity_positive(const char *name)
{
    for (size_t i = 0; i < sizeof k_positive / sizeof k_positive[0]; i++)
        if (!strcmp(name, k_positive[i]))
            return 1;
    return 0;
}

/* The dimension of a column by its name (code units only: SK_QDIM_NONE).
 * A mass density has no sk_quantity_dim: -1. */
static int column_dim(const char *name, const char **cgs)
{
    static const struct {
        const char *prefix;
        int exact, dim;
        const char *cgs;
    } k_cols[] = {
        {"density", 1, -1, "g/cm3"},
        {"pressure", 1, SK_QDIM_ENERGY_DENSITY, "erg/cm3"},
        {"thermal_pressure", 1, SK_QDIM_ENERGY_DENSITY, "erg/cm3"},
        {"mass", 1, SK_QDIM_MASS, "g"},
        {"velocity_", 0, SK_QDIM_VELOCITY, "cm/s"},
        {"position_", 0, SK_QDIM_LENGTH, "cm"},
    };
    for (size_t i = 0; i < sizeof k_cols / sizeof k_cols[0]; i++) {
        size_t n = strlen(k_cols[i].prefix);
        if (k_cols[i].exact ? !strcmp(name, k_cols[i].prefix)
                            : !strncmp(name, k_cols[i].prefix, n)) {
            *cgs = k_cols[i].cgs;
            return k_cols[i].dim;
        }
    }
    *cgs = "1";
    return SK_QDIM_NONE;
}

static int is_particles(const sk_table *t)
{
    const char *kind = sk_table_meta_get(t, "kind");
    return kind && !strcmp(kind, "particles");
}

static int unknown(const char *name, const sk_table *schema, sk_error *err)
{
    char cols[768] = "";
    size_t len = 0;
    for (int i = 0; i < sk_table_ncols(schema) && len < sizeof cols; i++)
        len += (size_t)snprintf(cols + len, sizeof cols - len, "%s%s", i ? ", " : "",
                                sk_table_col(schema, i)->name);
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown quantity '%s': neither count, a derived quantity (T, mass, r, ...: "
                   "snapkit stats --list-quantities) nor a column (%s)", name, cols);
}

int an_quantity_resolve(an_quantity *q, const char *name, const sk_table *schema,
                        const sk_frame *frame, sk_error *err)
{
    memset(q, 0, sizeof *q);
    if (!name || !name[0] || strlen(name) >= sizeof q->name)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a quantity needs a name (of at most %d "
                       "characters)", (int)sizeof q->name - 1);
    snprintf(q->name, sizeof q->name, "%s", name);
    snprintf(q->unit, sizeof q->unit, "code");
    q->factor = 1.0;
    q->positive = an_quantity_positive(name);
    q->dim.name = q->name;
    if (!strcmp(name, "count")) {
        q->kind = AN_Q_COUNT;
        snprintf(q->unit, sizeof q->unit, "1");
        return SK_OK;
    }
    const sk_column *c = sk_table_find(schema, name);
    if (c) {
        if (c->type == SK_CATEGORY || sk_dtype_size(c->type) == 0)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "column '%s' is not numeric", name);
        q->kind = AN_Q_COLUMN;
        q->dim.dim = column_dim(name, &q->dim.cgs_unit);
        return SK_OK;
    }
    const sk_quantity *d = sk_quantity_find(name);
    if (!d)
        return unknown(name, schema, err);
    int particles = is_particles(schema);
    if (!(particles ? d->particle_columns : d->cell_columns))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "'%s' is not a quantity of %s", name,
                       particles ? "particles" : "cells");
    if ((d->needs & SK_NEEDS_CENTER) && !(frame && frame->has_center))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "'%s' is taken about a centre: give one "
                       "(--center)", name);
    q->kind = AN_Q_DERIVED;
    q->derived = d;
    q->dim = *d;
    return SK_OK;
}

/* Factor to `unit` of a mass density (no sk_quantity_dim of its own). */
static int density_factor(const an_quantity *q, const sk_units *u, const char *unit,
                          double *f, sk_error *err)
{
    const double pc3 = SK_CM_PER_PC * SK_CM_PER_PC * SK_CM_PER_PC;
    const double kpc3 = SK_CM_PER_KPC * SK_CM_PER_KPC * SK_CM_PER_KPC;
    if (!strcmp(unit, "code"))
        *f = 1.0;
    else if (!strcmp(unit, "cgs") || !strcmp(unit, "g/cm3"))
        *f = u->unit_d;
    else if (!strcmp(unit, "Msun/pc3"))
        *f = u->unit_d * pc3 / SK_G_PER_MSUN;
    else if (!strcmp(unit, "Msun/kpc3"))
        *f = u->unit_d * kpc3 / SK_G_PER_MSUN;
    else
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unit '%s' does not fit %s (a density): "
                       "code, cgs, g/cm3, Msun/pc3, Msun/kpc3", unit, q->name);
    return SK_OK;
}

int an_quantity_set_unit(an_quantity *q, const sk_table *schema, const sk_derive_options *opt,
                         const char *unit, sk_error *err)
{
    if (q->kind == AN_Q_COUNT)
        return strcmp(unit, "code") && strcmp(unit, "cgs")
                   ? sk_fail(err, SK_ERR_ARG, NULL, -1, "count has no unit, not '%s'", unit)
                   : SK_OK;
    sk_units u;
    sk_units_from_table(&u, schema);
    double f;
    int rc = q->dim.dim < 0 ? density_factor(q, &u, unit, &f, err)
                            : sk_quantity_unit_factor(&q->dim, &u, opt, unit, &f, err);
    if (rc != SK_OK)
        return rc;
    const char *name = unit;
    if (!strcmp(unit, "cgs"))
        name = q->dim.cgs_unit ? q->dim.cgs_unit : "cgs";
    if (q->dim.dim == SK_QDIM_NONE && strcmp(unit, "code"))
        name = "1";
    q->factor = f;
    snprintf(q->unit, sizeof q->unit, "%s", name);
    return SK_OK;
}

static int apply_item(an_quantity *q, int n, const sk_table *schema,
                      const sk_derive_options *opt, const char *item, sk_error *err)
{
    const char *eq = strchr(item, '=');
    if (eq) {
        size_t len = (size_t)(eq - item);
        for (int i = 0; i < n; i++)
            if (strlen(q[i].name) == len && !strncmp(q[i].name, item, len))
                return an_quantity_set_unit(&q[i], schema, opt, eq + 1, err);
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a unit for '%.*s', which is not used",
                       (int)len, item);
    }
    int used = 0;
    for (int i = 0; i < n; i++) {
        if (q[i].kind == AN_Q_COUNT)
            continue;
        an_quantity t = q[i];
        if (an_quantity_set_unit(&t, schema, opt, item, NULL) == SK_OK) {
            q[i] = t;
            used++;
        }
    }
    if (!used)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unit '%s' fits none of the quantities", item);
    return SK_OK;
}

int an_quantities_units(an_quantity *q, int n, const sk_table *schema,
                        const sk_derive_options *opt, const char *spec, sk_error *err)
{
    char buf[512];
    if (!spec || !spec[0])
        return SK_OK;
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the units are too long");
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        int rc = *tok ? apply_item(q, n, schema, opt, tok, err) : SK_OK;
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

static int grow(an_scratch *s, int64_t n, sk_error *err)
{
    if (n <= s->cap)
        return SK_OK;
    double *b = sk_realloc(s->buf, (size_t)n * sizeof *b);
    if (!b)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    s->buf = b;
    s->cap = n;
    return SK_OK;
}

int an_quantity_values(const an_quantity *q, const sk_table *batch, const sk_frame *frame,
                       const sk_derive_options *opt, an_scratch *s, const double **out,
                       sk_error *err)
{
    int64_t n = sk_table_nrows(batch);
    const sk_column *c = q->kind == AN_Q_COLUMN ? sk_table_find(batch, q->name) : NULL;
    if (q->kind == AN_Q_COLUMN && !c)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a batch lacks the column '%s'", q->name);
    if (c && c->type == SK_FLOAT64 && q->factor == 1.0) {
        *out = c->data;
        return SK_OK;
    }
    int rc = grow(s, n > 0 ? n : 1, err);
    if (rc != SK_OK)
        return rc;
    double *v = s->buf;
    if (q->kind == AN_Q_COUNT) {
        for (int64_t i = 0; i < n; i++)
            v[i] = 1.0;
    } else if (c) {
        for (int64_t i = 0; i < n; i++)
            v[i] = sk_column_get_double(c, i) * q->factor;
    } else {
        rc = sk_derive(batch, q->derived->name, frame, opt, v, err);
        for (int64_t i = 0; rc == SK_OK && q->factor != 1.0 && i < n; i++)
            v[i] *= q->factor;
    }
    *out = v;
    return rc;
}

void an_scratch_free(an_scratch *s)
{
    sk_free(s->buf);
    s->buf = NULL;
    s->cap = 0;
}
