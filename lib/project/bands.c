/* The tiles strategy: the image is cut into bands of rows and each band
 * is deposited by one thread at a time into the one shared map, so there
 * are no private copies to clear and sum (issue 13: their per-pixel cost
 * ate the second thread's gain at >= 4 cells per pixel).
 *
 * The rows of the table are bucketed by band first: a row whose footprint
 * spans several bands is listed in each, and each band's deposit is cut to
 * its own rows. A coarse cell that adds to a block image (blocks.c) writes
 * one block, which every cell of that block reaches through the same band
 * (the band of the block's first image row), and the blocks are spread
 * after every band is done.
 *
 * Same bits on any thread count: every pixel receives its rows in table
 * order (the buckets keep it), every block its cells in table order, and
 * the spread adds blocks to pixels in a fixed order. That is also the
 * order of the one-thread pass (run.c), which needs no buckets.
 *
 * A streamed projection (stream_turns.c) keeps each batch's runs and
 * deposits a band's share of them (proj_bands_deposit) without buckets. */
#include <omp.h>
#include <stdint.h>

#include "project_internal.h"
#include "snapkit/memory.h"

#define NO_BAND UINT16_MAX
/* Bands per thread: enough for the dynamic schedule to even out a refined
 * region that fills a few bands, few enough that rows spanning two bands
 * (read twice, each time cut) stay rare. */
#define BANDS_PER_THREAD 4
/* Rows are listed by runs of consecutive rows: cells read from RAMSES or
 * a .snapkit file follow the Hilbert curve, so a run is a compact piece of
 * space that meets one band or two, and a band reads its runs' columns in
 * order instead of picking rows one by one. */
#define RUN 256
/* A run meeting this many bands or more (coarse cells, a table in no
 * spatial order) lists its rows one by one. */
#define RUN_SPAN 2


void proj_bands_plan(proj_bands *b, const proj_job *job, int threads)
{
    int ny = job->f.ny, n = threads * BANDS_PER_THREAD;
    if (n > ny)
        n = ny;
    if (n > NO_BAND - 1)
        n = NO_BAND - 1;
    b->shift = 0;
    while ((1 << b->shift) * n < ny)
        b->shift++;
    b->height = 1 << b->shift;
    b->nbands = (ny + b->height - 1) / b->height;
    b->fast = job->is_cells && job->f.axis >= 0 && !proj_is_point_kernel(job) && job->ndim != 1;
    b->nruns = (job->nrows + RUN - 1) / RUN;
}

/* floor(x) for |x| well inside int's range, without a call to libm. */
static inline int fast_floor(double x)
{
    int i = (int)x;
    return i - (x < i);
}

/* The band of image row floor(y), y clamped to the image. */
static int band_of(const proj_job *job, const proj_bands *b, double y)
{
    int j = fast_floor(proj_min(proj_max(y, 0.0), (double)job->f.ny - 0.5));
    return j >> b->shift;
}

/* Axis-aligned cells of rows [r0, r1): the bands their footprints meet,
 * a superset (selection is left to the deposits, which also cut each
 * band's rows; a block is written by one band, blocks.c). The arithmetic
 * of proj_item_of and proj_deposit_area, so that no row's rows fall
 * outside. */
static int cell_span(const proj_job *job, const proj_bands *b, int64_t r0, int64_t r1, int *lo,
                     int *hi)
{
    const proj_frame *f = &job->f;
    const int32_t *c = f->va == 0 ? job->cx : f->va == 1 ? job->cy : job->cz;
    double ylo = 1e300, yhi = -1e300, k = 0.5 * f->inv_pixel;
    for (int64_t r = r0; r < r1; r++) {
        int l = job->level[r];
        double v = (c ? (c[r] + 0.5) * job->inv_2l[l] : 0.5) * job->boxlen;
        double y = (v - f->v0) * f->inv_pixel, half = job->cell_size[l] * k;
        ylo = proj_min(ylo, y - half);
        yhi = proj_max(yhi, y + half);
    }
    if (!(yhi >= 0) || !(ylo < f->ny))
        return 0;
    *lo = band_of(job, b, ylo);
    *hi = band_of(job, b, yhi);
    return 1;
}

/* Row r's bands, those its footprint's image rows meet (axis-aligned
 * cells: a superset, as cell_span); 0 when it reaches no band. */
