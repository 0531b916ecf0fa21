/* snapkit/cosmology.h - Friedmann times of cosmological RAMSES outputs.
 *
 * A flat or curved matter + Lambda universe (no radiation, as RAMSES):
 * H(a) = H0 sqrt(omega_m / a^3 + omega_k / a^2 + omega_l), with omega_k =
 * 1 - omega_m - omega_l so that H(1) = H0. Times are in units of 1/H0:
 *   t(a)    proper time since the big bang, integral of da / (a H)
 *   tau(a)  RAMSES's super-conformal time, dtau = H0 dt / a^2, zero at
 *           a = 1 and negative before (the info file's `time` and the
 *           stars' `birth_time` of a cosmological run)
 * Integrals are Gauss-Legendre quadratures in s = sqrt(a), where both
 * integrands are smooth down to a = 0, accurate to about 1e-14.
 */
#ifndef SNAPKIT_COSMOLOGY_H
#define SNAPKIT_COSMOLOGY_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_cosmology {
    double H0;               /* km/s/Mpc */
    double omega_m, omega_l; /* omega_k is 1 - omega_m - omega_l */
} sk_cosmology;

/* Seconds per 1/H0. */
SK_API double sk_cosmology_hubble_time(const sk_cosmology *c);
/* t(a) and tau(a) in units of 1/H0, for 0 < a (t(0) = 0). */
SK_API double sk_cosmology_age(const sk_cosmology *c, double a);
SK_API double sk_cosmology_tau(const sk_cosmology *c, double a);
/* Proper times since the big bang t[i] (units of 1/H0) of the conformal
 * times tau[i] (t may be tau). SK_ERR_ARG naming the value for tau > 0 or
 * one where H is not real. */
SK_API int sk_cosmology_proper_times(const sk_cosmology *c, const double *tau, int64_t n, double *t,
                                     sk_error *err);

/* What a RAMSES output's info file says about its time, in seconds
 * (code time: divide by unit_t). */
typedef struct sk_cosmology_summary {
    int cosmological;  /* aexp < 1, or cosmo=.true. in the namelist */
    double aexp, redshift, h; /* h = H0 / 100 */
    double age;        /* proper time since the big bang at the output's tau */
    double age_today;  /* at a = 1 */
    double lookback;   /* age_today - age */
} sk_cosmology_summary;

/* The summary from a table's metadata (what sk_ramses_describe puts on
 * every table: cosmological, aexp, time, H0, omega_m, omega_l). Non-
 * cosmological outputs get cosmological = 0, redshift 0 and age = the
 * info file's time (times unit_t). */
SK_API int sk_cosmology_from_table(const sk_table *t, sk_cosmology_summary *out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
