/* Quantities of the gas in each cell (and speeds of particles too): the
 * temperature, sound speed and the others of the Mera-like list. The
 * temperature is p / rho in code units, the value a projection of T
 * averages (times sk_temperature_factor for kelvin). */
#include <math.h>

#include "analysis/derive_internal.h"

typedef struct gas_params {
    double gamma;
    double per_code_mass; /* particles per code mass (n, nH) */
} gas_params;

static int params(const dv_rows *rows, const dv_entry *e, const sk_derive_options *opt,
                  gas_params *g, sk_error *err)
{
    const sk_quantity *q = &e->q;
    g->gamma = opt && opt->gamma > 0 ? opt->gamma : sk_table_meta_double(rows->table, "gamma", NAN);
    if ((q->needs & SK_NEEDS_GAMMA) && !(g->gamma > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "%s needs the adiabatic index: the table has no 'gamma'; give one",
                       q->name);
    if (q->needs & SK_NEEDS_UNITS) {
        if (!sk_table_meta_get(rows->table, "unit_d") || !sk_table_meta_get(rows->table, "unit_l"))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "%s needs the table's units (unit_d, unit_l in its metadata)", q->name);
        sk_units u;
        sk_units_from_table(&u, rows->table);
        double mu = opt && opt->mu > 0 ? opt->mu : 1.0 / SK_HYDROGEN_FRACTION;
        double x = opt && opt->hydrogen_fraction > 0 ? opt->hydrogen_fraction
                                                     : SK_HYDROGEN_FRACTION;
        g->per_code_mass = e->gas == DV_N ? u.unit_m / (mu * SK_G_PER_MH)
                                          : x * u.unit_m / SK_G_PER_MH;
    }
    return SK_OK;
}

/* |v|^2 of row i, relative to `bulk` (NULL: the box's frame). */
static double speed2(const dv_rows *rows, int64_t i, const double *bulk)
{
    double s = 0;
    for (int a = 0; a < 3; a++) {
        double v = (rows->vel[a] ? rows->vel[a][i] : 0.0) - (bulk ? bulk[a] : 0.0);
        s += v * v;
    }
    return s;
}

static double value(const dv_rows *rows, int id, const gas_params *g, const dv_frame *f,
                    int64_t i)
{
    switch (id) {
    case DV_T:
        return rows->p[i] / rows->rho[i];
    case DV_CS:
        return sqrt(g->gamma * rows->p[i] / rows->rho[i]);
    case DV_MACH:
        return sqrt(speed2(rows, i, f->bulk)) / sqrt(g->gamma * rows->p[i] / rows->rho[i]);
    case DV_ENTROPY:
        return rows->p[i] / pow(rows->rho[i], g->gamma);
    case DV_EKIN:
        return 0.5 * rows->rho[i] * speed2(rows, i, f->bulk);
    case DV_ETH:
        return rows->p[i] / (g->gamma - 1.0);
    case DV_V:
        return sqrt(speed2(rows, i, NULL));
    case DV_V_REL:
        return sqrt(speed2(rows, i, f->bulk));
    case DV_N:
    case DV_NH:
        return rows->rho[i] * g->per_code_mass;
    }
    return NAN;
}

int dv_gas_compute(const dv_rows *rows, const dv_entry *e, const dv_frame *f,
                   const sk_derive_options *opt, double *out, sk_error *err)
{
    gas_params g = {0};
    int rc = params(rows, e, opt, &g, err);
    if (rc != SK_OK)
        return rc;
    if (e->gas == DV_ETH && g.gamma == 1.0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "eth needs gamma > 1 (p / (gamma - 1))");
    for (int64_t i = 0; i < rows->n; i++)
        out[i] = value(rows, e->gas, &g, f, i);
    return SK_OK;
}