static int row_bands(const proj_job *job, const proj_bands *b, int64_t r, uint16_t *t0, uint16_t *t1)
{
    int i0, i1, j0, j1;
    if (b->fast) {
        int lo, hi;
        if (!cell_span(job, b, r, r + 1, &lo, &hi))
            return 0;
        *t0 = (uint16_t)lo;
        *t1 = (uint16_t)hi;
        return 1;
    }
    proj_item it;
    if (!proj_item_of(job, r, &it) || !proj_footprint(job, &it, &i0, &i1, &j0, &j1))
        return 0;
    *t0 = (uint16_t)(j0 >> b->shift);
    *t1 = (uint16_t)(j1 >> b->shift);
    return 1;
}

static int rows_span(proj_bands *b, int64_t r0, int64_t r1, int *lo, int *hi)
{
    int l = NO_BAND, h = -1;
    for (int64_t r = r0; r < r1; r++) {
        if (b->first[r] == NO_BAND)
            continue;
        l = b->first[r] < l ? b->first[r] : l;
        h = b->last[r] > h ? b->last[r] : h;
    }
    *lo = l;
    *hi = h;
    return h >= 0;
}

/* The runs [lo, hi) of a thread: every run's bands, and its rows' bands
 * when it is listed row by row (always for tables other than axis-aligned
 * cells, whose runs are cheap to bound). */
static void span_runs(const proj_job *job, proj_bands *b, int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi; i++) {
        int64_t r0 = i * RUN, r1 = r0 + RUN < job->nrows ? r0 + RUN : job->nrows;
        int tlo, thi, any = 0;
        if (b->fast)
            any = cell_span(job, b, r0, r1, &tlo, &thi);
        if (!b->fast || (any && thi - tlo >= RUN_SPAN)) {
            for (int64_t r = r0; r < r1; r++)
                if (!row_bands(job, b, r, &b->first[r], &b->last[r]))
                    b->first[r] = NO_BAND;
            any = rows_span(b, r0, r1, &tlo, &thi);
        }
        b->run_lo[i] = any ? (uint16_t)tlo : NO_BAND;
        b->run_hi[i] = any ? (uint16_t)thi : NO_BAND;
    }
}

/* Calls ADD(t, first row, rows) for the entries of runs [lo, hi), in the
 * same order in both passes. */
#define FOR_ENTRIES(job, b, lo, hi, ADD)                                             \
    for (int64_t i_ = (lo); i_ < (hi); i_++) {                                       \
        int64_t r0 = i_ * RUN, r1 = r0 + RUN < (job)->nrows ? r0 + RUN : (job)->nrows; \
        int tlo = (b)->run_lo[i_], thi = (b)->run_hi[i_];                            \
        if (tlo == NO_BAND)                                                          \
            continue;                                                                \
        if (thi - tlo < RUN_SPAN) {                                                  \
            for (int t = tlo; t <= thi; t++)                                         \
                ADD(t, r0, r1 - r0);                                                 \
            continue;                                                                \
        }                                                                            \
        for (int64_t r = r0; r < r1; r++)                                            \
            if ((b)->first[r] != NO_BAND)                                            \
                for (int t = (b)->first[r]; t <= (b)->last[r]; t++)                  \
                    ADD(t, r, 1);                                                    \
    }

/* Pass 1 (each thread over its share of the runs): the bands, then the
 * entries counted per thread and band. */
static void count_entries(const proj_job *job, proj_bands *b, int me, int nth)
{
    int64_t lo = b->nruns * me / nth, hi = b->nruns * (me + 1) / nth;
    int64_t *mine = b->count + (size_t)me * (size_t)b->nbands;
    span_runs(job, b, lo, hi);
#define COUNT(t, first_row, nrows) mine[t]++
    FOR_ENTRIES(job, b, lo, hi, COUNT)
#undef COUNT
}

/* Between the passes (one thread): band offsets, thread by thread inside
 * a band so that the buckets keep table order. */
static int64_t offsets(proj_bands *b, int nth)
{
    int64_t total = 0;
    for (int t = 0; t < b->nbands; t++) {
        b->start[t] = total;
        for (int k = 0; k < nth; k++) {
            int64_t *c = b->count + (size_t)k * (size_t)b->nbands + (size_t)t;
            int64_t n = *c;
            *c = total;
            total += n;
        }
    }
    b->start[b->nbands] = total;
    return total;
}

