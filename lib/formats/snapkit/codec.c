/* Column chunk codecs. Integers are stored as value - min in the fewest
 * bytes that hold max - min (0 bytes for a constant column); floats are
 * byte-shuffled before LZ4 so that the slowly varying sign/exponent bytes of
 * neighbouring values sit together. A column LZ4 shrinks by less than a fifth
 * is kept raw, its values plain. */
#include "formats/snapkit/codec.h"

#include <lz4.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .snapkit codecs assume a little-endian host (the file is little-endian)"
#endif

uint64_t st_hash(const void *data, size_t n)
{
    return (uint64_t)XXH64(data, n, 0);
}

static int is_signed_int(sk_dtype t)
{
    return t == SK_INT8 || t == SK_INT16 || t == SK_INT32 || t == SK_INT64 || t == SK_CATEGORY;
}

static int is_int(sk_dtype t)
{
    return sk_dtype_is_integer(t) || t == SK_CATEGORY;
}

/* Value i of an integer column as 64 bits: sign-extended for signed types,
 * so that unsigned 64-bit differences v - min are exact for both kinds. */
static uint64_t int_at(sk_dtype t, const void *v, int64_t i)
{
    switch (t) {
    case SK_INT8: return (uint64_t)(int64_t)((const int8_t *)v)[i];
    case SK_UINT8: return ((const uint8_t *)v)[i];
    case SK_INT16: return (uint64_t)(int64_t)((const int16_t *)v)[i];
    case SK_UINT16: return ((const uint16_t *)v)[i];
    case SK_INT32:
    case SK_CATEGORY: return (uint64_t)(int64_t)((const int32_t *)v)[i];
    case SK_UINT32: return ((const uint32_t *)v)[i];
    case SK_INT64: return (uint64_t)((const int64_t *)v)[i];
    case SK_UINT64: return ((const uint64_t *)v)[i];
    default: return 0;
    }
}

static int int_less(sk_dtype t, uint64_t a, uint64_t b)
{
    return is_signed_int(t) ? (int64_t)a < (int64_t)b : a < b;
}

static void int_minmax(sk_dtype t, const void *v, int64_t n, uint64_t *mn, uint64_t *mx)
{
    uint64_t lo = int_at(t, v, 0), hi = lo;
    for (int64_t i = 1; i < n; i++) {
        uint64_t x = int_at(t, v, i);
        if (int_less(t, x, lo))
            lo = x;
        if (int_less(t, hi, x))
            hi = x;
    }
    *mn = lo;
    *mx = hi;
}

static void float_minmax(sk_dtype t, const void *v, int64_t n, uint64_t *mn, uint64_t *mx)
{
    double lo = NAN, hi = NAN;
    for (int64_t i = 0; i < n; i++) {
        double x = t == SK_FLOAT32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
        if (x != x)
            continue;
        if (!(x >= lo))
            lo = x;
        if (!(x <= hi))
            hi = x;
    }
    *mn = st_f64_bits(lo);
    *mx = st_f64_bits(hi);
}

static uint8_t width_for(uint64_t range)
{
    if (range == 0)
        return 0;
    if (range <= 0xffu)
        return 1;
    if (range <= 0xffffu)
        return 2;
    if (range <= 0xffffffffu)
        return 4;
    return 8;
}

static void for_pack(sk_dtype t, const void *v, int64_t n, uint64_t mn, uint8_t width,
                     uint8_t *out)
{
    switch (width) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            out[i] = (uint8_t)(int_at(t, v, i) - mn);
        break;
    case 2:
        for (int64_t i = 0; i < n; i++) {
            uint16_t u = (uint16_t)(int_at(t, v, i) - mn);
            memcpy(out + 2 * i, &u, 2);
        }
        break;
    case 4:
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)(int_at(t, v, i) - mn);
            memcpy(out + 4 * i, &u, 4);
        }
        break;
    case 8:
        for (int64_t i = 0; i < n; i++) {
            uint64_t u = int_at(t, v, i) - mn;
            memcpy(out + 8 * i, &u, 8);
        }
        break;
    default: break;
    }
}

/* Widen packed value - min back to the column's type. The sum is taken
 * in the type's unsigned twin UT: modulo 2^bits it equals the low bits of
 * the 64-bit sum, the value, and the loops stay simple enough for the
 * compiler to vectorise (with a switch per value it took 6% of a re-read). */
#define UNPACK_WIDTH(UT, PT)                                                             \
    for (int64_t i = 0; i < n; i++) {                                                    \
        PT u;                                                                            \
        memcpy(&u, p + sizeof(PT) * (size_t)i, sizeof(PT));                             \
        d[i] = (UT)(base + (UT)u);                                                       \
    }

#define UNPACK_LOOP(UT)                                                                  \
    do {                                                                                 \
        UT *d = dst, base = (UT)mn;                                                      \
        switch (width) {                                                                 \
        case 0:                                                                          \
            for (int64_t i = 0; i < n; i++)                                              \
                d[i] = base;                                                             \
            break;                                                                       \
        case 1: UNPACK_WIDTH(UT, uint8_t) break;                                         \
        case 2: UNPACK_WIDTH(UT, uint16_t) break;                                        \
        case 4: UNPACK_WIDTH(UT, uint32_t) break;                                        \
        case 8: UNPACK_WIDTH(UT, uint64_t) break;                                        \
        default: break;                                                                  \
        }                                                                                \
    } while (0)

