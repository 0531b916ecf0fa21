/* The half-mass radius without sorting a large clump: members fall into
 * NB shells of equal width in r2 (a monotone map, so shells keep the r2
 * order); the shells' masses are added until the half is near, and only
 * that shell is sorted and walked member by member. Every sum runs in a
 * fixed order (a shell's mass: by NS fixed stretches of the members, each
 * in member order, then stretch after stretch; then shell after shell), so
 * the result does not depend on the threads. */
#include <math.h>
#include <stdlib.h>

#include "clumps_stats.h"
#include "snapkit/memory.h"

#define NB 4096 /* shells */
#define NS 8    /* stretches of members, each with its shells' masses */

static int by_r2(const void *pa, const void *pb)
{
    const cl_rm *a = pa, *b = pb;
    if (a->r2 != b->r2)
        return a->r2 < b->r2 ? -1 : 1;
    return a->m < b->m ? -1 : a->m > b->m;
}

/* Walks v[0..n) (sorted) from *cum: the radius where it reaches half, or
 * -1 with *cum advanced past them all. */
static double walk(const cl_rm *v, int64_t n, double *cum, double half)
{
    for (int64_t k = 0; k < n; k++) {
        *cum += v[k].m;
        if (*cum >= half)
            return sqrt(v[k].r2);
    }
    return -1;
}

static int64_t shell(double r2, double r2max)
{
    return r2max > 0 ? (int64_t)(r2 / r2max * (NB - 1)) : 0;
}

/* The shells' masses and counts; then, from the shell where the half is
 * crossed, that shell's members, copied out (each stretch to its place, in
 * parallel) and sorted. -2: out of memory (the caller sorts them all). */
static double by_shells(cl_rm *v, int64_t n, double mass, double r2max, int threads)
{
    double half = 0.5 * mass, cum = 0;
    double(*m)[NB] = sk_calloc(NS, sizeof *m);
    int64_t(*k)[NB] = sk_calloc(NS, sizeof *k);
    if (!m || !k) {
        sk_free(m);
        sk_free(k);
        return -2;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int s = 0; s < NS; s++)
        for (int64_t a = n * s / NS; a < n * (s + 1) / NS; a++) {
            int64_t b = shell(v[a].r2, r2max);
            m[s][b] += v[a].m;
            k[s][b]++;
        }
    double r = -1;
    for (int64_t b = 0; b < NB && r == -1; b++) {
        double mb = m[0][b];
        int64_t at[NS + 1] = {0};
        for (int s = 0; s < NS; s++) {
            mb += s ? m[s][b] : 0;
            at[s + 1] = at[s] + k[s][b];
        }
        if (cum + mb < half) {
            cum += mb;
            continue;
        }
        cl_rm *w = sk_malloc((size_t)(at[NS] + 1) * sizeof *w);
        if (!w) {
            r = -2;
            break;
        }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (int s = 0; s < NS; s++) {
            int64_t o = at[s];
            for (int64_t a = n * s / NS; a < n * (s + 1) / NS; a++)
                if (shell(v[a].r2, r2max) == b)
                    w[o++] = v[a];
        }
        qsort(w, (size_t)at[NS], sizeof *w, by_r2);
        r = walk(w, at[NS], &cum, half);
        sk_free(w);
    }
    if (r == -1)
        r = sqrt(r2max); /* rounding kept cum below half of mass */
    sk_free(m);
    sk_free(k);
    return r;
}

double cl_half_mass_radius(cl_rm *v, int64_t n, double mass, double r2max, int threads)
{
    if (n <= 0)
        return 0;
    if (n > CL_BLOCK) {
        double r = by_shells(v, n, mass, r2max, threads);
        if (r != -2)
            return r;
    }
    qsort(v, (size_t)n, sizeof *v, by_r2);
    double cum = 0, r = walk(v, n, &cum, 0.5 * mass);
    return r >= 0 ? r : sqrt(v[n - 1].r2); /* rounding kept cum below half of mass */
}
