/* What the exact column statistics cost per value, without reading: a
 * synthetic cell table (levels 6-10, six float64 columns of mixed signs and
 * magnitudes, level and three int32 cell indices) added to one
 * accumulator (sk_stats_acc_add) in batches of 1,024 rows (a .snapkit
 * chunk) and of 34,000 rows (a CPU file of the 1M-cell benchmark), for a
 * box of 1 (power-of-two weights) and of 3 (weights that round). Prints
 * ns per value (rows x columns), best of --runs, one thread, and a sum
 * (the same bits for both batch sizes, as for any build).
 *
 *   cc -O2 peers/stats_sums.c -Iinclude -Lbuild -lsnapkit -lm -o stats_sums
 *   LD_LIBRARY_PATH=build ./stats_sums [rows] [runs]   (default 1048576, 7)
 *
 * Link it against two builds of the library to compare them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "snapkit/snapkit.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

/* A batch of n rows starting at row `first` of the synthetic table. */
static sk_table *batch(int64_t first, int64_t n, double boxlen, sk_error *err)
{
    static const char *names[] = {"density", "velocity_x", "velocity_y",
                                  "velocity_z", "pressure", "metallicity"};
    sk_table *t = sk_table_new(n);
    sk_table_meta_set(t, "kind", "cells");
    sk_table_meta_set_double(t, "boxlen", boxlen);
    int32_t *level = sk_table_add(t, "level", SK_INT32, err);
    int32_t *c[3];
    c[0] = sk_table_add(t, "cx", SK_INT32, err);
    c[1] = sk_table_add(t, "cy", SK_INT32, err);
    c[2] = sk_table_add(t, "cz", SK_INT32, err);
    double *x[6];
    for (int j = 0; j < 6; j++)
        x[j] = sk_table_add(t, names[j], SK_FLOAT64, err);
    for (int64_t i = 0; i < n; i++) {
        uint64_t s = (uint64_t)(first + i) * 0x9E3779B97F4A7C15ULL + 1; /* the row's own */
        level[i] = 6 + (int32_t)(next(&s) % 5);
        for (int k = 0; k < 3; k++)
            c[k][i] = (int32_t)(next(&s) % (1u << level[i]));
        for (int j = 0; j < 6; j++) {
            double u = (double)next(&s) * 0x1p-53;
            /* densities and pressures over 3 decades; velocities of both signs */
            x[j][i] = j == 0 || j == 4 ? exp(7.0 * u - 2.0) : j == 5 ? 0.001 + 0.02 * u : u - 0.5;
        }
    }
    return t;
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 1 << 20;
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    int64_t sizes[] = {1024, 34000};
    double boxes[] = {1.0, 3.0};
    sk_error err;
    sk_error_clear(&err);
    printf("%lld rows x 10 columns, best of %d\n", (long long)rows, runs);
    for (int bx = 0; bx < 2; bx++) {
        for (int sz = 0; sz < 2; sz++) {
            int64_t nb = (rows + sizes[sz] - 1) / sizes[sz];
            sk_table **b = malloc(sizeof *b * (size_t)nb);
            for (int64_t k = 0; k < nb; k++) {
                int64_t first = k * sizes[sz];
                int64_t n = rows - first < sizes[sz] ? rows - first : sizes[sz];
                b[k] = batch(first, n, boxes[bx], &err);
            }
            double best = INFINITY, sum = 0;
            for (int r = 0; r < runs; r++) {
                sk_stats_acc *acc;
                if (sk_stats_acc_new(b[0], &acc, &err) != SK_OK)
                    return 1;
                double t0 = now();
                for (int64_t k = 0; k < nb; k++)
                    if (sk_stats_acc_add(acc, b[k], k, &err) != SK_OK) {
                        fprintf(stderr, "%s\n", err.message);
                        return 1;
                    }
                double t = now() - t0;
                best = t < best ? t : best;
                sk_table_stats st;
                sk_stats_acc_result(acc, &st, &err);
                sum = st.cols[4].volume_sum;
                sk_table_stats_free(&st);
                sk_stats_acc_free(acc);
            }
            printf("box %g, batches of %6lld rows: %.2f ns per value (%.4f s; density "
                   "volume sum %.17g)\n",
                   boxes[bx], (long long)sizes[sz], best / (double)rows / 10 * 1e9, best, sum);
            for (int64_t k = 0; k < nb; k++)
                sk_table_free(b[k]);
            free(b);
        }
    }
    return 0;
}
