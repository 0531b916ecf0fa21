/* Derived quantities of cell and particle tables, and unit factors. */
#include <math.h>
#include <string.h>

#include "snapkit/ramses.h"
#include "snapkit/units.h"

#define YEAR_S 3.15576e7 /* Julian year */

static const sk_column *need(const sk_table *t, const char *name, sk_error *err)
{
    const sk_column *c = sk_table_find(t, name);
    if (!c)
        sk_fail(err, SK_ERR_ARG, NULL, -1, "the table has no %s column", name);
    return c;
}

static int derive_cells(const sk_table *t, const char *what, double *out, sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    double boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    const sk_column *level = need(t, "level", err);
    if (!level || level->type != SK_INT32)
        return SK_ERR_ARG;
    const int32_t *lev = level->data;
    static const char *const axes[] = {"x", "y", "z"}, *const idx[] = {"cx", "cy", "cz"};
    for (int a = 0; a < 3; a++) {
        if (strcmp(what, axes[a]) != 0)
            continue;
        const sk_column *c = need(t, idx[a], err);
        if (!c)
            return SK_ERR_ARG;
        const int32_t *ci = c->data;
        for (int64_t i = 0; i < n; i++)
            out[i] = ((double)ci[i] + 0.5) * ldexp(boxlen, -lev[i]);
        return SK_OK;
    }
    int volume = !strcmp(what, "volume"), mass = !strcmp(what, "mass");
    if (!volume && !mass && strcmp(what, "cell_size") != 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "unknown derived quantity '%s' (cell_size, volume, mass, x, y, z)", what);
    const sk_column *rho = mass ? need(t, "density", err) : NULL;
    if (mass && (!rho || rho->type != SK_FLOAT64))
        return SK_ERR_ARG;
    for (int64_t i = 0; i < n; i++) {
        double size = ldexp(boxlen, -lev[i]);
        out[i] = volume ? size * size * size
                 : mass ? ((const double *)rho->data)[i] * (size * size * size)
                        : size;
    }
    return SK_OK;
}

static int derive_particles(const sk_table *t, const char *what, double *out, sk_error *err)
{
    static const char *const from[][2] = {
        {"x", "position_x"}, {"y", "position_y"}, {"z", "position_z"}, {"mass", "mass"}};
    for (size_t k = 0; k < sizeof from / sizeof from[0]; k++) {
        if (strcmp(what, from[k][0]) != 0)
            continue;
        const sk_column *c = need(t, from[k][1], err);
        if (!c)
            return SK_ERR_ARG;
        for (int64_t i = 0; i < sk_table_nrows(t); i++)
            out[i] = sk_column_get_double(c, i);
        return SK_OK;
    }
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown derived quantity '%s' for particles (mass, x, y, z)", what);
}

int sk_ramses_derive(const sk_table *t, const char *what, double *out, sk_error *err)
{
    const char *kind = sk_table_meta_get(t, "kind");
    if (kind && !strcmp(kind, "particles"))
        return derive_particles(t, what, out, err);
    return derive_cells(t, what, out, err);
}

int sk_ramses_unit_factor(const sk_units *u, const char *unit, double mu, double *factor,
                          sk_error *err)
{
    double pc3 = SK_CM_PER_PC * SK_CM_PER_PC * SK_CM_PER_PC;
    const struct {
        const char *name;
        double value;
    } k_units[] = {
        {"g/cm^3", u->unit_d},
        {"Msun/pc^3", u->unit_d * pc3 / SK_G_PER_MSUN},
        {"H/cm^3", u->unit_d * SK_HYDROGEN_FRACTION / SK_G_PER_MH},
        {"g", u->unit_m},
        {"Msun", u->unit_m / SK_G_PER_MSUN},
        {"cm/s", u->unit_v},
        {"km/s", u->unit_v / SK_CM_PER_KM},
        {"s", u->unit_t},
        {"yr", u->unit_t / YEAR_S},
        {"Myr", u->unit_t / (1e6 * YEAR_S)},
        {"Gyr", u->unit_t / (1e9 * YEAR_S)},
        {"erg/cm^3", u->unit_p},
        {"K", sk_temperature_factor(u, mu)},
    };
    for (size_t i = 0; i < sizeof k_units / sizeof k_units[0]; i++)
        if (!strcmp(unit, k_units[i].name)) {
            *factor = k_units[i].value;
            return SK_OK;
        }
    double cm;
    if (sk_length_unit_cm(unit, &cm, NULL) == SK_OK) {
        *factor = u->unit_l / cm;
        return SK_OK;
    }
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown unit '%s' (g/cm^3, Msun/pc^3, H/cm^3, g, Msun, cm/s, km/s, s, yr, "
                   "Myr, Gyr, erg/cm^3, K, cm, m, km, au, pc, kpc, Mpc)", unit);
}
