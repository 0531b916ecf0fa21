/* snapkit/project.h - projection maps of cell and particle tables.
 *
 * One pass over a table deposits any number of quantities onto an image,
 * along an axis or any direction, with every thread of the budget busy:
 *
 *   sk_project_options opt;
 *   sk_project_options_init(&opt);
 *   sk_project_options_set(&opt, "axis", "z", &err);
 *   const char *q[] = {"sd", "T"};
 *   sk_maps *maps;
 *   sk_project(table, 2, q, &opt, &maps, &err);
 *   sk_maps_write(maps, "maps.fits", NULL, &err);
 *   sk_maps_free(maps);
 *
 * Inputs. A cell table (int32 level, cx, cy, cz; the cell is the cube of
 * edge boxlen/2^level centred at (c + 0.5)/2^level in box units) or a
 * particle table (position_x/y/z in code lengths, mass, optional family).
 * Units come from the table's metadata (boxlen, unit_l, unit_d, unit_t,
 * gamma).
 *
 * Image geometry. Along axis x the image is (y, z), along y (z, x), along z
 * (x, y), as in yt. Pixels are square. `res` is the number of pixels across
 * the whole box (Mera's convention; default 2^lmax of the data), or `pixel`
 * gives the pixel size in a length unit (rounded so that a whole number of
 * pixels spans the box). Axis-aligned maps sit on the box's pixel grid: a
 * region is widened to whole pixels. Off-axis maps are centred on the
 * centre and cover the field of view (default: all of the region).
 *
 * Selection. A row is projected when its centre (position) lies in the
 * region [lo, hi) on every axis and, when a line-of-sight range is given,
 * its distance along the line of sight from the centre lies in it. With
 * `clip` (axis-aligned maps of 3-D cells), a cell is projected when its
 * volume meets the region, weighted by the fraction of its depth inside
 * the region along the line of sight, as RAMSES's amr2map weights a slab;
 * across the line of sight the image window cuts it (the window is the
 * region widened to whole pixels). The table must then hold the cells
 * that meet the region, not only those centred in it. What
 * falls outside the image window is cut off with the image (the stats say
 * how much mass was selected and how much landed on the image).
 *
 * Deposits. Cells axis-aligned: each cell deposits onto the pixels its
 * footprint covers in proportion to the covered area (exact). Off-axis
 * kernels: "exact" (each pixel gets the volume of the cube inside its
 * prism), "overlap" (the footprint sub-sampled, at most `overlap_max`
 * samples per axis), "cic", "ngp". Particles: "cic" or "ngp". Each kernel
 * conserves the total: approximate kernels are renormalised per cell, and
 * point kernels (cic, ngp) keep all of a point inside the image when the
 * point is inside it.
 *
 * Quantities (any number, one pass):
 *   sd       surface density, the integral of density along the line of
 *            sight (code, g/cm2, Msun/pc2, Msun/kpc2)
 *   mass     mass per pixel (code, g, Msun)
 *   weight   the weight map of the means (mass or volume per pixel)
 *   count    number of cells or particles that reached each pixel
 *   anything else: a column (density, velocity_x, pressure, metallicity,
 *   any passive scalar or particle column; Mera names rho, vx, vy, vz, p
 *   work too) or a derived quantity: T (p/rho, times mu m_H/k_B in K),
 *   cs = sqrt(gamma p/rho), v = |velocity|. Its mass-weighted mean along
 *   the line of sight (default), volume-weighted mean (weight "volume"), or
 *   sum (mode "sum": each cell's value is shared among the pixels in
 *   proportion to its share of the cell). Means are NaN where the weight
 *   is zero.
 *
 * Threads. On more than one thread the image is cut into bands of rows,
 * runs of rows of the table are listed by the bands they meet, and each
 * band is deposited by one thread into the one map: no private copies, no
 * reduction, and the same bits on any number of threads (every pixel sums
 * its rows in table order). Strategy "cells" (private copies of the
 * accumulators, summed at the end; within rounding, not bit for bit) is
 * used only when asked for and its copies fit `private_budget` bytes.
 */
#ifndef SNAPKIT_PROJECT_H
#define SNAPKIT_PROJECT_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/select.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"

/* The JSON writer (snapkit/util/json.h), taken by pointer. */
typedef struct sk_json sk_json;

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_proj_kernel {
    SK_KERNEL_AUTO = 0, /* cells: area (axis) or overlap (off-axis); particles: cic */
    SK_KERNEL_EXACT,
    SK_KERNEL_OVERLAP,
    SK_KERNEL_CIC,
    SK_KERNEL_NGP
} sk_proj_kernel;

