/* snapkit/clip.h - clipped reads: each cell counted by the part of its
 * volume inside the region, not all or nothing by its centre.
 *
 * A clipped read reads the selection widened (sk_clip_widen: every cell
 * that meets the region, whose centre may lie outside it), then gives each
 * cell a float64 column `clip`, the fraction of its volume inside the
 * region (sk_selection_cell_fraction, snapkit/select.h: exact for a box,
 * SK_CLIP_COLUMNS^2 columns, each exact along its length, for a shape's
 * surface), and drops the cells whose fraction is 0. The statistics weigh rows by that
 * column when a table has it (snapkit/colstats.h, snapkit/wstats.h,
 * snapkit/totals.h): mass and volume become mass x clip and volume x clip.
 * Cells only: particles are points, in or out by their position. */
#ifndef SNAPKIT_CLIP_H
#define SNAPKIT_CLIP_H

#include "snapkit/export.h"

#include "snapkit/error.h"
#include "snapkit/select.h"
#include "snapkit/source.h"
#include "snapkit/stream.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The column a clipped read adds. */
#define SK_CLIP_COLUMN "clip"

/* How the fractions of `region` are found: "exact" (a box only) or
 * "columns" (a shape: SK_CLIP_COLUMNS^2 columns per cut cell). A static
 * string. */
SK_API const char *sk_clip_rule(const sk_selection *region);

/* Widen sel (sk_selection_widen) by half the side of the coarsest cell
 * the source's `component` holds (its levelmin), so that a read with it
 * holds every cell meeting sel's region. */
SK_API int sk_clip_widen(const sk_source *src, const char *component, sk_selection *sel,
                         sk_error *err);

/* Add the column `clip` to a cell table (level, cx, cy, cz as the output
 * has axes; metadata ndim) read with the widened selection, and drop the
 * rows whose fraction of `region` (the selection before widening) is 0.
 * SK_ERR_ARG for a table without cells or with a `clip` column already. */
SK_API int sk_clip_table(const sk_selection *region, sk_table *t, sk_error *err);

/* The same for a stream: a consumer that hands each batch on to `inner`
 * with the column added and the rows of fraction 0 dropped (batches left
 * empty are not handed on; sk_batch_info's row and rows are 0: the rows
 * are no longer counted ahead). The stage copies region; free it with
 * sk_clip_stage_free after the stream. */
typedef struct sk_clip_stage sk_clip_stage;
SK_API int sk_clip_stage_new(const sk_selection *region, sk_clip_stage **out, sk_error *err);
SK_API sk_consumer sk_clip_stage_consumer(sk_clip_stage *stage, const sk_consumer *inner);
SK_API void sk_clip_stage_free(sk_clip_stage *stage);

#ifdef __cplusplus
}
#endif
#endif
