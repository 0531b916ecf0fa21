/* Number text. Printing tries 15, 16 then 17 significant digits and keeps
 * the first that reads back exactly; parsing defers to strtod in the C
 * locale. Both are exact; the atoms module's fast paths replace them. */
#include "snapkit/number.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sk_format_int64(int64_t v, char *buf)
{
    return snprintf(buf, SK_NUMBER_BUFSIZE, "%lld", (long long)v);
}

int sk_format_double(double v, char *buf)
{
    if (isnan(v))
        return snprintf(buf, SK_NUMBER_BUFSIZE, "nan");
    if (isinf(v))
        return snprintf(buf, SK_NUMBER_BUFSIZE, v < 0 ? "-inf" : "inf");
    int n = 0;
    for (int digits = 15; digits <= 17; digits++) {
        n = snprintf(buf, SK_NUMBER_BUFSIZE, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return n;
}

int sk_parse_double(const char *s, const char *end, double *out, const char **stop)
{
    char tmp[64];
    size_t n = (size_t)(end - s);
    if (n >= sizeof tmp)
        n = sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *e = NULL;
    double v = strtod(tmp, &e);
    if (e == tmp)
        return 0;
    *out = v;
    if (stop)
        *stop = s + (e - tmp);
    return 1;
}

int sk_parse_int64(const char *s, const char *end, int64_t *out, const char **stop)
{
    const char *p = s;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    uint64_t v = 0;
    const char *digits = p;
    while (p < end && *p >= '0' && *p <= '9') {
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
