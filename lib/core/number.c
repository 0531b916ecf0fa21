/* Integer text. Doubles are in number_parse.c (correctly rounded parsing)
 * and number_format.c (shortest round-trip printing). */
#include <string.h>

#include "core/number_internal.h"
#include "snapkit/util/number.h"

int sk_format_int64(int64_t v, char *buf)
{
    char tmp[24];
    char *end = tmp + sizeof tmp, *p = end;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    int n = (int)(end - p);
    memcpy(buf, p, (size_t)n);
    buf[n] = '\0';
    return n;
}

int number_parse_int64(const char *s, const char *end, int64_t *out, const char **stop)
{
    const char *p = s;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    uint64_t v = 0;
    const char *digits = p;
    while (p < end && (unsigned char)(*p - '0') < 10) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
        p++;
    }
    if (p == digits || v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    if (stop)
        *stop = p;
    return 1;
}

int sk_parse_int64(const char *s, const char *end, int64_t *out, const char **stop)
    __attribute__((alias("number_parse_int64")));
