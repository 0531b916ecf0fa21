/* The atom-file API: formats, opening, the lazy frame index, reading. */
#include <string.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

static const struct {
    const char *name;
    sk_atoms_format format;
} k_names[] = {
    {"dump", SK_ATOMS_DUMP},         {"lammps-dump", SK_ATOMS_DUMP},
    {"lammps-dump-text", SK_ATOMS_DUMP}, {"lammpstrj", SK_ATOMS_DUMP},
    {"data", SK_ATOMS_DATA},         {"lammps-data", SK_ATOMS_DATA},
    {"lmp", SK_ATOMS_DATA},          {"extxyz", SK_ATOMS_EXTXYZ},
    {"xyz", SK_ATOMS_EXTXYZ},
};

const char *sk_atoms_format_name(sk_atoms_format format)
{
    switch (format) {
    case SK_ATOMS_DUMP: return "dump";
    case SK_ATOMS_DATA: return "data";
    case SK_ATOMS_EXTXYZ: return "extxyz";
    default: return "auto";
    }
}

sk_atoms_format sk_atoms_format_from_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof k_names / sizeof k_names[0]; i++)
        if (strcmp(name, k_names[i].name) == 0)
            return k_names[i].format;
    return SK_ATOMS_AUTO;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && strncmp(s + n - m, suffix, m) == 0;
}

sk_atoms_format sk_atoms_guess_format(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (ends_with(base, n, ".gz"))
        n -= 3;
    static const struct {
        const char *suffix;
        sk_atoms_format format;
    } k_suffixes[] = {{".lammpstrj", SK_ATOMS_DUMP}, {".dump", SK_ATOMS_DUMP},
                      {".lammpsdump", SK_ATOMS_DUMP}, {".data", SK_ATOMS_DATA},
                      {".lmp", SK_ATOMS_DATA},       {".extxyz", SK_ATOMS_EXTXYZ},
                      {".xyz", SK_ATOMS_EXTXYZ}};
    for (size_t i = 0; i < sizeof k_suffixes / sizeof k_suffixes[0]; i++)
        if (ends_with(base, n, k_suffixes[i].suffix))
            return k_suffixes[i].format;
    if (strncmp(base, "dump.", 5) == 0)
        return SK_ATOMS_DUMP;
    if (strncmp(base, "data.", 5) == 0)
        return SK_ATOMS_DATA;
    return SK_ATOMS_AUTO;
}

/* From the first non-blank line: ITEM: (dump), a lone count (XYZ), else a
 * data file's title. */
static sk_atoms_format sniff(const source *src)
{
    cursor c = {src->data, src->data + src->size, 1};
    const char *b, *e;
    int64_t line;
    if (!at_cursor_next_nonblank(&c, &b, &e, 0, &line))
        return SK_ATOMS_AUTO;
    at_trim(&b, &e);
    if (e - b >= 5 && memcmp(b, "ITEM:", 5) == 0)
        return SK_ATOMS_DUMP;
    const char *p = b;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    if (p > b && p == e)
        return SK_ATOMS_EXTXYZ;
    return SK_ATOMS_DATA;
}

static int set_format(sk_atoms_file *f, sk_atoms_format format, const sk_atoms_options *opts,
                      sk_error *err)
{
    f->format = format ? format : sk_atoms_guess_format(f->src.path);
    if (!f->format)
        f->format = sniff(&f->src);
    if (!f->format)
        return sk_fail(err, SK_ERR_FORMAT, f->src.path, -1,
                       "cannot tell the format of an empty file; give it");
    sk_thread_budget budget;
    f->threads = sk_thread_budget_get(opts ? opts->threads : 0, &budget);
    if (opts && opts->atom_style && !(f->atom_style = sk_strdup(opts->atom_style)))
        return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    return SK_OK;
}

/* The rest of opening f once its source is open (or failed to: rc):
 * *out gets f, or f is closed. */