/* Pass 2: the entries into their buckets. */
static void fill_entries(const proj_job *job, proj_bands *b, int me, int nth)
{
    int64_t lo = b->nruns * me / nth, hi = b->nruns * (me + 1) / nth;
    int64_t *next = b->count + (size_t)me * (size_t)b->nbands;
#define FILL(t, first_row, nrows)                                                    \
    do {                                                                             \
        int64_t k_ = next[t]++;                                                      \
        b->idx[k_] = (uint32_t)(first_row);                                          \
        b->len[k_] = (uint16_t)(nrows);                                              \
    } while (0)
    FOR_ENTRIES(job, b, lo, hi, FILL)
#undef FILL
}

/* Deposits row r into band t's rows; 1 when it reached the image and t
 * is the band that counts it (one per row: the band of its centre's image
 * row, clamped, for axis-aligned cells; its first band for others), which
 * also counts it in tally (may be NULL) when it is selected. A row of a
 * run entry may miss band t: the deposit (axis-aligned cells) or its
 * bands (others) say so. */
static int deposit_one(const proj_job *job, const proj_bands *b, const proj_target *tg, int t,
                       int64_t r, double *coef, proj_tally *tally)
{
    proj_item it;
    int reached, mine;
    if (b->fast) {
        if (!proj_item_of(job, r, &it))
            return 0;
        proj_coefficients(job, r, &it, coef);
        reached = proj_deposit(job, tg, &it, coef);
        mine = band_of(job, b, (it.v - job->f.v0) * job->f.inv_pixel) == t;
    } else {
        if (!(b->first[r] <= t && t <= b->last[r]))
            return 0;
        reached = proj_deposit_item(job, tg, r, coef, &it);
        mine = b->first[r] == t && reached >= 0;
    }
    if (mine && tally)
        proj_tally_row(tally, job->is_cells ? job->level[r] : -1,
                       job->mass_src ? job->mass_src[r] * it.total : 0.0);
    return mine && reached > 0;
}

/* Rows [r0, r1) into band t's rows, as deposit_one each; cells on the
 * pixel grid with one mass slot go through the grid's own loop. */
static int64_t deposit_rows(const proj_job *job, const proj_bands *b, const proj_target *tg,
                            int t, int64_t r0, int64_t r1, double *coef, proj_tally *tally)
{
    int64_t n = 0;
    int grid = proj_grid_mass_only(job);
    for (int64_t r = r0; r < r1; r++) {
        if (grid && (r = proj_deposit_grid_mass(job, tg, r, r1, tally, &n)) == r1)
            break;
        n += deposit_one(job, b, tg, t, r, coef, tally);
    }
    return n;
}

void proj_band_rows(const proj_job *job, const proj_bands *b, int t, int *r0, int *r1)
{
    *r0 = t * b->height;
    *r1 = *r0 + b->height < job->f.ny ? *r0 + b->height : job->f.ny;
}

static int64_t deposit_bands(const proj_job *job, const proj_bands *b, double *acc, double *blk,
                             double *scratch)
{
    double coef[PROJ_MAX_SLOTS];
    int64_t n = 0;
#pragma omp for schedule(dynamic, 1) nowait
    for (int t = 0; t < b->nbands; t++) {
        int r0, r1;
        proj_band_rows(job, b, t, &r0, &r1);
        proj_target tg = proj_target_of(job, acc, r0, r1, scratch, blk);
        for (int64_t k = b->start[t]; k < b->start[t + 1]; k++)
            n += deposit_rows(job, b, &tg, t, b->idx[k], b->idx[k] + b->len[k], coef, NULL);
    }
    return n;
}

int64_t proj_bands_deposit(const proj_job *job, const proj_bands *b, const proj_target *tg,
                           int t, double *coef, proj_tally *tally)
{
    int64_t n = 0;
    for (int64_t i = 0; i < b->nruns; i++) {
        int64_t r0 = i * RUN, r1 = r0 + RUN < job->nrows ? r0 + RUN : job->nrows;
        int tlo = b->run_lo[i], thi = b->run_hi[i];
        if (tlo == NO_BAND || t < tlo || t > thi)
            continue;
        if (thi - tlo < RUN_SPAN) {
            n += deposit_rows(job, b, tg, t, r0, r1, coef, tally);
            continue;
        }
        for (int64_t r = r0; r < r1; r++)
            if (b->first[r] != NO_BAND && b->first[r] <= t && t <= b->last[r])
                n += deposit_rows(job, b, tg, t, r, r + 1, coef, tally);
    }
    return n;
}

