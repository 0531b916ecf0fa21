/* Magnetic quantities of MHD cells. RAMSES's mhd solver stores B on the
 * lower (_left) and upper (_right) face of each cell per axis; the
 * cell-centred field is their mean, and in code units the magnetic
 * pressure is B^2 / 2 (no 4 pi: RAMSES subtracts exactly that from the
 * total energy), so the Alfven speed is |B| / sqrt(rho). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/ramses/internal.h"

static const char *const k_axes[3] = {"x", "y", "z"};

/* The two face columns of one axis, or NULL when the table lacks them. */
static int faces(const sk_table *t, int axis, const double **left, const double **right)
{
    char l[32], r[32];
    snprintf(l, sizeof l, "B_%s_left", k_axes[axis]);
    snprintf(r, sizeof r, "B_%s_right", k_axes[axis]);
    const sk_column *cl = sk_table_find(t, l), *cr = sk_table_find(t, r);
    if (!cl || !cr || cl->type != SK_FLOAT64 || cr->type != SK_FLOAT64)
        return 0;
    *left = cl->data;
    *right = cr->data;
    return 1;
}

static const double *f64_column(const sk_table *t, const char *name)
{
    const sk_column *c = sk_table_find(t, name);
    return c && c->type == SK_FLOAT64 ? c->data : NULL;
}

int rs_is_mhd_quantity(const char *what)
{
    static const char *const names[] = {"B_x", "B_y", "B_z", "B", "magnetic_pressure",
                                        "plasma_beta", "alfven_speed"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(what, names[i]))
            return 1;
    return 0;
}

static int missing(const char *what, const char *needs, sk_error *err)
{
    return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s needs %s (an MHD output's hydro columns)",
                   what, needs);
}

int rs_derive_mhd(const sk_table *t, const char *what, double *out, sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    const double *left[3], *right[3];
    int naxes = 0;
    for (int a = 0; a < 3; a++)
        naxes += faces(t, a, &left[a], &right[a]);
    for (int a = 0; a < 3; a++) {
        if (what[0] != 'B' || what[1] != '_' || strcmp(what + 2, k_axes[a]) != 0)
            continue;
        if (!faces(t, a, &left[a], &right[a]))
            return missing(what, "its _left and _right face columns", err);
        for (int64_t i = 0; i < n; i++)
            out[i] = 0.5 * (left[a][i] + right[a][i]);
        return SK_OK;
    }
    if (naxes != 3)
        return missing(what, "B_x/y/z_left and B_x/y/z_right", err);
    int is_b = !strcmp(what, "B"), is_pb = !strcmp(what, "magnetic_pressure");
    int is_beta = !strcmp(what, "plasma_beta");
    const double *other = is_b || is_pb ? NULL : f64_column(t, is_beta ? "pressure" : "density");
    if (!is_b && !is_pb && !other)
        return missing(what, is_beta ? "pressure" : "density", err);
    for (int64_t i = 0; i < n; i++) {
        double b2 = 0;
        for (int a = 0; a < 3; a++) {
            double b = 0.5 * (left[a][i] + right[a][i]);
            b2 += b * b;
        }
        out[i] = is_b ? sqrt(b2) : is_pb ? 0.5 * b2 : is_beta ? other[i] / (0.5 * b2)
                                                               : sqrt(b2 / other[i]);
    }
    return SK_OK;
}
