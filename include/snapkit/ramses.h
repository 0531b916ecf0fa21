/* snapkit/ramses.h - reading RAMSES outputs.
 *
 * Open an output folder once (text files only: info, header, namelist,
 * descriptors), then read components into tables with a selection:
 *
 *   hydro      leaf cells: int32 level, cx, cy, cz, then every hydro variable
 *              named as in hydro_file_descriptor.txt (float64 as stored)
 *   gravity    the same cells in the same order: potential,
 *              acceleration_x, acceleration_y, acceleration_z
 *   particles  every field of part_file_descriptor.txt, typed as on disk
 *
 * Cell (cx, cy, cz) at level l has its centre at (c + 0.5) / 2^l in box
 * units. Tables carry the output's metadata (see table.h conventions).
 */
#ifndef SNAPKIT_RAMSES_H
#define SNAPKIT_RAMSES_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/progress.h"
#include "snapkit/read.h"
#include "snapkit/select.h"
#include "snapkit/table.h"
#include "snapkit/units.h"

/* The JSON writer (snapkit/util/json.h), taken by pointer. */
typedef struct sk_json sk_json;

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_ramses sk_ramses;

typedef enum sk_ramses_format {
    SK_RAMSES_CURRENT = 0, /* descriptors with "# version: 1", family/tag particle records */
    SK_RAMSES_2017 = 1     /* key/value hydro descriptor, no particle descriptor, no family/tag */
} sk_ramses_format;

typedef struct sk_ramses_info {
    int output;                 /* NNNNN of output_NNNNN */
    int ncpu, ndim, levelmin, levelmax, ngridmax, nstep_coarse;
    double boxlen, time, aexp, H0, omega_m, omega_l, omega_k, omega_b;
    double unit_l, unit_d, unit_t;
    char ordering[32];          /* "hilbert", "bisection", ... */
    int ndomain;                /* entries of bound_key minus one */
    const double *bound_key;    /* ndomain + 1 Hilbert keys (hilbert ordering) */
    sk_ramses_format format;
    int has_hydro, has_gravity, has_particles;
    int nvar_hydro;             /* variables in the hydro files (descriptor or header) */
    int has_rt, nvar_rt;        /* RAMSES-RT rt_ files and their variables */
    int has_clump_field;        /* clump_field_ files: per-cell ids of RAMSES's clump finder */
    int has_sinks;              /* sink_NNNNN.csv */
    int has_clumps;             /* clump_NNNNN.txtCCCCC catalogues */
    int cosmological;           /* aexp < 1 or cosmo=.true.: time is conformal (cosmology.h) */
    int coarse[3];              /* the box's coarse cells per axis (amr files' nx, ny, nz
                                   without boundary padding); 1 1 1 for most runs */
    int level_shift;            /* log2(coarse[0]): levelmin, levelmax and every cell's
                                   level count from a box of 2^level_shift coarse cells a
                                   side, RAMSES's levels + level_shift (docs/ramses.md) */
} sk_ramses_info;

/* The components an output can hold, in the order `info` lists them:
 * "hydro", "gravity", "particles", "rt", "clump_field" (cells, row by row
 * like hydro for the same selection), "sinks", "clumps" (one row per sink
 * or clump). k from 0; NULL past the last. */
SK_API const char *sk_ramses_component_name(int k);
/* Does the output hold this component? */
SK_API int sk_ramses_has_component(const sk_ramses *r, const char *component);

/* Open the output folder `dir` (output_NNNNN). Reads and checks the text
 * files; binary files are opened by reads. SK_ERR_FORMAT naming the file
 * when the folder is not a RAMSES output. */
SK_API int sk_ramses_open(sk_ramses **out, const char *dir, sk_error *err);
SK_API void sk_ramses_close(sk_ramses *r);

SK_API const sk_ramses_info *sk_ramses_get_info(const sk_ramses *r);
/* The output's units (boxlen, unit_l, unit_d, unit_t from its info file;
 * aexp and h = H0 / 100 too when it is cosmological), for selections
 * given in physical or comoving lengths. */
SK_API void sk_ramses_units(const sk_ramses *r, sk_units *out);

/* Every text fact of the output as metadata pairs on `dst`:
 * ramses.info.<key> for each info key (as written), ramses.header.<family>
 * counts, ramses.namelist (the file's text), ramses.hydro_descriptor and
 * ramses.part_descriptor (name:type lists), plus the conventional keys
 * (boxlen, unit_l, unit_d, unit_t, time, aexp, ndim, levelmin, levelmax,
 * ncpu, gamma when known). Readers put these on every table they return. */
SK_API int sk_ramses_describe(const sk_ramses *r, sk_table *dst, sk_error *err);

/* Everything `snapkit info --json` shows, written to j as one object: path,
 * output, format, info (every key as written, numbers as numbers, and
 * bound_key), cosmology (cosmological; when it is: aexp, redshift, H0, h,
 * omegas, age_today_Gyr, lookback_time_Gyr, length_unit in kpccm, Mpccm,
 * Mpc/h, kpccm/h, Mpccm/h; always age_Gyr, age_code), header (counts,
 * fields, families: [{name, family, count}] for the labels
 * sk_ramses_header_family knows), namelist (text), hydro_descriptor
 * and part_descriptor (as written; null when absent), components present,
 * columns per component (as read), gamma, and disk (files, bytes, percent
 * per component). */
