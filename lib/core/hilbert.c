/* RAMSES's Hilbert curve (hilbert3d in amr/hilbert.f90): a 12-state machine.
 * Each step takes the next bit of x, y, z (as a 3-bit digit x4+y2+z1) and
 * the current state, and gives the curve's digit and the next state. The
 * table is the curve's definition, as RAMSES and yt use it. */
#include "core/hilbert.h"

#include <math.h>
#include <stddef.h>

static const uint8_t k_next[12][8] = {
    {1, 2, 3, 2, 4, 5, 3, 5},   {2, 6, 0, 7, 8, 8, 0, 7},    {0, 9, 10, 9, 1, 1, 11, 11},
    {6, 0, 6, 11, 9, 0, 9, 8},  {11, 11, 0, 7, 5, 9, 0, 7},  {4, 4, 8, 8, 0, 6, 10, 6},
    {5, 7, 5, 3, 1, 1, 11, 11}, {6, 1, 6, 10, 9, 4, 9, 10},  {10, 3, 1, 1, 10, 3, 5, 9},
    {4, 4, 8, 8, 2, 7, 2, 3},   {7, 2, 11, 2, 7, 5, 8, 5},   {10, 3, 2, 6, 10, 3, 4, 4},
};

static const uint8_t k_digit[12][8] = {
    {0, 1, 3, 2, 7, 6, 4, 5}, {0, 7, 1, 6, 3, 4, 2, 5}, {0, 3, 7, 4, 1, 2, 6, 5},
    {2, 3, 1, 0, 5, 4, 6, 7}, {4, 3, 5, 2, 7, 0, 6, 1}, {6, 5, 1, 2, 7, 4, 0, 3},
    {4, 7, 3, 0, 5, 6, 2, 1}, {6, 7, 5, 4, 1, 0, 2, 3}, {2, 5, 3, 4, 1, 6, 0, 7},
    {2, 1, 5, 6, 3, 0, 4, 7}, {4, 5, 7, 6, 3, 2, 0, 1}, {6, 1, 7, 0, 5, 2, 4, 3},
};

/* hilbert2d's 4-state machine: digit x2+y1 in state s gives the curve's
 * digit k_digit2[s][d] and the next state k_next2[s][d]. */
static const uint8_t k_next2[4][4] = {{1, 0, 2, 0}, {0, 3, 1, 1}, {2, 2, 0, 3}, {3, 1, 3, 2}};
static const uint8_t k_digit2[4][4] = {{0, 1, 3, 2}, {0, 3, 1, 2}, {2, 1, 3, 0}, {2, 3, 1, 0}};

uint64_t sk_hilbert2d(uint32_t ix, uint32_t iy, int bits)
{
    uint64_t key = 0;
    unsigned state = 0;
    for (int i = bits - 1; i >= 0; i--) {
        unsigned d = (((ix >> i) & 1u) << 1) | ((iy >> i) & 1u);
        key = (key << 2) | k_digit2[state][d];
        state = k_next2[state][d];
    }
    return key;
}

uint64_t sk_hilbert3d(uint32_t ix, uint32_t iy, uint32_t iz, int bits)
{
    uint64_t key = 0;
    unsigned state = 0;
    for (int i = bits - 1; i >= 0; i--) {
        unsigned d = (((ix >> i) & 1u) << 2) | (((iy >> i) & 1u) << 1) | ((iz >> i) & 1u);
        key = (key << 3) | k_digit[state][d];
        state = k_next[state][d];
    }
    return key;
}

static uint32_t grid_index(double x, int bits)
{
    double n = ldexp(1.0, bits);
    double v = floor(x * n);
    if (!(v >= 0))
        return 0;
    if (v >= n)
        return (uint32_t)(n - 1);
    return (uint32_t)v;
}

uint64_t sk_hilbert3d_point(double x, double y, double z, int bits)
{
    return sk_hilbert3d(grid_index(x, bits), grid_index(y, bits), grid_index(z, bits), bits);
}

typedef struct box_query {
    double lo[3], hi[3];
    int ndim, bits, max_level, ndomain, ncpu, marked;
    const double *bound_key;
    uint8_t *mask;
    sk_hilbert_cube_test test; /* NULL: the box alone */
    void *test_ctx;
} box_query;

