/* A growing text buffer for headers and small outputs. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "atoms/atoms_internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/number.h"

void at_text_put(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *b = sk_realloc(t->buf, cap);
        if (!b) {
            t->failed = 1;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

void at_text_str(text *t, const char *s)
{
    at_text_put(t, s, strlen(s));
}

void at_text_printf(text *t, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        at_text_put(t, small, (size_t)n);
        return;
    }
    char *big = sk_malloc((size_t)n + 1);
    if (!big) {
        t->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    at_text_put(t, big, (size_t)n);
    sk_free(big);
}

void at_text_double(text *t, double v)
{
    char buf[SK_NUMBER_BUFSIZE];
    int n = number_format_double(v, buf);
    at_text_put(t, buf, (size_t)n);
}

void at_text_free(text *t)
{
    sk_free(t->buf);
    memset(t, 0, sizeof *t);
}
