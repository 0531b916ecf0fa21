/* snapkit/cube.h - cubes (covering grids): a uniform grid at one level.
 *
 * A cube is the grid of level L (cells of edge boxlen/2^L) over a box,
 * filled from a cell table (int32 level, cx, cy, cz; snapkit/project.h
 * describes the cells) in one pass:
 *
 *   sk_cube_options opt;
 *   sk_cube_options_init(&opt);
 *   opt.level = 6;
 *   const char *q[] = {"density", "velocity_x"};
 *   sk_cube_stream *cs;
 *   sk_cube_stream_new(2, q, &opt, &cs, &err);
 *   sk_consumer c = sk_cube_stream_consumer(cs);   (ordered: see below)
 *   sk_ramses_stream(r, "hydro", &sel, NULL, &c, &stats, &err);
 *   sk_cube_stream_finish(cs, &cube, &err);
 *   sk_cube_write(cube, "cube_{var}.npy", NULL, NULL, &err);
 *
 * Filling. A cell at level L or finer adds to the one grid cell it falls in,
 * conservatively: each grid cell holds the weighted mean of the cells inside
 * it, weighted by their volume (default) or their mass (weight_mass), so a
 * grid cell covered by finer cells gets their average. Density is always
 * averaged by volume (mass over volume: the cube holds the selection's
 * mass), whatever the weight. A cell coarser than L fills every grid cell
 * it covers with its value (yt's covering_grid and RAMSES's amr2cube do the
 * same). At the data's finest level every grid cell takes the value of the
 * one leaf cell covering it, as yt's covering_grid does at any level;
 * coarser cubes differ from yt's covering_grid, which samples the leaf
 * cell at level L or above instead of averaging the finer ones.
 * Grid cells no row reached (outside a shape the read selected by) are NaN.
 *
 * Order. The batches must come in index order (the consumer is ordered:
 * sk_consumer.ordered): every grid cell sums its rows in table order, so
 * the cube has the same bits on any thread count, and from a RAMSES output
 * or its .snapkit file (the same table order).
 *
 * Quantities: any column or derived quantity sk_project takes as a field
 * (density, velocity_x, pressure, T, cs, v, passive scalars; Mera's names
 * rho, vx, ...), in the units of `units` ("density=g/cm3,T=K", as
 * sk_project_options.units); not sd, mass, weight or count.
 *
 * Memory: the cube holds nx*ny*nz*(nq + 2) doubles while it fills (the
 * values, the volume and the mass weights); sk_cube_bytes says how many
 * bytes, and a cube above memory_budget is refused before anything is
 * allocated.
 */
#ifndef SNAPKIT_CUBE_H
#define SNAPKIT_CUBE_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_CUBE_MAX_LEVEL 30

typedef struct sk_cube_options {
    int level;              /* L, 0 .. SK_CUBE_MAX_LEVEL */
    int has_box;
    double lo[3], hi[3];    /* box units; widened to whole grid cells of level L;
                               default (has_box 0) the whole box */
    int weight_mass;        /* means (but density's) weighted by mass, not volume */
    char units[512];        /* units of the quantities, as sk_project_options.units */
    double mu;              /* mean molecular weight of T in K (<= 0: 1/0.76) */
    int64_t memory_budget;  /* bytes the cube may take at most; 0: no limit */
} sk_cube_options;

/* Level 0, the whole box, volume weights, code units, no budget. */
SK_API void sk_cube_options_init(sk_cube_options *opt);

/* The grid of the options: the first grid cell's index along each axis
 * (i0) and the cells across (n); SK_ERR_ARG for a level outside
 * 0..SK_CUBE_MAX_LEVEL or an empty box. */
SK_API int sk_cube_grid(const sk_cube_options *opt, int64_t i0[3], int64_t n[3], sk_error *err);
/* Bytes a cube of nq quantities on that grid takes while it fills; -1 for
 * a bad level or box. */
SK_API double sk_cube_bytes(const sk_cube_options *opt, int nq);

typedef struct sk_cube sk_cube;
typedef struct sk_cube_stream sk_cube_stream;

SK_API int sk_cube_stream_new(int nq, const char *const *quantities, const sk_cube_options *opt,
                              sk_cube_stream **out, sk_error *err);
/* The consumer (ordered) that fills the cube. */
SK_API sk_consumer sk_cube_stream_consumer(sk_cube_stream *cs);
/* The cube (free with sk_cube_free); SK_ERR_EMPTY when no row reached it. */
SK_API int sk_cube_stream_finish(sk_cube_stream *cs, sk_cube **out, sk_error *err);
SK_API void sk_cube_stream_free(sk_cube_stream *cs);

/* The cube of a whole table (the stream fed with the table as one batch). */
SK_API int sk_cube_make(const sk_table *table, int nq, const char *const *quantities,
                        const sk_cube_options *opt, sk_cube **out, sk_error *err);

SK_API void sk_cube_free(sk_cube *cube);

/* Grid cells along x, y, z. */
SK_API int64_t sk_cube_n(const sk_cube *cube, int axis);
SK_API int sk_cube_level(const sk_cube *cube);
SK_API int sk_cube_count(const sk_cube *cube);
SK_API const char *sk_cube_name(const sk_cube *cube, int i);
SK_API const char *sk_cube_unit(const sk_cube *cube, int i);
/* Quantity i: nz*ny*nx values, data[(k*ny + j)*nx + i], x fastest (a
 * C-ordered array of shape (nz, ny, nx)); NaN where no row reached. */
SK_API const double *sk_cube_data(const sk_cube *cube, int i);
/* Low and high edge of the cube along an axis, in code lengths. */
SK_API double sk_cube_edge(const sk_cube *cube, int axis, int high);
/* Rows seen, rows that reached the cube, grid cells no row reached. */
SK_API int64_t sk_cube_rows(const sk_cube *cube);
SK_API int64_t sk_cube_deposited(const sk_cube *cube);
SK_API int64_t sk_cube_empty_cells(const sk_cube *cube);
/* The length unit of the FITS axes ("code", or a unit sk_length_unit_cm
 * knows: pc, kpc, ...; default code); SK_ERR_ARG for an unknown one or a
 * physical one without the table's unit_l. */
SK_API int sk_cube_set_length_unit(sk_cube *cube, const char *unit, sk_error *err);
SK_API void sk_cube_set_fsync(sk_cube *cube, int on);

/* Write the cube by the extension, atomically (whole files or none of
 * them: a failure removes the files already written):
 *   .npy   one quantity, float64 of shape (nz, ny, nx); with several,
 *          path holds "{var}", replaced by each quantity's name
 *   .fits  one 3-D image extension per quantity (EXTNAME, BUNIT), with a
 *          linear WCS per axis (CTYPEn X/Y/Z, CRPIXn 1, CRVALn the first
 *          cell's centre, CDELTn the cell size, CUNITn) in the length unit
 *          and an alternate one in code lengths (key A); LEVEL and WEIGHT
 * written/nwritten (optional) receive the names written (sk_free each
 * and the list). */
SK_API int sk_cube_write(const sk_cube *cube, const char *path, char ***written, int *nwritten,
                         sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
