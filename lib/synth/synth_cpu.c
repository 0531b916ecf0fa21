/* One CPU's amr_, hydro_ and grav_ files, written level by level while the
 * CPU's oct sets are built (synth_levels.c): three consecutive levels are in
 * memory at a time (fathers and neighbours below, sons above). The amr
 * header, which counts what follows, is patched in place at the end. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "synth/synth_internal.h"
#include "snapkit/memory.h"

#define NCOARSE 1 /* nx = ny = nz = 1 */

struct synth_scratch {
    synth_level lev[3];
    int32_t *head, *tail, *numb; /* [level - 1][cpu - 1] */
    size_t lists_cap;
    void *buf;                   /* one record's payload */
    size_t buf_cap;
    double *vals;                /* [variable][oct] values of one cell index */
    size_t vals_cap;
};

synth_scratch *synth_scratch_new(void)
{
    return sk_calloc(1, sizeof(synth_scratch));
}

void synth_scratch_free(synth_scratch *s)
{
    if (!s)
        return;
    for (int i = 0; i < 3; i++)
        synth_level_free(&s->lev[i]);
    sk_free(s->head);
    sk_free(s->tail);
    sk_free(s->numb);
    sk_free(s->buf);
    sk_free(s->vals);
    sk_free(s);
}

static int ensure(void **block, size_t *cap, size_t bytes, sk_error *err)
{
    if (bytes <= *cap)
        return SK_OK;
    sk_free(*block);
    *block = sk_malloc(bytes);
    *cap = *block ? bytes : 0;
    return *block ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory (%zu bytes)", bytes);
}

typedef struct grid_writer {
    const synth_plan *p;
    int cpu;
    synth_scratch *s;
    synth_tally *truth;
    synth_stream amr, hydro, grav;
    int with_hydro, with_grav;
    int64_t base_prev, base_cur, base_next; /* ind_grid of each level's first oct, minus 1 */
} grid_writer;

/* ---- amr header ---- */

static double omega_b(const synth_plan *p)
{
    /* The 2017 code initialised omega_b from a single-precision literal. */
    return p->opt.format == SK_RAMSES_2017 ? (double)0.045f : 0.045;
}

static double level_dt(const synth_plan *p, int level)
{
    int finer = level - p->opt.levelmin;
    return ldexp(1e-3, finer > 0 ? -finer : 0);
}

