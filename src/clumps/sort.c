/* The cells' canonical order, fast: (level, x, y, z) packed into one word
 * (fewest bits the levels present need) and sorted by an LSD radix sort
 * whose passes are split over the threads. The keys are distinct once the
 * duplicates are refused, so the order is the same for any split. */
#include "clumps_internal.h"
#include "snapkit/memory.h"

#define DIGIT 11
#define NDIGIT (1 << DIGIT)

int cl_pack_bits(int top)
{
    return 3 * top + 5 <= 64 && top <= CL_MAX_LEVEL ? top : -1;
}

uint64_t cl_pack(cl_key k, int bits)
{
    return (uint64_t)k.level << 3 * bits | (uint64_t)k.x << 2 * bits | (uint64_t)k.y << bits |
           (uint64_t)k.z;
}

cl_key cl_unpack(uint64_t k, int bits)
{
    uint64_t m = ((uint64_t)1 << bits) - 1;
    return (cl_key){(int32_t)(k >> 3 * bits), (int32_t)(k >> 2 * bits & m),
                    (int32_t)(k >> bits & m), (int32_t)(k & m)};
}

/* One pass by the digit at `shift`: slice s of the input counts its
 * digits, the counts are turned into each (digit, slice)'s first place,
 * and every slice scatters its records, keeping their order. */
static void pass(const cl_packed *a, cl_packed *b, int64_t n, int shift, int slices,
                 int64_t (*count)[NDIGIT])
{
#pragma omp parallel for schedule(static, 1) num_threads(slices)
    for (int s = 0; s < slices; s++) {
        int64_t lo = n * s / slices, hi = n * (s + 1) / slices;
        for (int d = 0; d < NDIGIT; d++)
            count[s][d] = 0;
        for (int64_t i = lo; i < hi; i++)
            count[s][a[i].k >> shift & (NDIGIT - 1)]++;
    }
    int64_t at = 0;
    for (int d = 0; d < NDIGIT; d++)
        for (int s = 0; s < slices; s++) {
            int64_t k = count[s][d];
            count[s][d] = at;
            at += k;
        }
#pragma omp parallel for schedule(static, 1) num_threads(slices)
    for (int s = 0; s < slices; s++) {
        int64_t lo = n * s / slices, hi = n * (s + 1) / slices;
        for (int64_t i = lo; i < hi; i++)
            b[count[s][a[i].k >> shift & (NDIGIT - 1)]++] = a[i];
    }
}

int cl_radix_sort(cl_packed **a, int64_t n, int keybits, int threads)
{
    int slices = threads > 1 && n > 100000 ? threads : 1;
    cl_packed *b = sk_malloc((size_t)(n + 1) * sizeof *b), *from = *a, *to = b;
    int64_t (*count)[NDIGIT] = sk_malloc((size_t)slices * sizeof *count);
    if (!b || !count) {
        sk_free(b);
        sk_free(count);
        return -1;
    }
    for (int shift = 0; shift < keybits; shift += DIGIT) {
        pass(from, to, n, shift, slices, count);
        cl_packed *t = from;
        from = to;
        to = t;
    }
    sk_free(to);
    *a = from;
    sk_free(count);
    return 0;
}
