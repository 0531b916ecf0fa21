/* Sizes and durations as short text. */
#include "bench/format.h"

#include <math.h>
#include <stdio.h>

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
