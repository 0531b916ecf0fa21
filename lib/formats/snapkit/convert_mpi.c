/* sk_store_convert_ranks: a RAMSES output to one compact file, written by
 * every MPI rank with MPI-IO. Each rank reads its share of each component
 * and writes its chunks (table_mpi.c); rank 0 writes the header and the
 * footer. The file is written under a temporary name beside the target
 * and renamed by rank 0 once every rank has finished, so the target
 * appears complete or not at all. MPI-IO needs a name every rank can
 * open, so the unnamed temporary of core/atomicfile.h, which no kill can
 * leave behind, is not an option here. Each job takes a name of its own
 * (".NAME.mpi-part.XXXXXX", made by rank 0 and broadcast), so two jobs
 * writing one target never share a file: the later rename wins, each
 * target whole. Rank 0 holds a lock (flock) on its temporary while the
 * job runs; a job killed midway leaves its temporary unlocked, and the
 * next conversion to that target removes every such one it can lock,
 * never a live job's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "formats/snapkit/convert_internal.h"
#include "formats/snapkit/convert_mpi.h"
#include "snapkit/util/clock.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"
#include "formats/snapkit/writer_internal.h"

#ifdef SNAPKIT_HAVE_MPI

/* The folder of path ("." when none) and the prefix of its temporaries,
 * ".NAME.mpi-part". */
static int temporary_prefix(const char *path, char *dir, size_t dn, char *prefix, size_t pn,
                            sk_error *err)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    int a = snprintf(dir, dn, "%.*s", slash ? dirlen : 1, slash ? path : ".");
    int b = snprintf(prefix, pn, ".%s.mpi-part", slash ? slash + 1 : path);
    return a > 0 && (size_t)a < dn && b > 0 && (size_t)b < pn
               ? SK_OK
               : sk_fail(err, SK_ERR_ARG, path, -1, "path too long");
}

/* Remove the temporaries of earlier jobs to this target that no running
 * job holds (their lock is free): the leftovers of killed jobs. The old
 * fixed name ".NAME.mpi-part" has the same prefix. */
static void remove_stale(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t k = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, k) != 0 || (e->d_name[k] && e->d_name[k] != '.'))
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
        close(fd); /* releases the lock */
    }
    closedir(d);
}

/* Rank 0, before any rank opens the temporary: the target is not a
 * folder; stale temporaries are gone; a new one is made and locked
 * (*lock_fd, held until the job ends). A stale-file sweep of another job
 * may take the lock between mkstemp and flock and unlink the file: then
 * it has no link left, and another is made. */
static int prepare(const char *path, char *tmp, size_t n, int *lock_fd, sk_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return sk_fail(err, SK_ERR_ARG, path, -1, "is a folder, not a file to write");
    char dir[4096], prefix[1024];
    int rc = temporary_prefix(path, dir, sizeof dir, prefix, sizeof prefix, err);
    if (rc != SK_OK)
        return rc;
    remove_stale(dir, prefix);
    const char *slash = strrchr(path, '/');
    for (int attempt = 0; attempt < 8; attempt++) {
        int w = snprintf(tmp, n, "%.*s%s.XXXXXX", slash ? (int)(slash - path) + 1 : 0, path,
                         prefix);
        if (w <= 0 || (size_t)w >= n)
            return sk_fail(err, SK_ERR_ARG, path, -1, "path too long");
        int fd = mkstemp(tmp);
        if (fd < 0)
            return sk_fail(err, SK_ERR_IO, tmp, -1, "cannot create the temporary: %s",
                           strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) {
            *lock_fd = fd;
            return SK_OK;
        }
        close(fd);
    }
    return sk_fail(err, SK_ERR_IO, tmp, -1, "cannot keep a temporary: removed as it was made");
}

/* Rank 0, after every rank closed the file: flush it and give it the
 * target's name, or remove it. */
static int finish(const char *path, const char *tmp, int keep, sk_error *err)
{
    if (!keep) {
        unlink(tmp);
        return SK_OK;
    }
    int fd = open(tmp, O_RDONLY);
    int rc = fd >= 0 && fsync(fd) == 0
                 ? SK_OK
                 : sk_fail(err, SK_ERR_IO, tmp, -1, "cannot flush: %s", strerror(errno));
    if (fd >= 0)
        close(fd);
    if (rc == SK_OK && rename(tmp, path) != 0)
        rc = sk_fail(err, SK_ERR_IO, path, -1, "cannot rename %s to it: %s", tmp,
                     strerror(errno));
    if (rc != SK_OK) {
        unlink(tmp);
        return rc;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) { /* the rename itself on disk */
        fsync(dfd);
        close(dfd);
    }
    return SK_OK;
}

