/* Cubes (covering grids): the cells of an ordered stream deposited onto the
 * grid of one level (snapkit/cube.h). Each batch's quantities are resolved
 * by the projector's job (proj_setup: columns, derived quantities, units);
 * the grid sums every cell's rows in table order, so its bits do not depend
 * on the thread count. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "cube_internal.h"
#include "snapkit/memory.h"

void sk_cube_options_init(sk_cube_options *opt)
{
    memset(opt, 0, sizeof *opt);
    for (int a = 0; a < 3; a++)
        opt->hi[a] = 1.0;
}

int sk_cube_grid(const sk_cube_options *opt, int64_t i0[3], int64_t n[3], sk_error *err)
{
    if (opt->level < 0 || opt->level > SK_CUBE_MAX_LEVEL)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the level must be 0..%d, not %d",
                       SK_CUBE_MAX_LEVEL, opt->level);
    double cells = ldexp(1.0, opt->level);
    for (int a = 0; a < 3; a++) {
        double lo = opt->has_box ? fmax(opt->lo[a], 0.0) : 0.0;
        double hi = opt->has_box ? fmin(opt->hi[a], 1.0) : 1.0;
        if (!(lo < hi))
            return sk_fail(err, SK_ERR_EMPTY, NULL, -1,
                           "the cube's box is empty along %c (%.17g .. %.17g box units)",
                           "xyz"[a], lo, hi);
        i0[a] = (int64_t)floor(lo * cells);
        n[a] = (int64_t)ceil(hi * cells) - i0[a];
    }
    return SK_OK;
}

double sk_cube_bytes(const sk_cube_options *opt, int nq)
{
    int64_t i0[3], n[3];
    sk_error e;
    if (sk_cube_grid(opt, i0, n, &e) != SK_OK)
        return -1;
    return (double)n[0] * (double)n[1] * (double)n[2] * 8.0 * (nq + 2);
}

static int copy_names(sk_cube_stream *cs, int nq, const char *const *names, sk_error *err)
{
    if (nq < 1 || nq > SK_MAX_VARS)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "1 to %d quantities, not %d", SK_MAX_VARS, nq);
    cs->nq = nq;
    for (int i = 0; i < nq; i++)
        if (!(cs->names[i] = sk_strdup(names[i] ? names[i] : "")))
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return SK_OK;
}

int sk_cube_stream_new(int nq, const char *const *quantities, const sk_cube_options *opt,
                       sk_cube_stream **out, sk_error *err)
{
    *out = NULL;
    sk_cube_stream *cs = sk_calloc(1, sizeof *cs);
    if (!cs)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    cs->opt = *opt;
    int rc = copy_names(cs, nq, quantities, err);
    if (rc == SK_OK)
        rc = sk_cube_grid(opt, cs->i0, cs->n, err);
    double bytes = sk_cube_bytes(opt, nq);
    if (rc == SK_OK && opt->memory_budget > 0 && bytes > (double)opt->memory_budget)
        rc = sk_fail(err, SK_ERR_RANGE, NULL, -1,
                     "a %lld x %lld x %lld cube of %d quantities takes %.4g GB, more than the "
                     "%.4g GB allowed", (long long)cs->n[0], (long long)cs->n[1],
                     (long long)cs->n[2], nq, bytes / 1e9, (double)opt->memory_budget / 1e9);
    if (rc != SK_OK) {
        sk_cube_stream_free(cs);
        return rc;
    }
    sk_project_options_init(&cs->popt);
    cs->popt.threads = 1;
    cs->popt.weight_volume = !opt->weight_mass;
    cs->popt.mu = opt->mu;
    snprintf(cs->popt.units, sizeof cs->popt.units, "%s", opt->units);
    cs->ncells = (size_t)cs->n[0] * (size_t)cs->n[1] * (size_t)cs->n[2];
    *out = cs;
    return SK_OK;
}

/* The quantities on the batches' columns: fields only; their units. */
static int stream_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    (void)nthreads;
    sk_cube_stream *cs = ctx;
    cs->start = omp_get_wtime();
    proj_job *job = sk_calloc(1, sizeof *job);
    if (!job)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = proj_setup(job, schema, cs->nq, (const char *const *)cs->names, &cs->popt, err);
    if (rc == SK_OK && (!job->is_cells || job->ndim != 3))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "a cube needs 3-D cells (level, cx, cy, cz)");
    for (int i = 0; i < cs->nq && rc == SK_OK; i++) {
        const proj_quantity *q = &job->q[i];
        if (q->kind != Q_FIELD)
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                         "'%s' is not a quantity of cells (a column or derived quantity, e.g. "
                         "density, velocity_x, T)", q->name);
        cs->by_volume[i] = q->dim == DIM_DENSITY;
        cs->factor[i] = q->factor;
        snprintf(cs->units[i], sizeof cs->units[i], "%s", q->unit);
    }
    cs->boxlen = job->boxlen;
    cs->unit_l = job->units.unit_l;
    proj_job_free(job);
    if (rc != SK_OK)
        return rc;
    cs->vol = sk_calloc(cs->ncells, sizeof(double));
    cs->mass = cs->opt.weight_mass ? sk_calloc(cs->ncells, sizeof(double)) : NULL;
    cs->num = sk_calloc(cs->ncells * (size_t)cs->nq, sizeof(double));
    if (!cs->vol || !cs->num || (cs->opt.weight_mass && !cs->mass))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the cube (%.4g GB)",
                       sk_cube_bytes(&cs->opt, cs->nq) / 1e9);
    cs->begun = 1;
    return SK_OK;
}