static size_t amr_header(const grid_writer *w, int32_t ngrid_current, char *out)
{
    const synth_plan *p = w->p;
    size_t L = (size_t)p->levelmax, nc = (size_t)p->ncpu;
    const size_t payload[] = {4, 4, 12, 4, 4, 4, 4, 8, 12, 8, 8, 8, 8 * L, 8 * L, 8, 24, 56, 40, 8,
                              4 * nc * L, 4 * nc * L, 4 * nc * L, 40 * L, 20, 128, 8 * (nc + 1),
                              4, 4, 4};
    size_t total = 0;
    for (size_t i = 0; i < sizeof payload / sizeof payload[0]; i++)
        total += payload[i] + 8;
    if (!out)
        return total;
    char *o = out;
    int32_t i3[3] = {1, 1, 1};
    int32_t v = p->ncpu;
    synth_record_into(&o, &v, 4);
    v = 3;
    synth_record_into(&o, &v, 4);
    synth_record_into(&o, i3, 12);
    v = p->levelmax;
    synth_record_into(&o, &v, 4);
    v = p->ngridmax;
    synth_record_into(&o, &v, 4);
    v = 0; /* nboundary */
    synth_record_into(&o, &v, 4);
    synth_record_into(&o, &ngrid_current, 4);
    synth_record_into(&o, &p->opt.boxlen, 8);
    int32_t outputs[3] = {1, 2, 2}; /* noutput, iout, ifout after the dump */
    synth_record_into(&o, outputs, 12);
    double never = DBL_MAX;
    synth_record_into(&o, &p->time, 8); /* tout */
    synth_record_into(&o, &never, 8);   /* aout */
    synth_record_into(&o, &p->time, 8);
    double dts[SYNTH_NLEV];
    for (int l = 1; l <= p->levelmax; l++)
        dts[l - 1] = level_dt(p, l);
    synth_record_into(&o, dts, 8 * L); /* dtold */
    synth_record_into(&o, dts, 8 * L); /* dtnew */
    int32_t steps[2] = {100, 100};
    synth_record_into(&o, steps, 8);
    double energy[3] = {0, 0, 0};
    synth_record_into(&o, energy, 24);
    double cosmo[7] = {1, 0, 0, omega_b(p), 1, 10, 0}; /* RAMSES's non-cosmological defaults */
    synth_record_into(&o, cosmo, 56);
    double expansion[5] = {1, 0, 1, 0, 0};
    synth_record_into(&o, expansion, 40);
    double mass_sph = 0;
    synth_record_into(&o, &mass_sph, 8);
    synth_record_into(&o, w->s->head, 4 * nc * L);
    synth_record_into(&o, w->s->tail, 4 * nc * L);
    synth_record_into(&o, w->s->numb, 4 * nc * L);
    synth_record_into(&o, p->numbtot, 40 * L);
    int32_t numbf = p->ngridmax - ngrid_current;
    int32_t memory[5] = {numbf > 0 ? ngrid_current + 1 : 0, p->ngridmax, numbf, ngrid_current,
                         ngrid_current};
    synth_record_into(&o, memory, 20);
    char ordering[128];
    memset(ordering, ' ', sizeof ordering);
    memcpy(ordering, "hilbert", 7);
    synth_record_into(&o, ordering, 128);
    int32_t marker = (int32_t)(8 * (nc + 1));
    memcpy(o, &marker, 4);
    for (size_t d = 0; d <= nc; d++) {
        double b = (double)p->bound_key[d];
        memcpy(o + 4 + 8 * d, &b, 8);
    }
    memcpy(o + 4 + 8 * (nc + 1), &marker, 4);
    o += 8 * (nc + 1) + 8;
    int32_t son = 1, flag1 = 1, cpu = p->root_cpu;
    synth_record_into(&o, &son, 4);
    synth_record_into(&o, &flag1, 4);
    synth_record_into(&o, &cpu, 4);
    return total;
}

/* ---- oct records ---- */

static int rec(grid_writer *w, synth_stream *st, size_t bytes, sk_error *err)
{
    return synth_stream_record(st, w->s->buf, bytes, err);
}

static int32_t cell_index(const grid_writer *w, int ind, int64_t base, int64_t i)
{
    return (int32_t)(NCOARSE + (int64_t)ind * w->p->ngridmax + base + i + 1);
}

/* The father-level neighbour of oct i's father cell along direction k
 * (-x, +x, -y, +y, -z, +z), or 0 when this CPU does not hold it. */
static int32_t neighbour_father(const grid_writer *w, const synth_level *prev,
                                const synth_level *cur, int level, int64_t i, int k)
{
    if (level == 1)
        return 1; /* the coarse cell is its own periodic neighbour */
    uint32_t f[3] = {cur->o[3 * i], cur->o[3 * i + 1], cur->o[3 * i + 2]};
    uint32_t mask = (1u << (level - 1)) - 1u;
    f[k / 2] = (f[k / 2] + (k % 2 ? 1u : mask)) & mask;
    int64_t j = synth_level_find(prev, f[0] >> 1, f[1] >> 1, f[2] >> 1);
    if (j < 0)
        return 0;
    int ind = (int)((f[0] & 1) | (f[1] & 1) << 1 | (f[2] & 1) << 2);
    return cell_index(w, ind, w->base_prev, j);
}

