/* The global plan of a synthetic output, computed before any CPU file:
 * the refinement scale that reaches the cell target, the leaf and oct
 * counts, the Hilbert domains (bound_key) balanced by leaf cells as
 * RAMSES's load balancer does, and the per-level oct statistics every amr
 * file repeats (numbtot). Walks of the procedural tree need no memory but
 * the recursion, and run in parallel over subtrees. */
#include <math.h>
#include <string.h>

#include "synth/synth_internal.h"
#include "snapkit/util/hilbert.h"
#include "snapkit/memory.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define RADIUS_SHRINK 0.63 /* as in synth_model.c */
#define TUNE_TOLERANCE 0.002

static void child_of(const uint32_t c[3], int i, uint32_t out[3])
{
    out[0] = 2 * c[0] + (uint32_t)(i & 1);
    out[1] = 2 * c[1] + (uint32_t)((i >> 1) & 1);
    out[2] = 2 * c[2] + (uint32_t)((i >> 2) & 1);
}

void synth_children_sorted(int level, const uint32_t c[3], uint32_t child[8][3], uint64_t key[8])
{
    for (int i = 0; i < 8; i++) {
        uint32_t k[3];
        child_of(c, i, k);
        uint64_t h = sk_hilbert3d(k[0], k[1], k[2], level + 1);
        int j = i;
        for (; j > 0 && key[j - 1] > h; j--) {
            key[j] = key[j - 1];
            memcpy(child[j], child[j - 1], sizeof child[j]);
        }
        key[j] = h;
        memcpy(child[j], k, sizeof k);
    }
}

