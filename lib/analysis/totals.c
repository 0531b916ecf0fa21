/* Totals of a selection (snapkit/totals.h): exact sums of m, the cells'
 * volumes, m d, m v and m (d x v) over cells and particles, d being each
 * row's displacement from the reference point to its nearest periodic
 * image in box units; lengths are scaled by boxlen once, at the end. */
#include "snapkit/totals.h"

#include <math.h>
#include <string.h>

#include "analysis/center_internal.h"
#include "analysis/pass.h"
#include "analysis/xsum.h"
#include "snapkit/colstats.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

enum { T_MASS, T_VOLUME, T_MD, T_MV = T_MD + 3, T_MDV = T_MV + 3, T_N = T_MDV + 3 };

struct sk_totals_acc {
    sk_totals_frame frame;
    double boxlen;        /* from the rows' metadata; 0 before any row */
    int64_t cells, particles;
    int64_t no_velocity;  /* rows of tables without velocities */
    an_sum s[T_N];
    an_bins b[T_N];       /* the way into s: empty between calls */
};

int sk_totals_acc_new(const sk_totals_frame *frame, sk_totals_acc **out, sk_error *err)
{
    *out = NULL;
    for (int k = 0; k < 3; k++)
        if (!isfinite(frame->ref[k]) || (frame->has_velocity && !isfinite(frame->velocity[k])))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "totals: the centre and the velocity must be finite numbers");
    sk_totals_acc *a = sk_calloc(1, sizeof *a);
    if (!a)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    a->frame = *frame;
    *out = a;
    return SK_OK;
}

void sk_totals_acc_free(sk_totals_acc *acc)
{
    sk_free(acc);
}

/* One row of mass m at displacement d with velocity v (NULL: none). */
static inline void add(sk_totals_acc *a, int i, double v)
{
    an_bins_add(&a->b[i], &a->s[i], v);
}

static inline void add_row(sk_totals_acc *a, double m, const double d[3], const double *v)
{
    add(a, T_MASS, m);
    for (int k = 0; k < 3; k++)
        add(a, T_MD + k, m * d[k]);
    if (!v)
        return;
    for (int k = 0; k < 3; k++)
        add(a, T_MV + k, m * v[k]);
    add(a, T_MDV + 0, m * (d[1] * v[2] - d[2] * v[1]));
    add(a, T_MDV + 1, m * (d[2] * v[0] - d[0] * v[2]));
    add(a, T_MDV + 2, m * (d[0] * v[1] - d[1] * v[0]));
}

static void flush(sk_totals_acc *a)
{
    for (int i = 0; i < T_N; i++)
        an_bins_flush(&a->b[i], &a->s[i]);
}

/* The columns of a batch: positions (cell indices or particle
 * positions; NULL beyond ndim), velocities (all NULL when any axis of
 * ndim lacks one) and the mass or density. */
typedef struct row_cols {
    int ndim;
    double boxlen;
    const sk_column *level, *pos[3], *vel[3], *mass;
    const double *clip;   /* snapkit/clip.h: each cell's fraction inside, or NULL */
} row_cols;

static int find_cols(const sk_table *t, row_cols *c, sk_error *err)
{
    static const char *const cell_keys[3] = {"cx", "cy", "cz"};
    static const char *const part_keys[3] = {"position_x", "position_y", "position_z"};
    static const char *const vel_keys[3] = {"velocity_x", "velocity_y", "velocity_z"};
    memset(c, 0, sizeof *c);
    double nd = sk_table_meta_double(t, "ndim", 3.0);
    c->ndim = nd == 1.0 || nd == 2.0 ? (int)nd : 3;
    c->boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    c->level = sk_table_find(t, "level");
    const char *const *keys = c->level ? cell_keys : part_keys;
    const char *mass = c->level ? "density" : "mass";
    int has_v = 1;
    for (int k = 0; k < c->ndim; k++) {
        c->pos[k] = sk_table_find(t, keys[k]);
        c->vel[k] = sk_table_find(t, vel_keys[k]);
        has_v &= c->vel[k] != NULL;
        if (!c->pos[k])
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "totals: the %s have no column %s",
                           c->level ? "cells" : "rows", keys[k]);
    }
    if (!has_v)
        memset(c->vel, 0, sizeof c->vel);
    c->mass = sk_table_find(t, mass);
    const sk_column *clip = c->level ? sk_table_find(t, "clip") : NULL;
    c->clip = clip && clip->type == SK_FLOAT64 ? clip->data : NULL;
    if (!c->mass)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "totals: the %s have no column %s",
                       c->level ? "cells" : "particles", mass);
    if (!(c->boxlen > 0) || !isfinite(c->boxlen))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "totals: the table's boxlen is not positive");
    return SK_OK;
}

/* Per level: the cell size in box units and the volume (boxlen /
 * 2^l)^ndim in code units, as snapkit/colstats.h's volume sums. */