typedef enum sk_proj_strategy {
    SK_STRATEGY_AUTO = 0, /* tiles on more than one thread */
    SK_STRATEGY_CELLS,    /* threads share the rows; private maps reduced at the end
                             (when they fit private_budget, else tiles) */
    SK_STRATEGY_TILES     /* threads share bands of image rows; one map; same bits
                             on any thread count */
} sk_proj_strategy;

typedef struct sk_project_options {
    int axis;                 /* 0, 1, 2 = x, y, z (default 2); ignored with a direction */
    int has_direction;        /* off-axis along `direction` */
    double direction[3];      /* line of sight, any length > 0 */
    int has_up;
    double up[3];             /* image "up"; default: the axis-aligned up of the nearest axis */
    int64_t res;              /* pixels across the whole box; 0: 2^lmax of the data */
    double pixel;             /* pixel size in `pixel_unit` (overrides res when > 0) */
    char pixel_unit[16];      /* "" = the region's unit */
    sk_region_request region; /* ranges, centre and their unit */
    int has_los_range;
    double los_range[2];      /* line-of-sight range from the centre, in the region's unit */
    int has_fov;
    double fov[2];            /* off-axis width and height, in the region's unit */
    int weight_volume;        /* means weighted by volume instead of mass */
    int mode_sum;             /* sums instead of means */
    sk_proj_kernel kernel;
    int overlap_max;          /* overlap kernel: samples per axis at most (default 64) */
    int has_family;
    int family;               /* particles: only this family */
    double mu;                /* mean molecular weight for T in K (<= 0: 1/0.76) */
    double gamma;             /* adiabatic index for cs (<= 0: the table's gamma) */
    char units[512];          /* "Msun/pc2,km/s" or "sd=g/cm2,T=K": units of the maps */
    int threads;              /* 0: the whole thread budget (tables under 20000
                                 rows take one thread) */
    sk_proj_strategy strategy;
    int64_t memory_budget;    /* bytes the maps may take (default 4 GiB) */
    int64_t private_budget;   /* bytes the per-thread maps may take (default 1 GiB) */
    int clip;                 /* cells cut by the region's faces count in part (below) */
} sk_project_options;

/* Defaults: axis z, whole box, res 2^lmax, mass-weighted means, auto kernel. */
SK_API void sk_project_options_init(sk_project_options *opt);
/* A new options block with the defaults, for callers that cannot hold the
 * struct (Python); free with sk_project_options_free. */
SK_API sk_project_options *sk_project_options_new(void);
SK_API void sk_project_options_free(sk_project_options *opt);

/* Set one option from text, as the command line and Python do:
 *   axis x|y|z, direction "NX NY NZ", up "UX UY UZ", res N, pixel SIZE,
 *   pixel_unit U, unit U (of ranges, centre, fov, pixel), center "X Y Z"|bc,
 *   xrange/yrange/zrange "LO HI", los "LO HI", fov "W [H]",
 *   theta/phi DEG (direction from angles: theta from +z, phi from +x),
 *   weight mass|volume, mode mean|sum, kernel exact|overlap|cic|ngp,
 *   overlap_max N, family N|dm|star|..., mu X, gamma X, units LIST,
 *   threads N, strategy auto|cells|tiles, memory_budget BYTES[kMG],
 *   private_budget BYTES[kMG].
 * SK_ERR_ARG naming the key for an unknown key or a bad value. */
SK_API int sk_project_options_set(sk_project_options *opt, const char *key, const char *value,
                                  sk_error *err);

typedef struct sk_maps sk_maps;

/* Project `nq` quantities of `table` in one pass. On success *out holds
 * the maps (free with sk_maps_free). Errors (one line each): an unknown
 * quantity, a resolution of zero, maps beyond memory_budget (saying how
 * much they would need), an empty selection (SK_ERR_EMPTY), a zero-length
 * direction or an up vector along it. */
SK_API int sk_project(const sk_table *table, int nq, const char *const *quantities,
                      const sk_project_options *opt, sk_maps **out, sk_error *err);