int synth_domain_of(const synth_plan *p, uint64_t key)
{
    int lo = 1, hi = p->ncpu; /* the d with bound[d-1] <= key < bound[d] */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (key < p->bound_key[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int synth_cell_cpu(const synth_plan *p, int level, uint32_t cx, uint32_t cy, uint32_t cz,
                   uint64_t cell_key)
{
    int shift = 3 * (p->bits - level);
    uint64_t lo = cell_key << shift, hi = (cell_key + 1) << shift;
    int d = synth_domain_of(p, lo);
    if (hi <= p->bound_key[d])
        return d;
    int s = p->bits - level - 1;
    uint64_t centre = sk_hilbert3d(((2 * cx) + 1) << s, ((2 * cy) + 1) << s, ((2 * cz) + 1) << s,
                                   p->bits);
    return synth_domain_of(p, centre);
}

/* ---- counting walks ---- */

typedef struct tree_counts {
    int64_t leaves[SYNTH_NLEV];
    int64_t octs[SYNTH_NLEV];
} tree_counts;

static void count_tree(const synth_model *m, int level, const uint32_t c[3], tree_counts *t)
{
    if (!synth_refined(m, level, c[0], c[1], c[2])) {
        t->leaves[level]++;
        return;
    }
    t->octs[level + 1]++;
    for (int i = 0; i < 8; i++) {
        uint32_t k[3];
        child_of(c, i, k);
        count_tree(m, level + 1, k, t);
    }
}

/* Leaves under (level, c), giving up once more than `budget`. */
static int64_t count_leaves(const synth_model *m, int level, const uint32_t c[3], int64_t budget)
{
    if (!synth_refined(m, level, c[0], c[1], c[2]))
        return 1;
    int64_t n = 0;
    for (int i = 0; i < 8 && n <= budget; i++) {
        uint32_t k[3];
        child_of(c, i, k);
        n += count_leaves(m, level + 1, k, budget - n);
    }
    return n;
}

/* Every cell of a full level, as subtree roots for parallel walks. */
static void cell_of_index(int64_t i, int level, uint32_t c[3])
{
    uint32_t mask = (1u << level) - 1u;
    c[0] = (uint32_t)i & mask;
    c[1] = (uint32_t)(i >> level) & mask;
    c[2] = (uint32_t)(i >> (2 * level)) & mask;
}

static int root_level(const synth_model *m)
{
    return m->levelmin < 4 ? m->levelmin : 4;
}

/* Leaves of the whole tree with scale `param`, or more than `limit`. */
static int64_t total_leaves(synth_model m, double param, int64_t limit, int threads)
{
    m.param = param;
    int k = root_level(&m);
    int64_t nroots = (int64_t)1 << (3 * k), total = 0;
    int over = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (int64_t i = 0; i < nroots; i++) {
        int skip;
#pragma omp atomic read
        skip = over;
        if (skip)
            continue;
        uint32_t c[3];
        cell_of_index(i, k, c);
        int64_t n = count_leaves(&m, k, c, limit), now;
#pragma omp atomic capture
        now = total += n;
        if (now > limit) {
#pragma omp atomic write
            over = 1;
        }
    }
    return total;
}

static double max_param(const synth_model *m)
{
    if (m->refine == SK_SYNTH_RANDOM)
        return 1.0;
    /* A radius that refines every cell up to levelmax - 1. */
    return 2.0 / pow(RADIUS_SHRINK, m->levelmax - 1 - m->levelmin);
}

/* Bisection (in log scale for radii) on the monotone leaf count. */
static double tune(const synth_model *m, int64_t target, int threads)
{
    double hi = max_param(m);
    int logscale = m->refine != SK_SYNTH_RANDOM;
    double lo = logscale ? hi * 0x1.0p-40 : 0.0;
    double best = lo;
    int64_t best_err = INT64_MAX, limit = target + (int64_t)(target * TUNE_TOLERANCE) + 1;
    for (int it = 0; it < 60; it++) {
        double x = logscale ? sqrt(lo * hi) : 0.5 * (lo + hi);
        int64_t n = total_leaves(*m, x, limit, threads);
        int64_t e = n > target ? n - target : target - n;
        if (e < best_err) {
            best_err = e;
            best = x;
        }
        if ((double)e <= TUNE_TOLERANCE * (double)target || hi - lo <= 1e-12 * hi)
            break;
        if (n > target)
            hi = x;
        else
            lo = x;
    }
    return best;
}

/* ---- Hilbert-ordered frontier and domain bounds ---- */

typedef struct root {
    uint64_t key;
    uint32_t c[3];
    int level;
} root;

typedef struct roots {
    root *r;
    int64_t n, cap;
    int failed;
} roots;

static void roots_push(roots *rs, int level, const uint32_t c[3], uint64_t key)
{
    if (rs->n == rs->cap) {
        int64_t cap = rs->cap ? 2 * rs->cap : 4096;
        root *r = sk_realloc(rs->r, (size_t)cap * sizeof *r);
        if (!r) {
            rs->failed = 1;
            return;
        }
        rs->r = r;
        rs->cap = cap;
    }
    rs->r[rs->n++] = (root){.key = key, .c = {c[0], c[1], c[2]}, .level = level};
}

/* Cells at `depth`, and leaves above it, in Hilbert order. */
static void frontier(const synth_model *m, int level, const uint32_t c[3], uint64_t key, int depth,
                     roots *rs)
{
    if (level == depth || !synth_refined(m, level, c[0], c[1], c[2])) {
        roots_push(rs, level, c, key);
        return;
    }
    uint32_t child[8][3];
    uint64_t keys[8];
    synth_children_sorted(level, c, child, keys);
    for (int i = 0; i < 8 && !rs->failed; i++)
        frontier(m, level + 1, child[i], keys[i], depth, rs);
}

/* The `*remaining`-th leaf under (level, c) in Hilbert order. */
static int find_leaf(const synth_model *m, int level, const uint32_t c[3], uint64_t key,
                     int64_t *remaining, int *leaf_level, uint64_t *leaf_key)
{
    if (!synth_refined(m, level, c[0], c[1], c[2])) {
        if (--*remaining > 0)
            return 0;
        *leaf_level = level;
        *leaf_key = key;
        return 1;
    }
    uint32_t child[8][3];
    uint64_t keys[8];
    synth_children_sorted(level, c, child, keys);
    for (int i = 0; i < 8; i++)
        if (find_leaf(m, level + 1, child[i], keys[i], remaining, leaf_level, leaf_key))
            return 1;
    return 0;
}

static int split_depth(const synth_plan *p)
{
    int k = 1;
    while (k < 6 && k < p->levelmax && ((int64_t)1 << (3 * k)) < 16 * (int64_t)p->ncpu)
        k++;
    return k;
}

/* RAMSES puts bound d at the end of the key range of the first leaf whose
 * cumulative cost passes d/ncpu of the total; every leaf costs the same. */
static int compute_bounds(synth_plan *p, int threads, sk_error *err)
{
    const synth_model *m = &p->model;
    roots rs = {0};
    const uint32_t zero[3] = {0, 0, 0};
    frontier(m, 0, zero, 0, split_depth(p), &rs);
    int64_t *prefix = sk_calloc((size_t)rs.n + 1, sizeof *prefix);
    if (rs.failed || !prefix) {
        sk_free(rs.r);
        sk_free(prefix);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the domain decomposition");
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (int64_t i = 0; i < rs.n; i++)
        prefix[i + 1] = count_leaves(m, rs.r[i].level, rs.r[i].c, INT64_MAX);
    for (int64_t i = 0; i < rs.n; i++)
        prefix[i + 1] += prefix[i];
    int64_t n = prefix[rs.n];
    /* Bounds must be exact as float64, the type RAMSES and readers keep. */
    int coarse_bits = 3 * p->bits > 53 ? 3 * p->bits - 53 : 0;
    uint64_t grain = (uint64_t)1 << coarse_bits;
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (int d = 1; d < p->ncpu; d++) {
        int64_t t = (int64_t)d * n / p->ncpu + 1; /* d < 2^17, n < 2^34 */
        int64_t lo = 0, hi = rs.n; /* root r with prefix[r] < t <= prefix[r+1] */
        while (hi - lo > 1) {
            int64_t mid = (lo + hi) / 2;
            if (prefix[mid] < t)
                lo = mid;
            else
                hi = mid;
        }
        int64_t remaining = t - prefix[lo];
        int level = 0;
        uint64_t key = 0;
        find_leaf(m, rs.r[lo].level, rs.r[lo].c, rs.r[lo].key, &remaining, &level, &key);
        uint64_t b = (key + 1) << (3 * (p->bits - level));
        p->bound_key[d] = (b + grain - 1) / grain * grain;
    }
    p->bound_key[0] = 0;
    p->bound_key[p->ncpu] = (uint64_t)1 << (3 * p->bits);
    for (int d = 1; d <= p->ncpu; d++)
        if (p->bound_key[d] < p->bound_key[d - 1])
            p->bound_key[d] = p->bound_key[d - 1];
    sk_free(rs.r);
    sk_free(prefix);
    return SK_OK;
}

/* ---- oct ownership: an oct belongs to the CPU of its father cell ---- */

static void count_owners(const synth_plan *p, int level, const uint32_t c[3], int64_t *own)
{
    if (!synth_refined(&p->model, level, c[0], c[1], c[2]))
        return;
    uint64_t key = level ? sk_hilbert3d(c[0], c[1], c[2], level) : 0;
    int cpu = synth_cell_cpu(p, level, c[0], c[1], c[2], key);
    own[(size_t)(level + 1) * (size_t)p->ncpu + (size_t)(cpu - 1)]++;
    for (int i = 0; i < 8; i++) {
        uint32_t k[3];
        child_of(c, i, k);
        count_owners(p, level + 1, k, own);
    }
}

static int compute_numbtot(synth_plan *p, int threads, sk_error *err)
{
    size_t per = (size_t)SYNTH_NLEV * (size_t)p->ncpu;
    int64_t *own = sk_calloc(per * (size_t)threads, sizeof *own);
    if (!own)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the oct counts");
    const synth_model *m = &p->model;
    int k = root_level(m);
    for (int level = 0; level < k; level++) /* full levels above the roots */
        for (int64_t i = 0; i < ((int64_t)1 << (3 * level)); i++) {
            uint32_t c[3];
            cell_of_index(i, level, c);
            uint64_t key = level ? sk_hilbert3d(c[0], c[1], c[2], level) : 0;
            own[(size_t)(level + 1) * (size_t)p->ncpu +
                (size_t)(synth_cell_cpu(p, level, c[0], c[1], c[2], key) - 1)]++;
        }
    int64_t nroots = (int64_t)1 << (3 * k);
#pragma omp parallel num_threads(threads)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        int64_t *mine = own + (size_t)t * per;
#pragma omp for schedule(dynamic)
        for (int64_t i = 0; i < nroots; i++) {
            uint32_t c[3];
            cell_of_index(i, k, c);
            count_owners(p, k, c, mine);
        }
    }
    for (int t = 1; t < threads; t++)
        for (size_t i = 0; i < per; i++)
            own[i] += own[(size_t)t * per + i];
    for (int level = 1; level <= p->levelmax; level++) {
        const int64_t *row = own + (size_t)level * (size_t)p->ncpu;
        int64_t total = 0, lo = INT64_MAX, hi = 0;
        for (int c = 0; c < p->ncpu; c++) {
            total += row[c];
            lo = row[c] < lo ? row[c] : lo;
            hi = row[c] > hi ? row[c] : hi;
        }
        int32_t *nt = p->numbtot[level - 1];
        nt[0] = (int32_t)total;
        nt[1] = (int32_t)lo;
        nt[2] = (int32_t)hi;
        nt[3] = (int32_t)(total / p->ncpu);
    }
    sk_free(own);
    return SK_OK;
}

static int check_options(const sk_synth_options *o, sk_error *err)
{
    if (o->ncpu < 1 || o->ncpu > 99999)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "ncpu must be 1..99999, not %d", o->ncpu);
    if (o->levelmin < 1 || o->levelmax < o->levelmin || o->levelmax > SK_SYNTH_MAX_LEVEL)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "levels must satisfy 1 <= levelmin <= levelmax <= %d (got %d, %d)",
                       SK_SYNTH_MAX_LEVEL, o->levelmin, o->levelmax);
    if ((o->components & SK_SYNTH_HYDRO) && (o->nvar < 5 || o->nvar > 99))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "nvar must be 5..99, not %d", o->nvar);
    if (!(o->boxlen > 0) || !isfinite(o->boxlen))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "boxlen must be a positive number");
    if (o->npart < 0 || o->npart > INT32_MAX)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "npart must be 0..%d (int32 ids)", INT32_MAX);
    if (!(o->stray_particles >= 0 && o->stray_particles <= 1))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the stray particle fraction must be 0..1");
    if (o->output < 1 || o->output > 99999)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "output number must be 1..99999");
    if (o->cells_target < 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the cell target must not be negative");
    if (o->format != SK_RAMSES_CURRENT && o->format != SK_RAMSES_2017)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown output format %d", (int)o->format);
    if (o->refine != SK_SYNTH_SPHERE && o->refine != SK_SYNTH_CLUMPS && o->refine != SK_SYNTH_RANDOM)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown refinement %d", (int)o->refine);
    return SK_OK;
}

