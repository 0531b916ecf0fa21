/* Write-then-rename files.
 *
 * The data goes to an unnamed file (O_TMPFILE) in the target's folder, so
 * nothing is left behind however the process ends (SIGINT, SIGKILL, a
 * crash); commit links it under a fresh temporary name and renames that
 * over the target, which stays on one filesystem and is atomic. Where the
 * filesystem has no O_TMPFILE the temporary file is named from the start
 * (target.tmp.PID.XXXXXX) and removed on every failure path.
 *
 * Targets that are not regular files are never replaced: a symbolic link
 * is followed to the file it names, a character device or a FIFO (and "-",
 * standard output) is written through at commit, from a temporary file in
 * /tmp, so that it still receives all of the data or none. A read-only
 * file, a folder or a socket is refused. A replaced file keeps its mode
 * and, where permitted, its owner. */
#include "snapkit/util/atomicfile.h"
#include "core/atomicfile.h"
#include "core/testhooks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
    char *path;         /* the target (a symbolic link resolved) */
    char *tmp;          /* the named temporary file, or NULL when unnamed */
    int stream;         /* 1: copy to the target at commit (device, FIFO, "-") */
    int replaces;       /* a regular file is replaced: keep its owner */
    int no_fsync;       /* the caller chose speed over surviving a power cut */
    uid_t uid;
    gid_t gid;
};

/* The setting of atomic_scope_fsync: 1 flushes (most callers never
 * change it). */
static _Thread_local int t_fsync = 1;
static int64_t fsync_calls;

int atomic_scope_fsync(int on)
{
    int was = t_fsync;
    t_fsync = on;
    return was;
}

int64_t atomic_fsync_calls(void)
{
    return __atomic_load_n(&fsync_calls, __ATOMIC_RELAXED);
}

static sk_atomic_file *new_file(const char *path)
{
    sk_atomic_file *f = sk_calloc(1, sizeof *f);
    if (f && !(f->path = sk_strdup(path))) {
        sk_free(f);
        return NULL;
    }
    if (f) {
        f->fd = -1;
        f->fail_after = -1;
        f->no_fsync = !t_fsync;
    }
    return f;
}

static void destroy(sk_atomic_file *f)
{
    if (f->tmp)
        atomic_untrack(f->tmp);
    sk_free(f->path);
    sk_free(f->tmp);
    sk_free(f);
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return sk_strdup(".");
    return slash == path ? sk_strdup("/") : sk_strndup(path, (size_t)(slash - path));
}

/* An unnamed file in dir, or -1 (the filesystem may not support it). */
static int unnamed_in(const char *dir, mode_t mode)
{
#ifdef O_TMPFILE
    /* Commit links it through /proc; without /proc it could not be named. */
    if (access("/proc/self/fd", X_OK) != 0)
        return -1;
    return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
#else
    (void)dir;
    (void)mode;
    return -1;
#endif
}

/* The temporary file: unnamed in dir, else named beside the target (or in
 * dir for a stream, and unlinked at once: it is only a buffer). */
static int make_temp(sk_atomic_file *f, const char *dir, mode_t mode, sk_error *err)
{
    f->fd = unnamed_in(dir, mode);
    if (f->fd >= 0)
        return SK_OK;
    size_t n = strlen(f->path) + strlen(dir) + 48;
    char *tmp = sk_malloc(n);
    if (!tmp)
        return sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
    if (f->stream)
        snprintf(tmp, n, "%s/snapkit.tmp.%ld.XXXXXX", dir, (long)getpid());
    else
        snprintf(tmp, n, "%s.tmp.%ld.XXXXXX", f->path, (long)getpid());
    f->fd = mkstemp(tmp);
    if (f->fd < 0) {
        int e = errno;
        sk_free(tmp);
        return sk_fail_errno(err, f->path, e, "cannot create a temporary file beside it");
    }
    fchmod(f->fd, mode);
    if (f->stream) {
        unlink(tmp);
        sk_free(tmp);
    } else {
        f->tmp = tmp;
        atomic_track(tmp);
    }
    return SK_OK;
}

