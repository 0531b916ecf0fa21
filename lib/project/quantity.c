/* Quantities: what each asked name means, which accumulator slots it
 * needs, per-row coefficients, and the units a map can be given in. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "project_internal.h"
#include "snapkit/derive.h"
#include "snapkit/memory.h"

static const struct {
    const char *alias, *column;
} k_aliases[] = {
    {"rho", "density"}, {"vx", "velocity_x"}, {"vy", "velocity_y"},
    {"vz", "velocity_z"}, {"p", "pressure"},
};

/* The column as float64: the column itself, or a converted copy the job
 * owns. */
static int column_f64(proj_job *job, const char *name, const char *why, const double **out,
                      sk_error *err)
{
    const sk_column *c = sk_table_find(job->table, name);
    if (!c)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s needs the column '%s', which the table lacks",
                       why, name);
    if (c->type == SK_FLOAT64) {
        *out = c->data;
        return SK_OK;
    }
    if (c->type == SK_CATEGORY || sk_dtype_size(c->type) == 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: column '%s' is not numeric", why, name);
    if (job->nowned == (int)(sizeof job->owned / sizeof job->owned[0]))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "too many columns to convert");
    double *copy = sk_malloc((size_t)job->nrows * sizeof *copy + 1);
    if (!copy)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory converting column '%s'", name);
    for (int64_t i = 0; i < job->nrows; i++)
        copy[i] = sk_column_get_double(c, i);
    job->owned[job->nowned++] = copy;
    *out = copy;
    return SK_OK;
}

static proj_dim derived_dim(int dim);

/* A column's dimension by its name: the RAMSES hydro ones, and the derived
 * quantities a stream adds as columns (sk_derive_set). */
static proj_dim column_dim(const char *name)
{
    const sk_quantity *d = sk_quantity_find(name);
    if (d)
        return derived_dim(d->dim);
    if (strcmp(name, "density") == 0)
        return DIM_DENSITY;
    if (strncmp(name, "velocity_", 9) == 0)
        return DIM_VELOCITY;
    if (strcmp(name, "pressure") == 0)
        return DIM_PRESSURE;
    return DIM_NONE;
}

/* The projection's dimension of a derived quantity's (units it can be
 * given in); DIM_NONE: code units only. */
static proj_dim derived_dim(int dim)
{
    switch (dim) {
    case SK_QDIM_VELOCITY:
        return DIM_VELOCITY;
    case SK_QDIM_TEMPERATURE:
        return DIM_TEMPERATURE;
    case SK_QDIM_ENERGY_DENSITY:
        return DIM_PRESSURE;
    case SK_QDIM_MASS:
        return DIM_MASS;
    case SK_QDIM_VOLUME:
        return DIM_VOLUME;
    default:
        return DIM_NONE;
    }
}

/* The derived quantity a name asks for: its own name or the projection's
 * older spellings (temperature, sound_speed, speed). */
static const sk_quantity *derived_quantity(const char *n)
{
    if (strcasecmp(n, "temperature") == 0 || strcmp(n, "Temp") == 0)
        n = "T";
    else if (strcmp(n, "sound_speed") == 0)
        n = "cs";
    else if (strcmp(n, "speed") == 0)
        n = "v";
    return sk_quantity_find(n);
}

static int unknown_quantity(const proj_job *job, const char *n, sk_error *err)
{
    char cols[1024] = "";
    size_t len = 0;
    for (int i = 0; i < sk_table_ncols(job->table) && len < sizeof cols; i++)
        len += (size_t)snprintf(cols + len, sizeof cols - len, "%s%s", i ? ", " : "",
                                sk_table_col(job->table, i)->name);
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown quantity '%s': neither sd, mass, weight, count, a derived quantity "
                   "(T, cs, v, B, magnetic_pressure, ...; snapkit/derive.h) nor a column of the "
                   "table (%s)", n, cols);
}

/* A derived quantity (snapkit/derive.h: T, cs, v, the MHD ones, ...),
 * computed once into a column the job owns. Those about a centre come as
 * columns of the table instead (sk_derive_set), here they fail for want
 * of one. */
