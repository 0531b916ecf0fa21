/* What the machine gives a second thread, whatever the program: the
 * speedup of three loops with no serial part and no sharing, on 1 and N
 * threads, best of --runs. A projection or a read cannot scale better
 * than the loop it resembles on the same machine, so this is the ceiling
 * to print beside their thread speedups (docs/performance.md).
 *
 *   cc -O2 -fopenmp peers/parallel_ceiling.c -o parallel_ceiling
 *   ./parallel_ceiling [threads] [runs]          (default: all CPUs, 30)
 *
 * arithmetic: a polynomial per index, no memory traffic (ALU bound);
 * stream:     a sum of squares over 128 MB (memory bandwidth bound);
 * scatter:    adds into a 8 MB image at hashed pixels, each thread owning
 *             a band of it (a projection's access pattern, no atomics). */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define STREAM_N (16u << 20)
#define IMAGE_N (1u << 20)
#define ARITH_N 40000000L

static volatile double sink;

static double arithmetic(void)
{
    double c = 0;
#pragma omp parallel for reduction(+ : c) schedule(static)
    for (long i = 0; i < ARITH_N; i++) {
        double x = (double)i * 1e-7;
        c += x * x * 0.5 + x * 0.25 - x * x * x * 1e-3;
    }
    return c;
}

static double stream(const double *a)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t i = 0; i < STREAM_N; i++)
        s += a[i] * a[i];
    return s;
}

static double scatter(const double *a, double *img)
{
#pragma omp parallel
    {
        size_t id = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        size_t lo = id * IMAGE_N / nt, hi = (id + 1) * IMAGE_N / nt;
        for (size_t i = 0; i < STREAM_N / 4; i++) {
            size_t p = (size_t)((uint32_t)(i * 2654435761u) & (IMAGE_N - 1));
            if (p >= lo && p < hi)
                img[p] += a[i];
        }
    }
    return img[0];
}

/* Best wall time of `runs` calls of loop `which` on `threads` threads. */
static double best_of(int which, int threads, int runs, const double *a, double *img)
{
    omp_set_num_threads(threads);
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        double t0 = omp_get_wtime();
        sink = which == 0 ? arithmetic() : which == 1 ? stream(a) : scatter(a, img);
        double t = omp_get_wtime() - t0;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : omp_get_num_procs();
    int runs = argc > 2 ? atoi(argv[2]) : 30;
    if (threads < 2 || runs < 1) {
        fprintf(stderr, "usage: parallel_ceiling [threads >= 2] [runs >= 1]\n");
        return 2;
    }
    double *a = malloc(sizeof *a * STREAM_N), *img = calloc(IMAGE_N, sizeof *img);
    if (!a || !img) {
        fprintf(stderr, "parallel_ceiling: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < STREAM_N; i++)
        a[i] = (double)i * 1e-9;
    const char *names[] = {"arithmetic", "stream", "scatter"};
    printf("loop         1 thread   %d threads  speedup  (best of %d)\n", threads, runs);
    for (int w = 0; w < 3; w++) {
        double t1 = best_of(w, 1, runs, a, img), tn = best_of(w, threads, runs, a, img);
        printf("%-10s  %8.2f ms  %8.2f ms  %6.2fx\n", names[w], t1 * 1e3, tn * 1e3, t1 / tn);
    }
    free(a);
    free(img);
    return 0;
}
