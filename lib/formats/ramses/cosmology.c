/* Friedmann times: proper time and super-conformal time against aexp.
 *
 * In s = sqrt(a) both integrands are smooth on [0, 1]:
 *   dt/ds   = 2 s^2 / sqrt(P(s))
 *   dtau/ds = 2 / (s^2 sqrt(P(s)))     P(s) = om + ok s^2 + ol s^6
 * so fixed Gauss-Legendre panels reach rounding level. RAMSES and yt step
 * an ODE into a 1000-entry table and interpolate linearly; yt's table also
 * starts at a = 1e-3 and drops the time before it (0.54 Myr for the
 * fixture cosmo32), which is why its ages are short by that much. */
#include <math.h>
#include <string.h>

#include "formats/ramses/internal.h"
#include "snapkit/cosmology.h"
#include "snapkit/memory.h"

#define PANEL_RATIO 1.02 /* largest s_{k+1} / s_k of tau's panels */

static const double k_gl_x[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                 0.9602898564975363};
static const double k_gl_w[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                 0.1012285362903763};

typedef struct friedmann {
    double om, ok, ol;
} friedmann;

static friedmann model_of(const sk_cosmology *c)
{
    return (friedmann){c->omega_m, 1.0 - c->omega_m - c->omega_l, c->omega_l};
}

static double poly(const friedmann *f, double s)
{
    double s2 = s * s;
    return f->om + f->ok * s2 + f->ol * s2 * s2 * s2;
}

static double dt_ds(const friedmann *f, double s)
{
    return 2.0 * s * s / sqrt(poly(f, s));
}

static double dtau_ds(const friedmann *f, double s)
{
    return 2.0 / (s * s * sqrt(poly(f, s)));
}

/* 8-point Gauss-Legendre over [lo, hi]. */
static double gl8(double (*g)(const friedmann *, double), const friedmann *f, double lo,
                  double hi)
{
    double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo), sum = 0.0;
    for (int i = 0; i < 4; i++)
        sum += k_gl_w[i] * (g(f, mid - half * k_gl_x[i]) + g(f, mid + half * k_gl_x[i]));
    return half * sum;
}

static double age_at_s(const friedmann *f, double s)
{
    enum { PANELS = 32 };
    double sum = 0.0;
    for (int k = 0; k < PANELS; k++)
        sum += gl8(dt_ds, f, s * k / PANELS, s * (k + 1) / PANELS);
    return sum;
}

/* tau at s: minus the integral from s to 1 on geometric panels, on which
 * the 1/s^2 integrand stays nearly polynomial. */
static double tau_at_s(const friedmann *f, double s)
{
    int panels = (int)ceil(log(1.0 / s) / log(PANEL_RATIO));
    if (panels < 8)
        panels = 8;
    double ratio = pow(1.0 / s, 1.0 / panels), lo = s, sum = 0.0;
    for (int k = 0; k < panels; k++) {
        double hi = k == panels - 1 ? 1.0 : lo * ratio;
        sum += gl8(dtau_ds, f, lo, hi);
        lo = hi;
    }
    return -sum;
}

double sk_cosmology_hubble_time(const sk_cosmology *c)
{
    return SK_CM_PER_MPC / (c->H0 * SK_CM_PER_KM);
}

double sk_cosmology_age(const sk_cosmology *c, double a)
{
    friedmann f = model_of(c);
    return age_at_s(&f, sqrt(a));
}

double sk_cosmology_tau(const sk_cosmology *c, double a)
{
    friedmann f = model_of(c);
    return a >= 1.0 ? gl8(dtau_ds, &f, 1.0, sqrt(a)) : tau_at_s(&f, sqrt(a));
}

/* The conversion grid: nodes s[k] = 2^(-k / GRID_PER_OCTAVE), k = 0 .. n,
 * from s = 1 down past the earliest tau asked for, with tau and t at each
 * node. Nodes do not depend on the values converted, so one tau gives the
 * same t in every call (a star born at the output's time is 0 old). */
#define GRID_PER_OCTAVE 36
typedef struct tau_grid {
    int n;
    double *s, *tau, *t;
} tau_grid;

static int grid_build(const friedmann *f, double tau_min, tau_grid *g, sk_error *err)
{
    /* tau ~ -2 / (sqrt(om) s) near the big bang. */
    double s_min = fmin(0.5, 1.0 / (sqrt(f->om) * fabs(tau_min) + 1e-300));
    while (tau_at_s(f, s_min) > tau_min && s_min > 1e-150)
        s_min *= 0.5;
    g->n = (int)ceil(-log2(s_min) * GRID_PER_OCTAVE);
    g->s = sk_malloc(sizeof(double) * 3 * (size_t)(g->n + 1));
    if (!g->s)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    g->tau = g->s + g->n + 1;
    g->t = g->tau + g->n + 1;
    for (int k = 0; k <= g->n; k++) {
        g->s[k] = exp2(-(double)k / GRID_PER_OCTAVE);
        g->tau[k] = k ? g->tau[k - 1] - gl8(dtau_ds, f, g->s[k], g->s[k - 1]) : 0.0;
        g->t[k] = age_at_s(f, g->s[k]);
    }
    return SK_OK;
}