/* First domain (1-based) whose keys end above kmin: binary search. */
static int first_domain(const box_query *q, double kmin)
{
    int lo = 1, hi = q->ndomain;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (q->bound_key[mid] > kmin)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Do the domains overlapping keys [kmin, kmax) all belong to marked CPUs?
 * With `mark`, mark them. */
static int range_marked(box_query *q, double kmin, double kmax, int mark)
{
    int all = 1;
    for (int d = first_domain(q, kmin); d <= q->ndomain && q->bound_key[d - 1] < kmax; d++) {
        if (!(q->bound_key[d] > kmin))
            continue;
        int cpu = (d - 1) % q->ncpu;
        if (!q->mask[cpu]) {
            all = 0;
            if (mark) {
                q->mask[cpu] = 1;
                q->marked++;
            }
        }
    }
    return all;
}

/* First key of the aligned cube (i, j, k) of `level` on the ndim-D curve
 * (hilbert1d is the x index itself). */
static uint64_t cube_key(const box_query *q, int level, uint32_t i, uint32_t j, uint32_t k)
{
    if (!level)
        return 0;
    return q->ndim == 3 ? sk_hilbert3d(i, j, k, level)
           : q->ndim == 2 ? sk_hilbert2d(i, j, level)
                          : i;
}

/* The aligned cube (i, j, k) at `level` covers one contiguous key range.
 * Cubes inside the box (and, with a test, inside the region) are marked
 * whole; cubes the test puts outside are dropped; cubes on an edge are
 * split, unless every CPU their keys could belong to is marked already
 * (which also stops the split of a cube lying in one domain once it is
 * marked). */
static void visit(box_query *q, int level, uint32_t i, uint32_t j, uint32_t k)
{
    double size = ldexp(1.0, -level);
    double c_lo[3] = {i * size, j * size, k * size};
    int inside = 1;
    for (int a = 0; a < q->ndim; a++) {
        double c_hi = c_lo[a] + size;
        if (c_hi <= q->lo[a] || c_lo[a] >= q->hi[a])
            return; /* disjoint */
        if (c_lo[a] < q->lo[a] || c_hi > q->hi[a])
            inside = 0;
    }
    int shift = q->ndim * (q->bits - level);
    uint64_t base = cube_key(q, level, i, j, k);
    double kmin = ldexp((double)base, shift), kmax = kmin + ldexp(1.0, shift);
    if (range_marked(q, kmin, kmax, 0))
        return;
    int region = 1;
    if (q->test) {
        double c_hi[3] = {c_lo[0] + size, c_lo[1] + size, c_lo[2] + size};
        region = q->test(q->test_ctx, c_lo, c_hi);
        if (region < 0)
            return;
    }
    if ((inside && region > 0) || level >= q->max_level || level >= q->bits) {
        range_marked(q, kmin, kmax, 1);
        return;
    }
    /* A cube inside a single domain that surely meets the box and the
     * region: its CPU is needed. */
    int d = first_domain(q, kmin);
    if (region > 0 && q->bound_key[d - 1] <= kmin && q->bound_key[d] >= kmax) {
        range_marked(q, kmin, kmax, 1);
        return;
    }
    for (int c = 0; c < 1 << q->ndim; c++)
        visit(q, level + 1, 2 * i + (c & 1), 2 * j + ((c >> 1) & 1), 2 * k + ((c >> 2) & 1));
}

int sk_hilbert_cpus_for_box(const double lo[3], const double hi[3], int bits,
                            const double *bound_key, int ndomain, int ncpu, int max_level,
                            uint8_t *cpu_mask)
{
    return sk_hilbert_cpus_for_region_nd(3, lo, hi, bits, bound_key, ndomain, ncpu, max_level,
                                         NULL, NULL, cpu_mask);
}

int sk_hilbert_cpus_for_region_nd(int ndim, const double lo[3], const double hi[3], int bits,
                                  const double *bound_key, int ndomain, int ncpu, int max_level,
                                  sk_hilbert_cube_test test, void *test_ctx, uint8_t *cpu_mask)
{
    box_query q = {.ndim = ndim >= 1 && ndim <= 3 ? ndim : 3, .bits = bits,
                   .max_level = max_level, .ndomain = ndomain, .ncpu = ncpu,
                   .bound_key = bound_key, .mask = cpu_mask, .test = test,
                   .test_ctx = test_ctx};
    for (int a = 0; a < q.ndim; a++) {
        q.lo[a] = lo[a] < 0 ? 0 : lo[a];
        q.hi[a] = hi[a] > 1 ? 1 : hi[a];
        if (!(q.lo[a] < q.hi[a]))
            return 0;
    }
    visit(&q, 0, 0, 0, 0);
    return q.marked;
}
