/* Several atom files read as one trajectory: every file indexed once (its
 * index kept while the file is closed), frames ordered by timestep, one
 * file open at a time. And frame slices in Python's syntax. */
#include <stdlib.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "snapkit/atoms_traj.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

typedef struct traj_file {
    char *path;
    at_index idx; /* while the file is closed */
} traj_file;

typedef struct traj_entry {
    int64_t step, frame;
    int file;
} traj_entry;

struct sk_atoms_traj {
    traj_file *files;
    int nfiles;
    traj_entry *order;
    int64_t n;
    sk_atoms_format format, first_format;
    sk_atoms_options opts;
    char *atom_style;
    sk_atoms_file *open; /* files[open_file], holding its index */
    int open_file;
};

/* Close the open file, keeping its index. */
static void park(sk_atoms_traj *t)
{
    if (!t->open)
        return;
    t->files[t->open_file].idx = t->open->idx;
    memset(&t->open->idx, 0, sizeof t->open->idx);
    sk_atoms_close(t->open);
    t->open = NULL;
}

static int open_file(sk_atoms_traj *t, int i, sk_error *err)
{
    if (t->open && t->open_file == i)
        return SK_OK;
    park(t);
    int rc = sk_atoms_open(&t->open, t->files[i].path, t->format, &t->opts, err);
    if (rc != SK_OK)
        return rc;
    t->open_file = i;
    at_index_free(&t->open->idx);
    t->open->idx = t->files[i].idx;
    memset(&t->files[i].idx, 0, sizeof t->files[i].idx);
    return SK_OK;
}

static int index_file(sk_atoms_traj *t, int i, int use_sidecar, sk_error *stale, sk_error *err)
{
    int rc = open_file(t, i, err);
    int64_t n;
    sk_error e;
    if (rc == SK_OK && use_sidecar) {
        rc = sk_atoms_index_sidecar(t->open, NULL, &e, err);
        if (rc == SK_OK && e.code != SK_OK && stale)
            *stale = e;
    }
    if (rc == SK_OK)
        rc = sk_atoms_index(t->open, &n, err);
    if (rc == SK_OK && i == 0)
        t->first_format = sk_atoms_file_format(t->open);
    return rc;
}