void proj_bands_free(proj_bands *b)
{
    sk_free(b->run_lo);
    sk_free(b->run_hi);
    sk_free(b->first);
    sk_free(b->last);
    sk_free(b->count);
    sk_free(b->start);
    sk_free(b->idx);
    sk_free(b->len);
}

int64_t proj_bands_bytes(const proj_bands *b)
{
    return (int64_t)(sk_block_size(b->run_lo) + sk_block_size(b->run_hi) +
                     sk_block_size(b->first) + sk_block_size(b->last) +
                     sk_block_size(b->count) + sk_block_size(b->start) +
                     sk_block_size(b->idx) + sk_block_size(b->len));
}

void proj_bands_tally_rest(const proj_job *job, const proj_bands *b, proj_tally *tally)
{
    const double *m = job->mass_src;
    for (int64_t i = 0; i < b->nruns; i++) {
        int64_t r0 = i * RUN, r1 = r0 + RUN < job->nrows ? r0 + RUN : job->nrows;
        int listed = b->run_lo[i] != NO_BAND && b->run_hi[i] - b->run_lo[i] >= RUN_SPAN;
        if (!b->fast)
            listed = 1;
        if (b->run_lo[i] != NO_BAND && !listed)
            continue;
        proj_item it;
        for (int64_t r = r0; r < r1; r++)
            if ((!listed || b->first[r] == NO_BAND) && proj_item_of(job, r, &it))
                proj_tally_row(tally, job->is_cells ? job->level[r] : -1,
                               m ? m[r] * it.total : 0.0);
    }
}

static int runs_alloc(const proj_job *job, proj_bands *b)
{
    size_t runs = (size_t)b->nruns + 1, rows = (size_t)job->nrows + 1;
    b->run_lo = sk_malloc(runs * sizeof *b->run_lo);
    b->run_hi = sk_malloc(runs * sizeof *b->run_hi);
    b->first = sk_malloc(rows * sizeof *b->first);
    b->last = sk_malloc(rows * sizeof *b->last);
    return b->run_lo && b->run_hi && b->first && b->last;
}

int proj_bands_span_all(const proj_job *job, proj_bands *b, sk_error *err)
{
    if (!runs_alloc(job, b))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for a batch's bands");
    span_runs(job, b, 0, b->nruns);
    return SK_OK;
}

static int bands_alloc(const proj_job *job, proj_bands *b, int threads)
{
    b->count = sk_calloc((size_t)threads * (size_t)b->nbands, sizeof *b->count);
    b->start = sk_calloc((size_t)b->nbands + 1, sizeof *b->start);
    return runs_alloc(job, b) && b->count && b->start;
}

int proj_run_tiles(const proj_job *job, int threads, double **acc_out, int64_t *deposited,
                   int *used, int64_t *extra_bytes, sk_error *err)
{
    proj_bands b = {0};
    proj_bands_plan(&b, job, threads);
    size_t npix = proj_acc_doubles(job);
    double *acc = sk_calloc(npix + job->nblk + 1, sizeof(double));
    if (!bands_alloc(job, &b, threads) || !acc) {
        proj_bands_free(&b);
        sk_free(acc);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the maps and bands");
    }
    double *blk = job->nblk ? acc + npix : NULL;
    int64_t count = 0;
    int failed = 0, nthreads = 1;
    /* One parallel region: on a busy node every fork and barrier may wait
     * a time slice. */
#pragma omp parallel num_threads(threads) reduction(+ : count)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        double *scratch = sk_calloc(3 * (size_t)job->f.nx, sizeof(double));
        count_entries(job, &b, me, nth);
#pragma omp barrier
#pragma omp single
        {
            nthreads = nth;
            size_t entries = (size_t)offsets(&b, nth);
            b.idx = sk_malloc(entries * sizeof *b.idx + 1);
            b.len = sk_malloc(entries * sizeof *b.len + 1);
            failed = !b.idx || !b.len;
        }
#pragma omp atomic update
        failed |= !scratch;
#pragma omp barrier
        if (!failed) {
            fill_entries(job, &b, me, nth);
#pragma omp barrier
            count += deposit_bands(job, &b, acc, blk, scratch);
#pragma omp barrier
            if (blk)
                proj_blocks_spread(job, acc, blk);
        }
        sk_free(scratch);
    }
    *extra_bytes = proj_bands_bytes(&b);
    proj_bands_free(&b);
    if (failed) {
        sk_free(acc);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the bands' row lists");
    }
    *acc_out = acc;
    *deposited = count;
    *used = nthreads;
    return SK_OK;
}
