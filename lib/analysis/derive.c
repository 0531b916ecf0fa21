/* The derived quantities: names, formulas, dimensions, the columns each
 * reads, and the units they convert to. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/derive_internal.h"
#include "snapkit/util/json.h"

#define VEL "velocity_x,velocity_y,velocity_z"
#define POS "position_x,position_y,position_z"
#define BFACES "B_x_left,B_y_left,B_z_left,B_x_right,B_y_right,B_z_right"
#define C SK_NEEDS_CENTER
#define A SK_NEEDS_AXIS
#define BV SK_NEEDS_BULK
#define G SK_NEEDS_GAMMA

/* A frame quantity of positions (P) or positions and velocities (PV). */
#define P(name, formula, what, dim, cgs, needs, fn)                                     \
    {{name, formula, what, dim, cgs, needs, "", POS}, DV_FRAME, fn, 0}
#define PV(name, formula, what, dim, cgs, needs, fn)                                    \
    {{name, formula, what, dim, cgs, needs, VEL, POS "," VEL}, DV_FRAME, fn, 0}
#define GAS(name, formula, what, dim, cgs, needs, cells, parts, id)                     \
    {{name, formula, what, dim, cgs, needs, cells, parts}, DV_GAS, NULL, id}
#define RAM(name, formula, what, dim, cgs, cells, parts)                                \
    {{name, formula, what, dim, cgs, 0, cells, parts}, DV_RAMSES, NULL, 0}

static const dv_entry k_entries[] = {
    P("r", "|d|", "distance from the centre", SK_QDIM_LENGTH, "cm", C, dv_r),
    P("theta", "atan2(R, z)", "polar angle from the axis n (0 to pi)", SK_QDIM_ANGLE, "rad",
      C | A, dv_theta),
    P("phi", "atan2(d.e2, d.e1)", "azimuth about the axis n, from e1 (-pi to pi)",
      SK_QDIM_ANGLE, "rad", C | A, dv_phi),
    P("R", "|n x d|", "distance from the axis (cylindrical radius)", SK_QDIM_LENGTH, "cm",
      C | A, dv_cyl_r),
    P("z", "d.n", "height along the axis", SK_QDIM_LENGTH, "cm", C | A, dv_cyl_z),
    PV("v_r", "v'.d / r", "radial velocity", SK_QDIM_VELOCITY, "cm/s", C | BV, dv_v_r),
    PV("v_theta", "(z v_R - R v_z) / r", "polar velocity (towards -n at the equator)",
       SK_QDIM_VELOCITY, "cm/s", C | A | BV, dv_v_theta),
    PV("v_phi", "v'.(n x d) / R", "azimuthal (rotation) velocity about the axis",
       SK_QDIM_VELOCITY, "cm/s", C | A | BV, dv_v_phi),
    PV("v_tan", "|v' x d| / r", "tangential speed, sqrt(v_theta^2 + v_phi^2)",
       SK_QDIM_VELOCITY, "cm/s", C | BV, dv_v_tan),
    PV("v_R", "v'.(d - z n) / R", "cylindrical radial velocity", SK_QDIM_VELOCITY, "cm/s",
       C | A | BV, dv_v_cyl_r),
    {{"v_z", "v'.n", "velocity along the axis", SK_QDIM_VELOCITY, "cm/s", A | BV, VEL, VEL},
     DV_FRAME, dv_v_cyl_z, 0},
    PV("j_x", "(d x v')_x", "specific angular momentum, x", SK_QDIM_SPECIFIC_ANGULAR_MOMENTUM,
       "cm2/s", C | BV, dv_j_x),
    PV("j_y", "(d x v')_y", "specific angular momentum, y", SK_QDIM_SPECIFIC_ANGULAR_MOMENTUM,
       "cm2/s", C | BV, dv_j_y),
    PV("j_z", "(d x v')_z", "specific angular momentum, z", SK_QDIM_SPECIFIC_ANGULAR_MOMENTUM,
       "cm2/s", C | BV, dv_j_z),
    PV("j", "|d x v'|", "specific angular momentum, magnitude",
       SK_QDIM_SPECIFIC_ANGULAR_MOMENTUM, "cm2/s", C | BV, dv_j),
    RAM("mass", "rho dV (cells); the mass column (particles)", "mass", SK_QDIM_MASS, "g",
        "density", "mass"),
    RAM("volume", "dV = (boxlen / 2^level)^3", "cell volume", SK_QDIM_VOLUME, "cm3", "", NULL),
    GAS("T", "p / rho", "temperature (times mu m_H unit_v^2 / k_B for kelvin)",
        SK_QDIM_TEMPERATURE, "K", 0, "density,pressure", NULL, DV_T),
    GAS("cs", "sqrt(gamma p / rho)", "adiabatic sound speed", SK_QDIM_VELOCITY, "cm/s", G,
        "density,pressure", NULL, DV_CS),
    GAS("mach", "|v'| / cs", "Mach number in the frame", SK_QDIM_NONE, "", G | BV,
        "density,pressure," VEL, NULL, DV_MACH),
    GAS("entropy", "p / rho^gamma", "entropy index (adiabat), constant in adiabatic flow",
        SK_QDIM_ENTROPY, NULL, G, "density,pressure", NULL, DV_ENTROPY),
    GAS("ekin", "rho |v'|^2 / 2", "kinetic energy density in the frame",
        SK_QDIM_ENERGY_DENSITY, "erg/cm3", BV, "density," VEL, NULL, DV_EKIN),
    GAS("eth", "p / (gamma - 1)", "thermal energy density", SK_QDIM_ENERGY_DENSITY, "erg/cm3",
        G, "pressure", NULL, DV_ETH),
    GAS("v", "|v|", "speed", SK_QDIM_VELOCITY, "cm/s", 0, VEL, VEL, DV_V),
    GAS("v_rel", "|v'| = |v - v_bulk|",
        "speed about the bulk velocity (its mass-weighted rms over a region is the "
        "velocity dispersion)", SK_QDIM_VELOCITY, "cm/s", BV, VEL, VEL, DV_V_REL),
    GAS("n", "rho unit_m / (mu m_H)", "number density of particles of mean mass mu m_H",
        SK_QDIM_NUMBER_DENSITY, "1/cm3", SK_NEEDS_UNITS, "density", NULL, DV_N),
    GAS("nH", "X rho unit_m / m_H", "hydrogen number density", SK_QDIM_NUMBER_DENSITY,
        "1/cm3", SK_NEEDS_UNITS, "density", NULL, DV_NH),
    RAM("B_x", "(B_x_left + B_x_right) / 2", "cell-centred magnetic field, x",
        SK_QDIM_MAGNETIC_FIELD, "G", "B_x_left,B_x_right", NULL),
    RAM("B_y", "(B_y_left + B_y_right) / 2", "cell-centred magnetic field, y",
        SK_QDIM_MAGNETIC_FIELD, "G", "B_y_left,B_y_right", NULL),
    RAM("B_z", "(B_z_left + B_z_right) / 2", "cell-centred magnetic field, z",
        SK_QDIM_MAGNETIC_FIELD, "G", "B_z_left,B_z_right", NULL),
    RAM("B", "|B|", "magnetic field strength", SK_QDIM_MAGNETIC_FIELD, "G", BFACES, NULL),
    RAM("magnetic_pressure", "B^2 / 2", "magnetic pressure (energy density)",
        SK_QDIM_ENERGY_DENSITY, "erg/cm3", BFACES, NULL),
    RAM("plasma_beta", "p / (B^2 / 2)", "thermal over magnetic pressure", SK_QDIM_NONE, "",
        BFACES ",pressure", NULL),
    RAM("alfven_speed", "|B| / sqrt(rho)", "Alfven speed", SK_QDIM_VELOCITY, "cm/s",
        BFACES ",density", NULL),
};