/* A projection fed batch by batch from a stream (snapkit/stream.h), for a
 * command that needs the maps and not the table: it holds the maps and
 * the batches in flight (memory O(threads x largest batch) + maps), and
 * its maps are sk_project's on the whole table, bit for bit:
 *
 *   sk_project_stream *ps;
 *   sk_project_stream_new(1, q, &opt, &ps, &err);
 *   sk_consumer c = sk_project_stream_consumer(ps);
 *   sk_ramses_stream(r, "hydro", &sel, NULL, &c, &stats, &err);
 *   sk_project_stream_finish(ps, &maps, &err);
 *   sk_project_stream_free(ps);
 *
 * The image is cut into bands of rows (one on one thread); each band takes
 * the batches in index order (table order), and the threads that bring
 * batches deposit into any free band whose next batch has come, so the
 * maps have the same bits on any thread count. The consumer is not
 * ordered (it orders the bands itself); a batch no band can take yet is
 * copied, and its thread reads on. The info's strategy is "stream",
 * accumulator_bytes the maps' plus the most the copies held. Needs res or pixel (SK_ERR_ARG otherwise:
 * the default follows the data's finest level); the off-axis overlap
 * kernel is refused at the stream's begin. */
typedef struct sk_project_stream sk_project_stream;
SK_API int sk_project_stream_new(int nq, const char *const *quantities,
                                 const sk_project_options *opt, sk_project_stream **out,
                                 sk_error *err);
SK_API sk_consumer sk_project_stream_consumer(sk_project_stream *ps);
SK_API int sk_project_stream_finish(sk_project_stream *ps, sk_maps **out, sk_error *err);
SK_API void sk_project_stream_free(sk_project_stream *ps);
/* sk_project under MPI (snapkit/util/mpi.h), collective over MPI_COMM_WORLD:
 * every rank passes its share of the table (sk_read_options.share_rank)
 * and the same quantities and options; the ranks agree on the image (the
 * finest level and the rows selected are the whole table's) and rank 0's
 * *out holds the maps of the whole table (every rank's when `all` is
 * nonzero; the others' *out is NULL). The accumulators are summed along a
 * fixed tree (sk_mpi_sum_double_tree); within a rank the threads' copies
 * sum as in sk_project. The maps equal one process's within 1e-14 of each
 * map's largest magnitude, count maps exactly (docs/mpi.md). Every rank
 * returns the same status and error. Without MPI running: sk_project. */
SK_API int sk_project_ranks(const sk_table *table, int nq, const char *const *quantities,
                            const sk_project_options *opt, int all, sk_maps **out,
                            sk_error *err);

SK_API void sk_maps_free(sk_maps *maps);

/* Image size: nx pixels along the image's first axis, ny along its second. */
SK_API int sk_maps_nx(const sk_maps *maps);
SK_API int sk_maps_ny(const sk_maps *maps);
SK_API int sk_maps_count(const sk_maps *maps);
/* Map i: name (the quantity as asked), unit, and ny rows of nx values,
 * data[j * nx + i], row j along the second axis from its low end. */
SK_API const char *sk_maps_name(const sk_maps *maps, int i);
SK_API const char *sk_maps_unit(const sk_maps *maps, int i);
/* What map i holds, in words: "surface density", "mass-weighted mean",
 * "cells per pixel", ... */
SK_API const char *sk_maps_what(const sk_maps *maps, int i);
SK_API const double *sk_maps_data(const sk_maps *maps, int i);
/* Index of the map named `name`, -1 when absent. */
SK_API int sk_maps_find(const sk_maps *maps, const char *name);

typedef struct sk_maps_info {
    int axis;                 /* 0..2, or -1 off-axis */
    double los[3], right[3], up[3]; /* unit vectors of the line of sight and image axes */
    double center[3];         /* code lengths */
    double extent[4];         /* first axis min, max, second axis min, max (code lengths;
                                 axis-aligned: box coordinates, off-axis: from the centre) */
    double pixel_size;        /* code lengths */
    double pixel_size_cm;
    double time;              /* the table's time (code units), NaN when absent */
    double unit_l, unit_t;    /* the table's units */
    char length_unit[8];      /* the length unit to show the maps in: the region's unit (or
                                 else the pixel unit) when it is physical, otherwise the
                                 largest of Mpc, kpc, pc, au, km, m, cm that the image's
                                 width spans at least once */
    int64_t rows;             /* rows of the table */
    int64_t selected;         /* rows selected */
    int64_t deposited;        /* selected rows that reached the image */
    double selected_mass;     /* code mass of the selected rows (NaN without mass) */
    double projected_mass;    /* code mass on the image */
    int threads;              /* threads used */
    char strategy[8];         /* "cells" or "tiles" */
    char kernel[8];           /* "area", "exact", "overlap", "cic", "ngp" */
    char weight[8];           /* "mass" or "volume" */
    char mode[8];             /* "mean" or "sum" */
    char kind[12];            /* "cells" or "particles" */
    int64_t accumulator_bytes;/* memory the accumulators took, private copies included */
    double seconds;           /* wall time of the projection (the table's reading excluded) */
} sk_maps_info;

SK_API const sk_maps_info *sk_maps_get_info(const sk_maps *maps);