static void for_unpack(sk_dtype t, const uint8_t *p, int64_t n, uint64_t mn, uint8_t width,
                       void *dst)
{
    switch (t) {
    case SK_INT8:
    case SK_UINT8: UNPACK_LOOP(uint8_t); break;
    case SK_INT16:
    case SK_UINT16: UNPACK_LOOP(uint16_t); break;
    case SK_INT32:
    case SK_CATEGORY:
    case SK_UINT32: UNPACK_LOOP(uint32_t); break;
    case SK_INT64:
    case SK_UINT64: UNPACK_LOOP(uint64_t); break;
    default: break;
    }
}


size_t st_encode_bound(sk_dtype type, int64_t n)
{
    /* raw bytes, then room for a second LZ4 attempt after them */
    size_t raw = (size_t)n * sk_dtype_size(type);
    return raw + (size_t)LZ4_compressBound((int)raw);
}

static int lz4(const uint8_t *src, int64_t n, uint8_t *dst)
{
    return LZ4_compress_default((const char *)src, (char *)dst, (int)n,
                                LZ4_compressBound((int)n));
}

/* LZ4 is kept when it saves at least a fifth of the bytes. Below that its
 * decoding (and the unshuffle of floats) costs a re-read more than the
 * bytes saved: noisy float fields of 1.1M cells that LZ4 shrinks to
 * 84-86% are read again in 11.8 ms stored raw, 14.6 ms compressed, for a
 * file 13% larger (docs/performance.md). */
static int lz4_pays(int64_t stored, int64_t raw)
{
    return stored < raw && 5 * stored <= 4 * raw;
}

void st_encode(sk_dtype type, const void *values, int64_t n, int compress, uint8_t *scratch,
               uint8_t *out, st_cc *cc)
{
    size_t size = sk_dtype_size(type);
    const uint8_t *plain = values;
    memset(cc, 0, sizeof *cc);
    if (is_int(type)) {
        int_minmax(type, values, n, &cc->min, &cc->max);
        cc->encoding = ST_ENC_FOR;
        cc->width = width_for(cc->max - cc->min);
        for_pack(type, values, n, cc->min, cc->width, scratch);
        plain = scratch;
    } else {
        float_minmax(type, values, n, &cc->min, &cc->max);
        cc->width = (uint8_t)size;
        cc->encoding = ST_ENC_PLAIN;
    }
    int64_t raw = n * cc->width;
    int stored = 0;
    if (compress && raw > 0)
        stored = lz4(plain, raw, out);
    if (compress && cc->encoding == ST_ENC_PLAIN && size > 1 && !(stored > 0 && stored < raw / 2)) {
        /* Floats LZ4 cannot halve: try the byte-shuffled form and keep it
         * when it is smaller (noisy fields gain, fields of repeated values
         * do better unshuffled). */
        st_shuffle(values, scratch, n, size);
        int shuffled = lz4(scratch, raw, out + raw);
        if (shuffled > 0 && shuffled < raw && (stored <= 0 || shuffled < stored)) {
            memmove(out, out + raw, (size_t)shuffled);
            stored = shuffled;
            plain = scratch;
            cc->encoding = ST_ENC_SHUFFLE;
        }
    }
    if (stored > 0 && lz4_pays(stored, raw)) {
        cc->codec = ST_CODEC_LZ4;
        cc->stored = stored;
    } else {
        /* raw shuffled bytes would only cost an unshuffle */
        if (cc->encoding == ST_ENC_SHUFFLE) {
            cc->encoding = ST_ENC_PLAIN;
            plain = values;
        }
        cc->codec = ST_CODEC_RAW;
        cc->stored = raw;
        if (raw)
            memcpy(out, plain, (size_t)raw);
    }
    cc->hash = st_hash(out, (size_t)cc->stored);
}

int st_decode(sk_dtype type, const st_cc *cc, int64_t n, const uint8_t *stored, void *dst,
              uint8_t *scratch, char *why, size_t why_size)
{
    size_t size = sk_dtype_size(type);
    int64_t raw = n * cc->width;
    /* PLAIN values go straight to dst; the others pass through scratch. */
    uint8_t *target = cc->encoding == ST_ENC_PLAIN ? dst : scratch;
    const uint8_t *plain = stored;
    if (cc->codec == ST_CODEC_LZ4) {
        int got = LZ4_decompress_safe((const char *)stored, (char *)target, (int)cc->stored,
                                      (int)raw);
        if (got != raw) {
            snprintf(why, why_size, "LZ4 data do not decode to %lld bytes (damaged)",
                     (long long)raw);
            return -1;
        }
        plain = target;
    } else if (cc->encoding == ST_ENC_PLAIN && raw) {
        memcpy(dst, stored, (size_t)raw);
        plain = dst;
    }
    if (cc->encoding == ST_ENC_SHUFFLE)
        st_unshuffle(plain, dst, n, size);
    else if (cc->encoding == ST_ENC_FOR)
        for_unpack(type, plain, n, cc->min, cc->width, dst);
    return 0;
}

int st_check_minmax(sk_dtype type, const void *values, int64_t n, const st_cc *cc)
{
    uint64_t mn, mx;
    if (is_int(type))
        int_minmax(type, values, n, &mn, &mx);
    else
        float_minmax(type, values, n, &mn, &mx);
    if (!is_int(type) && n > 0) {
        /* Compare as numbers so that -0 and 0 or NaN payloads do not matter. */
        double a = st_bits_f64(mn), b = st_bits_f64(cc->min);
        double c = st_bits_f64(mx), d = st_bits_f64(cc->max);
        int same_min = a == b || (a != a && b != b);
        int same_max = c == d || (c != c && d != d);
        return same_min && same_max ? 0 : -1;
    }
    return mn == cc->min && mx == cc->max ? 0 : -1;
}