static int write_oct_list(grid_writer *w, const synth_level *prev, const synth_level *cur,
                          int level, int64_t a, int64_t b, sk_error *err)
{
    int64_t n = b - a;
    int32_t *iv = w->s->buf;
    double *dv = w->s->buf;
    synth_stream *st = &w->amr;
    int rc = SK_OK;
    for (int64_t k = 0; k < n; k++)
        iv[k] = (int32_t)(w->base_cur + a + k + 1);
    rc = rc ? rc : rec(w, st, 4 * (size_t)n, err);
    for (int64_t k = 0; k < n; k++)
        iv[k] = k + 1 < n ? (int32_t)(w->base_cur + a + k + 2) : 0;
    rc = rc ? rc : rec(w, st, 4 * (size_t)n, err);
    for (int64_t k = 0; k < n; k++)
        iv[k] = k > 0 ? (int32_t)(w->base_cur + a + k) : 0;
    rc = rc ? rc : rec(w, st, 4 * (size_t)n, err);
    for (int axis = 0; axis < 3 && !rc; axis++) {
        for (int64_t k = 0; k < n; k++)
            dv[k] = ldexp((double)cur->o[3 * (a + k) + axis] + 0.5, -(level - 1));
        rc = rec(w, st, 8 * (size_t)n, err);
    }
    for (int64_t k = 0; k < n; k++)
        iv[k] = level == 1 ? 1 : cell_index(w, cur->pind[a + k], w->base_prev, cur->parent[a + k]);
    rc = rc ? rc : rec(w, st, 4 * (size_t)n, err);
    for (int dir = 0; dir < 6 && !rc; dir++) {
        for (int64_t k = 0; k < n; k++)
            iv[k] = neighbour_father(w, prev, cur, level, a + k, dir);
        rc = rec(w, st, 4 * (size_t)n, err);
    }
    for (int c = 0; c < 8 && !rc; c++) {
        for (int64_t k = 0; k < n; k++) {
            int32_t son = cur->son[8 * (a + k) + c];
            iv[k] = son < 0 ? 0 : (int32_t)(w->base_next + son + 1);
        }
        rc = rec(w, st, 4 * (size_t)n, err);
    }
    for (int c = 0; c < 8 && !rc; c++) {
        for (int64_t k = 0; k < n; k++)
            iv[k] = cur->cpu[8 * (a + k) + c];
        rc = rec(w, st, 4 * (size_t)n, err);
    }
    /* flag1: RAMSES's refinement flag, which the owner sets on refined
     * cells and copies to ghosts (so a ghost may be flagged without a son). */
    for (int c = 0; c < 8 && !rc; c++) {
        for (int64_t k = 0; k < n; k++)
            iv[k] = (cur->flag[8 * (a + k) + c] & SYNTH_REFINED) != 0;
        rc = rec(w, st, 4 * (size_t)n, err);
    }
    return rc;
}

/* ---- hydro and gravity values ---- */

static void add_truth(grid_writer *w, int level, const double *hydro, const double *grav)
{
    double size = ldexp(w->p->opt.boxlen, -level);
    double volume = size * size * size;
    synth_tally *t = w->truth;
    if (w->with_hydro) {
        t->rows[SYNTH_HYDRO]++;
        t->levels[SYNTH_HYDRO][level]++;
        for (int v = 0; v < t->ncol[SYNTH_HYDRO]; v++)
            synth_acc_add(&t->acc[SYNTH_HYDRO][v], hydro[v], volume);
    }
    if (w->with_grav) {
        t->rows[SYNTH_GRAVITY]++;
        t->levels[SYNTH_GRAVITY][level]++;
        for (int v = 0; v < 4; v++)
            synth_acc_add(&t->acc[SYNTH_GRAVITY][v], grav[v], volume);
    }
}