/* What the target is decides how it is written: *mode the new file's. */
static int inspect_target(sk_atomic_file *f, mode_t *mode, sk_error *err)
{
    mode_t mask = umask(0);
    umask(mask);
    *mode = 0666 & ~mask;
    if (strcmp(f->path, "-") == 0) {
        f->stream = 1;
        return SK_OK;
    }
    struct stat st;
    if (lstat(f->path, &st) != 0)
        return errno == ENOENT ? SK_OK : sk_fail_errno(err, f->path, errno, "cannot write");
    if (S_ISLNK(st.st_mode)) {
        char resolved[PATH_MAX];
        if (!realpath(f->path, resolved))
            return sk_fail(err, SK_ERR_IO, f->path, -1,
                           "is a symbolic link to a file that does not exist; not written");
        char *copy = sk_strdup(resolved);
        if (!copy)
            return sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
        sk_free(f->path);
        f->path = copy;
        if (stat(f->path, &st) != 0)
            return sk_fail_errno(err, f->path, errno, "cannot write");
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        f->stream = 1;
        return SK_OK;
    }
    if (S_ISDIR(st.st_mode))
        return sk_fail(err, SK_ERR_IO, f->path, -1, "is a folder; not replaced");
    if (!S_ISREG(st.st_mode))
        return sk_fail(err, SK_ERR_IO, f->path, -1, "is not a regular file; not replaced");
    /* Root may write anything, so the mode bits, not access(), decide. */
    if (!(st.st_mode & 0222))
        return sk_fail(err, SK_ERR_IO, f->path, -1,
                       "is read-only (mode %04o); not replaced (make it writable first)",
                       (unsigned)(st.st_mode & 07777));
    *mode = st.st_mode & 07777;
    f->replaces = 1;
    f->uid = st.st_uid;
    f->gid = st.st_gid;
    return SK_OK;
}

int sk_atomic_open(sk_atomic_file **out, const char *path, sk_error *err)
{
    *out = NULL;
    sk_atomic_file *f = new_file(path);
    if (!f)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    mode_t mode;
    int rc = inspect_target(f, &mode, err);
    char *dir = NULL;
    if (rc == SK_OK && !(dir = f->stream ? sk_strdup(P_tmpdir) : dir_of(f->path)))
        rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    if (rc == SK_OK)
        rc = make_temp(f, dir, mode, err);
    sk_free(dir);
    if (rc != SK_OK) {
        destroy(f);
        return rc;
    }
    if (f->replaces)
        (void)!fchown(f->fd, f->uid, f->gid); /* only root may give a file away */
    *out = f;
    return SK_OK;
}