/* Rank 0: the footer's file metadata, in the order one process sets it. */
static int footer_begin(st_footer *footer, const char *dir, const int want[CV_NC],
                        int with_coarse, sk_error *err)
{
    char list[128];
    cv_components_list(want, list, sizeof list);
    if (st_footer_init(footer) != SK_OK ||
        sk_table_meta_set(footer->meta, "convert.source", dir) != SK_OK ||
        sk_table_meta_set(footer->meta, "convert.components", list) != SK_OK ||
        sk_table_meta_set(footer->meta, "convert.with_coarse", with_coarse ? "1" : "0") !=
            SK_OK ||
        !(footer->tables = sk_calloc(CV_NC, sizeof *footer->tables)))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    return SK_OK;
}

static int write_bytes(cv_mpi_file *f, int64_t at, const void *p, size_t n, sk_error *err)
{
    int mrc = MPI_File_write_at(f->fh, at, p, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    return mrc == MPI_SUCCESS ? SK_OK
                              : sk_fail(err, SK_ERR_IO, NULL, at, "MPI_File_write_at failed");
}

/* Every component: this rank's share read, then the table written by all. */
static int components(sk_ramses *r, const int want[CV_NC], const sk_selection sels[CV_NC],
                      const sk_store_convert_options *opt, const sk_mpi_world *w,
                      cv_mpi_file *f, st_footer *footer, sk_store_convert_stats *st,
                      sk_error *err)
{
    int rc = SK_OK;
    for (int k = 0; k < CV_NC && rc == SK_OK; k++) {
        if (!want[k])
            continue;
        const char *name = sk_ramses_component_name(k);
        /* Catalogues (sinks, clumps: a line per object) are read whole by
         * every rank and kept by rank 0: a share of empty files would have
         * other columns than the whole. */
        int whole = !cv_is_cells(k) && strcmp(name, "particles");
        sk_read_options ro = {.threads = opt->write.threads,
                              .progress = w->rank == 0 ? opt->read_progress : (sk_progress){0},
                              .share_rank = whole ? 0 : w->rank,
                              .share_count = whole ? 0 : w->size,
                              .with_refined = cv_is_cells(k) && opt->with_coarse};
        sk_read_stats rs;
        memset(&rs, 0, sizeof rs);
        sk_table *t = NULL;
        rc = sk_ramses_read(r, name, &sels[k], &ro, &t, &rs, err);
        if (rc == SK_OK && whole && w->rank > 0)
            rc = sk_table_truncate(t, 0, err);
        rc = sk_mpi_agree(rc, err);
        double t0 = sk_monotonic_seconds();
        if (rc == SK_OK)
            rc = cv_mpi_write_table(f, name, t, &opt->write, footer, err);
        st->write_seconds += sk_monotonic_seconds() - t0;
        st->read_seconds += rs.seconds;
        int64_t refined = t ? cv_count_refined(t, sels[k].lmax) : 0;
        int64_t sums[3] = {t ? sk_table_nrows(t) - refined : 0, t ? sk_table_bytes(t) : 0,
                           refined};
        if (rc == SK_OK)
            rc = sk_mpi_sum_int64(sums, 3, err);
        if (rc == SK_OK) {
            snprintf(st->names[st->ntables], sizeof st->names[0], "%s", name);
            st->refined_rows[st->ntables] = sums[2];
            st->rows[st->ntables++] = sums[0];
            st->bytes_raw += sums[1];
        }
        sk_table_free(t);
    }
    return rc;
}

/* The components, their selections and the source's bytes, as one
 * process picks them (every rank alike). */
static int plan(sk_ramses *r, const sk_store_convert_options *opt, int want[CV_NC],
                sk_selection sels[CV_NC], sk_store_convert_stats *st, sk_error *err)
{
    int rc = cv_pick_components(r, opt->components, want, err);
    if (rc == SK_OK)
        rc = cv_split_vars(r, opt->selection, opt->components && *opt->components, want, sels,
                           err);
    if (rc == SK_OK && (st->bytes_source = cv_source_bytes(r, want, err)) < 0)
        rc = err ? err->code : SK_ERR_IO;
    return rc;
}

/* Header, tables, footer into the open file; rank 0 writes header and
 * footer. Returns the agreed status. */
static int write_all(sk_ramses *r, const char *dir, const int want[CV_NC],
                     const sk_selection sels[CV_NC], const sk_store_convert_options *opt,
                     const sk_mpi_world *w, cv_mpi_file *f, sk_store_convert_stats *st,
                     sk_error *err)
{
    st_footer footer;
    memset(&footer, 0, sizeof footer);
    int rc = SK_OK;
    if (w->rank == 0) {
        uint8_t header[ST_HEADER_BYTES];
        st_header_bytes(header);
        rc = footer_begin(&footer, dir, want, opt->with_coarse, err);
        if (rc == SK_OK)
            rc = write_bytes(f, 0, header, sizeof header, err);
    }
    f->pos = ST_HEADER_BYTES;
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK)
        rc = components(r, want, sels, opt, w, f, &footer, st, err);
    int64_t size = 0;
    if (rc == SK_OK && w->rank == 0) {
        uint8_t *bytes = NULL;
        size_t n = 0;
        rc = st_footer_bytes(&footer, f->pos, &bytes, &n, err);
        if (rc == SK_OK)
            rc = write_bytes(f, f->pos, bytes, n, err);
        size = f->pos + (int64_t)n;
        sk_free(bytes);
    }
    st_footer_clear(&footer);
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(&size, 1, err);
    st->bytes_file = size;
    return rc;
}

