/* Code units to physical units. */
#include "snapkit/units.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void sk_units_set(sk_units *u, double boxlen, double unit_l, double unit_d, double unit_t)
{
    u->boxlen = boxlen;
    u->unit_l = unit_l;
    u->unit_d = unit_d;
    u->unit_t = unit_t;
    u->unit_m = unit_d * unit_l * unit_l * unit_l;
    u->unit_v = unit_l / unit_t;
    u->unit_p = unit_d * u->unit_v * u->unit_v;
    u->aexp = 1.0;
    u->h = 0.0;
}

void sk_units_from_table(sk_units *u, const sk_table *t)
{
    sk_units_set(u, sk_table_meta_double(t, "boxlen", 1.0), sk_table_meta_double(t, "unit_l", 1.0),
                 sk_table_meta_double(t, "unit_d", 1.0), sk_table_meta_double(t, "unit_t", 1.0));
    if (sk_table_meta_double(t, "cosmological", 0.0) != 0.0) {
        u->aexp = sk_table_meta_double(t, "aexp", 1.0);
        u->h = sk_table_meta_double(t, "H0", 0.0) / 100.0;
    }
}

static const struct {
    const char *name;
    double cm;
} k_lengths[] = {
    {"cm", 1.0},           {"m", SK_CM_PER_M},     {"km", SK_CM_PER_KM},
    {"au", SK_CM_PER_AU},  {"pc", SK_CM_PER_PC},   {"kpc", SK_CM_PER_KPC},
    {"Mpc", SK_CM_PER_MPC},
};

int sk_length_unit_cm(const char *name, double *cm_per_unit, sk_error *err)
{
    for (size_t i = 0; i < sizeof k_lengths / sizeof k_lengths[0]; i++) {
        /* "mpc" would be ambiguous with milli-parsec, so only Mpc is case-exact. */
        int same = strcmp(k_lengths[i].name, "Mpc") == 0 ? strcmp(name, "Mpc") == 0
                                                          : strcasecmp(name, k_lengths[i].name) == 0;
        if (same) {
            *cm_per_unit = k_lengths[i].cm;
            return SK_OK;
        }
    }
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown length unit '%s' (use standard, code, cm, m, km, au, pc, kpc or "
                   "Mpc; on cosmological outputs also ckpc, cMpc, kpc/h, ckpc/h, cMpc/h, ...)",
                   name);
}

/* The comoving base of `name` (n characters): "ckpc" (yt's and the
 * issue's spelling: c and pc, kpc or Mpc) or "kpccm" (a cm suffix, the
 * older spelling, kept). 0 when name is neither. */
static int comoving_base(const char *name, size_t n, char *base, size_t size)
{
    static const char *const prefixed[] = {"pc", "kpc", "Mpc"};
    for (size_t i = 0; n > 1 && name[0] == 'c' && i < sizeof prefixed / sizeof prefixed[0]; i++)
        if (strlen(prefixed[i]) == n - 1 && !strncmp(name + 1, prefixed[i], n - 1)) {
            snprintf(base, size, "%s", prefixed[i]);
            return 1;
        }
    if (n > 2 && n - 2 < size && !strncmp(name + n - 2, "cm", 2)) {
        memcpy(base, name, n - 2);
        base[n - 2] = '\0';
        return 1;
    }
    return 0;
}

int sk_length_unit_cm_at(const sk_units *u, const char *name, double *cm_per_unit,
                         sk_error *err)
{
    char base[16];
    size_t n = strlen(name);
    int per_h = n > 2 && !strcmp(name + n - 2, "/h");
    n -= per_h ? 2 : 0;
    int comoving = comoving_base(name, n, base, sizeof base);
    if (!comoving && (!per_h || n == 0 || n >= sizeof base))
        return sk_length_unit_cm(name, cm_per_unit, err);
    if (!comoving) {
        memcpy(base, name, n);
        base[n] = '\0';
    }
    int rc = sk_length_unit_cm(base, cm_per_unit, err);
    if (rc != SK_OK)
        return rc;
    if (!(u->h > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "'%s' is a comoving or little-h unit: the output is not cosmological",
                       name);
    *cm_per_unit *= (comoving ? u->aexp : 1.0) / (per_h ? u->h : 1.0);
    return SK_OK;
}

int sk_box_units_per(const sk_units *u, const char *unit, double *factor, sk_error *err)
{
    if (!unit || !*unit || strcmp(unit, "standard") == 0) {
        *factor = 1.0;
        return SK_OK;
    }
    if (strcmp(unit, "code") == 0) {
        *factor = 1.0 / u->boxlen;
        return SK_OK;
    }
    double cm;
    int rc = sk_length_unit_cm_at(u, unit, &cm, err);
    if (rc != SK_OK)
        return rc;
    *factor = cm / (u->unit_l * u->boxlen);
    return SK_OK;
}

double sk_temperature_factor(const sk_units *u, double mu)
{
    if (mu <= 0)
        mu = 1.0 / SK_HYDROGEN_FRACTION;
    return u->unit_v * u->unit_v * SK_G_PER_MH * mu / SK_KB_CGS;
}
