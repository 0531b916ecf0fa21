/* Internal pieces of the projector, shared by the files of lib/project. */
#ifndef SNAPKIT_PROJECT_INTERNAL_H
#define SNAPKIT_PROJECT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/xsum.h"
#include "snapkit/util/json.h"
#include "snapkit/project.h"
#include "snapkit/units.h"

#define PROJ_MAX_LEVEL 62
/* Accumulator slots per pixel at most: every quantity plus mass, volume
 * and count. */
#define PROJ_MAX_SLOTS (SK_MAX_VARS + 3)

/* What a map's values measure; decides which units it accepts. */
typedef enum proj_dim {
    DIM_NONE = 0,
    DIM_COLUMN_DENSITY,
    DIM_MASS,
    DIM_VOLUME,
    DIM_VELOCITY,
    DIM_TEMPERATURE,
    DIM_DENSITY,
    DIM_PRESSURE,
    DIM_COUNT
} proj_dim;

typedef enum proj_qkind { Q_SD, Q_MASS, Q_WEIGHT, Q_COUNT, Q_FIELD } proj_qkind;

typedef struct proj_quantity {
    char name[64];            /* as asked */
    proj_qkind kind;
    const double *col;        /* Q_FIELD: the values as float64 */
    int slot;                 /* Q_FIELD: accumulator slot of the numerator */
    proj_dim dim;
    char unit[24];
    double factor;            /* code value -> unit */
} proj_quantity;

/* How a slot's per-row coefficient is made (it multiplies the row's
 * geometric weight: volume share for cells, fraction for particles). */
typedef enum proj_coef { C_MASS, C_VOLUME, C_MEAN_MASS, C_MEAN_VOLUME, C_SUM } proj_coef;

/* The image: orientation, window and pixel grid. Image coordinates (u, v)
 * are box coordinates along the image axes for axis-aligned maps, and
 * offsets from the centre along right/up for off-axis ones. */
typedef struct proj_frame {
    int axis;                 /* 0..2, or -1 off-axis */
    int ua, va, wa;           /* axis-aligned: coordinate index of u, v, line of sight */
    double los[3], right[3], up[3];
    double center[3];         /* code lengths */
    double sel_lo[3], sel_hi[3]; /* selection box, box units */
    int has_w;
    double w_lo, w_hi;        /* line-of-sight range from the centre, code lengths */
    double win_lo[2], win_hi[2]; /* window asked for, image coordinates */
    double half_u, half_v;    /* half footprint of a unit cube along right, up */
    double pixel, inv_pixel;  /* code lengths */
    double u0, v0;            /* lower-left corner of the image */
    int nx, ny;
} proj_frame;

/* The overlap kernel's samples of one level: every cell of a level has
 * the same chord lengths at the same offsets, so they are computed once,
 * already scaled so that a cell deposits its volume. */
typedef struct proj_stamp {
    int nu, nv;
    double hu, hv;            /* half footprint (code lengths) */
    double du, dv;            /* sample spacing */
    double *w;                /* nv rows of nu weights */
} proj_stamp;

/* Cells of one level seen along an axis as k x k blocks of pixels
 * (blocks.c); k = 0 when the level's cells are not whole blocks. */
typedef struct proj_blocks {
    int k;
    int offu, offv;           /* pixel offset of the first block (<= 0) */
    int nbu, nbv;             /* blocks across */
    size_t start;             /* first double of the level's block image */
} proj_blocks;

typedef struct proj_job {
    const sk_table *table;
    int threads;              /* the thread budget of this projection */
    int is_cells;
    int clip;                 /* cells meeting the region, weighted by depth inside */
    int64_t nrows;
    sk_units units;
    double boxlen;
    /* cells; a 2-D table (no cz) is a layer of columns of depth boxlen along z */
    const int32_t *level, *cx, *cy, *cz;
    int ndim;
    double cell_size[PROJ_MAX_LEVEL + 1]; /* code lengths */
    double inv_2l[PROJ_MAX_LEVEL + 1];    /* 1 / 2^level */
    /* particles */
    const double *pos[3];
    const int32_t *family;    /* NULL without a family filter */
    int want_family;
    /* mass per unit geometric weight: density (cells) or mass (particles) */
    const double *mass_src;
    double tfactor;           /* kelvin per code p/rho */
    /* float64 copies of non-float64 columns and derived quantities, freed with the job */
    void *owned[SK_MAX_VARS + 8];
    int nowned;

    proj_frame f;
    sk_proj_kernel kernel;    /* resolved: never AUTO; EXACT also stands for area (axis) */
    int overlap_max;
    proj_stamp stamp[PROJ_MAX_LEVEL + 1];
    proj_blocks blocks[PROJ_MAX_LEVEL + 1];
    int block_finest;         /* finest level with blocks, -1 for none */
    size_t nblk;              /* doubles of all block images (nacc per block) */
    int weight_volume, mode_sum;

    int nq;
    proj_quantity q[SK_MAX_VARS];
    int nlin;                 /* linear slots */
    proj_coef coef_kind[PROJ_MAX_SLOTS];
    int coef_q[PROJ_MAX_SLOTS];
    int slot_mass, slot_volume, slot_count; /* -1 when absent */
    int nacc;                 /* doubles per pixel: nlin + (count ? 1 : 0) */
    int grid_level;           /* P when the cells sit on a 2^P pixel grid (grid.c), else -1 */
    const int32_t *key_u, *key_v; /* the cell keys along the image axes (grid_level >= 0) */
} proj_job;