static int convert_ranks(const char *dir, const char *path, const sk_store_convert_options *opt,
                         const sk_mpi_world *w, sk_store_convert_stats *st, sk_error *err)
{
    sk_ramses *r = NULL;
    int rc = sk_mpi_agree(sk_ramses_open(&r, dir, err), err);
    if (rc == SK_OK) /* rank 0 stats the files for every rank */
        rc = sk_mpi_ramses_sizes(r, err);
    int want[CV_NC] = {0};
    sk_selection sels[CV_NC];
    for (int k = 0; k < CV_NC; k++)
        sk_selection_init(&sels[k]);
    if (rc == SK_OK)
        rc = plan(r, opt, want, sels, st, err);
    char tmp[4096] = "";
    int lock_fd = -1; /* rank 0: the temporary's lock, held while the job runs */
    if (rc == SK_OK && w->rank == 0)
        rc = prepare(path, tmp, sizeof tmp, &lock_fd, err);
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK) /* rank 0's name to every rank */
        MPI_Bcast(tmp, (int)sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD);
    cv_mpi_file f = {MPI_FILE_NULL, 0};
    if (rc == SK_OK) /* a signal's handler removes it (sk_atomic_remove_pending) */
        atomic_track(tmp);
    if (rc == SK_OK) {
        int mrc = MPI_File_open(MPI_COMM_WORLD, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                MPI_INFO_NULL, &f.fh);
        rc = sk_mpi_agree(mrc == MPI_SUCCESS ? SK_OK
                                             : sk_fail(err, SK_ERR_IO, tmp, -1,
                                                       "MPI_File_open failed"),
                          err);
        if (rc != SK_OK && f.fh != MPI_FILE_NULL)
            MPI_File_close(&f.fh);
        if (rc != SK_OK && w->rank == 0)
            unlink(tmp);
    }
    if (rc == SK_OK) {
        rc = write_all(r, dir, want, sels, opt, w, &f, st, err);
        MPI_File_close(&f.fh);
        rc = sk_mpi_agree(w->rank == 0 ? finish(path, tmp, rc == SK_OK, err) : rc, err);
    }
    if (tmp[0])
        atomic_untrack(tmp);
    if (lock_fd >= 0) {
        if (rc != SK_OK) /* a failure before the file was opened */
            unlink(tmp);
        close(lock_fd);
    }
    for (int k = 0; k < CV_NC; k++)
        sk_selection_clear(&sels[k]);
    sk_ramses_close(r);
    return rc;
}

int sk_store_convert_ranks(const char *dir, const char *path,
                           const sk_store_convert_options *opt, sk_store_convert_stats *stats,
                           sk_error *err)
{
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    if (w.size == 1)
        return sk_store_convert(dir, path, opt, stats, err);
    sk_store_convert_options defaults;
    sk_store_convert_options_init(&defaults);
    sk_store_convert_stats st;
    memset(&st, 0, sizeof st);
    int rc = convert_ranks(dir, path, opt ? opt : &defaults, &w, &st, err);
    double secs[2] = {st.read_seconds, st.write_seconds};
    if (rc == SK_OK)
        rc = sk_mpi_max_double(secs, 2, err);
    st.read_seconds = secs[0];
    st.write_seconds = secs[1];
    if (rc == SK_OK && stats)
        *stats = st;
    return rc;
}

#else /* one process */

int sk_store_convert_ranks(const char *dir, const char *path,
                           const sk_store_convert_options *opt, sk_store_convert_stats *stats,
                           sk_error *err)
{
    return sk_store_convert(dir, path, opt, stats, err);
}
#endif