static int write_values(grid_writer *w, const synth_level *cur, int level, int list, int64_t a,
                        int64_t b, sk_error *err)
{
    int64_t n = b - a;
    int nvar = w->with_hydro ? w->p->opt.nvar : 0;
    int rc = SK_OK;
    synth_stream *streams[2] = {w->with_hydro ? &w->hydro : NULL, w->with_grav ? &w->grav : NULL};
    for (int s = 0; s < 2 && !rc; s++)
        if (streams[s]) {
            rc = synth_stream_i32(streams[s], level, err);
            rc = rc ? rc : synth_stream_i32(streams[s], (int32_t)n, err);
        }
    if (rc || n == 0)
        return rc;
    size_t nv = (size_t)nvar + 4;
    rc = ensure((void **)&w->s->vals, &w->s->vals_cap, nv * (size_t)n * sizeof(double), err);
    double *vals = w->s->vals;
    int own = list == w->cpu;
    for (int c = 0; c < 8 && !rc; c++) {
        for (int64_t k = 0; k < n; k++) {
            const uint32_t *o = cur->o + 3 * (a + k);
            double x[3], hv[SYNTH_MAX_COLUMNS], gv[4];
            for (int axis = 0; axis < 3; axis++)
                x[axis] = ldexp(2.0 * o[axis] + ((c >> axis) & 1) + 0.5, -level);
            if (nvar)
                synth_hydro(&w->p->model, x, hv);
            if (w->with_grav)
                synth_gravity(&w->p->model, x, gv);
            for (int v = 0; v < nvar; v++)
                vals[(size_t)v * (size_t)n + (size_t)k] = hv[v];
            for (int v = 0; v < 4; v++)
                vals[(size_t)(nvar + v) * (size_t)n + (size_t)k] = gv[v];
            if (own && !(cur->flag[8 * (a + k) + c] & SYNTH_REFINED))
                add_truth(w, level, hv, gv);
        }
        for (int v = 0; v < nvar && !rc; v++)
            rc = synth_stream_record(&w->hydro, vals + (size_t)v * (size_t)n, 8 * (size_t)n, err);
        for (int v = 0; v < 4 && w->with_grav && !rc; v++)
            rc = synth_stream_record(&w->grav, vals + (size_t)(nvar + v) * (size_t)n,
                                     8 * (size_t)n, err);
    }
    return rc;
}

static int write_level(grid_writer *w, const synth_level *prev, const synth_level *cur, int level,
                       sk_error *err)
{
    int rc = ensure(&w->s->buf, &w->s->buf_cap, 8 * (size_t)(cur->n ? cur->n : 1), err);
    int64_t a = 0;
    for (int q = 1; q <= w->p->ncpu && !rc; q++) {
        int64_t b = a;
        while (b < cur->n && cur->owner[b] == q)
            b++;
        size_t at = (size_t)(level - 1) * (size_t)w->p->ncpu + (size_t)(q - 1);
        w->s->numb[at] = (int32_t)(b - a);
        w->s->head[at] = b > a ? (int32_t)(w->base_cur + a + 1) : 0;
        w->s->tail[at] = b > a ? (int32_t)(w->base_cur + b) : 0;
        if (b > a)
            rc = write_oct_list(w, prev, cur, level, a, b, err);
        if (!rc && (w->with_hydro || w->with_grav))
            rc = write_values(w, cur, level, q, a, b, err);
        a = b;
    }
    if (!rc && a != cur->n)
        rc = sk_fail(err, SK_ERR_FORMAT, w->amr.path, -1, "octs of level %d are not in list order",
                     level);
    return rc;
}

/* ---- files ---- */

static int open_files(grid_writer *w, const char *dir, sk_error *err)
{
    const synth_plan *p = w->p;
    char path[1024];
    synth_cpu_path(path, sizeof path, dir, "amr", p->opt.output, w->cpu);
    int rc = synth_stream_open(&w->amr, path, err);
    if (rc)
        return rc;
    size_t header = amr_header(w, 0, NULL);
    rc = ensure(&w->s->buf, &w->s->buf_cap, header, err);
    if (!rc) {
        memset(w->s->buf, 0, header); /* patched at the end */
        rc = synth_stream_raw(&w->amr, w->s->buf, header, err);
    }
    if (!rc && w->with_hydro) {
        synth_cpu_path(path, sizeof path, dir, "hydro", p->opt.output, w->cpu);
        rc = synth_stream_open(&w->hydro, path, err);
        const int32_t head[5] = {p->ncpu, p->opt.nvar, 3, p->levelmax, 0};
        for (int i = 0; i < 5 && !rc; i++)
            rc = synth_stream_i32(&w->hydro, head[i], err);
        double gamma = 5.0 / 3.0;
        rc = rc ? rc : synth_stream_record(&w->hydro, &gamma, 8, err);
    }
    if (!rc && w->with_grav) {
        synth_cpu_path(path, sizeof path, dir, "grav", p->opt.output, w->cpu);
        rc = synth_stream_open(&w->grav, path, err);
        const int32_t head[4] = {p->ncpu, 4, p->levelmax, 0}; /* ncpu, ndim + 1, ... */
        for (int i = 0; i < 4 && !rc; i++)
            rc = synth_stream_i32(&w->grav, head[i], err);
    }
    return rc;
}

