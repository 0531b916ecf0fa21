/* The shrinking-sphere centre (snapkit/center.h): the selection's rows
 * are gathered once (x, y, z in box units and the mass: 32 bytes a row;
 * each MPI rank holds its share), then each step keeps, in place, the
 * rows within the shrunk radius and takes their centre of mass with exact
 * sums, the threads each taking pieces of the rows, reduced over the ranks
 * when the read is shared: every rank makes the same decisions on the
 * same bits, whatever the thread count. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "analysis/center_internal.h"
#include "analysis/pass.h"
#include "analysis/xsum.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"
#include "snapkit/util/mpi.h"

/* Rows as x, y, z, m quadruples. */
typedef struct points {
    double *p;
    int64_t n, cap;
} points;

static int points_grow(points *pts, int64_t more, sk_error *err)
{
    if (pts->n + more <= pts->cap)
        return SK_OK;
    int64_t cap = pts->cap ? pts->cap : 1024;
    while (cap < pts->n + more)
        cap *= 2;
    double *p = sk_realloc(pts->p, (size_t)cap * 4 * sizeof *p);
    if (!p)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1,
                       "center shrink: out of memory for %lld rows", (long long)(pts->n + more));
    pts->p = p;
    pts->cap = cap;
    return SK_OK;
}

typedef struct gather_pass {
    points all, *per_thread;
} gather_pass;

static int gp_begin(void *ctx, int nthreads, sk_error *err)
{
    gather_pass *gp = ctx;
    gp->per_thread = sk_calloc((size_t)nthreads, sizeof *gp->per_thread);
    return gp->per_thread ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
}

static int gp_batch(void *ctx, int thread, const sk_table *t, sk_error *err)
{
    gather_pass *gp = ctx;
    static const char *const cell_keys[3] = {"cx", "cy", "cz"};
    static const char *const part_keys[3] = {"position_x", "position_y", "position_z"};
    const sk_column *level = sk_table_find(t, "level"), *pos[3];
    const sk_column *mass = sk_table_find(t, level ? "density" : "mass");
    for (int k = 0; k < 3; k++)
        pos[k] = sk_table_find(t, (level ? cell_keys : part_keys)[k]);
    if (!mass || !pos[0])
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "center shrink: the rows have no %s",
                       !mass ? (level ? "density" : "mass") : "position");
    double boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    double nd = sk_table_meta_double(t, "ndim", 3.0);
    int ndim = nd == 1.0 || nd == 2.0 ? (int)nd : 3;
    int64_t n = sk_table_nrows(t);
    points *pts = &gp->per_thread[thread];
    int rc = points_grow(pts, n, err);
    for (int64_t i = 0; i < n && rc == SK_OK; i++) {
        double *q = pts->p + 4 * pts->n++;
        int l = level ? (int)an_at(level, i) : 0;
        double size = ldexp(1.0, -l), side = ldexp(boxlen, -l);
        for (int k = 0; k < 3; k++)
            q[k] = !pos[k] ? 0 : level ? (an_at(pos[k], i) + 0.5) * size : an_at(pos[k], i) / boxlen;
        /* a cell's mass: density x (boxlen / 2^l)^ndim, as snapkit/totals.h's */
        double vol = ndim == 1 ? side : ndim == 2 ? side * side : side * side * side;
        q[3] = level ? an_at(mass, i) * vol : an_at(mass, i);
    }
    return rc;
}

static int gp_end(void *ctx, int nthreads, int ok, sk_error *err)
{
    gather_pass *gp = ctx;
    int64_t total = 0;
    for (int i = 0; i < nthreads; i++)
        total += gp->per_thread[i].n;
    int rc = ok ? points_grow(&gp->all, total, err) : SK_OK; /* once: no copy on growing */
    for (int i = 0; i < nthreads; i++) {
        points *t = &gp->per_thread[i];
        if (ok && rc == SK_OK && t->n) {
            memcpy(gp->all.p + 4 * gp->all.n, t->p, (size_t)t->n * 4 * sizeof *t->p);
            gp->all.n += t->n;
        }
        sk_free(t->p);
    }
    sk_free(gp->per_thread);
    gp->per_thread = NULL;
    return rc;
}

