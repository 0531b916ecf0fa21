/* The complete frame index of an atom file and its sidecar file:
 *
 *   snapkit atoms index 1
 *   file SIZE MTIME_NS HASH FORMAT BYTES FRAMES
 *   OFFSET LINE NATOMS TIMESTEP     (one line per frame; TIMESTEP '-' if none)
 *
 * SIZE, MTIME_NS and HASH (16 hex digits) describe the file on disk, BYTES
 * its (inflated) text. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/openfile.h"
#include "formats/atoms/internal.h"
#include "snapkit/atoms_traj.h"
#include "snapkit/memory.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/util/text.h"

static const char k_magic[] = "snapkit atoms index 1\n";

int sk_atoms_index(sk_atoms_file *f, int64_t *nframes, sk_error *err)
{
    int rc = at_find_frame(f, INT64_MAX, err);
    if (rc == SK_OK && f->format == SK_ATOMS_DATA && f->idx.n == 1 && f->idx.natoms[0] < 0) {
        sk_table *t;
        int64_t n;
        rc = sk_atoms_frame_header(f, 0, &t, &n, err);
        if (rc == SK_OK) {
            f->idx.natoms[0] = n;
            sk_table_free(t);
        }
    }
    *nframes = f->idx.n;
    return rc;
}

int sk_atoms_frame_info_get(sk_atoms_file *f, int64_t k, sk_atoms_frame_info *out,
                            sk_error *err)
{
    int64_t n;
    int rc = sk_atoms_index(f, &n, err);
    if (rc != SK_OK)
        return rc;
    if (k < 0)
        k += n;
    if (k < 0 || k >= n)
        return sk_fail(err, SK_ERR_RANGE, f->src.path, -1, "no frame %lld: the file has %lld",
                       (long long)k, (long long)n);
    *out = (sk_atoms_frame_info){f->idx.pos[k], f->idx.line[k], f->idx.natoms[k],
                                 f->idx.step[k]};
    return SK_OK;
}

char *sk_atoms_sidecar_name(const char *path)
{
    size_t n = strlen(path);
    char *s = sk_malloc(n + 7);
    if (s) {
        memcpy(s, path, n);
        memcpy(s + n, ".skidx", 7);
    }
    return s;
}

/* The sidecar's name (owned), or an error for a file without one. */
static int sidecar_of(const sk_atoms_file *f, const char *sidecar, char **out, sk_error *err)
{
    if (f->src.disk_size < 0)
        return sk_fail(err, SK_ERR_ARG, f->src.path, -1,
                       "a file read from memory has no index sidecar");
    *out = sidecar ? sk_strdup(sidecar) : sk_atoms_sidecar_name(f->src.path);
    return *out ? SK_OK : sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
}

static int format_index(const sk_atoms_file *f, sk_text *t)
{
    const at_index *x = &f->idx;
    sk_text_puts(t, k_magic);
    sk_text_printf(t, "file %lld %lld %016" PRIx64 " %s %zu %lld\n", (long long)f->src.disk_size,
                   (long long)f->src.mtime_ns, f->src.disk_hash, sk_atoms_format_name(f->format),
                   f->src.size, (long long)x->n);
    for (int64_t k = 0; k < x->n; k++) {
        sk_text_printf(t, "%lld %lld %lld ", (long long)x->pos[k], (long long)x->line[k],
                       (long long)x->natoms[k]);
        if (x->step[k] == AT_NO_TIMESTEP)
            sk_text_puts(t, "-\n");
        else
            sk_text_printf(t, "%lld\n", (long long)x->step[k]);
    }
    return t->failed ? SK_ERR_NOMEM : SK_OK;
}