static void abort_files(grid_writer *w)
{
    synth_stream_abort(&w->amr);
    synth_stream_abort(&w->hydro);
    synth_stream_abort(&w->grav);
}

static int finish_files(grid_writer *w, int32_t ngrid_current, synth_cpu_result *res,
                        sk_error *err)
{
    size_t header = amr_header(w, 0, NULL);
    int rc = synth_stream_flush(&w->amr, err);
    rc = rc ? rc : ensure(&w->s->buf, &w->s->buf_cap, header, err);
    if (!rc) {
        amr_header(w, ngrid_current, w->s->buf);
        rc = sk_atomic_pwrite(w->amr.file, w->s->buf, header, 0, err);
    }
    if (rc) {
        abort_files(w);
        return rc;
    }
    synth_stream *all[3] = {&w->amr, w->with_hydro ? &w->hydro : NULL, w->with_grav ? &w->grav : NULL};
    for (int i = 0; i < 3; i++) {
        if (!all[i])
            continue;
        res->bytes += all[i]->bytes;
        res->files++;
        if (rc)
            synth_stream_abort(all[i]);
        else
            rc = synth_stream_commit(all[i], err);
    }
    return rc;
}

static int lists_ready(const synth_plan *p, synth_scratch *s, sk_error *err)
{
    size_t n = (size_t)p->levelmax * (size_t)p->ncpu, bytes = n * sizeof(int32_t);
    if (s->lists_cap >= bytes)
        return SK_OK;
    sk_free(s->head);
    sk_free(s->tail);
    sk_free(s->numb);
    s->head = sk_malloc(bytes);
    s->tail = sk_malloc(bytes);
    s->numb = sk_malloc(bytes);
    s->lists_cap = s->head && s->tail && s->numb ? bytes : 0;
    return s->lists_cap ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
}

int synth_write_cpu_grid(const synth_plan *p, const char *dir, int cpu, synth_scratch *s,
                         synth_tally *truth, synth_cpu_result *res, sk_error *err)
{
    grid_writer w = {.p = p, .cpu = cpu, .s = s, .truth = truth,
                     .with_hydro = (p->opt.components & SK_SYNTH_HYDRO) != 0,
                     .with_grav = (p->opt.components & SK_SYNTH_GRAVITY) != 0};
    int rc = lists_ready(p, s, err);
    rc = rc ? rc : synth_level_root(&s->lev[0], p, err);
    rc = rc ? rc : open_files(&w, dir, err);
    if (rc) {
        abort_files(&w);
        return rc;
    }
    int64_t held = 0;
    for (int level = 1; level <= p->levelmax && !rc; level++) {
        synth_level *prev = &s->lev[(level + 1) % 3], *cur = &s->lev[(level - 1) % 3],
                    *next = &s->lev[level % 3];
        synth_level_classify(cur, p, level, cpu);
        if (level < p->levelmax) {
            rc = synth_level_children(cur, next, err);
        } else {
            for (int64_t k = 0; k < 8 * cur->n; k++)
                cur->son[k] = -1;
        }
        w.base_next = w.base_cur + cur->n;
        rc = rc ? rc : write_level(&w, prev, cur, level, err);
        held += cur->n;
        w.base_prev = w.base_cur;
        w.base_cur = w.base_next;
    }
    if (!rc && held > p->ngridmax)
        rc = sk_fail(err, SK_ERR_RANGE, w.amr.path, -1, "%lld octs exceed ngridmax %d",
                     (long long)held, p->ngridmax);
    if (rc) {
        abort_files(&w);
        return rc;
    }
    res->oct_entries += held;
    return finish_files(&w, (int32_t)held, res, err);
}
