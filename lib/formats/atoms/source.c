/* The bytes of an atom file: mapped read-only (no copy), inflated when the
 * file is gzip-compressed, or borrowed from the caller. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "core/openfile.h"
#include <unistd.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"

static int inflate_if_gzip(source *src, sk_error *err)
{
    if (!is_gzip(src->data, src->size))
        return SK_OK;
    char *out = NULL;
    size_t n = 0;
    int rc = at_gzip_inflate(src->path, (const unsigned char *)src->data, src->size, &out, &n, err);
    if (rc != SK_OK)
        return rc;
    if (src->map) { /* the compressed bytes are no longer needed */
        munmap(src->map, src->map_size);
        src->map = NULL;
    }
    src->owned = out;
    src->data = out;
    src->size = n;
    return SK_OK;
}

/* A UTF-8 byte-order mark (some editors write one) is not text: skip it,
 * so that it is neither parsed nor echoed invisibly in messages. */
static void skip_bom(source *src)
{
    if (src->size >= 3 && memcmp(src->data, "\xEF\xBB\xBF", 3) == 0) {
        src->data += 3;
        src->size -= 3;
    }
}

/* The bytes as text: inflated when gzip, without a byte-order mark; the
 * source closed on failure. */
static int as_text(source *src, sk_error *err)
{
    int rc = inflate_if_gzip(src, err);
    if (rc != SK_OK)
        at_source_close(src);
    else
        skip_bom(src);
    return rc;
}

/* FNV-1a over the first and last 4 KiB: cheap, and it changes when a file
 * is rewritten in place with the same size and time. */
static uint64_t ends_hash(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603u;
    size_t head = n < 4096 ? n : 4096, tail = n - head < 4096 ? n - head : 4096;
    for (size_t i = 0; i < head; i++)
        h = (h ^ p[i]) * 1099511628211u;
    for (size_t i = n - tail; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

int at_source_open(source *src, const char *path, sk_error *err)
{
    memset(src, 0, sizeof *src);
    src->path = sk_strdup(path);
    if (!src->path)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    int fd;
    struct stat st;
    int orc = sk_open_regular(path, &fd, &st, err);
    if (orc != SK_OK) {
        at_source_close(src);
        return orc;
    }
    src->data = "";
    src->disk_size = (int64_t)st.st_size;
    src->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    if (st.st_size > 0) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            at_source_close(src);
            return sk_fail_errno(err, path, e, "cannot map");
        }
        madvise(map, (size_t)st.st_size, MADV_WILLNEED);
        src->map = map;
        src->map_size = (size_t)st.st_size;
        src->data = map;
        src->size = (size_t)st.st_size;
    }
    close(fd);
    src->disk_hash = ends_hash((const unsigned char *)src->data, src->size);
    return as_text(src, err);
}

int at_source_memory(source *src, const void *data, size_t size, const char *name, sk_error *err)
{
    memset(src, 0, sizeof *src);
    src->path = sk_strdup(name ? name : "<memory>");
    if (!src->path)
        return sk_fail(err, SK_ERR_NOMEM, name, -1, "out of memory");
    src->data = size ? data : "";
    src->size = size;
    src->disk_size = src->mtime_ns = -1;
    return as_text(src, err);
}

void at_source_close(source *src)
{
    if (src->map)
        munmap(src->map, src->map_size);
    sk_free(src->owned);
    sk_free(src->path);
    memset(src, 0, sizeof *src);
}
