/* snapkit/units.h - physical constants, length units, code-unit conversion.
 *
 * RAMSES code units: a length of 1 is unit_l cm, a density unit_d g/cm^3, a
 * time unit_t s. The box spans boxlen code lengths. Box units ("standard")
 * run 0..1 over the box.
 */
#ifndef SNAPKIT_UNITS_H
#define SNAPKIT_UNITS_H

#include "snapkit/export.h"

#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_CM_PER_M 1.0e2
#define SK_CM_PER_KM 1.0e5
#define SK_CM_PER_AU 1.495978707e13          /* IAU 2012 */
#define SK_CM_PER_PC 3.0856775814913673e18   /* IAU 2015 */
#define SK_CM_PER_KPC (1.0e3 * SK_CM_PER_PC)
#define SK_CM_PER_MPC (1.0e6 * SK_CM_PER_PC)
#define SK_G_PER_MSUN 1.98841e33             /* IAU 2015 nominal GM_sun / G */
#define SK_G_PER_MH 1.66e-24                 /* hydrogen mass, as RAMSES and Mera use */
#define SK_KB_CGS 1.380649e-16               /* erg/K */
#define SK_HYDROGEN_FRACTION 0.76            /* X; default mu = 1/X */

typedef struct sk_units {
    double boxlen; /* box size in code lengths */
    double unit_l; /* cm per code length */
    double unit_d; /* g/cm^3 per code density */
    double unit_t; /* s per code time */
    double unit_m; /* g per code mass = unit_d * unit_l^3 */
    double unit_v; /* cm/s per code velocity = unit_l / unit_t */
    double unit_p; /* erg/cm^3 per code pressure = unit_d * unit_v^2 */
    double aexp;   /* expansion factor: 1 unless cosmological */
    double h;      /* H0 / 100 km/s/Mpc of a cosmological output; 0 otherwise */
} sk_units;

/* Units from boxlen, unit_l, unit_d, unit_t (derived ones filled in;
 * aexp 1, h 0: not cosmological). */
SK_API void sk_units_set(sk_units *u, double boxlen, double unit_l, double unit_d, double unit_t);
/* Units from a table's metadata (boxlen, unit_l, unit_d, unit_t; 1 when
 * absent; aexp and h = H0 / 100 when `cosmological` is 1). */
SK_API void sk_units_from_table(sk_units *u, const sk_table *table);

/* cm per one `name` ("cm","m","km","au","pc","kpc","Mpc"); SK_ERR_ARG for
 * another name. "standard" (box units) and "code" are not lengths here. */
SK_API int sk_length_unit_cm(const char *name, double *cm_per_unit, sk_error *err);
/* The same with the comoving and little-h forms of a cosmological output:
 * a "c" prefix on pc, kpc or Mpc, or a "cm" suffix, is comoving (1 ckpc =
 * 1 kpccm = aexp kpc), "/h" divides by h ("ckpc", "cMpc", "kpc/h",
 * "ckpc/h", "cMpc/h", "kpccm", "Mpccm/h", ...). SK_ERR_ARG for those when
 * u is not cosmological (h == 0). */
SK_API int sk_length_unit_cm_at(const sk_units *u, const char *name, double *cm_per_unit,
                                sk_error *err);

/* Box units per one `unit` of length: "standard" -> 1, "code" -> 1/boxlen,
 * physical (and comoving) units through unit_l * boxlen. */
SK_API int sk_box_units_per(const sk_units *u, const char *unit, double *factor, sk_error *err);

/* Kelvin per code p/rho for mean molecular weight mu (<= 0: 1/X). */
SK_API double sk_temperature_factor(const sk_units *u, double mu);

#ifdef __cplusplus
}
#endif
#endif
