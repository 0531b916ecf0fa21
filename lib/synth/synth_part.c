/* Particles of a synthetic output: dark matter and stars drawn from their
 * densities by splitting the count down the box's octree. A node holding n
 * particles gives each child its share by systematic sampling with the
 * node's own seeded offset, so every node's count, and so every particle,
 * is a pure function of the seed: a CPU generates only the nodes that can
 * hold its particles and never sees the others. A particle's identity is
 * its rank in Hilbert order within its family (1..N), its level and file
 * are those of the finest oct holding it (the oct's owner is the CPU of the
 * oct's father cell, as in RAMSES). With stray_particles, some are then
 * moved as far as RAMSES can leave them (stray()). */
#include <math.h>
#include <string.h>

#include "synth/synth_internal.h"
#include "snapkit/util/hilbert.h"
#include "snapkit/memory.h"

#define SAMPLE_LEVEL 4 /* weights of coarser nodes average densities at this level */

enum { FIELD_X, FIELD_Y, FIELD_Z, FIELD_VX, FIELD_VY, FIELD_VZ, FIELD_MASS, FIELD_BIRTH,
       FIELD_METAL, NFIELD_F64 };

typedef struct particles {
    int64_t n, cap;
    double *f[NFIELD_F64];
    int32_t *id, *level;
    int8_t *family;
} particles;

typedef struct part_gen {
    const synth_plan *p;
    int cpu, family;
    uint64_t lo, hi; /* the CPU's keys */
    particles *out;
    int failed;
} part_gen;

static void particles_free(particles *ps)
{
    for (int k = 0; k < NFIELD_F64; k++)
        sk_free(ps->f[k]);
    sk_free(ps->id);
    sk_free(ps->level);
    sk_free(ps->family);
}

static int particles_grow(particles *ps)
{
    int64_t cap = ps->cap ? 2 * ps->cap : 1024;
    for (int k = 0; k < NFIELD_F64; k++) {
        double *f = sk_realloc(ps->f[k], (size_t)cap * sizeof *f);
        if (!f)
            return SK_ERR_NOMEM;
        ps->f[k] = f;
    }
    int32_t *id = sk_realloc(ps->id, (size_t)cap * sizeof *id);
    if (id)
        ps->id = id;
    int32_t *level = sk_realloc(ps->level, (size_t)cap * sizeof *level);
    if (level)
        ps->level = level;
    int8_t *family = sk_realloc(ps->family, (size_t)cap);
    if (family)
        ps->family = family;
    if (!id || !level || !family)
        return SK_ERR_NOMEM;
    ps->cap = cap;
    return SK_OK;
}

static uint64_t pack(const uint32_t c[3])
{
    return (uint64_t)c[0] | (uint64_t)c[1] << 21 | (uint64_t)c[2] << 42;
}

