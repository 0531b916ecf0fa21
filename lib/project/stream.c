/* A projection fed by a stream (snapkit/stream.h): the maps of sk_project
 * on the whole table, bit for bit, while holding only the maps and the
 * batches in flight.
 *
 * Same bits: sk_project sums every pixel's rows in table order (on any
 * thread count, run.c and bands.c), and coarse cells into block images
 * spread at the end. Here every band of image rows deposits the batches
 * in index order, which is table order (stream_turns.c), so each pixel
 * and block sums its rows in that order on any thread count; the mass and
 * counts of the rows are summed exactly. The block images are planned for
 * every level and trimmed at the end to the levels the selected rows had,
 * as sk_project plans them. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"
#include "stream_internal.h"


static int copy_names(sk_project_stream *ps, int nq, const char *const *names, sk_error *err)
{
    if (nq < 1 || nq > SK_MAX_VARS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "1 to %d quantities, not %d", SK_MAX_VARS, nq);
    ps->nq = nq;
    for (int i = 0; i < nq; i++)
        if (!(ps->names[i] = sk_strdup(names[i] ? names[i] : "")))
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return SK_OK;
}

int sk_project_stream_new(int nq, const char *const *quantities, const sk_project_options *opt,
                          sk_project_stream **out, sk_error *err)
{
    *out = NULL;
    sk_project_stream *ps = sk_calloc(1, sizeof *ps);
    if (!ps)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (opt)
        ps->opt = *opt;
    else
        sk_project_options_init(&ps->opt);
    pthread_mutex_init(&ps->lock, NULL);
    pthread_cond_init(&ps->moved, NULL);
    ps->start = omp_get_wtime();
    int rc = copy_names(ps, nq, quantities, err);
    if (rc == SK_OK && ps->opt.res <= 0 && !(ps->opt.pixel > 0))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                     "a streamed projection needs res or pixel (the default, 2^lmax of the "
                     "data, is known only at the end): project the whole table");
    if (rc != SK_OK) {
        sk_project_stream_free(ps);
        return rc;
    }
    *out = ps;
    return SK_OK;
}

sk_table *proj_table_copy(const sk_table *t, int64_t nrows)
{
    sk_table *c = sk_table_new(nrows);
    sk_error e;
    if (!c || sk_table_meta_copy(c, t) != SK_OK) {
        sk_table_free(c);
        return NULL;
    }
    for (int i = 0; i < sk_table_ncols(t); i++) {
        const sk_column *col = sk_table_col(t, i);
        void *d = sk_table_add(c, col->name, col->type, &e);
        if (!d) {
            sk_table_free(c);
            return NULL;
        }
        if (nrows)
            memcpy(d, col->data, (size_t)nrows * sk_dtype_size(col->type));
    }
    return c;
}

void proj_tally_init(proj_tally *t)
{
    memset(t, 0, sizeof *t);
    t->min_level = PROJ_MAX_LEVEL;
}

void proj_tally_merge(proj_tally *a, proj_tally *b)
{
    an_bins_flush(&b->bins, &b->mass);
    b->nbins = 0;
    an_sum_merge(&a->mass, &b->mass);
    a->selected += b->selected;
    a->deposited += b->deposited;
    a->min_level = b->min_level < a->min_level ? b->min_level : a->min_level;
    a->max_level = b->max_level > a->max_level ? b->max_level : a->max_level;
}

/* The image's bands (one on one thread), and each thread's scratch and
 * tally; 0 when out of memory. */
static int plan_turns(sk_project_stream *ps, int nthreads)
{
    const proj_job *m = ps->master;
    if (nthreads > 1) {
        proj_bands_plan(&ps->plan, m, nthreads);
    } else {
        ps->plan.nbands = 1;
        ps->plan.height = m->f.ny;
    }
    ps->next = sk_calloc((size_t)ps->plan.nbands, sizeof *ps->next);
    ps->busy = sk_calloc((size_t)ps->plan.nbands, sizeof *ps->busy);
    ps->scratch = sk_calloc((size_t)nthreads, sizeof *ps->scratch);
    ps->tally = sk_calloc((size_t)nthreads, sizeof *ps->tally);
    if (!ps->next || !ps->busy || !ps->scratch || !ps->tally)
        return 0;
    for (int i = 0; i < nthreads; i++) {
        proj_tally_init(&ps->tally[i]);
        if (!(ps->scratch[i] = sk_calloc(3 * (size_t)m->f.nx, sizeof(double))))
            return 0;
    }
    return 1;
}

