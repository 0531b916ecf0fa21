/* sk_clumps_find on hand-built cell tables whose answers follow from the
 * geometry: a face across a level jump, an edge contact that only the
 * watershed's neighbourhood sees, and PHEW's relevance rule. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "snapkit/snapkit.h"

static sk_table *cells(int n, const int32_t *lv, const int32_t *x, const int32_t *y,
                       const int32_t *z, const double *rho)
{
    sk_error err;
    sk_table *t = sk_table_new(n);
    memcpy(sk_table_add(t, "level", SK_INT32, &err), lv, (size_t)n * 4);
    memcpy(sk_table_add(t, "cx", SK_INT32, &err), x, (size_t)n * 4);
    memcpy(sk_table_add(t, "cy", SK_INT32, &err), y, (size_t)n * 4);
    memcpy(sk_table_add(t, "cz", SK_INT32, &err), z, (size_t)n * 4);
    memcpy(sk_table_add(t, "density", SK_FLOAT64, &err), rho, (size_t)n * 8);
    sk_table_meta_set(t, "kind", "cells");
    sk_table_meta_set(t, "boxlen", "1");
    return t;
}

static double col(const sk_table *t, const char *name, int64_t i)
{
    const sk_column *c = sk_table_find(t, name);
    return c ? sk_column_get_double(c, i) : NAN;
}

static void test_level_jump(void)
{
    /* a level-2 cell, a level-3 cell on its +x face, one touching it only
     * along an edge */
    const int32_t lv[] = {2, 3, 3}, x[] = {0, 2, 2}, y[] = {0, 0, 2}, z[] = {0, 0, 0};
    const double rho[] = {5, 3, 4};
    sk_table *t = cells(3, lv, x, y, z, rho), *cat;
    sk_clumps_options o;
    sk_clumps_options_init(&o);
    o.threshold = 1;
    int32_t ids[3];
    sk_error err;
    CHECK_OK(sk_clumps_find(t, &o, &cat, ids, &err), &err);
    CHECK_EQ_INT(sk_table_nrows(cat), 2);
    CHECK(ids[0] == 1 && ids[1] == 1 && ids[2] == 2);
    CHECK_CLOSE(col(cat, "mass", 0), 43.0 / 512, 1e-15);
    CHECK_CLOSE(col(cat, "mass", 1), 4.0 / 512, 1e-15);
    sk_table_free(cat);
    o.finder = SK_CLUMPS_WATERSHED;
    CHECK_OK(sk_clumps_find(t, &o, &cat, ids, &err), &err);
    CHECK_EQ_INT(sk_table_nrows(cat), 1);
    CHECK(ids[0] == 1 && ids[1] == 1 && ids[2] == 1);
    CHECK_CLOSE(col(cat, "peak", 0), 5, 0);
    CHECK_CLOSE(col(cat, "peak_x", 0), 0.125, 0);
    sk_table_free(cat);
    sk_table_free(t);
}

static void test_relevance(void)
{
    /* peaks 5 and 4.5 with the saddle (3 + 4.5) / 2 = 3.75 between them:
     * the lower one's relevance is 1.2 */
    const int32_t lv[] = {3, 3, 3, 3, 3}, x[] = {0, 1, 2, 3, 4}, y[] = {0, 0, 0, 0, 0};
    const double rho[] = {2, 5, 3, 4.5, 2};
    sk_table *t = cells(5, lv, x, y, y, rho), *cat;
    sk_clumps_options o;
    sk_clumps_options_init(&o);
    o.threshold = 1;
    o.finder = SK_CLUMPS_WATERSHED;
    o.relevance = 2;
    int32_t ids[5];
    sk_error err;
    CHECK_OK(sk_clumps_find(t, &o, &cat, ids, &err), &err);
    CHECK_EQ_INT(sk_table_nrows(cat), 1);
    sk_table_free(cat);
    o.relevance = 1.1;
    CHECK_OK(sk_clumps_find(t, &o, &cat, ids, &err), &err);
    /* two leaves and the branch that joins them at the saddle 3.75 */
    CHECK_EQ_INT(sk_table_nrows(cat), 3);
    CHECK(ids[0] == 2 && ids[1] == 2 && ids[2] == 2 && ids[3] == 3 && ids[4] == 3);
    CHECK_CLOSE(col(cat, "mass", 0), 16.5 / 512, 1e-15);
    CHECK_CLOSE(col(cat, "mass", 1), 10.0 / 512, 1e-15);
    CHECK_CLOSE(col(cat, "mass", 2), 6.5 / 512, 1e-15);
    CHECK_CLOSE(col(cat, "e_grav", 2), -0.6 * pow(6.5 / 512, 2) / (0.125 * 4.5 / 6.5),
                1e-15);
    CHECK(col(cat, "parent", 0) == -1 && col(cat, "parent", 1) == 1 && col(cat, "parent", 2) == 1);
    CHECK(col(cat, "depth", 0) == 0 && col(cat, "depth", 1) == 1 && col(cat, "depth", 2) == 1);
    CHECK(col(cat, "leaf", 0) == 0 && col(cat, "leaf", 1) == 1 && col(cat, "leaf", 2) == 1);
    CHECK(col(cat, "saddle", 1) == 3.75 && col(cat, "saddle", 2) == 3.75);
    CHECK(col(cat, "saddle", 0) == 2 && col(cat, "peak", 0) == 5);
    sk_table_free(cat);
    o.threshold = 10; /* above the maximum: empty, not an error */
    CHECK_OK(sk_clumps_find(t, &o, &cat, ids, &err), &err);
    CHECK_EQ_INT(sk_table_nrows(cat), 0);
    CHECK(sk_table_find(cat, "mass") != NULL);
    sk_table_free(cat);
    o.field = "temperature";
    CHECK(sk_clumps_find(t, &o, &cat, ids, &err) == SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "no numeric column 'temperature'");
    CHECK(cat == NULL);
    sk_table_free(t);
}

