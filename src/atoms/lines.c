/* Lines: walking header lines one by one, and skipping or counting many
 * lines fast (16 bytes at a time where SSE2 is there). */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "atoms/atoms_internal.h"

int cursor_next(cursor *c, const char **b, const char **e)
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

int cursor_next_nonblank(cursor *c, const char **b, const char **e, int comment, int64_t *line)
{
    for (;;) {
        int64_t number = c->line;
        if (!cursor_next(c, b, e))
            return 0;
        if (comment) {
            const char *hash = memchr(*b, comment, (size_t)(*e - *b));
            if (hash)
                *e = hash;
        }
        if (!only_space(*b, *e)) {
            *line = number;
            return 1;
        }
    }
}

int only_space(const char *p, const char *end)
{
    for (; p < end; p++)
        if (!is_blank(*p) && *p != '\n' && *p != '\f' && *p != '\v')
            return 0;
    return 1;
}

int starts_with_word(const char *b, const char *e, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(e - b) < n || memcmp(b, w, n) != 0)
        return 0;
    return b + n == e || is_blank(b[n]);
}

void trim(const char **b, const char **e)
{
    while (*b < *e && is_blank(**b))
        (*b)++;
    while (*e > *b && is_blank((*e)[-1]))
        (*e)--;
}

static int newlines_in_64(const char *p)
{
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    int c = 0;
    for (int i = 0; i < 64; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        c += __builtin_popcount((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)));
    }
    return c;
#else
    int c = 0;
    for (int i = 0; i < 64; i++)
        c += p[i] == '\n';
    return c;
#endif
}

const char *skip_lines(const char *p, const char *end, int64_t n, int64_t *done)
{
    int64_t left = n;
    while (left > 64 && end - p >= 64) { /* a block holds at most 64 line ends */
        left -= newlines_in_64(p);
        p += 64;
    }
    while (left > 0 && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
        left--;
    }
    *done = n - left;
    return p;
}

int64_t count_lines(const char *p, const char *end)
{
    int64_t c = 0;
    const char *s = p;
    for (; end - s >= 64; s += 64)
        c += newlines_in_64(s);
    for (; s < end; s++)
        c += *s == '\n';
    return c + (end > p && end[-1] != '\n');
}
