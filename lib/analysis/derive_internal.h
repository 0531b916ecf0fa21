/* Derived quantities: the table of them (derive.c), the columns of a table
 * they read and the frame they are taken in (derive_rows.c), their
 * computation (derive_frame.c, derive_gas.c) and sets of them added to
 * tables and streams (derive_set.c). */
#ifndef SNAPKIT_ANALYSIS_DERIVE_INTERNAL_H
#define SNAPKIT_ANALYSIS_DERIVE_INTERNAL_H

#include <stdint.h>

#include "snapkit/derive.h"

/* How a quantity is computed. */
typedef enum dv_how {
    DV_FRAME,   /* per row from d and v' (derive_frame.c) */
    DV_GAS,     /* per row from rho, p and v (derive_gas.c) */
    DV_RAMSES   /* sk_ramses_derive: mass, volume, the MHD quantities */
} dv_how;

/* The frame, ready to use: the axis normalised, with two unit vectors
 * e1, e2 across it such that (e1, e2, n) is right-handed (phi is measured
 * from e1). */
typedef struct dv_frame {
    int has_center;
    double c[3], bulk[3];
    double n[3], e1[3], e2[3];
} dv_frame;

/* One row's displacement from the centre and velocity in the frame. */
typedef double (*dv_frame_fn)(const dv_frame *f, const double d[3], const double v[3]);

/* The float64 columns of a table a quantity reads; conversions of other
 * types are owned and freed by dv_rows_free. */
typedef struct dv_rows {
    const sk_table *table;
    int64_t n;
    int particles;
    double boxlen;
    const int32_t *level, *cell[3]; /* cells; cell[a] NULL on an axis the table lacks */
    const double *pos[3];           /* particles */
    const double *vel[3];           /* NULL on an axis the table lacks: 0 */
    const double *rho, *p;
    double *owned[8];
    int nowned;
} dv_rows;

typedef struct dv_entry {
    sk_quantity q;
    dv_how how;
    dv_frame_fn frame_fn; /* DV_FRAME */
    int gas;              /* DV_GAS: which (derive_gas.c dv_gas_id) */
} dv_entry;

/* The entry of a quantity of the table (derive.c). */
const dv_entry *dv_entry_of(const sk_quantity *q);

/* SK_ERR_ARG: an unknown quantity, naming those there are. */
int dv_unknown(const char *name, sk_error *err);

/* Is the table particles (1), cells (0), or neither (-1, err set)? */
int dv_table_kind(const sk_table *t, sk_error *err);

/* The frame from the user's (NULL: none); SK_ERR_ARG for a bad axis. */
int dv_frame_set(dv_frame *f, const sk_frame *user, sk_error *err);

/* Check that q applies to tables of this kind and its frame needs are met. */
int dv_check(const sk_quantity *q, int particles, const dv_frame *f, sk_error *err);

/* The columns of `t` that a frame or gas quantity q reads. */
int dv_rows_load(dv_rows *rows, const sk_table *t, const sk_quantity *q, int particles,
                 sk_error *err);
void dv_rows_free(dv_rows *rows);

/* Fill out[] for every row (derive_frame.c, derive_gas.c). */
void dv_frame_compute(const dv_rows *rows, const dv_frame *f, dv_frame_fn fn, double *out);
int dv_gas_compute(const dv_rows *rows, const dv_entry *e, const dv_frame *f,
                   const sk_derive_options *opt, double *out, sk_error *err);

/* Frame quantity functions (derive_frame.c). */
double dv_r(const dv_frame *f, const double d[3], const double v[3]);
double dv_theta(const dv_frame *f, const double d[3], const double v[3]);
double dv_phi(const dv_frame *f, const double d[3], const double v[3]);
double dv_cyl_r(const dv_frame *f, const double d[3], const double v[3]);
double dv_cyl_z(const dv_frame *f, const double d[3], const double v[3]);
double dv_v_r(const dv_frame *f, const double d[3], const double v[3]);
double dv_v_theta(const dv_frame *f, const double d[3], const double v[3]);
double dv_v_phi(const dv_frame *f, const double d[3], const double v[3]);
double dv_v_tan(const dv_frame *f, const double d[3], const double v[3]);
double dv_v_cyl_r(const dv_frame *f, const double d[3], const double v[3]);
double dv_v_cyl_z(const dv_frame *f, const double d[3], const double v[3]);
double dv_j_x(const dv_frame *f, const double d[3], const double v[3]);
double dv_j_y(const dv_frame *f, const double d[3], const double v[3]);
double dv_j_z(const dv_frame *f, const double d[3], const double v[3]);
double dv_j(const dv_frame *f, const double d[3], const double v[3]);

/* Gas quantities (derive_gas.c). */
enum dv_gas_id {
    DV_T, DV_CS, DV_MACH, DV_ENTROPY, DV_EKIN, DV_ETH, DV_V, DV_V_REL, DV_N, DV_NH
};

#endif
