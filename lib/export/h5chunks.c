/* Columns written chunk by chunk, compressed in parallel.
 *
 * HDF5 compresses a chunk on the thread that writes it, and the ordered
 * consumer writes on one thread at a time: deflate would then run on one
 * core while the readers wait. Here the batch's complete chunks are
 * shuffled and deflated (the filters' own formats: HDF5's byte shuffle,
 * zlib's compress2 stream) by as many threads as the stream has, and
 * written as they are with H5Dwrite_chunk; rows short of a chunk wait in
 * the column's stage for the next batch, and the last chunk is padded (HDF5
 * stores edge chunks whole and reads only the extent). */
#include "export/h5export_internal.h"

#include <pthread.h>
#include <string.h>
#include <zlib.h>

#include "snapkit/memory.h"

/* One chunk to compress and write. */
typedef struct chunk_job {
    h5_stream_col *col;
    const unsigned char *raw; /* chunk_rows rows */
    int64_t chunk;            /* its index along the rows */
    unsigned char *out;       /* compressed (or raw when gzip is 0) */
    size_t out_size;
    int failed;
} chunk_job;

typedef struct job_list {
    chunk_job *jobs;
    int n, cap, next, gzip;
    pthread_mutex_t lock;
} job_list;

int h5s_init(h5_stream_col *s, hid_t dset, hid_t type, hsize_t width, int64_t chunk_rows)
{
    if (dset < 0)
        return -1;
    memset(s, 0, sizeof *s);
    s->dset = dset;
    s->elem = H5Tget_size(type);
    s->row_bytes = s->elem * (width ? width : 1);
    s->width = width;
    s->chunk_rows = chunk_rows;
    s->stage = sk_malloc((size_t)chunk_rows * s->row_bytes);
    return s->stage ? 0 : -1;
}

void h5s_free(h5_stream_col *s)
{
    sk_free(s->stage);
    s->stage = NULL;
}

static int add_job(job_list *l, h5_stream_col *col, const unsigned char *raw, int64_t chunk)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        chunk_job *j = sk_realloc(l->jobs, (size_t)cap * sizeof *j);
        if (!j)
            return -1;
        l->jobs = j;
        l->cap = cap;
    }
    l->jobs[l->n++] = (chunk_job){.col = col, .raw = raw, .chunk = chunk};
    return 0;
}

/* HDF5's shuffle: byte b of every element together, then deflate. */
static void compress_job(chunk_job *j, int gzip, unsigned char *shuffled)
{
    h5_stream_col *c = j->col;
    size_t bytes = (size_t)c->chunk_rows * c->row_bytes;
    if (!gzip) {
        j->out = (unsigned char *)j->raw;
        j->out_size = bytes;
        return;
    }
    size_t size = c->elem, n = bytes / size;
    for (size_t b = 0; b < size; b++)
        for (size_t i = 0; i < n; i++)
            shuffled[b * n + i] = j->raw[i * size + b];
    uLongf len = compressBound((uLong)bytes);
    j->out = sk_malloc(len);
    if (!j->out || compress2(j->out, &len, shuffled, (uLong)bytes, gzip) != Z_OK) {
        j->failed = 1;
        return;
    }
    j->out_size = len;
}

static void *worker(void *arg)
{
    job_list *l = arg;
    unsigned char *shuffled = NULL;
    size_t have = 0;
    for (;;) {
        pthread_mutex_lock(&l->lock);
        int k = l->next < l->n ? l->next++ : -1;
        pthread_mutex_unlock(&l->lock);
        if (k < 0)
            break;
        chunk_job *j = &l->jobs[k];
        size_t bytes = (size_t)j->col->chunk_rows * j->col->row_bytes;
        if (l->gzip && bytes > have) {
            sk_free(shuffled);
            have = (shuffled = sk_malloc(bytes)) ? bytes : 0;
        }
        if (l->gzip && !shuffled)
            j->failed = 1;
        else
            compress_job(j, l->gzip, shuffled);
    }
    sk_free(shuffled);
    return NULL;
}

/* Compress every job on up to `threads` threads (the calling one too). */
static void compress_all(job_list *l, int threads)
{
    enum { MAX_HELPERS = 256 };
    pthread_t helper[MAX_HELPERS];
    int started = 0;
    for (int i = 1; i < threads && i < l->n && started < MAX_HELPERS; i++)
        if (pthread_create(&helper[started], NULL, worker, l) == 0)
            started++;
    worker(l);
    for (int i = 0; i < started; i++)
        pthread_join(helper[i], NULL);
}

