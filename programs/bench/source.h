/* What the bench module asks of a source's files. */
#ifndef SNAPKIT_BENCH_SOURCE_H
#define SNAPKIT_BENCH_SOURCE_H

#include <stddef.h>

#include "snapkit/source.h"

/* The files reading `component` opens, for dropping them from the cache:
 * name prefixes in a RAMSES folder (at most 2), or none for a .snapkit
 * file (the file itself). Returns the prefix count. */
int skb_source_file_kinds(const char *component, const char **prefixes);

/* Drop the files reading `component` opens from the page cache (dirty
 * pages written back first). Returns 1 when (almost) none of their pages
 * stayed cached, else 0 with the reason in note (read.c). */
int skb_drop_component(const sk_source *src, const char *component, char *note, size_t n);

#endif