/* This rank's rows of the selection's components into *pts. */
static int gather(sk_source *src, const sk_selection *sel, const char *const *names, int n,
                  const sk_read_options *ropt, points *pts, sk_error *err)
{
    gather_pass gp;
    memset(&gp, 0, sizeof gp);
    an_pass p = {.ctx = &gp, .begin = gp_begin, .batch = gp_batch, .end = gp_end};
    int rc = SK_OK;
    for (int i = 0; i < n && rc == SK_OK; i++) {
        int cells = strcmp(names[i], "particles") != 0;
        sk_selection s;
        sk_selection_init(&s);
        rc = sk_selection_copy(&s, sel, err);
        if (rc == SK_OK)
            rc = sk_selection_set_vars(&s, cells ? "density" : "position_x,position_y,position_z,mass",
                                       err);
        if (rc == SK_OK)
            rc = an_pass_run(src, names[i], &s, ropt, &p, err);
        sk_selection_clear(&s);
    }
    *pts = gp.all;
    return rc;
}

/* The rows cut into pieces that threads take in turn; each piece keeps
 * its rows at its start, and its own sums (merged exactly, so the
 * pieces and the threads do not change the bits). */
typedef struct pieces {
    int n, threads;
    int64_t *start, *rows;
    an_sum *sums; /* 4 per piece */
    an_bins *bins; /* 4 per thread */
} pieces;

static int pieces_init(pieces *pc, int64_t nrows, int threads, sk_error *err)
{
    int64_t n = nrows / 4096 + 1;
    pc->n = (int)(n < 8 * threads ? n : 8 * threads);
    pc->threads = threads;
    pc->start = sk_calloc((size_t)pc->n, sizeof *pc->start);
    pc->rows = sk_calloc((size_t)pc->n, sizeof *pc->rows);
    pc->sums = sk_calloc((size_t)pc->n * 4, sizeof *pc->sums);
    pc->bins = sk_calloc((size_t)threads * 4, sizeof *pc->bins);
    if (!pc->start || !pc->rows || !pc->sums || !pc->bins)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int j = 0; j < pc->n; j++) {
        pc->start[j] = nrows * j / pc->n;
        pc->rows[j] = nrows * (j + 1) / pc->n - pc->start[j];
    }
    return SK_OK;
}

static void pieces_free(pieces *pc)
{
    sk_free(pc->start);
    sk_free(pc->rows);
    sk_free(pc->sums);
    sk_free(pc->bins);
}

/* Keep (in place) the n rows at p within sqrt(r2) of c; their exact sums
 * m, m dx, m dy, m dz into s through the thread's bins b. Returns how
 * many were kept. */
static int64_t keep_within(double *p, int64_t n, const double c[3], double r2, an_sum s[4],
                           an_bins b[4])
{
    memset(s, 0, 4 * sizeof *s);
    int64_t kept = 0;
    for (int64_t i0 = 0; i0 < n; i0 += XS_BIN_ADDS) {
        int64_t i1 = n - i0 < XS_BIN_ADDS ? n : i0 + XS_BIN_ADDS;
        for (int64_t i = i0; i < i1; i++) {
            const double *q = p + 4 * i;
            double d[3] = {an_wrap(q[0] - c[0]), an_wrap(q[1] - c[1]), an_wrap(q[2] - c[2])};
            if (!(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r2))
                continue;
            an_bins_add(&b[0], &s[0], q[3]);
            for (int k = 0; k < 3; k++)
                an_bins_add(&b[1 + k], &s[1 + k], q[3] * d[k]);
            if (kept != i)
                memmove(p + 4 * kept, q, 4 * sizeof *q);
            kept++;
        }
        for (int k = 0; k < 4; k++)
            an_bins_flush(&b[k], &s[k]);
    }
    return kept;
}

/* One step: keep the rows within sqrt(r2) of c, and their count and exact
 * sums m, m dx, m dy, m dz (over the ranks when shared). */
static int step(points *pts, pieces *pc, const double c[3], double r2, int shared,
                int64_t *count, an_sum s[4], sk_error *err)
{
#pragma omp parallel for schedule(dynamic, 1) num_threads(pc->threads)
    for (int j = 0; j < pc->n; j++)
        pc->rows[j] = keep_within(pts->p + 4 * pc->start[j], pc->rows[j], c, r2, pc->sums + 4 * j,
                                  pc->bins + 4 * omp_get_thread_num());
    memset(s, 0, 4 * sizeof *s);
    *count = 0;
    for (int j = 0; j < pc->n; j++) {
        for (int k = 0; k < 4; k++)
            an_sum_merge(&s[k], &pc->sums[4 * j + k]);
        *count += pc->rows[j];
    }
    int rc = SK_OK;
    if (shared && (rc = an_sums_reduce(s, 4, err)) == SK_OK)
        rc = sk_mpi_sum_int64(count, 1, err);
    return rc;
}