/* Write the compressed jobs in order (HDF5 is one writer at a time). */
static int write_all(h5_component *c, job_list *l, sk_error *err)
{
    int rc = SK_OK;
    for (int k = 0; k < l->n; k++) {
        chunk_job *j = &l->jobs[k];
        hsize_t offset[2] = {(hsize_t)(j->chunk * j->col->chunk_rows), 0};
        if (rc == SK_OK && j->failed)
            rc = sk_fail(err, SK_ERR_NOMEM, c->file->path, -1,
                         "cannot compress a chunk of %s (out of memory)", c->name);
        if (rc == SK_OK &&
            H5Dwrite_chunk(j->col->dset, H5P_DEFAULT, 0, offset, j->out_size, j->out) < 0) {
            h5lib_keep();
            rc = h5x_fail(c, "a chunk", NULL, err);
        }
        if (j->out != j->raw)
            sk_free(j->out);
    }
    return rc;
}

/* The complete chunks of n rows appended to col, as jobs; *used: the rows
 * of data the jobs take (the rest goes to the stage after they ran). */
static int plan(job_list *l, h5_stream_col *col, const unsigned char *data, int64_t n,
                int64_t *used)
{
    *used = 0;
    if (col->staged > 0 && col->staged + n >= col->chunk_rows) {
        int64_t take = col->chunk_rows - col->staged;
        memcpy(col->stage + col->staged * col->row_bytes, data, (size_t)take * col->row_bytes);
        col->staged = col->chunk_rows;
        if (add_job(l, col, col->stage, col->flushed / col->chunk_rows) < 0)
            return -1;
        col->flushed += col->chunk_rows;
        *used = take;
    }
    if (col->staged == col->chunk_rows || col->staged == 0) {
        while (n - *used >= col->chunk_rows) {
            if (add_job(l, col, data + *used * col->row_bytes, col->flushed / col->chunk_rows) < 0)
                return -1;
            col->flushed += col->chunk_rows;
            *used += col->chunk_rows;
        }
    }
    return 0;
}

int h5s_append(h5_component *c, h5_stream_col *const *cols, const void *const *data,
               const int64_t *n, int count, sk_error *err)
{
    job_list l = {.gzip = c->file->opt.gzip, .lock = PTHREAD_MUTEX_INITIALIZER};
    int64_t *used = sk_calloc((size_t)count + 1, sizeof *used);
    int rc = used ? SK_OK : sk_fail(err, SK_ERR_NOMEM, c->file->path, -1, "out of memory");
    for (int i = 0; i < count && rc == SK_OK; i++) {
        hsize_t size[2] = {(hsize_t)(cols[i]->flushed + cols[i]->staged + n[i]), cols[i]->width};
        if (plan(&l, cols[i], data[i], n[i], &used[i]) < 0)
            rc = sk_fail(err, SK_ERR_NOMEM, c->file->path, -1, "out of memory");
        else if (H5Dset_extent(cols[i]->dset, size) < 0)
            rc = h5x_fail(c, "the extent of a column", NULL, err);
    }
    if (rc == SK_OK) {
        compress_all(&l, c->threads);
        rc = write_all(c, &l, err);
    }
    for (int i = 0; i < count && rc == SK_OK; i++) {
        h5_stream_col *col = cols[i];
        if (col->staged == col->chunk_rows)
            col->staged = 0;
        int64_t rest = n[i] - used[i];
        memcpy(col->stage + col->staged * col->row_bytes,
               (const unsigned char *)data[i] + used[i] * col->row_bytes,
               (size_t)rest * col->row_bytes);
        col->staged += rest;
    }
    sk_free(used);
    sk_free(l.jobs);
    return rc;
}

int h5s_finish(h5_component *c, h5_stream_col *col, sk_error *err)
{
    if (col->staged == 0)
        return SK_OK;
    int64_t rows = col->staged, pad = col->chunk_rows - rows;
    memset(col->stage + rows * col->row_bytes, 0, (size_t)pad * col->row_bytes);
    job_list l = {.gzip = c->file->opt.gzip, .lock = PTHREAD_MUTEX_INITIALIZER};
    int rc = add_job(&l, col, col->stage, col->flushed / col->chunk_rows) < 0
                 ? sk_fail(err, SK_ERR_NOMEM, c->file->path, -1, "out of memory")
                 : SK_OK;
    if (rc == SK_OK) {
        compress_all(&l, 1);
        rc = write_all(c, &l, err);
    }
    col->flushed += rows;
    col->staged = 0;
    sk_free(l.jobs);
    return rc;
}
