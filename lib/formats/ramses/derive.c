/* Derived quantities of cell and particle tables, and unit factors. */
#include <math.h>
#include <string.h>

#include "formats/ramses/internal.h"
#include "snapkit/units.h"

#define YEAR_S 3.15576e7 /* Julian year */
#define FOUR_PI 12.566370614359172

static const sk_column *need(const sk_table *t, const char *name, sk_error *err)
{
    const sk_column *c = sk_table_find(t, name);
    if (!c)
        sk_fail(err, SK_ERR_ARG, NULL, -1, "the table has no %s column", name);
    return c;
}

static int derive_cells(const sk_table *t, const char *what, double *out, sk_error *err)
{
    if (rs_is_mhd_quantity(what))
        return rs_derive_mhd(t, what, out, err);
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
                       "unknown derived quantity '%s' (cell_size, volume, mass, x, y, z; MHD: "
                       "B_x, B_y, B_z, B, magnetic_pressure, plasma_beta, alfven_speed)", what);
    const sk_column *rho = mass ? need(t, "density", err) : NULL;
    if (mass && (!rho || rho->type != SK_FLOAT64))
        return SK_ERR_ARG;
    /* (boxlen / 2^l)^ndim: in 1-D and 2-D, a length and an area. */
    double ndim = sk_table_meta_double(t, "ndim", 3.0);
    int nd = ndim == 1.0 || ndim == 2.0 ? (int)ndim : 3;
    for (int64_t i = 0; i < n; i++) {
        double size = ldexp(boxlen, -lev[i]);
        double vol = nd == 1 ? size : nd == 2 ? size * size : size * size * size;
        out[i] = volume ? vol : mass ? ((const double *)rho->data)[i] * vol : size;
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
    if (!strcmp(what, "birth_time_proper") || !strcmp(what, "age"))
        return rs_derive_birth(t, !strcmp(what, "age"), out, err);
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown derived quantity '%s' for particles (mass, x, y, z, "
                   "birth_time_proper, age)", what);
}

int sk_ramses_derive(const sk_table *t, const char *what, double *out, sk_error *err)
{
    const char *kind = sk_table_meta_get(t, "kind");
    if (kind && !strcmp(kind, "particles"))
        return derive_particles(t, what, out, err);
    /* A sink table's `level` column is not a cell level. */
    if (kind && !strcmp(kind, "catalogue"))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "no derived quantity '%s' for a catalogue (%s): use its columns", what,
                       sk_table_meta_get(t, "component") ? sk_table_meta_get(t, "component")
                                                          : "sinks or clumps");
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
        /* Gaussian units: B^2 / (8 pi) is the energy density unit_p. */
        {"G", sqrt(FOUR_PI * u->unit_d) * u->unit_v},
        {"uG", 1e6 * sqrt(FOUR_PI * u->unit_d) * u->unit_v},
    };
    for (size_t i = 0; i < sizeof k_units / sizeof k_units[0]; i++)
        if (!strcmp(unit, k_units[i].name)) {
            *factor = k_units[i].value;
            return SK_OK;
        }
    double cm;
    if (sk_length_unit_cm_at(u, unit, &cm, NULL) == SK_OK) {
        *factor = u->unit_l / cm;
        return SK_OK;
    }
    size_t n = strlen(unit);
    if (n > 2 && (!strcmp(unit + n - 2, "/h") || !strcmp(unit + n - 2, "cm")))
        return sk_length_unit_cm_at(u, unit, &cm, err); /* says why */
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown unit '%s' (g/cm^3, Msun/pc^3, H/cm^3, g, Msun, cm/s, km/s, s, yr, "
                   "Myr, Gyr, erg/cm^3, K, G, uG, cm, m, km, au, pc, kpc, Mpc; cosmological "
                   "outputs: "
                   "ckpc, cMpc, kpc/h, ckpc/h, kpccm, ...)", unit);
}
