/* Units of the fields of a profile: derived quantities through
 * sk_quantity_unit_factor, the columns RAMSES writes through their
 * dimension. */
#include <stdio.h>
#include <string.h>

#include "analysis/profile_internal.h"
#include "snapkit/derive.h"

typedef struct unit_row {
    const char *name;
    double factor;
} unit_row;

/* The units of a column of dimension `kind` (0 density, 1 velocity,
 * 2 pressure, 3 mass); n gets how many. */
static int column_units(int kind, const sk_units *u, unit_row *rows)
{
    const double pc3 = SK_CM_PER_PC * SK_CM_PER_PC * SK_CM_PER_PC;
    switch (kind) {
    case 0:
        rows[0] = (unit_row){"g/cm3", u->unit_d};
        rows[1] = (unit_row){"kg/m3", u->unit_d * 1e3};
        rows[2] = (unit_row){"Msun/pc3", u->unit_d * pc3 / SK_G_PER_MSUN};
        rows[3] = (unit_row){"cgs", u->unit_d};
        return 4;
    case 1:
        rows[0] = (unit_row){"cm/s", u->unit_v};
        rows[1] = (unit_row){"m/s", u->unit_v / SK_CM_PER_M};
        rows[2] = (unit_row){"km/s", u->unit_v / SK_CM_PER_KM};
        rows[3] = (unit_row){"cgs", u->unit_v};
        return 4;
    case 2:
        rows[0] = (unit_row){"erg/cm3", u->unit_p};
        rows[1] = (unit_row){"Ba", u->unit_p};
        rows[2] = (unit_row){"cgs", u->unit_p};
        return 3;
    default:
        rows[0] = (unit_row){"g", u->unit_m};
        rows[1] = (unit_row){"Msun", u->unit_m / SK_G_PER_MSUN};
        rows[2] = (unit_row){"cgs", u->unit_m};
        return 3;
    }
}

/* The dimension of a column RAMSES writes, or -1 (-2: a position). */
static int column_kind(const char *name)
{
    if (!strcmp(name, "density") || !strcmp(name, "rho"))
        return 0;
    if (!strncmp(name, "velocity_", 9) || !strcmp(name, "vx") || !strcmp(name, "vy") ||
        !strcmp(name, "vz"))
        return 1;
    if (!strcmp(name, "pressure") || !strcmp(name, "p"))
        return 2;
    if (!strncmp(name, "position_", 9))
        return -2;
    return -1;
}

static int length_factor(const char *unit, const sk_units *u, double *factor, sk_error *err)
{
    double cm;
    if (!strcmp(unit, "cgs")) {
        *factor = u->unit_l;
        return SK_OK;
    }
    int rc = sk_length_unit_cm_at(u, unit, &cm, err);
    if (rc == SK_OK)
        *factor = u->unit_l / cm;
    return rc;
}

int prof_unit_factor(const char *name, const char *unit, const sk_units *u, double mu,
                     double *factor, char *label, sk_error *err)
{
    *factor = 1.0;
    snprintf(label, 32, "%s", "code");
    if (!unit || !*unit || !strcmp(unit, "code"))
        return SK_OK;
    int kind = column_kind(name);
    const sk_quantity *q = sk_quantity_find(name);
    int rc;
    if (kind == -2) {
        rc = length_factor(unit, u, factor, err);
    } else if (kind >= 0 || (!q && !strcmp(name, "mass"))) {
        unit_row rows[4];
        int n = column_units(kind >= 0 ? kind : 3, u, rows), k = 0;
        while (k < n && strcmp(rows[k].name, unit))
            k++;
        if (k == n) {
            char list[128] = "";
            for (int i = 0; i < n; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                         rows[i].name);
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "unit '%s' does not fit %s (%s)", unit,
                           name, list);
        }
        *factor = rows[k].factor;
        rc = SK_OK;
    } else if (q) {
        sk_derive_options o = {.mu = mu};
        rc = sk_quantity_unit_factor(q, u, &o, unit, factor, err);
        if (rc == SK_OK && !strcmp(unit, "cgs") && q->cgs_unit)
            unit = q->cgs_unit;
    } else {
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "no unit is known for '%s' (only code units)", name);
    }
    if (rc == SK_OK)
        snprintf(label, 32, "%s", unit);
    return rc;
}

void prof_unit_of(const char *spec, const char *name, char *unit, size_t size)
{
    unit[0] = 0;
    if (!spec || !*spec)
        return;
    if (!strcmp(spec, "cgs")) {
        snprintf(unit, size, "cgs");
        return;
    }
    size_t len = strlen(name);
    for (const char *p = spec; *p;) {
        size_t item = strcspn(p, ",");
        if (item > len && !strncmp(p, name, len) && p[len] == '=')
            snprintf(unit, size, "%.*s", (int)(item - len - 1), p + len + 1);
        p += item + (p[item] == ',');
    }
}

int prof_units_check(const char *spec, sk_error *err)
{
    if (!spec || !*spec || !strcmp(spec, "cgs"))
        return SK_OK;
    for (const char *p = spec; *p;) {
        size_t item = strcspn(p, ",");
        const char *eq = memchr(p, '=', item);
        if (!eq || eq == p || eq == p + item - 1)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "units: '%.*s' is not NAME=UNIT (e.g. r=kpc,density=g/cm3)",
                           (int)item, p);
        p += item + (p[item] == ',');
    }
    return SK_OK;
}

int prof_velocity_factor(const char *unit, const sk_units *u, double *factor, char *label,
                         sk_error *err)
{
    double code;
    int rc = prof_unit_factor("velocity_x", unit, u, 0, &code, label, err);
    if (rc == SK_OK)
        *factor = code / u->unit_v; /* cm/s -> code -> unit */
    return rc;
}