/* Row r's share f of one grid cell (a volume fraction) into the sums. */
static inline void add_cell(sk_cube_stream *cs, const proj_job *job, size_t idx, int64_t r,
                            double f)
{
    cs->vol[idx] += f;
    double m = 0;
    if (cs->mass) {
        m = job->mass_src[r] * f;
        cs->mass[idx] += m;
    }
    for (int i = 0; i < cs->nq; i++) {
        double w = cs->mass && !cs->by_volume[i] ? m : f;
        cs->num[(size_t)i * cs->ncells + idx] += job->q[i].col[r] * w;
    }
}

/* One cell onto the grid: 1 when it reached the cube. */
static int deposit_row(sk_cube_stream *cs, const proj_job *job, int64_t r)
{
    int L = cs->opt.level, l = job->level[r];
    int64_t c[3] = {job->cx[r], job->cy[r], job->cz[r]}, lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        if (l >= L) {
            lo[a] = (c[a] >> (l - L)) - cs->i0[a];
            hi[a] = lo[a] + 1;
        } else {
            lo[a] = (c[a] << (L - l)) - cs->i0[a];
            hi[a] = ((c[a] + 1) << (L - l)) - cs->i0[a];
        }
        lo[a] = lo[a] > 0 ? lo[a] : 0;
        hi[a] = hi[a] < cs->n[a] ? hi[a] : cs->n[a];
        if (lo[a] >= hi[a])
            return 0;
    }
    double f = l >= L ? ldexp(1.0, -3 * (l - L)) : 1.0;
    for (int64_t k = lo[2]; k < hi[2]; k++)
        for (int64_t j = lo[1]; j < hi[1]; j++) {
            size_t base = ((size_t)k * (size_t)cs->n[1] + (size_t)j) * (size_t)cs->n[0];
            for (int64_t i = lo[0]; i < hi[0]; i++)
                add_cell(cs, job, base + (size_t)i, r, f);
        }
    return 1;
}

int cube_deposit(sk_cube_stream *cs, const sk_table *batch, sk_error *err)
{
    if (!cs->begun)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the cube's stream was not begun");
    proj_job *job = sk_calloc(1, sizeof *job);
    if (!job)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = proj_setup(job, batch, cs->nq, (const char *const *)cs->names, &cs->popt, err);
    if (rc == SK_OK && (!job->is_cells || job->ndim != 3))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "a cube needs 3-D cells (level, cx, cy, cz)");
    for (int64_t r = 0; r < job->nrows && rc == SK_OK; r++) {
        if (job->level[r] < 0 || job->level[r] > PROJ_MAX_LEVEL) {
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "row %lld has level %d, outside 0..%d",
                         (long long)(cs->rows + r), job->level[r], PROJ_MAX_LEVEL);
            break;
        }
        cs->deposited += deposit_row(cs, job, r);
    }
    cs->rows += job->nrows;
    proj_job_free(job);
    return rc;
}

static int stream_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                        sk_error *err)
{
    (void)thread;
    (void)info; /* ordered: the calls come in index order, one at a time */
    return cube_deposit(ctx, batch, err);
}

sk_consumer sk_cube_stream_consumer(sk_cube_stream *cs)
{
    return (sk_consumer){.ctx = cs, .begin = stream_begin, .batch = stream_batch, .ordered = 1};
}

void sk_cube_stream_free(sk_cube_stream *cs)
{
    if (!cs)
        return;
    for (int i = 0; i < cs->nq; i++)
        sk_free(cs->names[i]);
    sk_free(cs->vol);
    sk_free(cs->mass);
    sk_free(cs->num);
    sk_free(cs);
}

int sk_cube_make(const sk_table *table, int nq, const char *const *quantities,
                 const sk_cube_options *opt, sk_cube **out, sk_error *err)
{
    *out = NULL;
    sk_cube_stream *cs;
    int rc = sk_cube_stream_new(nq, quantities, opt, &cs, err);
    if (rc != SK_OK)
        return rc;
    rc = stream_begin(cs, 1, table, err);
    if (rc == SK_OK)
        rc = cube_deposit(cs, table, err);
    if (rc == SK_OK)
        rc = sk_cube_stream_finish(cs, out, err);
    sk_cube_stream_free(cs);
    return rc;
}