static void count_all(synth_plan *p, int threads)
{
    const synth_model *m = &p->model;
    int k = root_level(m);
    memset(p->leaves_per_level, 0, sizeof p->leaves_per_level);
    memset(p->octs_per_level, 0, sizeof p->octs_per_level);
    for (int level = 1; level <= k; level++)
        p->octs_per_level[level] = (int64_t)1 << (3 * (level - 1));
    int64_t nroots = (int64_t)1 << (3 * k);
    tree_counts sum = {{0}, {0}};
#pragma omp parallel num_threads(threads)
    {
        tree_counts mine = {{0}, {0}};
#pragma omp for schedule(dynamic)
        for (int64_t i = 0; i < nroots; i++) {
            uint32_t c[3];
            cell_of_index(i, k, c);
            count_tree(m, k, c, &mine);
        }
#pragma omp critical(synth_count_all)
        for (int l = 0; l < SYNTH_NLEV; l++) {
            sum.leaves[l] += mine.leaves[l];
            sum.octs[l] += mine.octs[l];
        }
    }
    p->leaves = p->octs = 0;
    for (int l = 0; l < SYNTH_NLEV; l++) {
        p->leaves_per_level[l] = sum.leaves[l];
        p->octs_per_level[l] += sum.octs[l];
        p->leaves += p->leaves_per_level[l];
        p->octs += p->octs_per_level[l];
    }
}

