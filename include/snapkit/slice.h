/* snapkit/slice.h - slices: the cells a plane crosses, sampled on pixels.
 *
 * A slice is an image on the plane x_axis = at (box units): each pixel
 * takes the value of the leaf cell that contains the pixel's centre on
 * the plane, exactly (no interpolation, no average). A cell contains the
 * point p when lo <= p < hi on every axis (lo, hi its faces), so a plane
 * on a cell face takes the cells above it, as yt's slice does. Pixels no
 * cell reaches (outside the box, or outside what was read) are NaN.
 *
 *   sk_slice_options opt;
 *   sk_slice_options_init(&opt);
 *   opt.axis = 2; opt.at = 0.5; opt.nx = opt.ny = 512;
 *   const char *q[] = {"density", "T"};
 *   sk_maps *maps;
 *   sk_slice_source(src, NULL, 2, q, &opt, NULL, &maps, NULL, &err);
 *   sk_maps_write(maps, "slice_{var}.fits", NULL, NULL, NULL, &err);
 *
 * The result is an sk_maps (snapkit/project.h): its writers (FITS with a
 * WCS, .npy of shape (ny, nx), PNG) and accessors apply unchanged. The
 * image is laid out as an axis-aligned projection's: along x the image is
 * (y, z), along y (z, x), along z (x, y); row j of a map runs along the
 * image's first axis at the j-th pixel centre of its second axis.
 *
 * Off-axis (has_normal): the plane passes through `center` normal to
 * `normal`; the image's up is `north` made normal to it, its right up x
 * normal (the frame of an off-axis projection, and yt's cutting plane's:
 * east = north x normal). Pixel (i, j) is the point center + u right +
 * v up, u and v the pixel's centre in the window (below, with u0 and v0
 * from 0): the cell containing that point gives its value.
 *
 * Window. The image is centred on (center) and spans `width` box units
 * along its first axis in nx square pixels, and width * ny / nx along its
 * second; pixel i's centre is u0 + (i + 0.5) * (width / nx), u0 = the
 * centre's coordinate - width / 2. Each cell crossing the plane fills the
 * pixels whose centres fall in its square: work O(cells + pixels).
 *
 * Quantities: any column or derived quantity a projection takes as a field
 * (density, velocity_x, pressure, T, cs, v, passive scalars, level; Mera's
 * rho, vx, ...), in the units of `units` (as sk_project_options.units).
 *
 * Threads and sources. The maps come from the batches of a stream in any
 * order: leaf cells do not overlap, so every pixel is written by one cell
 * and the maps have the same bits on any thread count and from a RAMSES
 * output or its .snapkit file. sk_slice_source reads only the cells near
 * the plane and the window (the box widened by half the coarsest cell:
 * only the CPU files and chunks the plane crosses are opened).
 */
#ifndef SNAPKIT_SLICE_H
#define SNAPKIT_SLICE_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/project.h"
#include "snapkit/read.h"
#include "snapkit/select.h"
#include "snapkit/source.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_SLICE_MAX_PIXELS 65536

typedef struct sk_slice_options {
    int axis;               /* normal of the plane: 0, 1, 2 = x, y, z (default 2) */
    double at;              /* the plane's coordinate along the axis, box units, [0, 1) */
    double center[3];       /* the image's centre, box units (default the box's); only
                               the two coordinates across the axis count */
    int nx, ny;             /* pixels along the image's first and second axes (512) */
    double width;           /* box units along the first axis (default 1: the box) */
    char units[512];        /* units of the maps, as sk_project_options.units */
    char length_unit[16];   /* the unit to show lengths in (FITS axes, figures): a
                               physical length unit, "code" or "" (chosen from the width) */
    double mu;              /* mean molecular weight of T in K (<= 0: 1/0.76) */
    double gamma;           /* adiabatic index of cs (<= 0: the table's) */
    int64_t memory_budget;  /* bytes the maps may take (default 4 GiB) */
    int has_normal;         /* off-axis: the plane through `center` normal to `normal` */
    double normal[3];       /* any length > 0; `axis` and `at` are then ignored */
    int has_north;
    double north[3];        /* the image's up, made normal to `normal` (default: as an
                               off-axis projection's up, sk_project_options.up) */
} sk_slice_options;