/* Everything about the maps as JSON text (an sk_malloc string the caller
 * frees with sk_free; NULL when out of memory): the info fields, and per
 * map its name, unit, what it holds, minimum and maximum. */
SK_API char *sk_maps_json(const sk_maps *maps, int pretty);
/* The same members written into an object the caller has opened (to add
 * its own, as the command line does). */
SK_API void sk_maps_json_members(const sk_maps *maps, sk_json *j);

typedef struct sk_image_options {
    int log_scale;            /* -1: log for positive-only maps of sd, mass, density,
                                 T, pressure, count; 0 linear; 1 log */
    int has_range;
    double vmin, vmax;        /* colour range (default: the map's finite min..max;
                                 log: the positive ones) */
} sk_image_options;

/* Write maps by the file's extension (atomically: never a half file):
 *   .fits  one image extension per map (EXTNAME = the quantity, BUNIT in
 *          astropy's spelling, "solMass/pc2", left out for code units), with
 *          a linear WCS in info.length_unit (CTYPE X/Y/Z or RIGHT/UP, CRPIX,
 *          CRVAL, CDELT, CUNIT) and an alternate one in code lengths (key A);
 *          extent, pixel size, axis or direction, time, weight, mode, kernel
 *          in the headers
 *   .npy   one map, a 2-D float64 array of ny rows and nx columns
 *   .png   one map in viridis (RGBA, transparent where NaN), one pixel per
 *          map pixel, and beside it PATH.json with the quantity, unit,
 *          scale, vmin, vmax and extent
 * For .npy and .png with several maps, `path` must hold "{var}", replaced
 * by each map's name. written/nwritten (optional) receive the names of the
 * files written, also those written before a failure (free each name and
 * the list with sk_free). img may be NULL (automatic scale and range). */
SK_API int sk_maps_write(const sk_maps *maps, const char *path, const sk_image_options *img,
                         char ***written, int *nwritten, sk_error *err);

/* A picture of one map drawn by the caller (the command line draws figures
 * with axes and a colour bar this way; the library itself draws none):
 * the colour scale resolved from the image options, and the bare picture
 * sk_maps_write_png would write. */
typedef struct sk_picture {
    const sk_maps *maps;
    int index;                 /* the map */
    int log_scale;             /* 1: log, 0: linear */
    double vmin, vmax;         /* the colour range */
    const unsigned char *rgba; /* ny rows of nx RGBA pixels, the top row (the high end
                                  of the image's second axis) first; viridis,
                                  transparent where NaN */
} sk_picture;

/* Write `pic` to `path` (its format by the extension); SK_OK or an error. */
typedef int (*sk_picture_writer)(void *ctx, const sk_picture *pic, const char *path,
                                 sk_error *err);

/* sk_maps_write, with each picture (.png, and .svg and .pdf, which only a
 * writer accepts) drawn by `writer` instead of the bare PNG; PATH.json
 * beside each says "figure": true. writer NULL: sk_maps_write. */
SK_API int sk_maps_write_pictures(const sk_maps *maps, const char *path,
                                  const sk_image_options *img, sk_picture_writer writer, void *ctx,
                                  char ***written, int *nwritten, sk_error *err);

/* Single-format writers of map i (all maps for FITS). */
/* Durability of the files the writers below make (all of them atomic: the
 * whole file or the old one). On (the default): each is flushed to disk
 * (fsync) before it is renamed into place, so it survives a power cut;
 * off: the rename happens at once and the data reaches the disk when the
 * kernel writes it back (seconds later), 0.2-0.4 s sooner per file on a
 * slow disk. */
SK_API void sk_maps_set_fsync(sk_maps *maps, int on);
SK_API int sk_maps_write_fits(const sk_maps *maps, const char *path, sk_error *err);
/* Every map into one HDF5 file (.h5, .hdf5; libhdf5 loaded on first use):
 * a (ny, nx) float64 dataset per map named as the map, with attributes
 * "unit" and "what"; the root's attributes: kind = "snapkit maps",
 * extent (code lengths), center, line_of_sight, right, up, pixel_size
 * (code lengths) and pixel_size_cm, time, unit_l, unit_t, axis, rows,
 * selected, deposited, selected_mass, projected_mass, kernel, weight,
 * mode. Written whole or not at all. */
SK_API int sk_maps_write_h5(const sk_maps *maps, const char *path, sk_error *err);
SK_API int sk_maps_write_npy(const sk_maps *maps, int i, const char *path, sk_error *err);
SK_API int sk_maps_write_png(const sk_maps *maps, int i, const char *path,
                             const sk_image_options *img, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