static int derived_column(proj_job *job, proj_quantity *q, const sk_project_options *opt,
                          sk_error *err)
{
    const sk_quantity *d = derived_quantity(q->name);
    if (!d)
        return unknown_quantity(job, q->name, err);
    if (job->nowned == (int)(sizeof job->owned / sizeof job->owned[0]))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "too many derived columns");
    double *v = sk_malloc((size_t)job->nrows * sizeof *v + 1);
    if (!v)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory deriving '%s'", q->name);
    job->owned[job->nowned++] = v;
    sk_derive_options dopt = {.gamma = opt->gamma, .mu = opt->mu};
    q->dim = derived_dim(d->dim);
    q->col = v;
    return sk_derive(job->table, d->name, NULL, &dopt, v, err);
}

static int resolve_one(proj_job *job, proj_quantity *q, const sk_project_options *opt,
                       sk_error *err)
{
    const char *n = q->name;
    static const struct {
        const char *name;
        proj_qkind kind;
        proj_dim dim;
    } k_special[] = {
        {"sd", Q_SD, DIM_COLUMN_DENSITY}, {"surface_density", Q_SD, DIM_COLUMN_DENSITY},
        {"mass", Q_MASS, DIM_MASS},       {"count", Q_COUNT, DIM_COUNT},
        {"weight", Q_WEIGHT, DIM_MASS},
    };
    for (size_t i = 0; i < sizeof k_special / sizeof k_special[0]; i++)
        if (strcmp(n, k_special[i].name) == 0) {
            q->kind = k_special[i].kind;
            q->dim = q->kind == Q_WEIGHT && opt->weight_volume ? DIM_VOLUME : k_special[i].dim;
            return SK_OK;
        }
    q->kind = Q_FIELD;
    if (derived_quantity(n) && !sk_table_find(job->table, n))
        return derived_column(job, q, opt, err);
    const char *col = n;
    for (size_t i = 0; i < sizeof k_aliases / sizeof k_aliases[0]; i++)
        if (strcmp(n, k_aliases[i].alias) == 0 && !sk_table_find(job->table, n))
            col = k_aliases[i].column;
    if (!sk_table_find(job->table, col))
        return unknown_quantity(job, n, err);
    q->dim = column_dim(col);
    return column_f64(job, col, n, &q->col, err);
}

static int add_slot(proj_job *job, proj_coef kind, int qi)
{
    job->coef_kind[job->nlin] = kind;
    job->coef_q[job->nlin] = qi;
    return job->nlin++;
}

/* Slots: mass (sd, mass, mass weights), volume (volume weights), one
 * numerator per field, then the count. */
static int plan_slots(proj_job *job, sk_error *err)
{
    int need_mass = 0, need_volume = 0, need_count = 0;
    for (int i = 0; i < job->nq; i++) {
        const proj_quantity *q = &job->q[i];
        int weighted = q->kind == Q_WEIGHT || (q->kind == Q_FIELD && !job->mode_sum);
        need_mass |= q->kind == Q_SD || q->kind == Q_MASS || (weighted && !job->weight_volume);
        need_volume |= weighted && job->weight_volume;
        need_count |= q->kind == Q_COUNT;
    }
    if (need_volume && !job->is_cells)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "particles have no volume: weight their means by mass");
    job->nlin = 0;
    job->slot_mass = need_mass ? add_slot(job, C_MASS, -1) : -1;
    job->slot_volume = need_volume ? add_slot(job, C_VOLUME, -1) : -1;
    for (int i = 0; i < job->nq; i++) {
        proj_quantity *q = &job->q[i];
        if (q->kind != Q_FIELD)
            continue;
        proj_coef k = job->mode_sum ? C_SUM : job->weight_volume ? C_MEAN_VOLUME : C_MEAN_MASS;
        q->slot = add_slot(job, k, i);
    }
    job->slot_count = need_count ? job->nlin : -1;
    job->nacc = job->nlin + need_count;
    if (need_mass) {
        const char *src = job->is_cells ? "density" : "mass";
        const char *why = sk_table_find(job->table, src) ? "the projection"
                          : "mass weighting (or use volume weighting)";
        return column_f64(job, src, why, &job->mass_src, err);
    }
    return SK_OK;
}