static int finish_open(sk_atoms_file *f, int rc, sk_atoms_format format,
                       const sk_atoms_options *opts, sk_atoms_file **out, sk_error *err)
{
    if (rc == SK_OK)
        rc = set_format(f, format, opts, err);
    if (rc != SK_OK) {
        sk_atoms_close(f);
        return rc;
    }
    *out = f;
    return SK_OK;
}

int sk_atoms_open(sk_atoms_file **out, const char *path, sk_atoms_format format,
                  const sk_atoms_options *opts, sk_error *err)
{
    *out = NULL;
    sk_atoms_file *f = sk_calloc(1, sizeof *f);
    if (!f)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    return finish_open(f, at_source_open(&f->src, path, err), format, opts, out, err);
}

int sk_atoms_open_memory(sk_atoms_file **out, const void *data, size_t size, const char *name,
                         sk_atoms_format format, const sk_atoms_options *opts, sk_error *err)
{
    *out = NULL;
    sk_atoms_file *f = sk_calloc(1, sizeof *f);
    if (!f)
        return sk_fail(err, SK_ERR_NOMEM, name, -1, "out of memory");
    return finish_open(f, at_source_memory(&f->src, data, size, name, err), format, opts, out, err);
}

void sk_atoms_close(sk_atoms_file *f)
{
    if (!f)
        return;
    at_source_close(&f->src);
    sk_free(f->atom_style);
    at_index_free(&f->idx);
    sk_free(f);
}

sk_atoms_format sk_atoms_file_format(const sk_atoms_file *f) { return f->format; }
int64_t sk_atoms_file_size(const sk_atoms_file *f) { return (int64_t)f->src.size; }

/* ---- the frame index -------------------------------------------------- */

void at_index_free(at_index *x)
{
    sk_free(x->pos);
    sk_free(x->line);
    sk_free(x->natoms);
    sk_free(x->step);
    memset(x, 0, sizeof *x);
}

static int grow(int64_t **a, int64_t cap)
{
    int64_t *p = sk_realloc(*a, (size_t)cap * sizeof *p);
    if (p)
        *a = p;
    return p != NULL;
}

int at_index_push(at_index *x, int64_t pos, int64_t line)
{
    if (x->n == x->cap) {
        int64_t cap = x->cap ? 2 * x->cap : 16;
        if (!grow(&x->pos, cap) || !grow(&x->line, cap) || !grow(&x->natoms, cap) ||
            !grow(&x->step, cap))
            return SK_ERR_NOMEM;
        x->cap = cap;
    }
    x->pos[x->n] = pos;
    x->line[x->n] = line;
    x->natoms[x->n] = -1;
    x->step[x->n] = AT_NO_TIMESTEP;
    x->n++;
    return SK_OK;
}