#define NQ ((int)(sizeof k_entries / sizeof k_entries[0]))

int sk_quantity_count(void)
{
    return NQ;
}

const sk_quantity *sk_quantity_at(int i)
{
    return i >= 0 && i < NQ ? &k_entries[i].q : NULL;
}

const sk_quantity *sk_quantity_find(const char *name)
{
    for (int i = 0; name && i < NQ; i++)
        if (strcmp(k_entries[i].q.name, name) == 0)
            return &k_entries[i].q;
    return NULL;
}

const dv_entry *dv_entry_of(const sk_quantity *q)
{
    /* q is the first member of its entry */
    return (const dv_entry *)(const void *)q;
}

const char *sk_quantity_dim_name(int dim)
{
    static const char *const names[] = {
        "dimensionless", "angle", "length", "velocity", "specific angular momentum", "mass",
        "volume", "temperature", "energy density", "number density", "entropy",
        "magnetic field"};
    return dim >= 0 && dim < (int)(sizeof names / sizeof names[0]) ? names[dim] : NULL;
}

static void json_columns(sk_json *j, const char *key, const char *csv)
{
    sk_json_key(j, key);
    if (!csv) {
        sk_json_null(j);
        return;
    }
    sk_json_array_begin(j);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", csv);
    for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save))
        sk_json_string(j, c);
    sk_json_array_end(j);
}