int proj_quantities_resolve(proj_job *job, int nq, const char *const *names,
                            const sk_project_options *opt, sk_error *err)
{
    if (nq < 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no quantity to project (e.g. sd, T, velocity_x)");
    if (nq > SK_MAX_VARS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "more than %d quantities", SK_MAX_VARS);
    job->nq = nq;
    for (int i = 0; i < nq; i++) {
        proj_quantity *q = &job->q[i];
        memset(q, 0, sizeof *q);
        if (!names[i] || !names[i][0] || strlen(names[i]) >= sizeof q->name)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity %d has no valid name", i + 1);
        snprintf(q->name, sizeof q->name, "%s", names[i]);
        for (int k = 0; k < i; k++)
            if (strcmp(job->q[k].name, q->name) == 0)
                return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity '%s' is asked twice", q->name);
        int rc = resolve_one(job, q, opt, err);
        if (rc != SK_OK)
            return rc;
        q->factor = 1.0;
        snprintf(q->unit, sizeof q->unit, "%s", q->dim == DIM_COUNT ? "count" : "code");
    }
    return plan_slots(job, err);
}

/* Value of a field quantity at a row, in code units. */
static double field_value(const proj_quantity *q, int64_t r)
{
    return q->col[r];
}

void proj_coefficients(const proj_job *job, int64_t r, const proj_item *it, double *coef)
{
    double m = job->mass_src ? job->mass_src[r] : 0.0;
    for (int k = 0; k < job->nlin; k++) {
        int qi = job->coef_q[k];
        switch (job->coef_kind[k]) {
        case C_MASS:
            coef[k] = m;
            break;
        case C_VOLUME:
            coef[k] = 1.0;
            break;
        case C_MEAN_MASS:
            coef[k] = field_value(&job->q[qi], r) * m;
            break;
        case C_MEAN_VOLUME:
            coef[k] = field_value(&job->q[qi], r);
            break;
        case C_SUM:
            coef[k] = field_value(&job->q[qi], r) / it->total;
            break;
        }
    }
}

const char *proj_quantity_what(const proj_job *job, const proj_quantity *q)
{
    switch (q->kind) {
    case Q_SD:
        return "surface density";
    case Q_MASS:
        return "mass per pixel";
    case Q_WEIGHT:
        return job->weight_volume ? "volume per pixel (weight)" : "mass per pixel (weight)";
    case Q_COUNT:
        return job->is_cells ? "cells per pixel" : "particles per pixel";
    case Q_FIELD:
        break;
    }
    if (job->mode_sum)
        return "sum along the line of sight";
    return job->weight_volume ? "volume-weighted mean" : "mass-weighted mean";
}

int proj_dim_positive(proj_dim dim)
{
    return dim == DIM_COLUMN_DENSITY || dim == DIM_MASS || dim == DIM_VOLUME ||
           dim == DIM_TEMPERATURE || dim == DIM_DENSITY || dim == DIM_PRESSURE ||
           dim == DIM_COUNT;
}

/* Code value -> `unit` for a dimension; 0 when the unit does not fit. */
static double unit_factor(const proj_job *job, proj_dim dim, const char *unit)
{
    const sk_units *u = &job->units;
    const double pc = SK_CM_PER_PC, kpc = SK_CM_PER_KPC, msun = SK_G_PER_MSUN;
    if (strcmp(unit, "code") == 0)
        return dim == DIM_COUNT ? 0 : 1;
    switch (dim) {
    case DIM_COLUMN_DENSITY: {
        double gcm2 = u->unit_d * u->unit_l;
        if (strcmp(unit, "g/cm2") == 0)
            return gcm2;
        if (strcmp(unit, "Msun/pc2") == 0)
            return gcm2 * pc * pc / msun;
        if (strcmp(unit, "Msun/kpc2") == 0)
            return gcm2 * kpc * kpc / msun;
        return 0;
    }
    case DIM_MASS:
        if (strcmp(unit, "g") == 0)
            return u->unit_m;
        if (strcmp(unit, "Msun") == 0)
            return u->unit_m / msun;
        return 0;
    case DIM_VOLUME: {
        double l3 = u->unit_l * u->unit_l * u->unit_l;
        if (strcmp(unit, "cm3") == 0)
            return l3;
        if (strcmp(unit, "pc3") == 0)
            return l3 / (pc * pc * pc);
        if (strcmp(unit, "kpc3") == 0)
            return l3 / (kpc * kpc * kpc);
        return 0;
    }
    case DIM_VELOCITY:
        if (strcmp(unit, "cm/s") == 0)
            return u->unit_v;
        if (strcmp(unit, "m/s") == 0)
            return u->unit_v / SK_CM_PER_M;
        if (strcmp(unit, "km/s") == 0)
            return u->unit_v / SK_CM_PER_KM;
        return 0;
    case DIM_TEMPERATURE:
        return strcmp(unit, "K") == 0 ? job->tfactor : 0;
    case DIM_DENSITY:
        if (strcmp(unit, "g/cm3") == 0)
            return u->unit_d;
        if (strcmp(unit, "Msun/pc3") == 0)
            return u->unit_d * pc * pc * pc / msun;
        if (strcmp(unit, "nH") == 0 || strcmp(unit, "cm-3") == 0)
            return u->unit_d * SK_HYDROGEN_FRACTION / SK_G_PER_MH;
        return 0;
    case DIM_PRESSURE:
        if (strcmp(unit, "Ba") == 0 || strcmp(unit, "erg/cm3") == 0)
            return u->unit_p;
        if (strcmp(unit, "K/cm3") == 0)
            return u->unit_p / SK_KB_CGS;
        return 0;
    case DIM_COUNT:
        return strcmp(unit, "count") == 0 ? 1 : 0;
    case DIM_NONE:
        return 0;
    }
    return 0;
}

static int set_unit(const proj_job *job, proj_quantity *q, const char *unit)
{
    double f = unit_factor(job, q->dim, unit);
    if (!(f > 0))
        return 0;
    q->factor = f;
    snprintf(q->unit, sizeof q->unit, "%.23s", unit);
    return 1;
}

static int apply_item(proj_job *job, const char *item, sk_error *err)
{
    const char *eq = strchr(item, '=');
    if (eq) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - item), item);
        for (int i = 0; i < job->nq; i++)
            if (strcmp(job->q[i].name, name) == 0) {
                if (set_unit(job, &job->q[i], eq + 1))
                    return SK_OK;
                return sk_fail(err, SK_ERR_ARG, NULL, -1, "unit '%s' does not fit quantity '%s'",
                               eq + 1, name);
            }
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unit for '%s', which is not projected", name);
    }
    int used = 0;
    for (int i = 0; i < job->nq; i++)
        used += set_unit(job, &job->q[i], item);
    if (!used)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "unit '%s' fits none of the quantities (sd: g/cm2, Msun/pc2, Msun/kpc2; "
                       "mass: g, Msun; velocities: cm/s, m/s, km/s; T: K; density: g/cm3, "
                       "Msun/pc3, nH; pressure: Ba, K/cm3)", item);
    return SK_OK;
}

int proj_units_apply(proj_job *job, const char *spec, sk_error *err)
{
    const char *p = spec;
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char item[128];
        while (n && *p == ' ') {
            p++;
            n--;
        }
        while (n && p[n - 1] == ' ')
            n--;
        if (n >= sizeof item)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "unit '%.*s' is too long", (int)n, p);
        if (n) {
            snprintf(item, sizeof item, "%.*s", (int)n, p);
            int rc = apply_item(job, item, err);
            if (rc != SK_OK)
                return rc;
        }
        p = comma ? comma + 1 : NULL;
    }
    return SK_OK;
}
