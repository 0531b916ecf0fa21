/* gzip through zlib: inflate whole files (several members allowed), and
 * deflate one member per piece so that pieces compress in parallel and
 * concatenate into a valid .gz file. */
#include <string.h>
#include <zlib.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The most a file of n compressed bytes may inflate to: a dump or data
 * file compresses a few times, at most some tens of times; a file that
 * inflates more than 100 times, past 64 MiB, is a gzip bomb (deflate's
 * limit is about 1032:1), refused before it takes the machine's memory. */
static size_t inflate_limit(size_t n)
{
    size_t floor = (size_t)64 << 20;
    return n <= SIZE_MAX / 100 && 100 * n > floor ? 100 * n : floor;
}

int at_gzip_inflate(const char *path, const unsigned char *in, size_t n, char **out, size_t *out_n,
                 sk_error *err)
{
    size_t limit = inflate_limit(n);
    /* the last member's size field (mod 2^32) is a first guess */
    size_t guess = n >= 4 ? (size_t)in[n - 4] | (size_t)in[n - 3] << 8 |
                                (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24
                          : 0;
    /* deflate shrinks at most ~1032:1, so a larger size field is corrupt */
    size_t cap = guess > n && guess / 1032 <= n ? guess + 1 : 4 * n + 1024;
    if (cap > limit + 1)
        cap = limit + 1;
    char *buf = sk_malloc(cap);
    if (!buf)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory inflating %zu bytes", n);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        sk_free(buf);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "cannot start zlib");
    }
    const unsigned char *next = in;
    size_t left = n, done = 0;
    int rc = SK_OK;
    for (;;) {
        if (zs.avail_in == 0 && left > 0) { /* avail_in is 32 bits: feed in steps */
            size_t step = left > (1u << 30) ? (1u << 30) : left;
            zs.next_in = (unsigned char *)(uintptr_t)next;
            zs.avail_in = (uInt)step;
            next += step;
            left -= step;
        }
        if (done > limit) {
            rc = sk_fail(err, SK_ERR_FORMAT, path, (int64_t)(n - left - zs.avail_in),
                         "gzip data inflates to more than %zu bytes, over 100 times its %zu "
                         "(a gzip bomb?); gunzip it to read it",
                         limit, n);
            break;
        }
        if (done == cap) {
            size_t ncap = cap + cap / 2;
            if (ncap > limit + 1)
                ncap = limit + 1;
            char *bigger = sk_realloc(buf, ncap);
            if (!bigger) {
                rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory inflating");
                break;
            }
            buf = bigger;
            cap = ncap;
        }
        size_t room = cap - done > (1u << 30) ? (1u << 30) : cap - done;
        zs.next_out = (unsigned char *)buf + done;
        zs.avail_out = (uInt)room;
        int z = inflate(&zs, Z_NO_FLUSH);
        done += room - zs.avail_out;
        if (z == Z_STREAM_END) {
            int more = zs.avail_in > 0 ? zs.next_in[0] == 0x1f : left > 0 && next[0] == 0x1f;
            if (!more) {
                /* The last member: zero padding after it is fine (tape blocks),
                 * anything else is data that would silently be dropped. */
                size_t at = n - left - zs.avail_in;
                if (!all_zero(zs.next_in, zs.avail_in) || !all_zero(next, left))
                    rc = sk_fail(err, SK_ERR_FORMAT, path, (int64_t)at,
                                 "%zu bytes after the last gzip member are not gzip data",
                                 (size_t)zs.avail_in + left);
                break;
            }
            inflateReset(&zs);
        } else if (z == Z_BUF_ERROR && zs.avail_in == 0 && left == 0) {
            rc = sk_fail(err, SK_ERR_FORMAT, path, (int64_t)n, "gzip data ends early");
            break;
        } else if (z != Z_OK && z != Z_BUF_ERROR) {
            rc = sk_fail(err, SK_ERR_FORMAT, path, (int64_t)(n - left - zs.avail_in),
                         "corrupt gzip data: %s", zs.msg ? zs.msg : "inflate failed");
            break;
        }
    }
    inflateEnd(&zs);
    if (rc != SK_OK) {
        sk_free(buf);
        return rc;
    }
    *out = buf;
    *out_n = done;
    return SK_OK;
}

int at_gzip_member(const char *path, const void *in, size_t n, int level, char **out,
                size_t *out_n, sk_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "cannot start zlib");
    size_t cap = deflateBound(&zs, (uLong)n) + 64;
    char *buf = sk_malloc(cap);
    if (!buf) {
        deflateEnd(&zs);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory compressing");
    }
    zs.next_in = (unsigned char *)(uintptr_t)in;
    zs.avail_in = (uInt)n;
    zs.next_out = (unsigned char *)buf;
    zs.avail_out = (uInt)cap;
    int z = deflate(&zs, Z_FINISH);
    size_t produced = cap - zs.avail_out;
    deflateEnd(&zs);
    if (z != Z_STREAM_END) {
        sk_free(buf);
        return sk_fail(err, SK_ERR_IO, path, -1, "gzip compression failed");
    }
    *out = buf;
    *out_n = produced;
    return SK_OK;
}