typedef struct level_table {
    double size[SK_STATS_MAX_LEVEL + 1], volume[SK_STATS_MAX_LEVEL + 1];
} level_table;

static void level_table_init(const row_cols *c, level_table *lt)
{
    for (int l = 0; l <= SK_STATS_MAX_LEVEL; l++) {
        double size = ldexp(c->boxlen, -l);
        lt->size[l] = ldexp(1.0, -l);
        lt->volume[l] = c->ndim == 1 ? size : c->ndim == 2 ? size * size : size * size * size;
    }
}

/* Row i's displacement from ref (box units, nearest image; 0 beyond ndim),
 * velocity (0 beyond ndim) and mass; a cell's level is checked first. */
static inline void row_at(const row_cols *c, const level_table *lt, const double ref[3],
                          int64_t i, int l, double d[3], double v[3], double *m)
{
    for (int k = 0; k < 3; k++) {
        double x = 0;
        if (c->pos[k] && c->level)
            x = (an_at(c->pos[k], i) + 0.5) * lt->size[l];
        else if (c->pos[k])
            x = an_at(c->pos[k], i) / c->boxlen;
        d[k] = c->pos[k] ? an_wrap(x - ref[k]) : 0;
        v[k] = c->vel[0] && c->pos[k] ? an_at(c->vel[k], i) : 0;
    }
    *m = c->level ? an_at(c->mass, i) * lt->volume[l] : an_at(c->mass, i);
}

int sk_totals_acc_add(sk_totals_acc *a, const sk_table *t, sk_error *err)
{
    row_cols c;
    int rc = find_cols(t, &c, err);
    if (rc != SK_OK)
        return rc;
    level_table lt;
    level_table_init(&c, &lt);
    int64_t n = sk_table_nrows(t);
    for (int64_t i = 0; i < n; i++) {
        int l = c.level ? (int)an_at(c.level, i) : 0;
        if (l < 0 || l > SK_STATS_MAX_LEVEL) {
            rc = sk_fail(err, SK_ERR_RANGE, NULL, -1, "totals: a cell of level %d", l);
            break;
        }
        double d[3], v[3], m, f = c.clip ? c.clip[i] : 1.0;
        row_at(&c, &lt, a->frame.ref, i, l, d, v, &m);
        add_row(a, c.clip ? m * f : m, d, c.vel[0] ? v : NULL);
        if (c.level)
            add(a, T_VOLUME, c.clip ? lt.volume[l] * f : lt.volume[l]);
        if ((i + 1) % XS_BIN_ADDS == 0)
            flush(a); /* before a bin could overflow */
    }
    flush(a);
    if (rc != SK_OK)
        return rc;
    a->boxlen = c.boxlen;
    *(c.level ? &a->cells : &a->particles) += n;
    if (!c.vel[0])
        a->no_velocity += n;
    return SK_OK;
}

void sk_totals_acc_merge(sk_totals_acc *a, const sk_totals_acc *b)
{
    for (int i = 0; i < T_N; i++)
        an_sum_merge(&a->s[i], &b->s[i]);
    a->cells += b->cells;
    a->particles += b->particles;
    a->no_velocity += b->no_velocity;
    if (b->boxlen > 0)
        a->boxlen = b->boxlen;
}