int sk_atoms_index_save(sk_atoms_file *f, const char *sidecar, sk_error *err)
{
    char *name = NULL;
    int64_t n;
    int rc = sidecar_of(f, sidecar, &name, err);
    if (rc == SK_OK)
        rc = sk_atoms_index(f, &n, err);
    sk_text t = {0};
    if (rc == SK_OK && format_index(f, &t) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, name, -1, "out of memory");
    sk_atomic_file *out = NULL;
    if (rc == SK_OK)
        rc = sk_atomic_open(&out, name, err);
    if (rc == SK_OK) {
        rc = sk_atomic_write(out, t.buf, t.len, err);
        if (rc == SK_OK)
            rc = sk_atomic_commit(out, err);
        else
            sk_atomic_abort(out);
    }
    sk_text_free(&t);
    sk_free(name);
    return rc;
}

/* ---- reading a sidecar ------------------------------------------------ */

typedef struct reader {
    const char *base, *p, *end;
    const char *name;
} reader;

static int bad(const reader *r, const char *what, sk_error *err)
{
    return sk_fail(err, SK_ERR_FORMAT, r->name, (int64_t)(r->p - r->base),
                   "malformed index sidecar: %s (delete it to rebuild)", what);
}

/* One integer followed by a blank or a newline (consumed). */
static int next_int(reader *r, int64_t *v, int hex)
{
    char *stop;
    if (r->p >= r->end || *r->p == '\n' || *r->p == ' ')
        return 0;
    errno = 0;
    *v = hex ? (int64_t)strtoull(r->p, &stop, 16) : strtoll(r->p, &stop, 10);
    if (errno || stop == r->p || stop >= r->end || (*stop != ' ' && *stop != '\n'))
        return 0;
    r->p = stop + (*stop == ' ');
    return 1;
}

static int end_line(reader *r)
{
    if (r->p >= r->end || *r->p != '\n')
        return 0;
    r->p++;
    return 1;
}

static int read_word(reader *r, char *out, size_t n)
{
    size_t k = 0;
    while (r->p < r->end && *r->p != ' ' && *r->p != '\n' && k + 1 < n)
        out[k++] = *r->p++;
    out[k] = '\0';
    if (r->p >= r->end || *r->p != ' ')
        return 0;
    r->p++;
    return k > 0;
}

typedef struct file_facts {
    int64_t size, mtime, hash, bytes, frames;
    char format[16];
} file_facts;

static int read_facts(reader *r, file_facts *h, sk_error *err)
{
    size_t m = sizeof k_magic - 1;
    if ((size_t)(r->end - r->p) < m || memcmp(r->p, k_magic, m) != 0)
        return bad(r, "expected 'snapkit atoms index 1'", err);
    r->p += m;
    if ((size_t)(r->end - r->p) < 5 || memcmp(r->p, "file ", 5) != 0)
        return bad(r, "expected the 'file' line", err);
    r->p += 5;
    if (!next_int(r, &h->size, 0) || !next_int(r, &h->mtime, 0) || !next_int(r, &h->hash, 1) ||
        !read_word(r, h->format, sizeof h->format) || !next_int(r, &h->bytes, 0) ||
        !next_int(r, &h->frames, 0) || h->frames < 0 || !end_line(r))
        return bad(r, "the 'file' line needs SIZE MTIME HASH FORMAT BYTES FRAMES", err);
    return SK_OK;
}

/* Does the sidecar describe the file as it is now? */
static int check_facts(const sk_atoms_file *f, const reader *r, const file_facts *h,
                       sk_error *err)
{
    const source *s = &f->src;
    const char *why = NULL;
    char buf[96];
    if (h->size != s->disk_size) {
        snprintf(buf, sizeof buf, "size %lld bytes, now %lld", (long long)h->size,
                 (long long)s->disk_size);
        why = buf;
    } else if (h->mtime != s->mtime_ns) {
        why = "modification time changed";
    } else if ((uint64_t)h->hash != s->disk_hash || h->bytes != (int64_t)s->size) {
        why = "content changed";
    } else if (sk_atoms_format_from_name(h->format) != f->format) {
        why = "made for another format";
    }
    if (!why)
        return SK_OK;
    return sk_fail(err, SK_ERR_CHECKSUM, r->name, -1, "no longer matches %s (%s)", s->path, why);
}

