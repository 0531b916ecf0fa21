/* Lines: walking header lines one by one, and skipping or counting many
 * lines fast (32 bytes at a time with AVX2, else 16 with SSE2). */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "formats/atoms/internal.h"

int at_cursor_next(cursor *c, const char **b, const char **e)
{
    if (c->p >= c->end)
        return 0;
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    const char *stop = nl ? nl : c->end;
    *b = c->p;
    *e = stop > c->p && stop[-1] == '\r' ? stop - 1 : stop;
    c->p = nl ? nl + 1 : c->end;
    c->line++;
    return 1;
}

int at_cursor_next_nonblank(cursor *c, const char **b, const char **e, int comment, int64_t *line)
{
    for (;;) {
        int64_t number = c->line;
        if (!at_cursor_next(c, b, e))
            return 0;
        if (comment) {
            const char *hash = memchr(*b, comment, (size_t)(*e - *b));
            if (hash)
                *e = hash;
        }
        if (!at_only_space(*b, *e)) {
            *line = number;
            return 1;
        }
    }
}

int at_only_space(const char *p, const char *end)
{
    for (; p < end; p++)
        if (!is_blank(*p) && *p != '\n' && *p != '\f' && *p != '\v')
            return 0;
    return 1;
}

int at_starts_with_word(const char *b, const char *e, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(e - b) < n || memcmp(b, w, n) != 0)
        return 0;
    return b + n == e || is_blank(b[n]);
}

void at_trim(const char **b, const char **e)
{
    while (*b < *e && is_blank(**b))
        (*b)++;
    while (*e > *b && is_blank((*e)[-1]))
        (*e)--;
}

/* Line ends in [p, end): 16 bytes per step, byte counters summed every
 * 255 steps (before they could overflow). */
static int64_t count_newlines_sse2(const char *p, const char *end)
{
    int64_t total = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (end - p >= 64) {
        __m128i acc = zero;
        for (int i = 0; i < 63 && end - p >= 64; i++, p += 64) {
            const __m128i *v = (const __m128i *)(const void *)p;
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128(v), nl));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128(v + 1), nl));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128(v + 2), nl));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128(v + 3), nl));
        }
        __m128i sums = _mm_sad_epu8(acc, zero);
        total += _mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4);
    }
#endif
    for (; p < end; p++)
        total += *p == '\n';
    return total;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The same 32 bytes per step where the CPU has AVX2 (chosen at run time):
 * the frame index's pass over a whole trajectory is this loop. */
__attribute__((target("avx2"))) static int64_t count_newlines_avx2(const char *p, const char *end)
{
    int64_t total = 0;
    const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
    while (end - p >= 128) {
        __m256i acc = zero;
        for (int i = 0; i < 63 && end - p >= 128; i++, p += 128) {
            const __m256i *v = (const __m256i *)(const void *)p;
            acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_loadu_si256(v), nl));
            acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 1), nl));
            acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 2), nl));
            acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 3), nl));
        }
        __m256i sums = _mm256_sad_epu8(acc, zero);
        total += _mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) +
                 _mm256_extract_epi64(sums, 2) + _mm256_extract_epi64(sums, 3);
    }
    return total + count_newlines_sse2(p, end);
}

static int64_t count_newlines(const char *p, const char *end)
{
    return __builtin_cpu_supports("avx2") ? count_newlines_avx2(p, end)
                                          : count_newlines_sse2(p, end);
}
#else
static int64_t count_newlines(const char *p, const char *end)
{
    return count_newlines_sse2(p, end);
}
#endif

const char *at_skip_lines(const char *p, const char *end, int64_t n, int64_t *done)
{
    int64_t left = n;
    /* a chunk of k bytes holds at most k line ends: big chunks while many
     * lines are left, small ones near the end, then line by line */
    for (int64_t chunk = 4096; chunk >= 128; chunk /= 8)
        while (left > chunk && end - p >= chunk) {
            left -= count_newlines(p, p + chunk);
            p += chunk;
        }
    while (left > 0 && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
        left--;
    }
    *done = n - left;
    return p;
}

int64_t at_count_lines(const char *p, const char *end)
{
    return count_newlines(p, end) + (end > p && end[-1] != '\n');
}