/* Axis z through the box's centre, 512 x 512 pixels over the whole box. */
SK_API void sk_slice_options_init(sk_slice_options *opt);

/* SK_ERR_ARG, in one line, for a plane outside the box (off-axis: a
 * centre outside it), a zero normal or a north along it, an axis other than
 * 0..2, pixels outside 1..SK_SLICE_MAX_PIXELS, a width that is not a
 * positive number; SK_ERR_RANGE for maps of nq quantities above the budget. */
SK_API int sk_slice_check(const sk_slice_options *opt, int nq, sk_error *err);

/* The box (box units) of the cells whose centres a read must take: those
 * within half a coarsest cell (edge `coarsest`, box units) of the plane and
 * of the window, clipped to the box; lo <= centre < hi. */
SK_API void sk_slice_box(const sk_slice_options *opt, double coarsest, double lo[3],
                         double hi[3]);

/* The read of a slice from src: sel's box becomes sk_slice_box's with the
 * coarsest cell of the source's hydro cells, and its shape is dropped
 * (lmax and the variables stay). Off-axis: the shape becomes a disk about
 * the centre along the normal, as wide as the window's diagonal, widened
 * to hold every cell that meets it. */
SK_API int sk_slice_selection(const sk_source *src, const sk_slice_options *opt,
                              sk_selection *sel, sk_error *err);

/* A slice fed batch by batch from a stream of cells (any order, any thread):
 *
 *   sk_slice_stream *ss;
 *   sk_slice_stream_new(nq, q, &opt, &ss, &err);
 *   sk_consumer c = sk_slice_stream_consumer(ss);
 *   sk_source_stream(src, "hydro", &sel, NULL, &c, &stats, &err);
 *   sk_slice_stream_finish(ss, &maps, &err);
 *   sk_slice_stream_free(ss);
 *
 * The quantities are checked when the stream begins (an unknown one, or
 * sd, mass, weight, count: SK_ERR_ARG). finish: SK_ERR_EMPTY when no cell
 * crossing the plane reached the image. */
typedef struct sk_slice_stream sk_slice_stream;
SK_API int sk_slice_stream_new(int nq, const char *const *quantities,
                               const sk_slice_options *opt, sk_slice_stream **out,
                               sk_error *err);
SK_API sk_consumer sk_slice_stream_consumer(sk_slice_stream *ss);
SK_API int sk_slice_stream_finish(sk_slice_stream *ss, sk_maps **out, sk_error *err);
SK_API void sk_slice_stream_free(sk_slice_stream *ss);
/* finish under MPI, when each rank streamed its own share of the cells
 * (a source opened with sk_source_open_mpi): the ranks' pixels gathered,
 * each pixel's value the one cell's that reached it, bit for bit; rank 0
 * gets the maps, the other ranks *out NULL. Collective: every rank calls
 * it, with the rc of its stream (a failure on any rank fails all, with
 * that rank's error). SK_ERR_FORMAT when two ranks reached one pixel
 * (their shares overlap). On one process, sk_slice_stream_finish. */
SK_API int sk_slice_stream_finish_ranks(sk_slice_stream *ss, int rc, sk_maps **out,
                                        sk_error *err);

/* The slice of a cell table (level, cx, cy, cz; leaf cells). */
SK_API int sk_slice(const sk_table *table, int nq, const char *const *quantities,
                    const sk_slice_options *opt, sk_maps **out, sk_error *err);

/* The slice of a source's hydro cells: base (may be NULL) gives lmax and
 * the variables to read; its region is replaced by sk_slice_box's. ropt
 * and stats may be NULL. */
SK_API int sk_slice_source(sk_source *src, const sk_selection *base, int nq,
                           const char *const *quantities, const sk_slice_options *opt,
                           const sk_read_options *ropt, sk_maps **out, sk_read_stats *stats,
                           sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
