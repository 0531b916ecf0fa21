/* The column names of an accumulator's schema (column statistics,
 * weighted statistics): checked against a batch, and encoded as
 * (uint32 length, bytes) pairs when an accumulator travels between
 * processes. */
#ifndef SNAPKIT_CORE_SCHEMA_NAMES_H
#define SNAPKIT_CORE_SCHEMA_NAMES_H

#include <stddef.h>

#include "snapkit/table.h"

/* Whether t's columns are names[0..n) in that order. */
int schema_names_match(const sk_table *t, char *const *names, int n);
/* Bytes the n names take encoded. */
size_t schema_names_size(char *const *names, int n);
/* Encode the n names at b; returns the bytes written. */
size_t schema_names_encode(unsigned char *b, char *const *names, int n);
/* Decode n names from b + *at (size bytes in all) into names[0..n),
 * each allocated; advances *at. 0 for bytes that end early or no memory
 * (names decoded so far stay in names, for the caller to free). */
int schema_names_decode(char **names, int n, const unsigned char *b, size_t size, size_t *at);

#endif
