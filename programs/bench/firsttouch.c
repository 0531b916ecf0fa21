/* What the first write to fresh memory costs here: a whole table's columns
 * are new anonymous pages, and on some machines faulting them in costs more
 * than reading the input (issue 13). Measured on `bytes` of anonymous
 * memory touched once per 4 KB page, with 4 KB pages and with
 * MADV_HUGEPAGE, then touched again; plus the kernel's THP modes, which say
 * whether huge pages can come at all. Printed in the machine section so
 * that read figures from two machines can be compared. */
#include "bench/bench.h"

#include "snapkit/util/clock.h"
#include "snapkit/util/thp.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* The [bracketed] choice of a /sys THP file, or "unknown". */
static void thp_mode(const char *path, char *out, size_t n)
{
    if (!sk_thp_mode(path, out, n))
        snprintf(out, n, "unknown");
}

/* GB/s of touching bytes once per page (huge: after MADV_HUGEPAGE); the
 * second touch's into *again (may be NULL). 0 when the map fails. */
static double touch_rate(size_t bytes, int huge, double *again)
{
    volatile unsigned char *p =
        mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
#ifdef MADV_HUGEPAGE
    if (huge)
        madvise((void *)p, bytes, MADV_HUGEPAGE);
#endif
    double t0 = sk_monotonic_seconds();
    for (size_t i = 0; i < bytes; i += 4096)
        p[i] = 1;
    double t1 = sk_monotonic_seconds();
    for (size_t i = 0; i < bytes; i += 4096)
        p[i] = 2;
    double t2 = sk_monotonic_seconds();
    munmap((void *)p, bytes);
    if (again)
        *again = t2 > t1 ? (double)bytes / (t2 - t1) / 1e9 : 0;
    return t1 > t0 ? (double)bytes / (t1 - t0) / 1e9 : 0;
}

void sk_machine_first_touch(int64_t bytes, sk_first_touch *out)
{
    memset(out, 0, sizeof *out);
    out->bytes = bytes;
    out->gb_per_s = touch_rate((size_t)bytes, 0, &out->second_gb_per_s);
    out->huge_gb_per_s = touch_rate((size_t)bytes, 1, NULL);
    thp_mode("/sys/kernel/mm/transparent_hugepage/enabled", out->thp_enabled,
             sizeof out->thp_enabled);
    thp_mode("/sys/kernel/mm/transparent_hugepage/defrag", out->thp_defrag,
             sizeof out->thp_defrag);
}
