/* The MHD quantities the RAMSES reader derives from a cell table, which
 * the projection also needs to know by name. */
#ifndef SNAPKIT_FORMATS_RAMSES_MHD_H
#define SNAPKIT_FORMATS_RAMSES_MHD_H

#include "snapkit/error.h"
#include "snapkit/table.h"

/* MHD quantities of a cell table (derive_mhd.c): B_x, B_y, B_z (cell
 * centred), B, magnetic_pressure, plasma_beta, alfven_speed. */
int rs_is_mhd_quantity(const char *what);
int rs_derive_mhd(const sk_table *t, const char *what, double *out, sk_error *err);

#endif