static int read_entries(const sk_atoms_file *f, reader *r, int64_t frames, at_index *x,
                        sk_error *err)
{
    for (int64_t k = 0; k < frames; k++) {
        int64_t pos, line, natoms, step = AT_NO_TIMESTEP;
        const char *at = r->p;
        if (!next_int(r, &pos, 0) || !next_int(r, &line, 0) || !next_int(r, &natoms, 0))
            return bad(r, "a frame line needs OFFSET LINE NATOMS TIMESTEP", err);
        if (r->end - r->p >= 2 && r->p[0] == '-' && r->p[1] == '\n')
            r->p++;
        else if (!next_int(r, &step, 0))
            return bad(r, "a frame line needs OFFSET LINE NATOMS TIMESTEP", err);
        if (!end_line(r))
            return bad(r, "expected the end of the frame line", err);
        int order = k == 0 ? pos >= 0 : pos > x->pos[k - 1];
        if (!order || pos >= (int64_t)f->src.size || line < 1 || natoms < 0) {
            r->p = at;
            return bad(r, "frame offsets must increase within the file", err);
        }
        if (at_index_push(x, pos, line) != SK_OK)
            return sk_fail(err, SK_ERR_NOMEM, r->name, -1, "out of memory");
        x->natoms[k] = natoms;
        x->step[k] = step;
    }
    if (r->p != r->end)
        return bad(r, "more frame lines than the 'file' line counts", err);
    x->complete = 1;
    return SK_OK;
}

/* The whole sidecar into memory (it is small). */
static int slurp(const char *name, char **out, size_t *n, sk_error *err)
{
    int fd;
    struct stat st;
    int rc = sk_open_regular(name, &fd, &st, err);
    if (rc != SK_OK)
        return rc;
    char *buf = sk_malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    int e = errno;
    close(fd);
    if (!buf)
        return sk_fail(err, SK_ERR_NOMEM, name, -1, "out of memory");
    if (got < (size_t)st.st_size) {
        sk_free(buf);
        return sk_fail_errno(err, name, e, "cannot read");
    }
    *out = buf;
    *n = got;
    return SK_OK;
}

int sk_atoms_index_load(sk_atoms_file *f, const char *sidecar, sk_error *err)
{
    char *name = NULL, *buf = NULL;
    size_t n = 0;
    int rc = sidecar_of(f, sidecar, &name, err);
    if (rc == SK_OK)
        rc = slurp(name, &buf, &n, err);
    reader r = {buf, buf, buf + n, name};
    file_facts h;
    at_index x = {0};
    if (rc == SK_OK)
        rc = read_facts(&r, &h, err);
    if (rc == SK_OK)
        rc = check_facts(f, &r, &h, err);
    if (rc == SK_OK)
        rc = read_entries(f, &r, h.frames, &x, err);
    if (rc == SK_OK) {
        at_index_free(&f->idx);
        f->idx = x;
    } else {
        at_index_free(&x);
    }
    sk_free(buf);
    sk_free(name);
    return rc;
}

int sk_atoms_index_sidecar(sk_atoms_file *f, const char *sidecar, sk_error *stale, sk_error *err)
{
    sk_error e;
    sk_error_clear(&e);
    if (stale)
        sk_error_clear(stale);
    int rc = sk_atoms_index_load(f, sidecar, &e);
    if (rc == SK_OK)
        return SK_OK;
    if (rc != SK_ERR_IO && rc != SK_ERR_CHECKSUM) {
        if (err)
            *err = e;
        return rc;
    }
    if (rc == SK_ERR_CHECKSUM && stale)
        *stale = e;
    return sk_atoms_index_save(f, sidecar, err);
}