static double gaussian(uint64_t seed, uint64_t a, uint64_t b)
{
    double u1 = 1.0 - synth_uniform(synth_hash(seed, a, b, 1)); /* (0, 1] */
    double u2 = synth_uniform(synth_hash(seed, a, b, 2));
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double star_mass(const synth_plan *p, int64_t id)
{
    return p->star_mass * (0.5 + synth_uniform(synth_hash(p->opt.seed, 0x6d617373ull, (uint64_t)id, 0)));
}

double synth_star_mass_total(const synth_plan *p)
{
    sk_ksum s = {0, 0};
    for (int64_t id = 1; id <= p->nstar; id++)
        sk_ksum_add(&s, star_mass(p, id));
    return sk_ksum_value(&s);
}

/* Relative mass of a node (level, c): the mean density over its cells at
 * SAMPLE_LEVEL, or at its centre when finer. */
static double node_weight(const part_gen *g, int level, const uint32_t c[3])
{
    int sub = level < SAMPLE_LEVEL ? SAMPLE_LEVEL - level : 0;
    uint32_t n = 1u << sub;
    double sum = 0;
    for (uint32_t k = 0; k < n * n * n; k++) {
        double x[3];
        uint32_t s[3] = {k % n, (k / n) % n, k / (n * n)};
        for (int a = 0; a < 3; a++)
            x[a] = ldexp((double)((c[a] << sub) + s[a]) + 0.5, -(level + sub));
        sum += synth_particle_density(&g->p->model, g->family, x);
    }
    return sum / (double)(n * n * n);
}

/* The CPU of the finest oct holding cells at (level, c) when that cell is
 * a leaf: the CPU of its father cell. */
static int leaf_owner(const synth_plan *p, int level, const uint32_t c[3])
{
    uint32_t f[3] = {c[0] >> 1, c[1] >> 1, c[2] >> 1};
    uint64_t key = level > 1 ? sk_hilbert3d(f[0], f[1], f[2], level - 1) : 0;
    return synth_cell_cpu(p, level - 1, f[0], f[1], f[2], key);
}

static void find_leaf(const synth_plan *p, const double x[3], int from, int *level, int *owner)
{
    for (int l = from; l <= p->levelmax; l++) {
        uint32_t c[3];
        for (int a = 0; a < 3; a++)
            c[a] = (uint32_t)ldexp(x[a], l);
        if (!synth_refined(&p->model, l, c[0], c[1], c[2])) {
            *level = l;
            *owner = leaf_owner(p, l, c);
            return;
        }
    }
}

/* A stray particle (sk_synth_options.stray_particles): moved from x to a
 * uniform point of the 3x3x3 block of levelmin octs centred on the levelmin
 * oct holding x, wrapped into the box. That is as far as RAMSES lets a
 * particle be from its CPU at an output (the bound of check_tree in
 * pm/particle_tree.f90, see docs/ramses.md): the oct holding x is owned by
 * this CPU, and the levelmin oct around it is its ancestor. */
static void stray(const synth_plan *p, uint64_t seed, int64_t id, const double x[3],
                  double out[3])
{
    memcpy(out, x, 3 * sizeof *out);
    if (!(p->opt.stray_particles > 0) ||
        synth_uniform(synth_hash(seed, (uint64_t)id, 0x73747261ull, 0)) >= p->opt.stray_particles)
        return;
    double n = ldexp(1.0, p->opt.levelmin - 1);
    for (int a = 0; a < 3; a++) {
        double u = synth_uniform(synth_hash(seed, (uint64_t)id, 0x73747261ull, 1 + (uint64_t)a));
        double k = floor(x[a] * n), v = (k - 1 + 3 * u) / n, end = (k + 2) / n;
        v = v < end ? v : nextafter(end, 0.0);
        v = v < 0 ? v + 1 : v >= 1 ? v - 1 : v;
        out[a] = v < 1 ? v : nextafter(1.0, 0.0);
    }
}

static void add_particle(part_gen *g, const double x[3], int64_t id, int level)
{
    particles *ps = g->out;
    if (ps->n == ps->cap && particles_grow(ps)) {
        g->failed = 1;
        return;
    }
    const synth_plan *p = g->p;
    uint64_t seed = p->opt.seed ^ (uint64_t)g->family << 56;
    double hv[SYNTH_MAX_COLUMNS];
    synth_hydro(&p->model, x, hv);
    int64_t i = ps->n++;
    double boxlen = p->opt.boxlen, at[3];
    stray(p, seed, id, x, at);
    for (int a = 0; a < 3; a++) {
        double pos = at[a] * boxlen;
        ps->f[FIELD_X + a][i] = pos < boxlen ? pos : nextafter(boxlen, 0);
    }
    int star = g->family == 2;
    for (int a = 0; a < 3; a++)
        ps->f[FIELD_VX + a][i] = star ? hv[1 + a] + 0.02 * gaussian(seed, (uint64_t)id, 10 + a)
                                      : 0.5 * hv[1 + a] + 0.1 * gaussian(seed, (uint64_t)id, 10 + a);
    ps->f[FIELD_MASS][i] = star ? star_mass(p, id) : p->dm_mass;
    ps->f[FIELD_BIRTH][i] =
        star ? p->time * (0.1 + 0.9 * synth_uniform(synth_hash(seed, (uint64_t)id, 20, 0))) : 0.0;
    ps->f[FIELD_METAL][i] =
        star && synth_has_metal(p)
            ? hv[5] * (0.9 + 0.2 * synth_uniform(synth_hash(seed, (uint64_t)id, 21, 0)))
            : 0.0;
    ps->id[i] = (int32_t)id;
    ps->level[i] = level;
    ps->family[i] = (int8_t)g->family;
}

/* Place n particles uniformly in node (level, c). */
static void place(part_gen *g, int level, const uint32_t c[3], int64_t n, int64_t first_id,
                  int owner, int leaf_level)
{
    uint64_t seed = g->p->opt.seed ^ (uint64_t)g->family << 56;
    for (int64_t k = 0; k < n && !g->failed; k++) {
        double x[3];
        for (int a = 0; a < 3; a++) {
            double u = synth_uniform(synth_hash(seed, 0x706f73ull + (uint64_t)level, pack(c),
                                                (uint64_t)k * 3 + (uint64_t)a));
            x[a] = ldexp((double)c[a] + u, -level);
            if (x[a] >= 1.0)
                x[a] = nextafter(1.0, 0.0);
        }
        int lv = leaf_level, who = owner;
        if (!who)
            find_leaf(g->p, x, level + 1, &lv, &who);
        if (who == g->cpu)
            add_particle(g, x, first_id + k + 1, lv);
    }
}

/* Share n particles among the 8 children (Hilbert order) and descend into
 * those that can hold particles of this CPU. `owner` is the owning CPU once
 * an AMR leaf contains the node (0 before), `leaf_level` that leaf's level. */
static void descend(part_gen *g, int level, const uint32_t c[3], uint64_t key, int64_t n,
                    int64_t first_id, int owner, int leaf_level)
{
    const synth_plan *p = g->p;
    if (!owner && level >= p->opt.levelmin && !synth_refined(&p->model, level, c[0], c[1], c[2])) {
        owner = leaf_owner(p, level, c);
        leaf_level = level;
    }
    if (owner ? owner != g->cpu
              : ((key + 1) << (3 * (p->bits - level)) <= g->lo ||
                 key << (3 * (p->bits - level)) >= g->hi))
        return;
    if (n == 1 || level == p->bits) {
        place(g, level, c, n, first_id, owner, leaf_level);
        return;
    }
    uint32_t child[8][3];
    uint64_t keys[8];
    double w[8], total = 0;
    synth_children_sorted(level, c, child, keys);
    for (int i = 0; i < 8; i++)
        total += w[i] = node_weight(g, level + 1, child[i]);
    double u = synth_uniform(synth_hash(p->opt.seed ^ (uint64_t)g->family << 56,
                                       0x73706c6974ull + (uint64_t)level, pack(c), 0));
    double cumulative = 0;
    int64_t before = 0;
    for (int i = 0; i < 8 && !g->failed; i++) {
        cumulative += w[i];
        int64_t upto = i == 7 ? n : (int64_t)floor((double)n * (cumulative / total) + u);
        if (upto > n)
            upto = n;
        if (upto > before)
            descend(g, level + 1, child[i], keys[i], upto - before, first_id + before, owner,
                    leaf_level);
        if (upto > before)
            before = upto;
    }
}

static void add_truth(const synth_plan *p, const particles *ps, synth_tally *t)
{
    int old = p->opt.format == SK_RAMSES_2017, metal = synth_has_metal(p);
    for (int64_t i = 0; i < ps->n; i++) {
        double v[16];
        int k = 0;
        for (int f = FIELD_X; f <= FIELD_MASS; f++)
            v[k++] = ps->f[f][i];
        v[k++] = ps->id[i];
        v[k++] = ps->level[i];
        if (!old) {
            v[k++] = ps->family[i];
            v[k++] = 0; /* tag */
        }
        v[k++] = ps->f[FIELD_BIRTH][i];
        if (metal)
            v[k++] = ps->f[FIELD_METAL][i];
        for (int c = 0; c < k; c++)
            synth_acc_add(&t->acc[SYNTH_PARTICLES][c], v[c], 0.0);
        t->rows[SYNTH_PARTICLES]++;
        t->families[ps->family[i] + 5]++;
    }
}

static int write_file(const synth_plan *p, const char *dir, int cpu, const particles *ps,
                      synth_cpu_result *res, sk_error *err)
{
    char path[1024];
    synth_cpu_path(path, sizeof path, dir, "part", p->opt.output, cpu);
    synth_stream s;
    int rc = synth_stream_open(&s, path, err);
    if (rc)
        return rc;
    int32_t seeds[4];
    for (int k = 0; k < 4; k++)
        seeds[k] = (int32_t)(synth_hash(p->opt.seed, 0x6c6f63ull, (uint64_t)k, 0) & 0x7fffffff);
    double mstar_lost = 0;
    size_t n = (size_t)ps->n;
    rc = synth_stream_i32(&s, p->ncpu, err);
    rc = rc ? rc : synth_stream_i32(&s, 3, err);
    rc = rc ? rc : synth_stream_i32(&s, (int32_t)ps->n, err);
    rc = rc ? rc : synth_stream_record(&s, seeds, sizeof seeds, err);
    rc = rc ? rc : synth_stream_i32(&s, (int32_t)p->nstar, err);
    rc = rc ? rc : synth_stream_record(&s, &p->mstar_tot, 8, err);
    rc = rc ? rc : synth_stream_record(&s, &mstar_lost, 8, err);
    rc = rc ? rc : synth_stream_i32(&s, 0, err); /* nsink */
    for (int f = FIELD_X; f <= FIELD_MASS && !rc; f++)
        rc = synth_stream_record(&s, ps->f[f], 8 * n, err);
    rc = rc ? rc : synth_stream_record(&s, ps->id, 4 * n, err);
    rc = rc ? rc : synth_stream_record(&s, ps->level, 4 * n, err);
    if (p->opt.format != SK_RAMSES_2017) {
        int8_t *tag = sk_calloc(n ? n : 1, 1);
        rc = rc ? rc : tag ? SK_OK : sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        rc = rc ? rc : synth_stream_record(&s, ps->family, n, err);
        rc = rc ? rc : synth_stream_record(&s, tag, n, err);
        sk_free(tag);
    }
    rc = rc ? rc : synth_stream_record(&s, ps->f[FIELD_BIRTH], 8 * n, err);
    if (synth_has_metal(p))
        rc = rc ? rc : synth_stream_record(&s, ps->f[FIELD_METAL], 8 * n, err);
    if (rc) {
        synth_stream_abort(&s);
        return rc;
    }
    res->bytes += s.bytes;
    res->files++;
    return synth_stream_commit(&s, err);
}

int synth_write_cpu_particles(const synth_plan *p, const char *dir, int cpu,
                              synth_tally *truth, synth_cpu_result *res, sk_error *err)
{
    particles ps = {0};
    const uint32_t root[3] = {0, 0, 0};
    int failed = 0;
    for (int family = 1; family <= 2 && !failed; family++) {
        int64_t n = family == 1 ? p->ndm : p->nstar;
        part_gen g = {.p = p, .cpu = cpu, .family = family, .lo = p->bound_key[cpu - 1],
                      .hi = p->bound_key[cpu], .out = &ps};
        if (n > 0)
            descend(&g, 0, root, 0, n, 0, 0, 0);
        failed = g.failed;
    }
    int rc = failed ? sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the particles of cpu %d", cpu)
                    : write_file(p, dir, cpu, &ps, res, err);
    if (!rc)
        add_truth(p, &ps, truth);
    particles_free(&ps);
    return rc;
}