int synth_plan_build(synth_plan *p, const sk_synth_options *opt, int threads, sk_error *err)
{
    memset(p, 0, sizeof *p);
    int rc = check_options(opt, err);
    if (rc)
        return rc;
    p->opt = *opt;
    p->ncpu = opt->ncpu;
    p->levelmax = opt->levelmax;
    p->bits = opt->levelmax + 1;
    synth_model_init(&p->model, opt);
    if (opt->cells_target > 0)
        p->model.param = tune(&p->model, opt->cells_target, threads);
    count_all(p, threads);
    /* Cell indices are int32: ncoarse + 8 * ngridmax must fit. */
    if (p->octs > (INT32_MAX - 1) / 8)
        return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                       "%lld octs exceed what RAMSES's int32 cell indices can address; "
                       "ask for fewer cells", (long long)p->octs);
    p->ngridmax = (int)p->octs;
    p->bound_key = sk_calloc((size_t)p->ncpu + 1, sizeof *p->bound_key);
    if (!p->bound_key)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    rc = compute_bounds(p, threads, err);
    if (rc == SK_OK) {
        p->root_cpu = synth_cell_cpu(p, 0, 0, 0, 0, 0);
        rc = compute_numbtot(p, threads, err);
    }
    if (rc) {
        synth_plan_free(p);
        return rc;
    }
    if (opt->components & SK_SYNTH_PARTICLES) {
        p->nstar = opt->npart / 4;
        p->ndm = opt->npart - p->nstar;
    }
    double clump_mass = 0;
    for (int i = 0; i < p->model.nclumps; i++)
        clump_mass += p->model.mass[i];
    p->dm_mass = p->ndm ? 10.0 * clump_mass / (double)p->ndm : 0;
    p->star_mass = p->nstar ? 0.1 * clump_mass / (double)p->nstar : 0;
    p->time = 0.5;
    p->mstar_tot = synth_star_mass_total(p);
    return SK_OK;
}

void synth_plan_free(synth_plan *p)
{
    sk_free(p->bound_key);
    p->bound_key = NULL;
}
