/* The Hilbert curve: a bijection, contiguous (each step moves to a face
 * neighbour), hierarchical (an aligned cube is one key range), and equal to
 * RAMSES's keys (values computed with yt's hilbert3d, an independent copy
 * of RAMSES's routine). */
#include "check.h"
#include "snapkit/util/hilbert.h"

static void test_bijection_and_adjacency(void)
{
    enum { BITS = 3, N = 1 << BITS };
    static uint32_t pos[N * N * N][3];
    static uint8_t seen[N * N * N];
    for (uint32_t x = 0; x < N; x++)
        for (uint32_t y = 0; y < N; y++)
            for (uint32_t z = 0; z < N; z++) {
                uint64_t k = sk_hilbert3d(x, y, z, BITS);
                CHECK(k < N * N * N);
                CHECK(!seen[k]);
                seen[k] = 1;
                pos[k][0] = x, pos[k][1] = y, pos[k][2] = z;
            }
    for (int k = 1; k < N * N * N; k++) {
        int d = 0;
        for (int a = 0; a < 3; a++)
            d += abs((int)pos[k][a] - (int)pos[k - 1][a]);
        CHECK_EQ_INT(d, 1);
    }
}

/* hilbert2d: a bijection, contiguous, and aligned squares are key ranges
 * (RAMSES's own cpu_map of the 2-D fixture is checked in
 * test_ramses_domains.c). */
static void test_2d(void)
{
    enum { BITS = 4, N = 1 << BITS };
    static uint32_t pos[N * N][2];
    static uint8_t seen[N * N];
    for (uint32_t x = 0; x < N; x++)
        for (uint32_t y = 0; y < N; y++) {
            uint64_t k = sk_hilbert2d(x, y, BITS);
            CHECK(k < N * N && !seen[k]);
            seen[k] = 1;
            pos[k][0] = x, pos[k][1] = y;
            CHECK_EQ_INT(k >> 2, sk_hilbert2d(x >> 1, y >> 1, BITS - 1));
        }
    for (int k = 1; k < N * N; k++)
        CHECK_EQ_INT(abs((int)pos[k][0] - (int)pos[k - 1][0]) +
                         abs((int)pos[k][1] - (int)pos[k - 1][1]),
                     1);
    /* RAMSES's state machine starts (0,0), (0,1), (1,1), (1,0). */
    CHECK_EQ_INT(sk_hilbert2d(0, 1, 1), 1);
    CHECK_EQ_INT(sk_hilbert2d(1, 1, 1), 2);
    CHECK_EQ_INT(sk_hilbert2d(1, 0, 1), 3);
}

static void test_known_keys(void)
{
    /* yt.frontends.ramses.hilbert.hilbert3d([[x, y, z]], bits) */
    CHECK_EQ_INT(sk_hilbert3d(0, 0, 0, 9), 0);
    CHECK_EQ_INT(sk_hilbert3d(1, 0, 0, 1), 7);
    CHECK_EQ_INT(sk_hilbert3d(0, 1, 0, 1), 3);
    CHECK_EQ_INT(sk_hilbert3d(0, 0, 1, 1), 1);
    CHECK_EQ_INT(sk_hilbert3d(123, 45, 67, 9), 621797);
    CHECK_EQ_INT(sk_hilbert3d(511, 0, 511, 9), 110782886);
}

static void test_cpus_for_box(void)
{
    /* 8 equal domains of a 2^9 grid: each is one octant of the box. */
    double bound[9];
    for (int d = 0; d <= 8; d++)
        bound[d] = d * (double)(1u << 24);
    uint8_t mask[8] = {0};
    double lo[3] = {0.1, 0.1, 0.1}, hi[3] = {0.2, 0.2, 0.2};
    CHECK_EQ_INT(sk_hilbert_cpus_for_box(lo, hi, 9, bound, 8, 8, 6, mask), 1);
    CHECK(mask[0]); /* the octant at the origin holds keys [0, 2^24) */
    uint8_t all[8] = {0};
    double lo2[3] = {0.4, 0.4, 0.4}, hi2[3] = {0.6, 0.6, 0.6};
    CHECK_EQ_INT(sk_hilbert_cpus_for_box(lo2, hi2, 9, bound, 8, 8, 6, all), 8);
    /* Every point's key lies in a marked domain. */
    uint8_t m[8] = {0};
    double lo3[3] = {0.3, 0.55, 0.1}, hi3[3] = {0.45, 0.7, 0.9};
    sk_hilbert_cpus_for_box(lo3, hi3, 9, bound, 8, 8, 4, m);
    for (double x = 0.3; x < 0.45; x += 0.01)
        for (double y = 0.55; y < 0.7; y += 0.01)
            for (double z = 0.1; z < 0.9; z += 0.01)
                CHECK(m[sk_hilbert3d_point(x, y, z, 9) >> 24]);
}

int main(void)
{
    test_bijection_and_adjacency();
    test_known_keys();
    test_2d();
    test_cpus_for_box();
    return test_done();
}