/* The schema's job places the image and plans the blocks of every level. */
static int stream_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_project_stream *ps = ctx;
    ps->nthreads = nthreads;
    if (nthreads < 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a stream of %d threads", nthreads);
    ps->schema = proj_table_copy(schema, 0);
    ps->master = sk_calloc(1, sizeof *ps->master);
    if (!ps->schema || !ps->master)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    proj_job *m = ps->master;
    int rc = proj_setup(m, ps->schema, ps->nq, (const char *const *)ps->names, &ps->opt, err);
    if (rc == SK_OK && m->is_cells && m->f.axis < 0 && m->kernel == SK_KERNEL_OVERLAP)
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                     "the overlap kernel is not streamed (its stamps follow the data's "
                     "levels): project the whole table");
    if (rc == SK_OK)
        rc = proj_place_grid(m, &ps->opt, 0, err);
    if (rc == SK_OK)
        rc = proj_check_budget(m, &ps->opt, err);
    if (rc != SK_OK)
        return rc;
    m->nblk = proj_blocks_plan(m, 0, PROJ_MAX_LEVEL);
    ps->npix = proj_acc_doubles(m);
    ps->acc = sk_calloc(ps->npix + m->nblk + 1, sizeof(double));
    return ps->acc && plan_turns(ps, nthreads) ? SK_OK
                                                : sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                                                          "out of memory for the maps");
}

sk_consumer sk_project_stream_consumer(sk_project_stream *ps)
{
    return (sk_consumer){.ctx = ps, .begin = stream_begin, .batch = proj_stream_batch};
}

/* The block images of the levels the selected rows had, as sk_project
 * plans them, spread onto the image. */
static void spread_blocks(sk_project_stream *ps, const proj_tally *tl)
{
    proj_job *m = ps->master;
    if (!m->nblk)
        return;
    m->block_finest = -1;
    for (int l = 0; l <= PROJ_MAX_LEVEL; l++) {
        if (l < tl->min_level || l > tl->max_level)
            m->blocks[l].k = 0;
        if (m->blocks[l].k)
            m->block_finest = l;
    }
    /* proj_blocks_spread shares its rows among the threads of a region */
#pragma omp parallel num_threads(m->threads)
    proj_blocks_spread(m, ps->acc, ps->acc + ps->npix);
}

int sk_project_stream_finish(sk_project_stream *ps, sk_maps **out, sk_error *err)
{
    *out = NULL;
    if (!ps || !ps->master || !ps->acc)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no stream was projected");
    proj_stream_drain(ps);
    proj_tally tl;
    proj_tally_init(&tl);
    for (int i = 0; i < ps->nthreads; i++)
        proj_tally_merge(&tl, &ps->tally[i]);
    int rc = SK_OK;
    if (tl.selected == 0)
        rc = sk_fail(err, SK_ERR_EMPTY, NULL, -1, "the selection holds none of the %lld rows",
                     (long long)ps->rows);
    int64_t acc_bytes = (int64_t)sk_block_size(ps->acc); /* the maps may take it */
    sk_maps *maps = rc == SK_OK ? sk_calloc(1, sizeof *maps) : NULL;
    if (rc == SK_OK && !maps)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK) {
        spread_blocks(ps, &tl);
        rc = proj_maps_finish(ps->master, &ps->acc, maps, err);
    }
    if (rc != SK_OK) {
        sk_maps_free(maps);
        return rc;
    }
    proj_job *m = ps->master;
    proj_scan s = {.rows = ps->rows, .selected = tl.selected, .min_level = tl.min_level,
                   .max_level = tl.max_level, .mass = m->mass_src ? an_sum_value(&tl.mass) : NAN,
                   .bad_row = -1};
    proj_fill_info(m, &ps->opt, &s, &maps->info);
    sk_maps_info *in = &maps->info;
    in->rows = ps->rows;
    in->deposited = tl.deposited;
    in->threads = ps->nthreads;
    snprintf(in->strategy, sizeof in->strategy, "stream");
    in->accumulator_bytes = acc_bytes + ps->held_peak;
    in->seconds = omp_get_wtime() - ps->start;
    *out = maps;
    return SK_OK;
}

void sk_project_stream_free(sk_project_stream *ps)
{
    if (!ps)
        return;
    for (int i = 0; i < ps->nq; i++)
        sk_free(ps->names[i]);
    for (int64_t k = 0; ps->slots && k < ps->nbatches; k++)
        proj_slot_free(ps->slots[k]);
    sk_free(ps->slots);
    sk_table_free(ps->schema);
    proj_job_free(ps->master);
    sk_free(ps->acc);
    for (int i = 0; ps->scratch && i < ps->nthreads; i++)
        sk_free(ps->scratch[i]);
    sk_free(ps->scratch);
    sk_free(ps->tally);
    sk_free(ps->next);
    sk_free(ps->busy);
    pthread_mutex_destroy(&ps->lock);
    pthread_cond_destroy(&ps->moved);
    sk_free(ps);
}
