/* A growing text buffer for the bench module's reports and figures. */
#include "bench/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"

static int reserve(skb_buf *b, size_t extra)
{
    if (b->failed)
        return 0;
    if (b->len + extra + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 512;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = sk_realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return 0;
    }
    b->s = s;
    b->cap = cap;
    return 1;
}

void skb_printf(skb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void skb_puts(skb_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

char *skb_take(skb_buf *b)
{
    if (!reserve(b, 0)) {
        skb_free(b);
        return NULL;
    }
    b->s[b->len] = '\0';
    char *s = b->s;
    memset(b, 0, sizeof *b);
    return s;
}

void skb_free(skb_buf *b)
{
    sk_free(b->s);
    memset(b, 0, sizeof *b);
}

const char *skb_bytes(double bytes, char *buf, size_t n)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (fabs(bytes) >= 1000.0 && u < 5) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

const char *skb_seconds(double s, char *buf, size_t n)
{
    if (!isfinite(s))
        snprintf(buf, n, "-");
    else if (s >= 100.0)
        snprintf(buf, n, "%.0f s", s);
    else if (s >= 1.0)
        snprintf(buf, n, "%.2f s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(buf, n, "%.3g us", s * 1e6);
    else
        snprintf(buf, n, "%.3g ns", s * 1e9);
    return buf;
}
