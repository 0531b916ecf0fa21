/* The turns of a streamed projection: the image is cut into bands of
 * rows (bands.c), each band deposits the batches in index order, and any
 * thread deposits into any band that is free and whose next batch has
 * come. A pixel thus sums its rows in table order, as sk_project's pass
 * does, whatever the thread count, and the threads that read the batches
 * also deposit them, on as many bands at once as there are threads.
 *
 * A batch stays with its thread (no copy) while bands deposit it; the
 * thread helps with any band's turn meanwhile and returns when every band
 * has deposited its batch. When it can do nothing (no band free whose
 * batch has come), it copies its batch and goes on reading, unless
 * `nthreads` copies already wait and a band is at work (then it waits for
 * the turns to move): copies stay O(threads x largest batch). A batch the
 * stream never hands over (its selection holds no row) holds every band
 * at its index: the later ones wait as copies until the end (correct, no
 * longer lean), as with one band. */
#include <omp.h>
#include <string.h>

#include "snapkit/memory.h"
#include "stream_internal.h"

/* A job for the rows of t: the master's quantities and frame, its blocks. */
static int batch_job(const sk_project_stream *ps, const sk_table *t, proj_job **out,
                     sk_error *err)
{
    proj_job *job = sk_calloc(1, sizeof *job);
    *out = job;
    if (!job)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    sk_project_options one = ps->opt;
    one.threads = 1;
    int rc = proj_setup(job, t, ps->nq, (const char *const *)ps->names, &one, err);
    if (rc == SK_OK)
        rc = proj_place_grid(job, &one, 0, err);
    if (rc == SK_OK) {
        const proj_job *m = ps->master;
        memcpy(job->blocks, m->blocks, sizeof job->blocks);
        job->block_finest = m->block_finest;
        job->nblk = m->nblk;
    }
    return rc;
}

static int check_levels(const proj_job *job, const sk_batch_info *info, sk_error *err)
{
    for (int64_t r = 0; job->is_cells && r < job->nrows; r++) {
        if (job->level[r] >= 0 && job->level[r] <= PROJ_MAX_LEVEL)
            continue;
        if (info->rows > 0)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "row %lld has level %d, outside 0..%d",
                           (long long)(info->row + r), job->level[r], PROJ_MAX_LEVEL);
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "row %lld of batch %lld has level %d, outside 0..%d", (long long)r,
                       (long long)info->index, job->level[r], PROJ_MAX_LEVEL);
    }
    return SK_OK;
}

void proj_slot_free(proj_slot *s)
{
    if (!s)
        return;
    proj_job_free(s->job);
    sk_table_free(s->copy);
    proj_bands_free(&s->bands);
    sk_free(s->meets);
    sk_free(s);
}

/* The bands the batch's runs meet: the others pass it by. */
static int mark_bands(proj_slot *s, sk_error *err)
{
    const proj_bands *b = &s->bands;
    if (!(s->meets = sk_calloc((size_t)b->nbands, 1)))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int64_t i = 0; i < b->nruns; i++)
        for (int t = b->run_lo[i]; t < b->nbands && t <= b->run_hi[i]; t++) /* NO_BAND: none */
            s->meets[t] = 1;
    return SK_OK;
}

/* The batch's job, its levels checked, and with several bands its runs'
 * bands and the tally of the rows no band reaches (the work of its own thread, outside the lock). */
static int prepare(sk_project_stream *ps, int thread, const sk_table *batch,
                   const sk_batch_info *info, proj_slot **out, sk_error *err)
{
    proj_slot *s = sk_calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    s->index = info->index;
    int rc = batch_job(ps, batch, &s->job, err);
    if (rc == SK_OK)
        rc = check_levels(s->job, info, err);
    if (rc == SK_OK && ps->plan.nbands > 1) {
        proj_bands_plan(&s->bands, s->job, ps->nthreads);
        rc = proj_bands_span_all(s->job, &s->bands, err);
        if (rc == SK_OK)
            proj_bands_tally_rest(s->job, &s->bands, &ps->tally[thread]);
    }
    if (rc == SK_OK && ps->plan.nbands > 1)
        rc = mark_bands(s, err);
    return rc;
}

