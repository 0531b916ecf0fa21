/* A projection fed by a stream (snapkit/stream.h): the maps of sk_project
 * on the whole table, bit for bit, while holding only the maps and the
 * batches in flight.
 *
 * Same bits: sk_project sums every pixel's rows in table order (on any
 * thread count, run.c and bands.c), and coarse cells into block images
 * spread at the end. Here the batches are deposited one at a time in index
 * order, which is table order, by whichever thread brings the next one; a
 * batch that arrives before its turn is copied and deposited when its turn
 * comes. While a deposit is under way and `threads` copies already wait,
 * a thread bringing another one waits for the turns to move instead of
 * copying, so the copies stay O(threads x largest batch) when depositing
 * is slower than reading. A batch the stream never hands over (its
 * selection holds no row) leaves the later ones waiting as copies until
 * the end: correct, but no longer lean. The block images are planned for every level and trimmed at the
 * end to the levels the selected rows had, as sk_project plans them. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "project_internal.h"
#include "snapkit/memory.h"

struct sk_project_stream {
    int nq;
    char *names[SK_MAX_VARS];
    sk_project_options opt;
    sk_table *schema;       /* the batches' columns (0 rows) and metadata */
    proj_job *master;       /* the job of the schema: quantities, frame, blocks */
    double *acc, *scratch;  /* the image's accumulators (then block images); a row's scratch */
    size_t npix;
    int nthreads;
    double start;

    pthread_mutex_t lock;
    pthread_cond_t moved;   /* `next` or `depositing` changed */
    int depositing;         /* a thread is depositing its turns */
    int nwaiting;           /* early copies held */
    int64_t next;           /* the batch index whose turn it is */
    int64_t nbatches;
    sk_table **waiting;     /* nbatches: copies of batches that came early */
    int64_t waiting_bytes, waiting_peak;

    /* what sk_project's scan and pass count, over the deposited batches */
    int64_t rows;
    proj_tally tally;
    int failed;
    sk_error err;           /* the first failure of a deposit */
};

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
    ps->tally.min_level = PROJ_MAX_LEVEL;
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

static sk_table *copy_table(const sk_table *t, int64_t nrows)
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

/* The schema's job places the image and plans the blocks of every level. */
static int stream_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    sk_project_stream *ps = ctx;
    ps->nthreads = nthreads;
    ps->schema = copy_table(schema, 0);
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
    ps->scratch = sk_calloc(3 * (size_t)m->f.nx, sizeof(double));
    if (!ps->acc || !ps->scratch)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the maps");
    return SK_OK;
}

/* One batch's rows onto the image, as sk_project's pass does them. */
static int deposit(sk_project_stream *ps, const sk_table *batch, sk_error *err)
{
    proj_job *job = sk_calloc(1, sizeof *job);
    if (!job)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    sk_project_options one = ps->opt;
    one.threads = 1;
    int rc = proj_setup(job, batch, ps->nq, (const char *const *)ps->names, &one, err);
    if (rc == SK_OK)
        rc = proj_place_grid(job, &one, 0, err);
    if (rc == SK_OK) {
        const proj_job *m = ps->master;
        memcpy(job->blocks, m->blocks, sizeof job->blocks);
        job->block_finest = m->block_finest;
        job->nblk = m->nblk;
        proj_target t = proj_target_of(job, ps->acc, 0, job->f.ny, ps->scratch,
                                       job->nblk ? ps->acc + ps->npix : NULL);
        double coef[PROJ_MAX_SLOTS];
        const double *mass = job->mass_src;
        proj_tally *tl = &ps->tally;
        int fast = proj_grid_mass_only(job, &t);
        for (int64_t r = 0; r < job->nrows && rc == SK_OK; r++) {
            if (fast && (r = proj_deposit_grid_mass(job, &t, r, job->nrows, tl)) == job->nrows)
                break;
            if (job->is_cells && (job->level[r] < 0 || job->level[r] > PROJ_MAX_LEVEL)) {
                rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "row %lld has level %d, outside 0..%d",
                             (long long)(ps->rows + r), job->level[r], PROJ_MAX_LEVEL);
                break;
            }
            proj_item it;
            int reached = proj_deposit_item(job, &t, r, coef, &it);
            if (reached < 0)
                continue;
            tl->selected++;
            if (job->is_cells) {
                tl->min_level = job->level[r] < tl->min_level ? job->level[r] : tl->min_level;
                tl->max_level = job->level[r] > tl->max_level ? job->level[r] : tl->max_level;
            }
            if (mass)
                tl->mass += mass[r] * it.total;
            tl->deposited += reached;
        }
        ps->rows += job->nrows;
    }
    proj_job_free(job);
    return rc;
}

/* Deposits batches while it is their turn: b first (it is its turn),
 * then the copies waiting for the turns after it. Called with the lock
 * held, released around each deposit: meanwhile other threads only leave
 * copies, since `next` names a batch this thread holds. */
