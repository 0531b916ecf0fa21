/* The bench module's view of a source. */
#ifndef SNAPKIT_BENCH_SOURCE_H
#define SNAPKIT_BENCH_SOURCE_H

#include "snapkit/ramses.h"

struct sk_bench_source {
    char path[1024];
    sk_ramses *ramses;
};

/* Name prefixes of the files in the source's folder that reading
 * `component` opens; returns their count (at most 2). */
int skb_source_file_kinds(const char *component, const char **prefixes);

#endif