SK_API int sk_ramses_info_json(const sk_ramses *r, sk_json *j, sk_error *err);

/* The family code (select.h SK_FAMILY_*) that a label of
 * header_NNNNN.txt's family table counts: RAMSES writes them in code order
 * -5 .. 5 then "undefined", and labels -1 (the dark-matter tracers) a
 * second "other_tracer", read here as other_tracer_2. SK_OK, or SK_ERR_ARG
 * for another label (older headers' "Total number of ..." lines). */
SK_API int sk_ramses_header_family(const char *label, int *code);

/* Files and bytes on disk per component. */
typedef struct sk_ramses_usage {
    int64_t files[9]; /* indexed by the kinds below */
    int64_t bytes[9];
} sk_ramses_usage;
enum {
    SK_RAMSES_AMR, SK_RAMSES_HYDRO, SK_RAMSES_GRAVITY, SK_RAMSES_PARTICLES, SK_RAMSES_RT,
    SK_RAMSES_CLUMP_FIELD, SK_RAMSES_SINKS, SK_RAMSES_CLUMPS, SK_RAMSES_OTHER,
    SK_RAMSES_NKINDS
};
/* Name of a disk-usage kind ("amr", "hydro", ..., "other"). */
SK_API const char *sk_ramses_kind_name(int kind);
SK_API int sk_ramses_disk_usage(const sk_ramses *r, sk_ramses_usage *out, sk_error *err);

/* Read one component (sk_ramses_component_name) with a selection
 * (NULL: everything). On success *out is a new table the caller frees. */
SK_API int sk_ramses_read(sk_ramses *r, const char *component, const sk_selection *sel,
                          const sk_read_options *opt, sk_table **out, sk_read_stats *stats,
                          sk_error *err);

/* Which CPU files a selection needs: cpu_mask[0..ncpu-1] set to 0/1.
 * Returns the count. Conservative for every component. */
SK_API int sk_ramses_cpus_for(const sk_ramses *r, const sk_selection *sel, uint8_t *cpu_mask);
/* The same for one component ("hydro", "gravity", "particles", ...) and
 * read options: what sk_ramses_read opens (sinks: CPU 1's csv only; clumps:
 * every CPU's catalogue). */
SK_API int sk_ramses_cpus_for_component(const sk_ramses *r, const char *component,
                                        const sk_selection *sel, const sk_read_options *opt,
                                        uint8_t *cpu_mask);

/* Octs at each level of the whole output, from the amr files' headers
 * (nothing else is read): octs[l - 1] for levels l = 1 .. levelmax. A
 * level holds 8 cells per oct; its leaf cells number 8 octs[l - 1] -
 * octs[l]. */
SK_API int sk_ramses_level_octs(const sk_ramses *r, int64_t *octs, sk_error *err);

/* Derived quantities of a cell or particle table, computed on request into
 * out[nrows] (not stored):
 *   "cell_size"  code length of each cell's edge (boxlen / 2^level)
 *   "volume"     cell_size^3
 *   "mass"       density * volume (cells), or the mass column (particles)
 *   "x", "y", "z" cell centres or particle positions in code lengths
 *   MHD cells: "B_x", "B_y", "B_z" (mean of the _left and _right faces),
 *   "B" (|B|), "magnetic_pressure" (B^2/2), "plasma_beta" (pressure over
 *   it), "alfven_speed" (|B|/sqrt(density)); B in code units, "G" below
 *   "birth_time_proper"  particles: proper time since the big bang at
 *                formation (cosmological runs store conformal time, which
 *                is converted; otherwise as stored), code time
 *   "age"        particles: the output's time minus birth_time_proper
 *                (both 0 where a cosmological birth_time is 0: dark matter)
 * Multiply by the units in the table's metadata for physical values. */
SK_API int sk_ramses_derive(const sk_table *t, const char *what, double *out, sk_error *err);

/* Factor from code units to `unit`, the unit naming the quantity:
 *   density "g/cm^3", "Msun/pc^3", "H/cm^3" (hydrogen number density, X = 0.76)
 *   mass "g", "Msun"; velocity "cm/s", "km/s"; time "s", "yr", "Myr", "Gyr"
 *   pressure "erg/cm^3"; magnetic field "G", "uG" (sqrt(4 pi unit_d) unit_v); length "cm", "m", "km", "au", "pc", "kpc", "Mpc"
 *   pressure "erg/cm^3"; length "cm", "m", "km", "au", "pc", "kpc", "Mpc",
 *   and for cosmological units (u->h > 0) comoving / per-h forms such as
 *   "kpccm", "Mpccm/h", "Mpc/h" (units.h sk_length_unit_cm_at)
 *   "K": temperature per code p/rho, with mean molecular weight mu
 *        (mu <= 0: 1/X), m_H = 1.66e-24 g
 * Code lengths (positions, cell sizes) times the length factor give
 * physical lengths. */
SK_API int sk_ramses_unit_factor(const sk_units *u, const char *unit, double mu, double *factor,
                                 sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