/* One row placed in the image. */
typedef struct proj_item {
    double u, v, w;           /* image coordinates and line-of-sight offset */
    double h;                 /* cell edge (0 for a particle) */
    int level;                /* cells */
    double total;             /* geometric total: cell volume, or 1 for a particle */
} proj_item;

/* Where a deposit writes: the accumulators of the whole image (nacc
 * doubles per pixel, row-major), only rows [r0, r1). */
typedef struct proj_target {
    double *acc;
    int r0, r1;
    double *row;              /* nx doubles of zeros, the thread's own scratch */
    double *fx, *g;           /* nx doubles each, the thread's own scratch */
    double *blk;              /* block images (NULL: deposit coarse cells pixel by pixel) */
} proj_target;

/* project.c: a job for a table (columns, units, quantities, orientation),
 * its release, and the maps' description from the selection's scan. */
typedef struct proj_scan {
    int64_t rows, selected;
    int min_level, max_level;
    double mass;
    int64_t bad_row;
} proj_scan;
int proj_setup(proj_job *job, const sk_table *table, int nq, const char *const *quantities,
               const sk_project_options *opt, sk_error *err);
void proj_job_free(proj_job *job);
/* SK_ERR_RANGE, saying what the maps need, when they exceed the budget. */
int proj_check_budget(const proj_job *job, const sk_project_options *opt, sk_error *err);
void proj_fill_info(const proj_job *job, const sk_project_options *opt, const proj_scan *s,
                    sk_maps_info *in);
/* The length unit to show maps in (sk_maps_info.length_unit): the region's
 * or pixel's unit when physical, else one the image's width spans. */
void proj_choose_length_unit(const sk_project_options *opt, const sk_maps_info *in, char *out,
                             size_t n);

/* run.c: the threaded pass (cells strategy, and the pieces bands.c shares) */
size_t proj_acc_doubles(const proj_job *job);
/* A target over image rows [r0, r1) with the thread's scratch (3 nx
 * doubles) and block images (or NULL). */
proj_target proj_target_of(const proj_job *job, double *acc, int r0, int r1, double *scratch,
                           double *blk);
/* Places and deposits row r (on the pixel grid when it can, grid.c),
 * filling it: -1 when the selection leaves the row out, else 1 when it
 * reached the image. */
int proj_deposit_item(const proj_job *job, const proj_target *t, int64_t r, double *coef,
                      proj_item *it);
/* Deposits row r; 1 when it reached the image. */
int64_t proj_deposit_row(const proj_job *job, const proj_target *t, int64_t r, double *coef);
/* bands.c: the tiles strategy. */
int proj_run_tiles(const proj_job *job, int threads, double **acc_out, int64_t *deposited,
                   int *used, int64_t *extra_bytes, sk_error *err);

typedef struct proj_tally proj_tally; /* below, with grid.c */

/* Bands of image rows, and the runs of consecutive rows of a table with
 * the bands each meets (bands.c). The tiles strategy lists each band's
 * runs in buckets; a stream (stream.c) keeps the runs of each batch. */
typedef struct proj_bands {
    int nbands, height;    /* bands of `height` = 2^shift image rows */
    int shift;
    int fast;              /* axis-aligned cells: bands bounded from the keys */
    int64_t nruns;
    uint16_t *run_lo, *run_hi; /* per run: first and last band met, NO_BAND: none */
    uint16_t *first, *last;    /* per row of a run listed row by row (every row when
                                  not fast); NO_BAND when not deposited */
    int64_t *count;        /* tiles: threads x nbands: entries, then each thread's next slot */
    int64_t *start;        /* tiles: nbands + 1 offsets into the entries */
    uint32_t *idx;         /* tiles: entries, band by band, in table order within a band: */
    uint16_t *len;         /* rows idx[k] .. idx[k] + len[k] - 1 */
} proj_bands;
/* The bands of job's image for `threads` threads, and its rows' runs
 * (none allocated yet). */
