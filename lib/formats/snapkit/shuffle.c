/* Byte shuffle of fixed-width values (out[b * n + i] = in[i * size + b])
 * and its inverse, which every read of a shuffled float column runs: the
 * unshuffle of 8- and 4-byte values has SSE2 and AVX2 forms, the widest
 * the CPU runs chosen at run time, and a scalar one for the tail and other
 * machines. All give the same bytes (tests/c/test_store.c). Also the copy
 * of decoded columns into a large result with stores that bypass the
 * caches. */
#include "formats/snapkit/codec.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define ST_X86 1
#include <immintrin.h>
#endif

void st_shuffle(const uint8_t *in, uint8_t *out, int64_t n, size_t size)
{
    for (size_t b = 0; b < size; b++) {
        uint8_t *o = out + b * (size_t)n;
        for (int64_t i = 0; i < n; i++)
            o[i] = in[(size_t)i * size + b];
    }
}

/* Values [from, n) one at a time. */
static void unshuffle_scalar(const uint8_t *in, uint8_t *out, int64_t n, size_t size,
                             int64_t from)
{
    if (size == 8) {
        for (int64_t i = from; i < n; i++) {
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--)
                v = (v << 8) | in[b * n + i];
            memcpy(out + 8 * i, &v, 8);
        }
        return;
    }
    for (size_t b = 0; b < size; b++) {
        const uint8_t *s = in + b * (size_t)n;
        for (int64_t i = from; i < n; i++)
            out[(size_t)i * size + b] = s[i];
    }
}

#ifdef ST_X86
/* 16 values of 8 bytes: the 8 byte planes interleaved back by three rounds
 * of unpacking (bytes, pairs, quads). */
static int64_t unshuffle8_sse2(const uint8_t *in, uint8_t *out, int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i s[8];
        for (int b = 0; b < 8; b++)
            s[b] = _mm_loadu_si128((const __m128i *)(in + b * n + i));
        __m128i p01l = _mm_unpacklo_epi8(s[0], s[1]), p01h = _mm_unpackhi_epi8(s[0], s[1]);
        __m128i p23l = _mm_unpacklo_epi8(s[2], s[3]), p23h = _mm_unpackhi_epi8(s[2], s[3]);
        __m128i p45l = _mm_unpacklo_epi8(s[4], s[5]), p45h = _mm_unpackhi_epi8(s[4], s[5]);
        __m128i p67l = _mm_unpacklo_epi8(s[6], s[7]), p67h = _mm_unpackhi_epi8(s[6], s[7]);
        __m128i q[8] = {
            _mm_unpacklo_epi16(p01l, p23l), _mm_unpackhi_epi16(p01l, p23l),
            _mm_unpacklo_epi16(p01h, p23h), _mm_unpackhi_epi16(p01h, p23h),
            _mm_unpacklo_epi16(p45l, p67l), _mm_unpackhi_epi16(p45l, p67l),
            _mm_unpacklo_epi16(p45h, p67h), _mm_unpackhi_epi16(p45h, p67h),
        };
        __m128i *o = (__m128i *)(out + 8 * i);
        for (int k = 0; k < 4; k++) {
            _mm_storeu_si128(o + 2 * k, _mm_unpacklo_epi32(q[k], q[k + 4]));
            _mm_storeu_si128(o + 2 * k + 1, _mm_unpackhi_epi32(q[k], q[k + 4]));
        }
    }
    return i;
}

/* 16 values of 4 bytes: two rounds (bytes, pairs). */
static int64_t unshuffle4_sse2(const uint8_t *in, uint8_t *out, int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i s0 = _mm_loadu_si128((const __m128i *)(in + i));
        __m128i s1 = _mm_loadu_si128((const __m128i *)(in + n + i));
        __m128i s2 = _mm_loadu_si128((const __m128i *)(in + 2 * n + i));
        __m128i s3 = _mm_loadu_si128((const __m128i *)(in + 3 * n + i));
        __m128i p01l = _mm_unpacklo_epi8(s0, s1), p01h = _mm_unpackhi_epi8(s0, s1);
        __m128i p23l = _mm_unpacklo_epi8(s2, s3), p23h = _mm_unpackhi_epi8(s2, s3);
        __m128i *o = (__m128i *)(out + 4 * i);
        _mm_storeu_si128(o, _mm_unpacklo_epi16(p01l, p23l));
        _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(p01l, p23l));
        _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(p01h, p23h));
        _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(p01h, p23h));
    }
    return i;
}

/* 32 values of 8 bytes: the SSE2 rounds on both 128-bit lanes (values
 * 0-15 in the low lanes, 16-31 in the high ones), then the lanes put back
 * in order. */