void sk_atomic_set_fsync(sk_atomic_file *f, int on)
{
    f->no_fsync = !on;
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

int sk_atomic_truncate(sk_atomic_file *f, int64_t size, sk_error *err)
{
    if (size < 0 || size > f->pos)
        return sk_fail(err, SK_ERR_ARG, f->path, size, "cannot truncate to %lld bytes of %lld",
                       (long long)size, (long long)f->pos);
    if (ftruncate(f->fd, (off_t)size) != 0)
        return sk_fail_errno(err, f->path, errno, "cannot truncate");
    f->pos = size;
    return SK_OK;
}
int sk_atomic_fd(const sk_atomic_file *f) { return f->fd; }

void sk_atomic_abort(sk_atomic_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp)
        unlink(f->tmp);
    destroy(f);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The buffered bytes, in order, to the device, FIFO or standard output. */
static int copy_to_stream(sk_atomic_file *f, sk_error *err)
{
    int to_stdout = strcmp(f->path, "-") == 0;
    int out = to_stdout ? STDOUT_FILENO : open(f->path, O_WRONLY | O_CLOEXEC);
    if (out < 0)
        return sk_fail_errno(err, f->path, errno, "cannot open for writing");
    enum { CHUNK = 1 << 16 };
    char *buf = sk_malloc(CHUNK);
    int rc = buf ? SK_OK : sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
    for (off_t at = 0; rc == SK_OK;) {
        ssize_t r = pread(f->fd, buf, CHUNK, at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            rc = sk_fail_errno(err, f->path, errno, "cannot read back the temporary file");
        else if (r == 0)
            break;
        else if (write_all(out, buf, (size_t)r) != 0)
            rc = sk_fail_errno(err, f->path, errno, "write failed");
        at += r > 0 ? r : 0;
    }
    sk_free(buf);
    if (!to_stdout && close(out) != 0 && rc == SK_OK)
        rc = sk_fail_errno(err, f->path, errno, "cannot close");
    return rc;
}

/* Give the unnamed file a fresh name beside the target (a stream's in
 * the temporary folder). */
static int name_unnamed(sk_atomic_file *f, sk_error *err)
{
    const char *base = f->stream ? P_tmpdir "/snapkit" : f->path;
    size_t n = strlen(base) + 48;
    char *tmp = sk_malloc(n);
    if (!tmp)
        return sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
    for (unsigned tries = 0;; tries++) {
        snprintf(tmp, n, "%s.tmp.%ld.%08lx", base, (long)getpid(),
                 (unsigned long)random() ^ tries);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
            break;
        if (errno != EEXIST || tries > 100) {
            int e = errno;
            sk_free(tmp);
            return sk_fail_errno(err, f->path, e, "cannot name the finished file");
        }
    }
    f->tmp = tmp;
    atomic_track(tmp);
    return SK_OK;
}

int atomic_name(sk_atomic_file *f, const char **name, sk_error *err)
{
    int rc = f->tmp ? SK_OK : name_unnamed(f, err);
    *name = f->tmp;
    return rc;
}

/* The batch of the calling thread, if it began one. */
static _Thread_local sk_atomic_batch *t_batch;

void sk_atomic_batch_begin(sk_atomic_batch *b)
{
    memset(b, 0, sizeof *b);
    t_batch = b;
}

/* Hand a named, flushed temporary file to the batch instead of renaming it. */
static int batch_add(sk_atomic_batch *b, sk_atomic_file *f, sk_error *err)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 8;
        char **tmp = sk_realloc(b->tmp, (size_t)cap * sizeof *tmp);
        if (tmp)
            b->tmp = tmp;
        char **path = tmp ? sk_realloc(b->path, (size_t)cap * sizeof *path) : NULL;
        if (path)
            b->path = path;
        if (!tmp || !path)
            return sk_fail(err, SK_ERR_NOMEM, f->path, -1, "out of memory");
        b->cap = cap;
    }
    b->tmp[b->n] = f->tmp;
    b->path[b->n++] = f->path;
    f->tmp = f->path = NULL; /* the batch owns both now */
    return SK_OK;
}

int sk_atomic_batch_end(sk_atomic_batch *b, int keep, sk_error *err)
{
    if (t_batch == b)
        t_batch = NULL;
    int rc = SK_OK;
    for (int i = 0; i < b->n; i++) {
        if (keep && rc == SK_OK && rename(b->tmp[i], b->path[i]) != 0)
            rc = sk_fail_errno(err, b->path[i], errno,
                               "cannot rename the finished file into place");
        if (!keep || rc != SK_OK)
            unlink(b->tmp[i]);
        atomic_untrack(b->tmp[i]);
        sk_free(b->tmp[i]);
        sk_free(b->path[i]);
    }
    sk_free(b->tmp);
    sk_free(b->path);
    memset(b, 0, sizeof *b);
    return rc;
}

int sk_atomic_commit(sk_atomic_file *f, sk_error *err)
{
    int rc = SK_OK;
    if (f->stream) {
        rc = copy_to_stream(f, err);
        if (f->tmp) { /* named by atomic_name: only a buffer */
            unlink(f->tmp);
            atomic_untrack(f->tmp);
            sk_free(f->tmp);
            f->tmp = NULL;
        }
    } else {
        if (!f->no_fsync) {
            __atomic_fetch_add(&fsync_calls, 1, __ATOMIC_RELAXED);
            if (fsync(f->fd) != 0)
                rc = sk_fail_errno(err, f->path, errno, "cannot flush to disk");
        }
        if (rc == SK_OK && !f->tmp)
            rc = name_unnamed(f, err);
    }
    if (close(f->fd) != 0 && rc == SK_OK)
        rc = sk_fail_errno(err, f->path, errno, "cannot close");
    f->fd = -1;
    /* A stream was written through already; a file in a batch waits for it. */
    if (rc == SK_OK && f->tmp && t_batch) {
        rc = batch_add(t_batch, f, err);
        if (rc == SK_OK) {
            destroy(f);
            return SK_OK;
        }
    }
    if (rc == SK_OK && f->tmp && rename(f->tmp, f->path) != 0)
        rc = sk_fail_errno(err, f->path, errno, "cannot rename the finished file into place");
    if (rc != SK_OK && f->tmp)
        unlink(f->tmp);
    destroy(f); /* untracks the name only now: a signal before found it still there */
    return rc;
}
