/* Fuzz the bench module's text parsers: /proc/cpuinfo and /proc/meminfo
 * text (a kernel or container may present anything) and thread lists. The
 * first byte picks the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "snapkit/snapkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    sk_machine m;
    memset(&m, 0, sizeof m);
    strcpy(m.cpu_model, "unknown");
    int levels[SK_BENCH_MAX_LEVELS];
    sk_error err;
    switch (data[0] % 3) {
    case 0:
        sk_machine_parse_cpuinfo(text, &m);
        break;
    case 1:
        sk_machine_parse_meminfo(text, &m);
        break;
    default: {
        int n = sk_bench_parse_levels(text, levels, SK_BENCH_MAX_LEVELS, &err);
        if (n > SK_BENCH_MAX_LEVELS)
            abort();
        for (int i = 1; i < n; i++)
            if (levels[i] <= levels[i - 1])
                abort();
    }
    }
    free(text);
    return 0;
}