/* A line of level-4 cells (16 across the box: x 0 and x 10 do not touch
 * through the periodic boundary) with the values
 *   x:  0  1  2  3  4  5  6  7    8  9    10
 *       2  9  5  8  3  7  6  7.5  2  4.5  2
 * and min_delta 1.5, the tree by hand (densest first, ties by position):
 *  - leaves at x 1 (9), x 3 (8), x 7 (7.5), x 5 (7);
 *  - x 6 (6) touches the leaves of x 5 (7 - 6 < 1.5: merged) and x 7
 *    (7.5 - 6 >= 1.5, stays): leaf A = {5, 6, 7};
 *  - x 2 (5) touches x 1 and x 3, both rising >= 1.5: branch B1 = {2} over
 *    them (their saddle 5); leaf {9} (4.5);
 *  - x 4 (3) touches B1 and A: branch B2 = {4} over both (saddle 3);
 *  - x 0 (2) joins B2; x 8 (2) touches B2 and {9} (rising 2.5): branch B3
 *    = {8} over them (saddle 2); x 10 joins B3.
 * By mass (values / 16^3): B3 56, B2 47.5, B1 22, A 20.5, {1} 9, {3} 8,
 * {9} 4.5. */
static void test_dendrogram(void)
{
    int32_t lv[11], x[11], zero[11] = {0};
    const double rho[] = {2, 9, 5, 8, 3, 7, 6, 7.5, 2, 4.5, 2};
    for (int i = 0; i < 11; i++)
        lv[i] = 4, x[i] = i;
    sk_table *t = cells(11, lv, x, zero, zero, rho), *cat;
    sk_clumps_options o;
    sk_clumps_options_init(&o);
    o.threshold = 1;
    o.finder = SK_CLUMPS_DENDROGRAM;
    o.min_delta = 1.5;
    int32_t ids[11];
    sk_error err;
    CHECK_OK(sk_clumps_find(t, &o, &cat, ids, &err), &err);
    CHECK_EQ_INT(sk_table_nrows(cat), 7);
    const double mass[] = {56, 47.5, 22, 20.5, 9, 8, 4.5};
    const int64_t ncells[] = {11, 8, 3, 3, 1, 1, 1};
    const int64_t parent[] = {-1, 1, 2, 2, 3, 3, 1}, depth[] = {0, 1, 2, 2, 3, 3, 1};
    const int leaf[] = {0, 0, 0, 1, 1, 1, 1};
    const double saddle[] = {2, 2, 3, 3, 5, 5, 2};
    for (int r = 0; r < 7; r++) {
        CHECK_CLOSE(col(cat, "mass", r), mass[r] / 4096, 1e-15);
        CHECK_EQ_INT((int64_t)col(cat, "n_cells", r), ncells[r]);
        CHECK_EQ_INT((int64_t)col(cat, "parent", r), parent[r]);
        CHECK_EQ_INT((int64_t)col(cat, "depth", r), depth[r]);
        CHECK_EQ_INT((int64_t)col(cat, "leaf", r), leaf[r]);
        CHECK_CLOSE(col(cat, "saddle", r), saddle[r], 0);
    }
    const double minimum[] = {2, 2, 5, 6, 9, 8, 4.5};
    for (int r = 0; r < 7; r++)
        CHECK_CLOSE(col(cat, "minimum", r), minimum[r], 0);
    const int32_t want[] = {0, 5, 0, 6, 0, 4, 4, 4, 0, 7, 0};
    for (int i = 0; i < 11; i++)
        CHECK_EQ_INT(ids[i], want[i]);
    sk_table_free(cat);
    sk_table_free(t);
}

int main(void)
{
    test_level_jump();
    test_relevance();
    test_dendrogram();
    CHECK_EQ_INT(sk_clumps_finder_from_name("watershed"), SK_CLUMPS_WATERSHED);
    CHECK(sk_clumps_finder_name(7) == NULL);
    return test_done();
}