__attribute__((target("avx2"))) static int64_t unshuffle8_avx2(const uint8_t *in, uint8_t *out,
                                                               int64_t n)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i s[8];
        for (int b = 0; b < 8; b++)
            s[b] = _mm256_loadu_si256((const __m256i *)(in + b * n + i));
        __m256i p[8], q[8];
        for (int k = 0; k < 4; k++) {
            p[2 * k] = _mm256_unpacklo_epi8(s[2 * k], s[2 * k + 1]);
            p[2 * k + 1] = _mm256_unpackhi_epi8(s[2 * k], s[2 * k + 1]);
        }
        for (int h = 0; h < 2; h++) /* h: bytes 0-3 (p0..p3) or 4-7 (p4..p7) */
            for (int k = 0; k < 2; k++) {
                q[4 * h + 2 * k] = _mm256_unpacklo_epi16(p[4 * h + k], p[4 * h + 2 + k]);
                q[4 * h + 2 * k + 1] = _mm256_unpackhi_epi16(p[4 * h + k], p[4 * h + 2 + k]);
            }
        __m256i *o = (__m256i *)(out + 8 * i);
        for (int k = 0; k < 4; k++) {
            __m256i lo = _mm256_unpacklo_epi32(q[k], q[k + 4]);
            __m256i hi = _mm256_unpackhi_epi32(q[k], q[k + 4]);
            _mm256_storeu_si256(o + k, _mm256_permute2x128_si256(lo, hi, 0x20));
            _mm256_storeu_si256(o + 4 + k, _mm256_permute2x128_si256(lo, hi, 0x31));
        }
    }
    return i;
}

/* 32 values of 4 bytes, the same way. */
__attribute__((target("avx2"))) static int64_t unshuffle4_avx2(const uint8_t *in, uint8_t *out,
                                                               int64_t n)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i s0 = _mm256_loadu_si256((const __m256i *)(in + i));
        __m256i s1 = _mm256_loadu_si256((const __m256i *)(in + n + i));
        __m256i s2 = _mm256_loadu_si256((const __m256i *)(in + 2 * n + i));
        __m256i s3 = _mm256_loadu_si256((const __m256i *)(in + 3 * n + i));
        __m256i p01l = _mm256_unpacklo_epi8(s0, s1), p01h = _mm256_unpackhi_epi8(s0, s1);
        __m256i p23l = _mm256_unpacklo_epi8(s2, s3), p23h = _mm256_unpackhi_epi8(s2, s3);
        __m256i a = _mm256_unpacklo_epi16(p01l, p23l), b = _mm256_unpackhi_epi16(p01l, p23l);
        __m256i c = _mm256_unpacklo_epi16(p01h, p23h), d = _mm256_unpackhi_epi16(p01h, p23h);
        __m256i *o = (__m256i *)(out + 4 * i);
        _mm256_storeu_si256(o, _mm256_permute2x128_si256(a, b, 0x20));
        _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(c, d, 0x20));
        _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(a, b, 0x31));
        _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(c, d, 0x31));
    }
    return i;
}
#endif

int st_unshuffle_best(void)
{
#ifdef ST_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return ST_UNSHUFFLE_AVX2;
    if (__builtin_cpu_supports("sse2"))
        return ST_UNSHUFFLE_SSE2;
#endif
    return ST_UNSHUFFLE_SCALAR;
}

int st_unshuffle_with(int variant, const uint8_t *in, uint8_t *out, int64_t n, size_t size)
{
    int64_t done = 0;
    if (variant > st_unshuffle_best())
        return -1;
#ifdef ST_X86
    if (variant == ST_UNSHUFFLE_AVX2 && size == 8)
        done = unshuffle8_avx2(in, out, n);
    else if (variant == ST_UNSHUFFLE_AVX2 && size == 4)
        done = unshuffle4_avx2(in, out, n);
    else if (variant == ST_UNSHUFFLE_SSE2 && size == 8)
        done = unshuffle8_sse2(in, out, n);
    else if (variant == ST_UNSHUFFLE_SSE2 && size == 4)
        done = unshuffle4_sse2(in, out, n);
#endif
    unshuffle_scalar(in, out, n, size, done);
    return 0;
}

/* Non-temporal stores (SSE2, which every x86-64 has) from the first
 * 16-byte boundary of dst on; the fence orders them before whatever the
 * caller does next, as plain stores would be. */
void st_copy_around_cache(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t i = 0;
#ifdef ST_X86
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (n >= head + 64) {
        memcpy(d, s, head);
        for (i = head; i + 64 <= n; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
            _mm_stream_si128((__m128i *)(d + i), a);
            _mm_stream_si128((__m128i *)(d + i + 16), b);
            _mm_stream_si128((__m128i *)(d + i + 32), c);
            _mm_stream_si128((__m128i *)(d + i + 48), e);
        }
        _mm_sfence();
    }
#endif
    memcpy(d + i, s + i, n - i);
}

void st_unshuffle(const uint8_t *in, uint8_t *out, int64_t n, size_t size)
{
    static int best = -1; /* racy first calls all store the same value */
    int v = __atomic_load_n(&best, __ATOMIC_RELAXED);
    if (v < 0) {
        v = st_unshuffle_best();
        __atomic_store_n(&best, v, __ATOMIC_RELAXED);
    }
    st_unshuffle_with(v, in, out, n, size);
}
