/* The cells' canonical order, fast: (level, x, y, z) packed into one word
 * (the fewest bits the levels present need), with the row in the same
 * word's low bits when both fit, else in a second word, and sorted by an
 * LSD radix sort whose passes are split over the threads. The keys are
 * distinct once the duplicates are refused (and a stable sort keeps
 * duplicates in row order, next to each other, for that check), so the
 * order is the same for any split. */
#include "clumps_internal.h"
#include "snapkit/memory.h"

#define MAX_DIGIT 12 /* bits a pass; 4096 counts a thread */
#define NDIGIT (1 << MAX_DIGIT)

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

/* One pass by the digit at `shift` of word 0 of elements of w words:
 * slice s of the input counts its digits, the counts become each (digit,
 * slice)'s first place, and every slice scatters its elements in order. */
static void pass(const uint64_t *a, uint64_t *b, int64_t n, int w, int shift, int digit,
                 int slices, int64_t (*count)[NDIGIT])
{
    const uint64_t mask = ((uint64_t)1 << digit) - 1;
#pragma omp parallel for schedule(static, 1) num_threads(slices)
    for (int s = 0; s < slices; s++) {
        int64_t lo = n * s / slices, hi = n * (s + 1) / slices;
        for (uint64_t d = 0; d <= mask; d++)
            count[s][d] = 0;
        for (int64_t i = lo; i < hi; i++)
            count[s][a[i * w] >> shift & mask]++;
    }
    int64_t at = 0;
    for (uint64_t d = 0; d <= mask; d++)
        for (int s = 0; s < slices; s++) {
            int64_t k = count[s][d];
            count[s][d] = at;
            at += k;
        }
#pragma omp parallel for schedule(static, 1) num_threads(slices)
    for (int s = 0; s < slices; s++) {
        int64_t lo = n * s / slices, hi = n * (s + 1) / slices;
        for (int64_t i = lo; i < hi; i++) {
            int64_t to = count[s][a[i * w] >> shift & mask]++;
            b[to * w] = a[i * w];
            if (w == 2)
                b[to * w + 1] = a[i * w + 1];
        }
    }
}

int cl_radix_sort(uint64_t **a, int64_t n, int w, int lo, int hi, int threads)
{
    int slices = threads > 1 && n > 100000 ? threads : 1;
    uint64_t *b = sk_malloc((size_t)(n + 1) * (size_t)w * sizeof *b), *from = *a, *to = b;
    int64_t (*count)[NDIGIT] = sk_malloc((size_t)slices * sizeof *count);
    if (!b || !count) {
        sk_free(b);
        sk_free(count);
        return -1;
    }
    /* the fewest passes of at most MAX_DIGIT bits, all of one width */
    int passes = (hi - lo + MAX_DIGIT - 1) / MAX_DIGIT;
    int digit = passes ? (hi - lo + passes - 1) / passes : 0;
    for (int shift = lo; shift < hi; shift += digit) {
        pass(from, to, n, w, shift, digit, slices, count);
        uint64_t *t = from;
        from = to;
        to = t;
    }
    sk_free(to);
    *a = from;
    sk_free(count);
    return 0;
}