static int deposit_turns(sk_project_stream *ps, const sk_table *b, sk_error *err)
{
    sk_table *copy = NULL; /* b, when it is a waiting copy */
    int rc = SK_OK;
    ps->depositing = 1;
    while (b) {
        pthread_mutex_unlock(&ps->lock);
        if (rc == SK_OK)
            rc = deposit(ps, b, err);
        sk_table_free(copy);
        pthread_mutex_lock(&ps->lock);
        ps->next++;
        copy = ps->next < ps->nbatches ? ps->waiting[ps->next] : NULL;
        if (copy) {
            ps->waiting[ps->next] = NULL;
            ps->waiting_bytes -= sk_table_bytes(copy);
            ps->nwaiting--;
        }
        b = copy;
        pthread_cond_broadcast(&ps->moved);
    }
    ps->depositing = 0;
    pthread_cond_broadcast(&ps->moved);
    return rc;
}

static int stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                        sk_error *err)
{
    (void)thread;
    sk_project_stream *ps = ctx;
    int rc = SK_OK;
    pthread_mutex_lock(&ps->lock);
    if (!ps->waiting) {
        ps->nbatches = info->nbatches;
        ps->waiting = sk_calloc((size_t)ps->nbatches + 1, sizeof *ps->waiting);
        if (!ps->waiting)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    /* Too many copies while the turns move: wait for them (never when
     * nobody deposits: the turn may belong to a batch that never comes). */
    while (rc == SK_OK && info->index != ps->next && ps->depositing &&
           ps->nwaiting >= ps->nthreads)
        pthread_cond_wait(&ps->moved, &ps->lock);
    if (rc == SK_OK && info->index == ps->next) {
        rc = deposit_turns(ps, batch, err);
    } else if (rc == SK_OK && info->index > ps->next && info->index < ps->nbatches) {
        sk_table *c = copy_table(batch, sk_table_nrows(batch));
        if (!c) {
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for a batch's copy");
        } else {
            ps->waiting[info->index] = c;
            ps->nwaiting++;
            ps->waiting_bytes += sk_table_bytes(c);
            if (ps->waiting_bytes > ps->waiting_peak)
                ps->waiting_peak = ps->waiting_bytes;
        }
    } else if (rc == SK_OK) {
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "batch %lld came twice or out of range",
                     (long long)info->index);
    }
    pthread_mutex_unlock(&ps->lock);
    return rc;
}

sk_consumer sk_project_stream_consumer(sk_project_stream *ps)
{
    return (sk_consumer){.ctx = ps, .begin = stream_begin, .batch = stream_batch};
}

/* The copies still waiting (behind a batch that never came), in order. */
static int drain(sk_project_stream *ps, sk_error *err)
{
    int rc = SK_OK;
    for (int64_t k = ps->next; k < ps->nbatches; k++) {
        sk_table *c = ps->waiting[k];
        ps->waiting[k] = NULL;
        if (c && rc == SK_OK)
            rc = deposit(ps, c, err);
        sk_table_free(c);
    }
    ps->waiting_bytes = 0;
    return rc;
}

/* The block images of the levels the selected rows had, as sk_project
 * plans them, spread onto the image. */
static void spread_blocks(sk_project_stream *ps)
{
    proj_job *m = ps->master;
    if (!m->nblk)
        return;
    m->block_finest = -1;
    for (int l = 0; l <= PROJ_MAX_LEVEL; l++) {
        if (l < ps->tally.min_level || l > ps->tally.max_level)
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
    int rc = drain(ps, err);
    if (rc == SK_OK && ps->tally.selected == 0)
        rc = sk_fail(err, SK_ERR_EMPTY, NULL, -1, "the selection holds none of the %lld rows",
                     (long long)ps->rows);
    int64_t acc_bytes = (int64_t)sk_block_size(ps->acc); /* the maps may take it */
    sk_maps *maps = rc == SK_OK ? sk_calloc(1, sizeof *maps) : NULL;
    if (rc == SK_OK && !maps)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK) {
        spread_blocks(ps);
        rc = proj_maps_finish(ps->master, &ps->acc, maps, err);
    }
    if (rc != SK_OK) {
        sk_maps_free(maps);
        return rc;
    }
    proj_job *m = ps->master;
    const proj_tally *tl = &ps->tally;
    proj_scan s = {.rows = ps->rows, .selected = tl->selected, .min_level = tl->min_level,
                   .max_level = tl->max_level, .mass = m->mass_src ? tl->mass : NAN,
                   .bad_row = -1};
    proj_fill_info(m, &ps->opt, &s, &maps->info);
    sk_maps_info *in = &maps->info;
    in->rows = ps->rows;
    in->deposited = tl->deposited;
    in->threads = ps->nthreads;
    snprintf(in->strategy, sizeof in->strategy, "stream");
    in->accumulator_bytes = acc_bytes + ps->waiting_peak;
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
    for (int64_t k = 0; ps->waiting && k < ps->nbatches; k++)
        sk_table_free(ps->waiting[k]);
    sk_free(ps->waiting);
    sk_table_free(ps->schema);
    proj_job_free(ps->master);
    sk_free(ps->acc);
    sk_free(ps->scratch);
    pthread_mutex_destroy(&ps->lock);
    pthread_cond_destroy(&ps->moved);
    sk_free(ps);
}
