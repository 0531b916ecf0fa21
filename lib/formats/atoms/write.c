/* The writer API: a temporary file filled frame by frame, renamed into
 * place by commit. */
#include <string.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"

struct sk_atoms_writer {
    out_sink *sink;
    sk_atoms_format format;
    int64_t frames;
    char *path;
};

static int ends_with_gz(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

int sk_atoms_writer_open(sk_atoms_writer **out, const char *path, sk_atoms_format format,
                         const sk_atoms_options *opts, sk_error *err)
{
    *out = NULL;
    if (!format)
        format = sk_atoms_guess_format(path);
    if (!format)
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "cannot tell the format from the name; give it (dump, data or extxyz)");
    sk_atoms_writer *w = sk_calloc(1, sizeof *w);
    if (!w || !(w->path = sk_strdup(path))) {
        sk_free(w);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    sk_thread_budget budget;
    int threads = sk_thread_budget_get(opts ? opts->threads : 0, &budget);
    int level = 0;
    if (ends_with_gz(path))
        level = opts && opts->gzip_level >= 1 && opts->gzip_level <= 9 ? opts->gzip_level : 6;
    int rc = at_sink_open(&w->sink, path, level, threads, !(opts && opts->no_fsync), err);
    if (rc != SK_OK) {
        sk_free(w->path);
        sk_free(w);
        return rc;
    }
    w->format = format;
    *out = w;
    return SK_OK;
}

/* Errors from the format writers name no file: give them this one. */
static int name_file(int rc, const char *path, sk_error *err)
{
    if (rc != SK_OK && err && !err->path[0]) {
        sk_error named = *err;
        sk_fail(err, (sk_status)rc, path, -1, "%s", named.message);
    }
    return rc;
}

int sk_atoms_writer_add(sk_atoms_writer *w, const sk_table *frame, sk_error *err)
{
    if (w->format == SK_ATOMS_DATA && w->frames > 0)
        return sk_fail(err, SK_ERR_ARG, w->path, -1, "a LAMMPS data file holds one frame");
    int rc;
    switch (w->format) {
    case SK_ATOMS_DUMP: rc = at_dump_write(w->sink, frame, err); break;
    case SK_ATOMS_DATA: rc = at_data_write(w->sink, frame, err); break;
    default: rc = at_xyz_write(w->sink, frame, err); break;
    }
    if (rc == SK_OK)
        w->frames++;
    return name_file(rc, w->path, err);
}

int sk_atoms_writer_commit(sk_atoms_writer *w, sk_error *err)
{
    if (w->frames == 0) {
        /* An empty input must not become an empty file that looks written. */
        int rc = sk_fail(err, SK_ERR_ARG, w->path, -1, "no frame to write (an empty input?)");
        sk_atoms_writer_abort(w);
        return rc;
    }
    int rc = at_sink_commit(w->sink, err);
    sk_free(w->path);
    sk_free(w);
    return rc;
}

void sk_atoms_writer_abort(sk_atoms_writer *w)
{
    if (!w)
        return;
    at_sink_abort(w->sink);
    sk_free(w->path);
    sk_free(w);
}

int sk_atoms_write(const char *path, const sk_table *frame, sk_atoms_format format,
                   const sk_atoms_options *opts, sk_error *err)
{
    sk_atoms_writer *w;
    int rc = sk_atoms_writer_open(&w, path, format, opts, err);
    if (rc != SK_OK)
        return rc;
    rc = sk_atoms_writer_add(w, frame, err);
    if (rc != SK_OK) {
        sk_atoms_writer_abort(w);
        return rc;
    }
    return sk_atoms_writer_commit(w, err);
}