static int by_step(const void *pa, const void *pb)
{
    const traj_entry *a = pa, *b = pb;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* Every frame of every file, in timestep order when that means anything. */
static int build_order(sk_atoms_traj *t, sk_error *err)
{
    int64_t n = 0;
    for (int i = 0; i < t->nfiles; i++)
        n += i == t->open_file ? t->open->idx.n : t->files[i].idx.n;
    t->order = sk_malloc((size_t)(n ? n : 1) * sizeof *t->order);
    if (!t->order)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int all_steps = 1;
    for (int i = 0; i < t->nfiles; i++) {
        const at_index *x = i == t->open_file ? &t->open->idx : &t->files[i].idx;
        for (int64_t k = 0; k < x->n; k++) {
            t->order[t->n++] = (traj_entry){x->step[k], k, i};
            all_steps &= x->step[k] != AT_NO_TIMESTEP;
        }
    }
    if (t->nfiles > 1 && all_steps)
        qsort(t->order, (size_t)t->n, sizeof *t->order, by_step);
    return SK_OK;
}

int sk_atoms_traj_open(sk_atoms_traj **out, const char *const *paths, int npaths,
                       sk_atoms_format format, const sk_atoms_options *opts, int use_sidecar,
                       sk_error *stale, sk_error *err)
{
    *out = NULL;
    if (stale)
        sk_error_clear(stale);
    if (npaths < 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no trajectory files");
    sk_atoms_traj *t = sk_calloc(1, sizeof *t);
    if (!t || !(t->files = sk_calloc((size_t)npaths, sizeof *t->files))) {
        sk_free(t);
        return sk_fail(err, SK_ERR_NOMEM, paths[0], -1, "out of memory");
    }
    t->format = format;
    if (opts)
        t->opts = *opts;
    int rc = SK_OK;
    if (opts && opts->atom_style && !(t->atom_style = sk_strdup(opts->atom_style)))
        rc = sk_fail(err, SK_ERR_NOMEM, paths[0], -1, "out of memory");
    t->opts.atom_style = t->atom_style;
    t->nfiles = npaths;
    for (int i = 0; i < npaths && rc == SK_OK; i++)
        if (!(t->files[i].path = sk_strdup(paths[i])))
            rc = sk_fail(err, SK_ERR_NOMEM, paths[i], -1, "out of memory");
    for (int i = 0; i < npaths && rc == SK_OK; i++)
        rc = index_file(t, i, use_sidecar, stale, err);
    if (rc == SK_OK)
        rc = build_order(t, err);
    if (rc != SK_OK) {
        sk_atoms_traj_close(t);
        return rc;
    }
    *out = t;
    return SK_OK;
}

void sk_atoms_traj_close(sk_atoms_traj *t)
{
    if (!t)
        return;
    park(t);
    for (int i = 0; i < t->nfiles; i++) {
        sk_free(t->files[i].path);
        at_index_free(&t->files[i].idx);
    }
    sk_free(t->files);
    sk_free(t->order);
    sk_free(t->atom_style);
    sk_free(t);
}

int64_t sk_atoms_traj_count(const sk_atoms_traj *t) { return t->n; }
sk_atoms_format sk_atoms_traj_format(const sk_atoms_traj *t) { return t->first_format; }

int sk_atoms_traj_frame(const sk_atoms_traj *t, int64_t k, const char **path,
                        int64_t *file_frame, sk_atoms_frame_info *info)
{
    if (k < 0 || k >= t->n)
        return SK_ERR_RANGE;
    const traj_entry *e = &t->order[k];
    const at_index *x = t->open && e->file == t->open_file ? &t->open->idx : &t->files[e->file].idx;
    if (path)
        *path = t->files[e->file].path;
    if (file_frame)
        *file_frame = e->frame;
    if (info)
        *info = (sk_atoms_frame_info){x->pos[e->frame], x->line[e->frame], x->natoms[e->frame],
                                      x->step[e->frame]};
    return SK_OK;
}

/* The open file at frame k's, and k within it. */
static int locate(sk_atoms_traj *t, int64_t *k, int64_t *frame, sk_error *err)
{
    int64_t given = *k;
    if (*k < 0)
        *k += t->n;
    if (*k < 0 || *k >= t->n)
        return sk_fail(err, SK_ERR_RANGE, t->files[0].path, -1,
                       "no frame %lld: the trajectory has %lld", (long long)given,
                       (long long)t->n);
    *frame = t->order[*k].frame;
    return open_file(t, t->order[*k].file, err);
}

int sk_atoms_traj_read(sk_atoms_traj *t, int64_t k, sk_table **out, sk_error *err)
{
    int64_t frame = 0;
    *out = NULL;
    int rc = locate(t, &k, &frame, err);
    if (rc == SK_OK)
        rc = sk_atoms_read_frame(t->open, frame, out, err);
    if (rc == SK_OK && t->nfiles > 1 &&
        (sk_table_meta_setf(*out, "frame", "%lld", (long long)k) != SK_OK ||
         sk_table_meta_set(*out, "file", t->files[t->open_file].path) != SK_OK)) {
        sk_table_free(*out);
        *out = NULL;
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    return rc;
}

int sk_atoms_traj_header(sk_atoms_traj *t, int64_t k, sk_table **out, int64_t *natoms,
                         sk_error *err)
{
    int64_t frame = 0;
    *out = NULL;
    int rc = locate(t, &k, &frame, err);
    return rc == SK_OK ? sk_atoms_frame_header(t->open, frame, out, natoms, err) : rc;
}

/* ---- slices ------------------------------------------------------------- */

/* One part of a slice: empty, or an integer filling the whole part. */
static int slice_part(const char *b, const char *e, int64_t *v, int *given)
{
    *given = b < e;
    if (!*given)
        return 1;
    const char *stop;
    return sk_parse_int64(b, e, v, &stop) && stop == e;
}

/* Python's slice.indices for one bound. */
static int64_t clamp_bound(int64_t v, int given, int64_t dflt, int64_t n, int64_t step)
{
    if (!given)
        return dflt;
    if (v < 0) {
        v += n;
        if (v < 0)
            v = step < 0 ? -1 : 0;
    } else if (v >= n) {
        v = step < 0 ? n - 1 : n;
    }
    return v;
}

int sk_atoms_slice(const char *text, int64_t n, int64_t *start, int64_t *step, int64_t *count,
                   sk_error *err)
{
    const char *parts[4] = {text}, *end = text + strlen(text);
    int np = 1;
    for (const char *p = text; *p; p++)
        if (*p == ':') {
            if (np == 3)
                return sk_fail(err, SK_ERR_ARG, NULL, -1, "frames '%s': at most start:stop:step",
                               text);
            parts[np++] = p + 1;
        }
    int64_t v[3] = {0, 0, 1};
    int given[3] = {0, 0, 0};
    for (int i = 0; i < np; i++) {
        const char *e = i + 1 < np ? parts[i + 1] - 1 : end;
        if (!slice_part(parts[i], e, &v[i], &given[i]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "frames '%s': expected start:stop:step of integers", text);
    }
    if (np == 1) { /* one frame */
        int64_t k = v[0] < 0 ? v[0] + n : v[0];
        if (!given[0] || k < 0 || k >= n)
            return sk_fail(err, SK_ERR_RANGE, NULL, -1, "no frame %s: the trajectory has %lld",
                           text, (long long)n);
        *start = k;
        *step = 1;
        *count = 1;
        return SK_OK;
    }
    int64_t s = given[2] ? v[2] : 1;
    if (s == 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "frames '%s': the step cannot be 0", text);
    int64_t a = clamp_bound(v[0], given[0], s < 0 ? n - 1 : 0, n, s);
    int64_t b = clamp_bound(v[1], given[1], s < 0 ? -1 : n, n, s);
    *start = a;
    *step = s;
    if (s > 0)
        *count = b > a ? (b - a - 1) / s + 1 : 0;
    else
        *count = a > b ? (a - b - 1) / -s + 1 : 0;
    return SK_OK;
}