void proj_bands_plan(proj_bands *b, const proj_job *job, int threads);
/* Every run's bands (and its rows' where listed row by row), in arrays of
 * b's own (one thread). */
int proj_bands_span_all(const proj_job *job, proj_bands *b, sk_error *err);
/* The rows of the runs meeting band t deposited into tg (band t's image
 * rows), in table order; returns the rows counted in band t (each row
 * that reached the image is counted in one band), and counts the selected
 * rows of band t in tally (may be NULL). */
int64_t proj_bands_deposit(const proj_job *job, const proj_bands *b, const proj_target *tg,
                           int t, double *coef, proj_tally *tally);
/* Counts in tally the selected rows that no band's deposit reaches. */
void proj_bands_tally_rest(const proj_job *job, const proj_bands *b, proj_tally *tally);
/* The image rows of band t. */
void proj_band_rows(const proj_job *job, const proj_bands *b, int t, int *r0, int *r1);
void proj_bands_free(proj_bands *b);
int64_t proj_bands_bytes(const proj_bands *b);

/* quantity.c */
int proj_quantities_resolve(proj_job *job, int nq, const char *const *names,
                            const sk_project_options *opt, sk_error *err);
int proj_units_apply(proj_job *job, const char *spec, sk_error *err);
void proj_coefficients(const proj_job *job, int64_t row, const proj_item *it, double *coef);
const char *proj_quantity_what(const proj_job *job, const proj_quantity *q);
int proj_dim_positive(proj_dim dim);

/* grid.c: cells on the pixel grid. proj_grid_plan (called by
 * proj_place_grid) sets grid_level; proj_deposit_grid deposits row r as
 * proj_item_of + proj_coefficients + proj_deposit would, bit for bit,
 * filling it's level, h and total and coef: 1 when it reached the image,
 * -1 when the row needs the general path. */
void proj_grid_plan(proj_job *job);
/* What a pass over rows counts: rows selected and deposited, their levels
 * and the mass they carry, summed exactly (the same bits whatever the
 * batches, the threads and the rows' order). */
typedef struct proj_tally {
    int64_t selected, deposited;
    int min_level, max_level;
    an_sum mass;
    an_bins bins;             /* the way into mass */
    int nbins;                /* values in bins since the last flush */
} proj_tally;
void proj_tally_init(proj_tally *t);
/* Count a selected row of level `level` (cells; else any) and mass m. */
static inline void proj_tally_row(proj_tally *t, int level, double m)
{
    t->selected++;
    t->min_level = level < t->min_level ? level : t->min_level;
    t->max_level = level > t->max_level ? level : t->max_level;
    an_bins_add(&t->bins, &t->mass, m);
    if (++t->nbins == XS_BIN_ADDS) {
        an_bins_flush(&t->bins, &t->mass);
        t->nbins = 0;
    }
}
/* a += b (b's bins flushed first). */
void proj_tally_merge(proj_tally *a, proj_tally *b);
/* Does proj_deposit_grid_mass apply: cells on the grid, one slot (mass:
 * a surface density or mass map)? */
int proj_grid_mass_only(const proj_job *job);
/* Rows r0.. up to r1 deposited as proj_deposit_grid would, bit for bit,
 * in a loop without the general path's per-row calls (most of a streamed
 * density projection's deposit time); stops at the first row that needs
 * the general path and returns it (r1 when none). Adds to *written the
 * rows that wrote into t's image rows (a block: its first row), and
 * counts those in tally (may be NULL). */
int64_t proj_deposit_grid_mass(const proj_job *job, const proj_target *t, int64_t r0,
                               int64_t r1, proj_tally *tally, int64_t *written);
int proj_deposit_grid(const proj_job *job, const proj_target *t, int64_t r, double *coef,
                      proj_item *it);
/* geometry.c */
int proj_orient(proj_job *job, const sk_project_options *opt, sk_error *err);
int proj_place_grid(proj_job *job, const sk_project_options *opt, int data_lmax, sk_error *err);
/* Row `row` as an item; 0 when it is not selected. */
int proj_item_of(const proj_job *job, int64_t row, proj_item *it);
/* Rows [j0, j1] and columns [i0, i1] of the image the item's deposit may
 * touch, clipped to the image; 0 when it touches none. */
int proj_footprint(const proj_job *job, const proj_item *it, int *i0, int *i1, int *j0, int *j1);
/* Does the job deposit points (particles, or cells with cic/ngp)? */
int proj_is_point_kernel(const proj_job *job);