void sk_quantities_json(sk_json *j)
{
    static const char *const needs[] = {"center", "axis", "bulk_velocity", "gamma", "units"};
    sk_json_array_begin(j);
    for (int i = 0; i < NQ; i++) {
        const sk_quantity *q = &k_entries[i].q;
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", q->name);
        sk_json_kv_string(j, "formula", q->formula);
        sk_json_kv_string(j, "description", q->description);
        sk_json_kv_string(j, "dimension", sk_quantity_dim_name(q->dim));
        sk_json_key(j, "cgs_unit");
        if (q->cgs_unit)
            sk_json_string(j, q->cgs_unit);
        else
            sk_json_null(j);
        sk_json_key(j, "needs");
        sk_json_array_begin(j);
        for (int b = 0; b < 5; b++)
            if (q->needs & (1 << b))
                sk_json_string(j, needs[b]);
        sk_json_array_end(j);
        json_columns(j, "cells", q->cell_columns);
        json_columns(j, "particles", q->particle_columns);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
}

typedef struct unit_def {
    const char *name;
    double factor;
} unit_def;

/* The named units of a dimension (other than code and cgs) into defs;
 * returns how many. */
static int dim_units(int dim, const sk_units *u, double tfactor, unit_def *defs)
{
    const double pc = SK_CM_PER_PC, kpc = SK_CM_PER_KPC, l3 = u->unit_l * u->unit_l * u->unit_l;
    const double gauss = sqrt(4.0 * M_PI * u->unit_d) * u->unit_v;
    const unit_def all[][3] = {
        [SK_QDIM_ANGLE] = {{"rad", 1.0}, {"deg", 180.0 / M_PI}},
        [SK_QDIM_VELOCITY] = {{"cm/s", u->unit_v}, {"m/s", u->unit_v / SK_CM_PER_M},
                              {"km/s", u->unit_v / SK_CM_PER_KM}},
        [SK_QDIM_SPECIFIC_ANGULAR_MOMENTUM] = {{"cm2/s", u->unit_l * u->unit_v},
                                               {"kpc*km/s", u->unit_l / kpc * u->unit_v /
                                                                SK_CM_PER_KM}},
        [SK_QDIM_MASS] = {{"g", u->unit_m}, {"Msun", u->unit_m / SK_G_PER_MSUN}},
        [SK_QDIM_VOLUME] = {{"cm3", l3}, {"pc3", l3 / (pc * pc * pc)},
                            {"kpc3", l3 / (kpc * kpc * kpc)}},
        [SK_QDIM_TEMPERATURE] = {{"K", tfactor}},
        [SK_QDIM_ENERGY_DENSITY] = {{"erg/cm3", u->unit_p}, {"Ba", u->unit_p}},
        [SK_QDIM_NUMBER_DENSITY] = {{"cm-3", 1.0 / l3}, {"1/cm3", 1.0 / l3}},
        [SK_QDIM_MAGNETIC_FIELD] = {{"G", gauss}, {"uG", 1e6 * gauss}},
    };
    int n = 0;
    if (dim > 0 && dim < (int)(sizeof all / sizeof all[0]))
        for (int k = 0; k < 3 && all[dim][k].name; k++)
            defs[n++] = all[dim][k];
    return n;
}

static int cgs_factor(const sk_quantity *q, const sk_units *u, const sk_derive_options *opt,
                      double tfactor, double *factor, sk_error *err)
{
    unit_def defs[3];
    switch (q->dim) {
    case SK_QDIM_NONE:
        *factor = 1.0;
        return SK_OK;
    case SK_QDIM_LENGTH:
        *factor = u->unit_l;
        return SK_OK;
    case SK_QDIM_ENTROPY:
        if (!opt || !(opt->gamma > 0))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "entropy in cgs needs the adiabatic index gamma");
        *factor = u->unit_p / pow(u->unit_d, opt->gamma);
        return SK_OK;
    default:
        dim_units(q->dim, u, tfactor, defs);
        *factor = defs[0].factor; /* the first named unit is the CGS one */
        return SK_OK;
    }
}

int sk_quantity_unit_factor(const sk_quantity *q, const sk_units *u,
                            const sk_derive_options *opt, const char *unit, double *factor,
                            sk_error *err)
{
    double tfactor = sk_temperature_factor(u, opt ? opt->mu : 0);
    if (!strcmp(unit, "code")) {
        *factor = 1.0;
        return SK_OK;
    }
    if (!strcmp(unit, "cgs"))
        return cgs_factor(q, u, opt, tfactor, factor, err);
    double cm;
    if (q->dim == SK_QDIM_LENGTH && sk_length_unit_cm_at(u, unit, &cm, NULL) == SK_OK) {
        *factor = u->unit_l / cm;
        return SK_OK;
    }
    unit_def defs[3];
    int n = dim_units(q->dim, u, tfactor, defs);
    char list[128] = "";
    size_t len = 0;
    for (int k = 0; k < n; k++) {
        if (!strcmp(unit, defs[k].name)) {
            *factor = defs[k].factor;
            return SK_OK;
        }
        len += (size_t)snprintf(list + len, sizeof list - len, ", %s", defs[k].name);
    }
    if (q->dim == SK_QDIM_LENGTH)
        snprintf(list, sizeof list, ", cm, m, km, au, pc, kpc, Mpc");
    return sk_fail(err, SK_ERR_ARG, NULL, -1, "unit '%s' does not fit %s (%s): code, cgs%s",
                   unit, q->name, sk_quantity_dim_name(q->dim), list);
}