/* The whole image in one band: the rows in order, counted as they go. */
static void deposit_all(sk_project_stream *ps, int thread, const proj_job *job)
{
    proj_target t = proj_target_of(job, ps->acc, 0, job->f.ny, ps->scratch[thread],
                                   job->nblk ? ps->acc + ps->npix : NULL);
    proj_tally *tl = &ps->tally[thread];
    double coef[PROJ_MAX_SLOTS];
    const double *mass = job->mass_src;
    int fast = proj_grid_mass_only(job);
    for (int64_t r = 0; r < job->nrows; r++) {
        if (fast && (r = proj_deposit_grid_mass(job, &t, r, job->nrows, tl, &tl->deposited)) ==
                        job->nrows)
            break;
        proj_item it;
        int reached = proj_deposit_item(job, &t, r, coef, &it);
        if (reached < 0)
            continue;
        proj_tally_row(tl, job->is_cells ? job->level[r] : -1, mass ? mass[r] * it.total : 0.0);
        tl->deposited += reached;
    }
}

/* Batch s into band t, by `thread`. */
static void deposit_band(sk_project_stream *ps, int thread, const proj_slot *s, int t)
{
    if (ps->plan.nbands == 1) {
        deposit_all(ps, thread, s->job);
        return;
    }
    const proj_job *job = s->job;
    int r0, r1;
    proj_band_rows(job, &s->bands, t, &r0, &r1);
    proj_target tg = proj_target_of(job, ps->acc, r0, r1, ps->scratch[thread],
                                    job->nblk ? ps->acc + ps->npix : NULL);
    double coef[PROJ_MAX_SLOTS];
    proj_tally *tl = &ps->tally[thread];
    tl->deposited += proj_bands_deposit(job, &s->bands, &tg, t, coef, tl);
}

/* The band that may deposit now (free, its next batch come and not being
 * copied), the furthest behind; -1 for none. */
static int pick_band(const sk_project_stream *ps)
{
    int best = -1;
    for (int t = 0; t < ps->plan.nbands; t++) {
        int64_t k = ps->next[t];
        if (ps->busy[t] || k >= ps->nbatches || !ps->slots[k] || ps->slots[k]->frozen)
            continue;
        if (best < 0 || k < ps->next[best])
            best = t;
    }
    return best;
}

/* Band t is done with its next batch, and that batch with every band
 * once the last is (called with the lock held). */
static void band_done(sk_project_stream *ps, int t)
{
    int64_t k = ps->next[t]++;
    proj_slot *s = ps->slots[k];
    if (--s->left > 0)
        return;
    ps->slots[k] = NULL;
    if (s->copy) { /* its thread has gone; else it frees its own */
        ps->ncopies--;
        ps->held_bytes -= s->bytes;
        proj_slot_free(s);
    }
}

/* Free bands pass by the batches that have no rows of theirs. */
static void pass_by(sk_project_stream *ps)
{
    for (int t = 0; t < ps->plan.nbands; t++) {
        proj_slot *s;
        while (!ps->busy[t] && ps->next[t] < ps->nbatches && (s = ps->slots[ps->next[t]]) &&
               s->meets && !s->meets[t])
            band_done(ps, t);
    }
}

/* Band t's turn (called and returning with the lock held). */
static void deposit_turn(sk_project_stream *ps, int thread, int t)
{
    proj_slot *s = ps->slots[ps->next[t]];
    ps->busy[t] = 1;
    ps->nbusy++;
    s->users++;
    pthread_mutex_unlock(&ps->lock);
    deposit_band(ps, thread, s, t);
    pthread_mutex_lock(&ps->lock);
    ps->busy[t] = 0;
    ps->nbusy--;
    s->users--;
    band_done(ps, t);
    pass_by(ps);
    pthread_cond_broadcast(&ps->moved);
}

/* Copy the batch of slot s, so that its thread may go on reading (called
 * and returning with the lock held; no band uses s). The copy is not kept
 * when the bands passed the batch by meanwhile. */
