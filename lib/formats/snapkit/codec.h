/* Encoding one column of one chunk: statistics, frame-of-reference integers
 * of the smallest width, byte-shuffled floats, LZ4 or raw, XXH64. */
#ifndef SNAPKIT_STORE_CODEC_H
#define SNAPKIT_STORE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/table.h"
#include "formats/snapkit/format.h"

/* Most bytes st_encode can store for n values of `type`. */
size_t st_encode_bound(sk_dtype type, int64_t n);

/* Encode n values (the column's type, contiguous) into out (capacity from
 * st_encode_bound). scratch holds n * 8 bytes. Fills every field of cc but
 * the offset. */
void st_encode(sk_dtype type, const void *values, int64_t n, int compress, uint8_t *scratch,
               uint8_t *out, st_cc *cc);

/* Decode the stored bytes of cc (n values) into dst (n values of `type`).
 * scratch holds n * 8 bytes. Returns 0, or -1 with `why` saying what is
 * wrong (the caller names the file, chunk and column). */
int st_decode(sk_dtype type, const st_cc *cc, int64_t n, const uint8_t *stored, void *dst,
              uint8_t *scratch, char *why, size_t why_size);

/* XXH64 (seed 0) of stored bytes, as the footer records it. */
uint64_t st_hash(const void *data, size_t n);

/* Recompute min/max of decoded values and compare with cc: 0 when equal. */
int st_check_minmax(sk_dtype type, const void *values, int64_t n, const st_cc *cc);

/* Byte shuffle: out[b * n + i] = in[i * size + b], and its inverse. */
void st_shuffle(const uint8_t *in, uint8_t *out, int64_t n, size_t size);
void st_unshuffle(const uint8_t *in, uint8_t *out, int64_t n, size_t size);
/* The unshuffle's forms (shuffle.c): st_unshuffle runs the best one this
 * CPU has; st_unshuffle_with runs a given one (-1: the CPU lacks it), so
 * that tests can check they agree. */
enum { ST_UNSHUFFLE_SCALAR = 0, ST_UNSHUFFLE_SSE2 = 1, ST_UNSHUFFLE_AVX2 = 2 };
int st_unshuffle_best(void);
int st_unshuffle_with(int variant, const uint8_t *in, uint8_t *out, int64_t n, size_t size);

/* memcpy whose stores bypass the caches where the CPU allows it: for a
 * whole table's columns, written once and larger than the caches, it saves
 * reading each destination line from memory before it is overwritten. */
void st_copy_around_cache(void *dst, const void *src, size_t n);

#endif
