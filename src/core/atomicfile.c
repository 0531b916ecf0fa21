/* Write-then-rename files. The temporary file lives in the target's folder
 * so the final rename stays on one filesystem and is atomic. */
#include "snapkit/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapkit/memory.h"

struct sk_atomic_file {
    int fd;
    int64_t pos;        /* append position */
    int64_t written;    /* bytes written, for the failure hook */
    int64_t fail_after; /* -1: never */
    char *path;
    char *tmp;
};

int sk_atomic_open(sk_atomic_file **out, const char *path, sk_error *err)
{
    *out = NULL;
    sk_atomic_file *f = sk_calloc(1, sizeof *f);
    size_t n = strlen(path);
    char *tmp = sk_malloc(n + 16);
    char *copy = sk_strdup(path);
    if (!f || !tmp || !copy) {
        sk_free(f);
        sk_free(tmp);
        sk_free(copy);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        sk_free(f);
        sk_free(tmp);
        sk_free(copy);
        return sk_fail_errno(err, path, e, "cannot create a temporary file beside it");
    }
    /* mkstemp makes 0600; a finished file should look like any other. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    f->fd = fd;
    f->fail_after = -1;
    f->path = copy;
    f->tmp = tmp;
    *out = f;
    return SK_OK;
}

void sk_atomic_fail_after(sk_atomic_file *f, int64_t bytes)
{
    f->fail_after = bytes;
}

static int write_at(sk_atomic_file *f, const void *data, size_t n, int64_t offset, sk_error *err)
{
    const char *p = data;
    while (n > 0) {
        size_t step = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
        if (f->fail_after >= 0 && f->written + (int64_t)step > f->fail_after)
            return sk_fail_errno(err, f->path, ENOSPC, "write failed");
        ssize_t w = pwrite(f->fd, p, step, (off_t)offset);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return sk_fail_errno(err, f->path, errno, "write failed");
        }
        p += w;
        n -= (size_t)w;
        offset += w;
        f->written += w;
    }
    return SK_OK;
}

int sk_atomic_write(sk_atomic_file *f, const void *data, size_t n, sk_error *err)
{
    int rc = write_at(f, data, n, f->pos, err);
    if (rc == SK_OK)
        f->pos += (int64_t)n;
    return rc;
}

int sk_atomic_pwrite(sk_atomic_file *f, const void *data, size_t n, int64_t offset,
                     sk_error *err)
{
    return write_at(f, data, n, offset, err);
}

int64_t sk_atomic_tell(const sk_atomic_file *f) { return f->pos; }
int sk_atomic_fd(const sk_atomic_file *f) { return f->fd; }

static void destroy(sk_atomic_file *f)
{
    sk_free(f->path);
    sk_free(f->tmp);
    sk_free(f);
}

void sk_atomic_abort(sk_atomic_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    unlink(f->tmp);
    destroy(f);
}

int sk_atomic_commit(sk_atomic_file *f, sk_error *err)
{
    int rc = SK_OK;
    if (fsync(f->fd) != 0)
        rc = sk_fail_errno(err, f->path, errno, "cannot flush to disk");
    if (close(f->fd) != 0 && rc == SK_OK)
        rc = sk_fail_errno(err, f->path, errno, "cannot close");
    f->fd = -1;
    if (rc == SK_OK && rename(f->tmp, f->path) != 0)
        rc = sk_fail_errno(err, f->path, errno, "cannot rename the finished file into place");
    if (rc != SK_OK)
        unlink(f->tmp);
    destroy(f);
    return rc;
}
