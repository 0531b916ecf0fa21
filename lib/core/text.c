/* A growing text buffer. */
#include "core/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"

int sk_text_reserve(char **buf, size_t len, size_t *cap, size_t extra)
{
    if (len + extra + 1 <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < len + extra + 1)
        c *= 2;
    char *b = sk_realloc(*buf, c);
    if (!b)
        return -1;
    *buf = b;
    *cap = c;
    return 0;
}

static int reserve(sk_text *t, size_t extra)
{
    if (t->failed)
        return 0;
    if (sk_text_reserve(&t->buf, t->len, &t->cap, extra) != 0) {
        t->failed = 1;
        return 0;
    }
    return 1;
}

void sk_text_put(sk_text *t, const char *s, size_t n)
{
    if (!reserve(t, n))
        return;
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

void sk_text_puts(sk_text *t, const char *s)
{
    sk_text_put(t, s, strlen(s));
}

void sk_text_printf(sk_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(t, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

char *sk_text_take(sk_text *t)
{
    if (!reserve(t, 0)) {
        sk_text_free(t);
        return NULL;
    }
    t->buf[t->len] = '\0';
    char *s = t->buf;
    memset(t, 0, sizeof *t);
    return s;
}

void sk_text_free(sk_text *t)
{
    sk_free(t->buf);
    memset(t, 0, sizeof *t);
}