static int push_frame(sk_atoms_file *f, int64_t pos, int64_t line, sk_error *err)
{
    if (at_index_push(&f->idx, pos, line) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    return SK_OK;
}

/* Skip the last frame found: its count and timestep, and the next start. */
static int skip_last(sk_atoms_file *f, sk_error *err)
{
    at_index *x = &f->idx;
    frame_span span;
    int64_t last = x->n - 1;
    int rc = f->format == SK_ATOMS_DUMP
                 ? at_dump_skip(f, x->pos[last], x->line[last], &span, err)
                 : at_xyz_skip(f, x->pos[last], x->line[last], &span, err);
    if (rc != SK_OK)
        return rc;
    x->natoms[last] = span.natoms;
    x->step[last] = span.timestep;
    if (at_only_space(span.end, f->src.data + f->src.size)) {
        x->complete = 1;
        return SK_OK;
    }
    return push_frame(f, span.end - f->src.data, span.next_line, err);
}

int at_find_frame(sk_atoms_file *f, int64_t k, sk_error *err)
{
    at_index *x = &f->idx;
    if (x->n == 0 && !x->complete) {
        if (f->format != SK_ATOMS_DATA && at_only_space(f->src.data, f->src.data + f->src.size)) {
            x->complete = 1;
            return SK_OK;
        }
        int rc = push_frame(f, 0, 1, err);
        if (rc != SK_OK)
            return rc;
        if (f->format == SK_ATOMS_DATA)
            x->complete = 1; /* a data file is one frame */
    }
    while (!x->complete && x->n <= k) {
        int rc = skip_last(f, err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

int sk_atoms_count_frames(sk_atoms_file *f, int64_t *count, sk_error *err)
{
    int rc = at_find_frame(f, INT64_MAX, err);
    *count = f->idx.n;
    return rc;
}

/* Common metadata of every frame read. */
static int frame_meta(sk_table *t, sk_atoms_format format, int64_t frame)
{
    int rc = sk_table_meta_set(t, "kind", "atoms");
    rc = rc ? rc : sk_table_meta_set(t, "format", sk_atoms_format_name(format));
    return rc ? rc : sk_table_meta_setf(t, "frame", "%lld", (long long)frame);
}

static int read_at(sk_atoms_file *f, int64_t k, int with_atoms, int64_t *natoms, sk_table **out,
                   sk_error *err)
{
    *out = NULL;
    int rc = SK_OK;
    if (k < 0) {
        int64_t n;
        rc = sk_atoms_count_frames(f, &n, err);
        if (rc != SK_OK)
            return rc;
        k += n;
        if (k < 0)
            return sk_fail(err, SK_ERR_RANGE, f->src.path, -1, "frame %lld of %lld frames",
                           (long long)(k - n), (long long)n);
    }
    rc = at_find_frame(f, k, err);
    if (rc != SK_OK)
        return rc;
    if (k >= f->idx.n)
        return sk_fail(err, SK_ERR_RANGE, f->src.path, -1, "no frame %lld: the file has %lld",
                       (long long)k, (long long)f->idx.n);
    int64_t pos = f->idx.pos[k], line = f->idx.line[k];
    switch (f->format) {
    case SK_ATOMS_DUMP: rc = at_dump_read(f, pos, line, with_atoms, natoms, out, err); break;
    case SK_ATOMS_EXTXYZ: rc = at_xyz_read(f, pos, line, with_atoms, natoms, out, err); break;
    default: rc = at_data_read(f, with_atoms, natoms, out, err); break;
    }
    if (rc == SK_OK && frame_meta(*out, f->format, k) != SK_OK) {
        sk_table_free(*out);
        *out = NULL;
        rc = sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    }
    if (rc == SK_OK && with_atoms)
        f->next = k + 1;
    return rc;
}

int sk_atoms_read_frame(sk_atoms_file *f, int64_t k, sk_table **out, sk_error *err)
{
    int64_t natoms;
    return read_at(f, k, 1, &natoms, out, err);
}

int sk_atoms_frame_header(sk_atoms_file *f, int64_t k, sk_table **out, int64_t *natoms,
                          sk_error *err)
{
    return read_at(f, k, 0, natoms, out, err);
}

int sk_atoms_next(sk_atoms_file *f, sk_table **out, sk_error *err)
{
    *out = NULL;
    int rc = at_find_frame(f, f->next, err);
    if (rc != SK_OK || f->next >= f->idx.n)
        return rc;
    return sk_atoms_read_frame(f, f->next, out, err);
}

int sk_atoms_read(const char *path, sk_atoms_format format, int64_t frame,
                  const sk_atoms_options *opts, sk_table **out, sk_error *err)
{
    sk_atoms_file *f;
    *out = NULL;
    int rc = sk_atoms_open(&f, path, format, opts, err);
    if (rc != SK_OK)
        return rc;
    rc = sk_atoms_read_frame(f, frame, out, err);
    sk_atoms_close(f);
    return rc;
}