/* Panel k with tau[k + 1] <= tau <= tau[k] (tau falls with k). */
static int grid_panel(const tau_grid *g, double tau)
{
    int lo = 0, hi = g->n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (g->tau[mid] >= tau)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Newton in s inside panel k for tau(s) = tau, then t(s). */
static double grid_proper_time(const friedmann *f, const tau_grid *g, double tau)
{
    int k = grid_panel(g, tau);
    double lo = g->s[k + 1], hi = g->s[k], tau_lo = g->tau[k + 1];
    double s = lo + (hi - lo) * (tau - tau_lo) / (g->tau[k] - tau_lo);
    for (int it = 0; it < 20; it++) {
        double step = (tau_lo + gl8(dtau_ds, f, lo, s) - tau) / dtau_ds(f, s);
        s = fmin(hi, fmax(lo, s - step));
        if (fabs(step) <= 1e-16 * s)
            break;
    }
    return g->t[k + 1] + gl8(dt_ds, f, lo, s);
}

static int check_model(const friedmann *f, sk_error *err)
{
    /* P is a cubic in s^2; sampling finely catches a sign change on (0, 1]. */
    int ok = f->om > 0;
    for (int i = 1; i <= 1000 && ok; i++)
        ok = poly(f, i / 1000.0) > 0;
    if (!ok)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "omega_m = %g, omega_l = %g: H(a) is not real for some a in (0, 1]",
                       f->om, f->ol);
    return SK_OK;
}

int sk_cosmology_proper_times(const sk_cosmology *c, const double *tau, int64_t n, double *t,
                              sk_error *err)
{
    friedmann f = model_of(c);
    int rc = check_model(&f, err);
    double tau_min = 0.0;
    for (int64_t i = 0; i < n && rc == SK_OK; i++) {
        if (!(tau[i] <= 0.0))
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                         "conformal time %.17g is after a = 1 or not a number", tau[i]);
        tau_min = fmin(tau_min, tau[i]);
    }
    if (rc != SK_OK || n == 0)
        return rc;
    tau_grid g = {0};
    if ((rc = grid_build(&f, tau_min, &g, err)) != SK_OK)
        return rc;
    for (int64_t i = 0; i < n; i++)
        t[i] = grid_proper_time(&f, &g, tau[i]);
    sk_free(g.s);
    return SK_OK;
}

int rs_cosmology_summarize(int cosmological, const sk_cosmology *c, double aexp, double time,
                           double unit_t, sk_cosmology_summary *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    out->cosmological = cosmological;
    out->aexp = aexp;
    if (!cosmological) {
        out->aexp = 1.0;
        out->age = time * unit_t;
        return SK_OK;
    }
    out->redshift = 1.0 / aexp - 1.0;
    out->h = c->H0 / 100.0;
    double th = sk_cosmology_hubble_time(c), now;
    /* The age from the info file's tau, as the stars' ages are: a star born
     * in the output's step is 0 old. */
    int rc = sk_cosmology_proper_times(c, &time, 1, &now, err);
    if (rc != SK_OK)
        return rc;
    out->age = now * th;
    out->age_today = sk_cosmology_age(c, 1.0) * th;
    out->lookback = out->age_today - out->age;
    return SK_OK;
}

static sk_cosmology cosmology_of_table(const sk_table *t)
{
    return (sk_cosmology){sk_table_meta_double(t, "H0", 0.0),
                          sk_table_meta_double(t, "omega_m", 0.0),
                          sk_table_meta_double(t, "omega_l", 0.0)};
}

int sk_cosmology_from_table(const sk_table *t, sk_cosmology_summary *out, sk_error *err)
{
    sk_cosmology c = cosmology_of_table(t);
    return rs_cosmology_summarize(sk_table_meta_double(t, "cosmological", 0.0) != 0, &c,
                                  sk_table_meta_double(t, "aexp", 1.0),
                                  sk_table_meta_double(t, "time", 0.0),
                                  sk_table_meta_double(t, "unit_t", 1.0), out, err);
}

/* birth_time of particle i as a proper time since the big bang (code
 * time), and the output's own time, for "birth_time_proper" and "age". */
int rs_derive_birth(const sk_table *t, int age, double *out, sk_error *err)
{
    const sk_column *bt = sk_table_find(t, "birth_time");
    if (!bt)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the table has no birth_time column");
    int64_t n = sk_table_nrows(t);
    for (int64_t i = 0; i < n; i++)
        out[i] = sk_column_get_double(bt, i);
    double tau_now = sk_table_meta_double(t, "time", 0.0);
    if (sk_table_meta_double(t, "cosmological", 0.0) == 0.0) {
        for (int64_t i = 0; i < n && age; i++)
            out[i] = tau_now - out[i]; /* not conformal: the output's time */
        return SK_OK;
    }
    /* Stored 0 marks particles that were never formed (dark matter). */
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (out[i] != 0.0)
            out[m++] = out[i];
    sk_cosmology c = cosmology_of_table(t);
    double unit_t = sk_table_meta_double(t, "unit_t", 1.0), t_now;
    int rc;
    if ((rc = sk_cosmology_proper_times(&c, out, m, out, err)) != SK_OK ||
        (rc = sk_cosmology_proper_times(&c, &tau_now, 1, &t_now, err)) != SK_OK)
        return rc;
    double scale = sk_cosmology_hubble_time(&c) / unit_t;
    for (int64_t i = n - 1; i >= 0; i--) {
        double born = sk_column_get_double(bt, i) != 0.0 ? out[--m] : -1.0;
        out[i] = born < 0.0 ? 0.0 : (age ? t_now - born : born) * scale;
    }
    return SK_OK;
}
