/* File access for the RAMSES reader. */
#include "formats/ramses/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/openfile.h"
#include "snapkit/memory.h"

static int open_stat(const char *path, int *fd, struct stat *st, sk_error *err)
{
    return sk_open_regular(path, fd, st, err);
}

int rs_map(const char *path, rs_mapped *m, sk_error *err)
{
    m->data = NULL;
    m->size = 0;
    int fd;
    struct stat st;
    int rc = open_stat(path, &fd, &st, err);
    if (rc != SK_OK)
        return rc;
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return sk_fail_errno(err, path, e, "cannot map");
        }
        m->data = p;
        m->size = (size_t)st.st_size;
    }
    close(fd);
    return SK_OK;
}

void rs_unmap(rs_mapped *m)
{
    if (m->data)
        munmap((void *)m->data, m->size);
    m->data = NULL;
    m->size = 0;
}

int rs_read_text(const char *path, size_t max_bytes, char **text, size_t *len, sk_error *err)
{
    *text = NULL;
    *len = 0;
    int fd;
    struct stat st;
    int rc = open_stat(path, &fd, &st, err);
    if (rc != SK_OK)
        return rc;
    if ((uint64_t)st.st_size > max_bytes) {
        close(fd);
        return sk_fail(err, SK_ERR_FORMAT, path, -1, "text file of %lld bytes is larger than %zu",
                       (long long)st.st_size, max_bytes);
    }
    char *buf = sk_malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            sk_free(buf);
            close(fd);
            return sk_fail_errno(err, path, e, "cannot read");
        }
        got += (size_t)n;
    }
    close(fd);
    if (got >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) { /* a byte-order mark is not text */
        memmove(buf, buf + 3, got - 3);
        got -= 3;
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return SK_OK;
}

int rs_file_exists(const char *path, int64_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if (size)
        *size = (int64_t)st.st_size;
    return 1;
}

int rs_optional_file(const char *path, int *present, sk_error *err)
{
    *present = 0;
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? SK_OK : sk_fail_errno(err, path, errno, "cannot read");
    if (S_ISLNK(st.st_mode) && stat(path, &st) != 0 && errno == ENOENT)
        return sk_fail(err, SK_ERR_IO, path, -1,
                       "is a symbolic link to a file that does not exist");
    int fd;
    int rc = open_stat(path, &fd, &st, err);
    if (rc != SK_OK)
        return rc;
    close(fd);
    *present = 1;
    return SK_OK;
}