/* The largest distance of a row from c (over the ranks when shared). */
static int max_distance(const points *pts, const pieces *pc, const double c[3], int shared,
                        double *r, sk_error *err)
{
    double m2 = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(pc->threads) reduction(max : m2)
    for (int j = 0; j < pc->n; j++)
        for (int64_t i = 0; i < pc->rows[j]; i++) {
            const double *q = pts->p + 4 * (pc->start[j] + i);
            double d[3] = {an_wrap(q[0] - c[0]), an_wrap(q[1] - c[1]), an_wrap(q[2] - c[2])};
            double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            m2 = d2 > m2 ? d2 : m2;
        }
    int rc = shared ? sk_mpi_max_double(&m2, 1, err) : SK_OK;
    *r = sqrt(m2);
    return rc;
}

/* The centre of mass from a step's sums, about c. */
static void com_from(const an_sum s[4], const double c[3], double out[3], double *mass)
{
    *mass = an_sum_value(&s[0]);
    for (int k = 0; k < 3; k++)
        out[k] = an_wrap01(c[k] + an_sum_value(&s[1 + k]) / *mass);
}

static int check_parameters(const sk_center_options *o, sk_error *err)
{
    if (!(o->shrink_factor > 0 && o->shrink_factor < 1))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "center shrink: the factor must be between 0 and 1 (excluded), not %g",
                       o->shrink_factor);
    if (o->shrink_min < 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "center shrink: the minimum number of rows must be at least 1, not %lld",
                       (long long)o->shrink_min);
    return SK_OK;
}

/* The first centre of mass, of every row, about the selection's centre. */
static int first_com(points *pts, pieces *pc, const sk_selection *sel,
                     const sk_center_options *o, int shared, sk_center_result *out,
                     const char *path, sk_error *err)
{
    double ref[3];
    an_selection_ref(sel, ref);
    an_sum s[4];
    int rc = step(pts, pc, ref, INFINITY, shared, &out->rows, s, err);
    if (rc != SK_OK)
        return rc;
    out->final_rows = out->rows;
    if (out->rows < o->shrink_min)
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "center shrink: the selection holds %lld rows, fewer than the %lld to "
                       "stop at (--shrink-min)", (long long)out->rows, (long long)o->shrink_min);
    com_from(s, ref, out->center, &out->mass);
    if (!(out->mass > 0) || !isfinite(out->mass))
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "center shrink: the selection's mass is %g, not positive", out->mass);
    return max_distance(pts, pc, out->center, shared, &out->radius, err);
}

int an_center_shrink(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                     const char *const *names, int n, const sk_read_options *ropt,
                     sk_center_result *out, sk_error *err)
{
    int rc = check_parameters(copt, err);
    if (rc != SK_OK)
        return rc;
    int shared = an_shared(ropt);
    points pts = {0};
    pieces pc = {0};
    sk_thread_budget budget;
    rc = gather(src, sel, names, n, ropt, &pts, err);
    if (rc == SK_OK)
        rc = pieces_init(&pc, pts.n, sk_thread_budget_get(ropt ? ropt->threads : 0, &budget), err);
    if (shared)
        rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK)
        rc = first_com(&pts, &pc, sel, copt, shared, out, sk_source_path(src), err);
    while (rc == SK_OK) {
        double r = copt->shrink_factor * out->radius, c[3], mass;
        if (!(r < out->radius))
            break; /* the radius no longer shrinks (0, or underflow) */
        int64_t count;
        an_sum s[4];
        rc = step(&pts, &pc, out->center, r * r, shared, &count, s, err);
        if (rc != SK_OK || count < copt->shrink_min)
            break;
        com_from(s, out->center, c, &mass);
        if (!(mass > 0))
            break; /* massless rows (tracers) have no centre of mass */
        memcpy(out->center, c, sizeof c);
        out->radius = r;
        out->mass = mass;
        out->final_rows = count;
        out->iterations++;
    }
    pieces_free(&pc);
    sk_free(pts.p);
    return rc;
}