/* deposit.c: axis-aligned area and point kernels, and the dispatcher.
 * Each returns whether the item's footprint reaches the image (the same
 * answer as proj_footprint, whatever rows the target holds). */
int proj_deposit(const proj_job *job, const proj_target *t, const proj_item *it,
                 const double *coef);
int proj_deposit_area(const proj_job *job, const proj_target *t, const proj_item *it,
                      const double *coef);
int proj_deposit_point(const proj_job *job, const proj_target *t, const proj_item *it,
                       const double *coef, int cic);

/* Add g[i] times each coefficient to pixels [i0, i1) of row j; the count
 * grows where g[i] > 0. */
void proj_add_row(const proj_job *job, const proj_target *t, int j, int i0, int i1,
                  const double *g, const double *coef);

/* offaxis.c: cubes seen along any direction */
int proj_deposit_exact(const proj_job *job, const proj_target *t, const proj_item *it,
                       const double *coef);
int proj_deposit_overlap(const proj_job *job, const proj_target *t, const proj_item *it,
                         const double *coef);
/* The overlap stamps of levels [lo, hi]; proj_stamps_free releases them. */
int proj_stamps_make(proj_job *job, int lo, int hi, sk_error *err);
void proj_stamps_free(proj_job *job);

/* min and max that compile to one instruction (fmin/fmax also order NaNs). */
/* What an item deposits on the image: its total, except for a 1-D slab
 * (across y and z), of which the profile's strip of one pixel's height
 * holds pixel / boxlen. */
static inline double proj_item_total(const proj_job *job, const proj_item *it)
{
    return job->is_cells && job->ndim == 1 ? it->total * job->f.pixel / job->boxlen : it->total;
}

static inline double proj_min(double a, double b)
{
    return a < b ? a : b;
}

static inline double proj_max(double a, double b)
{
    return a > b ? a : b;
}

/* Add weight g times each coefficient to the pixel (i, j). */
static inline void proj_add(const proj_job *job, const proj_target *t, int i, int j, double g,
                            const double *coef)
{
    double *a = t->acc + ((size_t)j * (size_t)job->f.nx + (size_t)i) * (size_t)job->nacc;
    for (int k = 0; k < job->nlin; k++)
        a[k] += coef[k] * g;
    if (job->slot_count >= 0)
        a[job->slot_count] += 1.0;
}

/* A cell of total geometric weight `total` onto its k x k block at a:
 * each of the block's pixels holds 1/k^2 of it. */
static inline void proj_block_add(const proj_job *job, double *a, double total, int k,
                                  const double *coef)
{
    double g = total / ((double)k * k);
    for (int s = 0; s < job->nlin; s++)
        a[s] += coef[s] * g;
    if (job->slot_count >= 0)
        a[job->slot_count] += 1.0;
}
/* blocks.c: plan the block images of the data's levels [lo, hi] (returns
 * their doubles), deposit a cell of a block level, and spread the block
 * images onto the image (work shared among the threads of the enclosing
 * parallel region). */
size_t proj_blocks_plan(proj_job *job, int lo, int hi);
int proj_blocks_deposit(const proj_job *job, const proj_target *t, const proj_item *it,
                        const double *coef);
void proj_blocks_spread(const proj_job *job, double *acc, double *blk);

/* run.c: the threaded pass; fills acc (nacc doubles per pixel). */
int proj_run(proj_job *job, const sk_project_options *opt, double **acc_out,
             sk_maps_info *info, sk_error *err);
/* Bytes of the accumulators and maps of an nx x ny image. */
double proj_image_bytes(const proj_job *job, int nmaps);

/* maps.c */
struct sk_map_entry {
    char name[64];
    char unit[24];
    char what[64];
    proj_dim dim;
    double *data;
};
struct sk_maps {
    int nx, ny;
    int no_fsync;             /* sk_maps_set_fsync(maps, 0) */
    int nmaps;
    struct sk_map_entry *maps;
    sk_maps_info info;
};
/* The maps from the accumulators *acc; with one slot a pixel the first
 * map takes *acc over (set to NULL), else *acc stays the caller's. */
int proj_maps_finish(proj_job *job, double **acc, sk_maps *maps, sk_error *err);

/* maps.c: finite minimum and maximum of map i, and of its positive values
 * (NaN when none), in one pass; only JSON and PNG output need them. */
typedef struct proj_range {
    double lo, hi, plo, phi;
} proj_range;
void proj_map_range(const sk_maps *maps, int i, proj_range *r);

/* png.c: map i coloured as the bare PNG, handed to writer, and PATH.json. */
int proj_write_picture(const sk_maps *maps, int i, const char *path, const sk_image_options *img,
                       sk_picture_writer writer, void *ctx, sk_error *err);


#endif