static int leave_copy(sk_project_stream *ps, proj_slot *s, const sk_table *batch,
                      sk_error *err)
{
    s->frozen = 1;
    ps->ncopies++;
    pthread_mutex_unlock(&ps->lock);
    sk_table *c = proj_table_copy(batch, sk_table_nrows(batch));
    proj_job *job = NULL;
    int rc = c ? batch_job(ps, c, &job, err)
               : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for a batch's copy");
    pthread_mutex_lock(&ps->lock);
    s->frozen = 0;
    if (rc != SK_OK || s->left == 0) { /* failed, or every band passed it by meanwhile */
        ps->ncopies--;
        ps->slots[s->index] = NULL;
        proj_job_free(job);
        sk_table_free(c);
    } else {
        proj_job_free(s->job);
        s->job = job;
        s->copy = c;
        s->bytes = sk_table_bytes(c);
        ps->held_bytes += s->bytes;
        if (ps->held_bytes > ps->held_peak)
            ps->held_peak = ps->held_bytes;
    }
    pthread_cond_broadcast(&ps->moved);
    return rc;
}

/* The slots, once the first batch tells how many batches there are. */
static int make_slots(sk_project_stream *ps, const sk_batch_info *info, sk_error *err)
{
    int rc = SK_OK;
    pthread_mutex_lock(&ps->lock);
    if (!ps->slots) {
        ps->nbatches = info->nbatches;
        ps->slots = sk_calloc((size_t)ps->nbatches + 1, sizeof *ps->slots);
        if (!ps->slots)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    pthread_mutex_unlock(&ps->lock);
    return rc;
}

/* The batch joins the slots; its thread takes turns until every band has
 * deposited it, or leaves a copy. Called with the lock held. */
static int take_turns(sk_project_stream *ps, int thread, proj_slot *s, const sk_table *batch,
                      sk_error *err)
{
    s->left = ps->plan.nbands;
    ps->slots[s->index] = s;
    pass_by(ps);
    pthread_cond_broadcast(&ps->moved);
    while (s->left > 0) {
        int t = pick_band(ps);
        if (t >= 0) {
            deposit_turn(ps, thread, t);
        } else if (s->users > 0 || (ps->nbusy > 0 && ps->ncopies >= ps->nthreads)) {
            pthread_cond_wait(&ps->moved, &ps->lock);
        } else {
            int rc = leave_copy(ps, s, batch, err);
            if (rc == SK_OK && s->copy)
                return SK_OK; /* the slot waits for its turns */
            proj_slot_free(s);
            return rc;
        }
    }
    proj_slot_free(s);
    return SK_OK;
}

int proj_stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                      sk_error *err)
{
    sk_project_stream *ps = ctx;
    proj_slot *s = NULL;
    int rc = make_slots(ps, info, err);
    if (rc == SK_OK && (info->index < 0 || info->index >= ps->nbatches))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "batch %lld is out of range",
                     (long long)info->index);
    if (rc == SK_OK)
        rc = prepare(ps, thread, batch, info, &s, err);
    if (rc != SK_OK) {
        proj_slot_free(s);
        return rc;
    }
    pthread_mutex_lock(&ps->lock);
    ps->rows += sk_table_nrows(batch);
    int come = ps->slots[info->index] != NULL;
    for (int t = 0; t < ps->plan.nbands && !come; t++)
        come = ps->next[t] > info->index;
    if (come)
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "batch %lld came twice", (long long)info->index);
    else
        rc = take_turns(ps, thread, s, batch, err);
    pthread_mutex_unlock(&ps->lock);
    if (come)
        proj_slot_free(s);
    return rc;
}

void proj_stream_drain(sk_project_stream *ps)
{
    if (!ps->slots)
        return;
#pragma omp parallel num_threads(ps->nthreads)
    {
        int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
        for (int t = 0; t < ps->plan.nbands; t++)
            for (int64_t k = ps->next[t]; k < ps->nbatches; k++)
                if (ps->slots[k])
                    deposit_band(ps, thread, ps->slots[k], t);
    }
    for (int64_t k = 0; k < ps->nbatches; k++) {
        proj_slot_free(ps->slots[k]);
        ps->slots[k] = NULL;
    }
    ps->held_bytes = 0;
}