int sk_totals_acc_reduce_ranks(sk_totals_acc *a, sk_error *err)
{
    int64_t counts[3] = {a->cells, a->particles, a->no_velocity};
    double boxlen = a->boxlen; /* 0 on a rank without rows */
    int rc = an_sums_reduce(a->s, T_N, err);
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(counts, 3, err);
    if (rc == SK_OK)
        rc = sk_mpi_max_double(&boxlen, 1, err);
    a->cells = counts[0], a->particles = counts[1], a->no_velocity = counts[2];
    a->boxlen = boxlen;
    return rc;
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

void sk_totals_acc_result(const sk_totals_acc *a, sk_totals *out)
{
    memset(out, 0, sizeof *out);
    out->cells = a->cells;
    out->particles = a->particles;
    out->has_velocity = a->no_velocity == 0;
    out->boxlen = a->boxlen;
    double M = an_sum_value(&a->s[T_MASS]), S[3], P[3], A[3], bulk[3], u[3], sxu[3];
    out->mass = M;
    out->volume = an_sum_value(&a->s[T_VOLUME]);
    double nan = out->has_velocity && M != 0 ? 0.0 : NAN, L = a->boxlen;
    for (int k = 0; k < 3; k++) {
        S[k] = an_sum_value(&a->s[T_MD + k]);
        P[k] = an_sum_value(&a->s[T_MV + k]);
        A[k] = an_sum_value(&a->s[T_MDV + k]);
        bulk[k] = P[k] / M + nan;
        out->com[k] = M != 0 ? an_wrap01(a->frame.ref[k] + S[k] / M) * L : NAN; /* an_totals_com's, scaled */
        out->bulk_velocity[k] = bulk[k];
        int given = a->frame.has_velocity && !a->frame.about_com;
        u[k] = given ? a->frame.velocity[k] : bulk[k];
        out->velocity[k] = u[k];
        out->center[k] = a->frame.about_com ? out->com[k] : a->frame.ref[k] * L;
    }
    cross(S, u, sxu);
    double norm2 = 0;
    for (int k = 0; k < 3; k++) {
        out->angular_momentum[k] = (A[k] - sxu[k]) * L + (out->has_velocity ? 0.0 : NAN);
        norm2 += out->angular_momentum[k] * out->angular_momentum[k];
    }
    double norm = sqrt(norm2);
    for (int k = 0; k < 3; k++)
        out->angular_momentum_direction[k] = norm > 0 ? out->angular_momentum[k] / norm
                                             : norm == 0 ? 0.0 : NAN;
}

/* Per-thread accumulators of a pass, folded into `all`. */
typedef struct totals_pass {
    const sk_totals_frame *frame;
    sk_totals_acc *all, **acc;
} totals_pass;

static int tp_begin(void *ctx, int nthreads, sk_error *err)
{
    totals_pass *tp = ctx;
    tp->acc = sk_calloc((size_t)nthreads, sizeof *tp->acc);
    if (!tp->acc)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = SK_OK;
    for (int i = 0; i < nthreads && rc == SK_OK; i++)
        rc = sk_totals_acc_new(tp->frame, &tp->acc[i], err);
    return rc;
}

static int tp_batch(void *ctx, int thread, const sk_table *batch, sk_error *err)
{
    totals_pass *tp = ctx;
    return sk_totals_acc_add(tp->acc[thread], batch, err);
}

static int tp_end(void *ctx, int nthreads, int ok, sk_error *err)
{
    (void)err;
    totals_pass *tp = ctx;
    for (int i = 0; tp->acc && i < nthreads; i++) {
        if (ok && tp->acc[i])
            sk_totals_acc_merge(tp->all, tp->acc[i]);
        sk_totals_acc_free(tp->acc[i]);
    }
    sk_free(tp->acc);
    tp->acc = NULL;
    return SK_OK;
}

/* The columns totals read: a cell's or a particle's mass, position and
 * velocity. */
static const char *const k_vars[] = {"density", "mass", "position_x", "position_y",
                                     "position_z", "velocity_x", "velocity_y", "velocity_z"};

int an_totals_pass(sk_source *src, const char *components, const sk_selection *sel,
                   const sk_totals_frame *frame, const sk_read_options *opt,
                   sk_totals_acc **acc, sk_error *err)
{
    const char *names[AN_MAX_COMPONENTS];
    int n = 0;
    totals_pass tp = {.frame = frame};
    *acc = NULL;
    int rc = an_components(src, components, names, &n, err);
    if (rc == SK_OK)
        rc = sk_totals_acc_new(frame, &tp.all, err);
    an_pass p = {.ctx = &tp, .begin = tp_begin, .batch = tp_batch, .end = tp_end};
    for (int i = 0; i < n && rc == SK_OK; i++) {
        sk_selection s;
        sk_selection_init(&s);
        rc = an_selection_vars(src, names[i], sel, k_vars, 8, &s, err);
        if (rc == SK_OK)
            rc = an_pass_run(src, names[i], &s, opt, &p, err);
        sk_selection_clear(&s);
    }
    if (an_shared(opt)) {
        rc = sk_mpi_agree(rc, err);
        if (rc == SK_OK)
            rc = sk_totals_acc_reduce_ranks(tp.all, err);
    }
    if (rc == SK_OK)
        *acc = tp.all;
    else
        sk_totals_acc_free(tp.all);
    return rc;
}

void an_totals_com(const sk_totals_acc *a, double com[3], double *mass, int64_t *rows)
{
    double M = an_sum_value(&a->s[T_MASS]);
    for (int k = 0; k < 3; k++)
        com[k] = M != 0 ? an_wrap01(a->frame.ref[k] + an_sum_value(&a->s[T_MD + k]) / M) : NAN;
    *mass = M;
    *rows = a->cells + a->particles;
}

int sk_totals_compute(sk_source *src, const char *components, const sk_selection *sel,
                      const sk_totals_frame *frame, const sk_read_options *opt, sk_totals *out,
                      sk_error *err)
{
    sk_selection all;
    sk_selection_init(&all);
    sk_totals_acc *acc;
    int rc = an_totals_pass(src, components, sel ? sel : &all, frame, opt, &acc, err);
    if (rc == SK_OK)
        sk_totals_acc_result(acc, out);
    sk_totals_acc_free(acc);
    return rc;
}
