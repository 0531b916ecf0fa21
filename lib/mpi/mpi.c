/* MPI for the library: starting, agreeing on a status, reductions.
 * Compiled with MPI when SNAPKIT_HAVE_MPI is defined (CMake SNAPKIT_MPI);
 * without, the same calls describe a world of one process. */
#include "mpi/collectives.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/threads.h"

#ifdef SNAPKIT_HAVE_MPI
#include <mpi.h>

#include "mpi/mpi_internal.h"

int sk_mpi_built(void)
{
    return 1;
}

static int running(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

int mpi_several_ranks(int *rank, int *size)
{
    if (!running())
        return 0;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return *size > 1;
}

static int mpi_fail(sk_error *err, int mrc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mrc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", mrc);
    return sk_fail(err, SK_ERR_IO, NULL, -1, "MPI: %s: %s", what, text);
}

void sk_mpi_get_world(sk_mpi_world *w)
{
    memset(w, 0, sizeof *w);
    w->size = w->local_size = 1;
    if (!running())
        return;
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &w->local_rank);
        MPI_Comm_size(node, &w->local_size);
        MPI_Comm_free(&node);
    }
}

int sk_mpi_start(sk_mpi_world *w, sk_error *err)
{
    int started = 0;
    if (!running()) {
        int provided = 0;
        /* Threads (OpenMP) run inside a rank, but only the main thread calls MPI. */
        int mrc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        if (mrc != MPI_SUCCESS)
            return mpi_fail(err, mrc, "MPI_Init_thread");
        started = 1;
    }
    /* Errors come back as codes, to be agreed on, rather than aborting the job. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    sk_mpi_get_world(w);
    w->started_here = started;
    sk_thread_budget_set_ranks(w->local_size);
    return SK_OK;
}

void sk_mpi_stop(const sk_mpi_world *w)
{
    if (w && w->started_here && running())
        MPI_Finalize();
}

int sk_mpi_agree(int rc, sk_error *err)
{
    if (!running())
        return rc;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rc != SK_OK ? rank : size, first = size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return rc != SK_OK ? rc : sk_fail(err, SK_ERR_IO, NULL, -1, "MPI: MPI_Allreduce failed");
    if (first == size)
        return SK_OK;
    sk_error e;
    if (rank == first)
        e = *err;
    else
        memset(&e, 0, sizeof e);
    MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, MPI_COMM_WORLD);
    if (err)
        *err = e;
    return e.code != SK_OK ? e.code : SK_ERR_IO;
}

/* Rank r's encoded accumulator (size 0: the rank read nothing), merged
 * into *acc, or made *acc when this rank had none. */
static int merge_encoded(sk_stats_acc **acc, const unsigned char *bytes, int n, sk_error *err)
{
    if (n == 0)
        return SK_OK;
    sk_stats_acc *other;
    int rc = sk_stats_acc_decode(bytes, (size_t)n, &other, err);
    if (rc != SK_OK)
        return rc;
    if (!*acc) {
        *acc = other;
        return SK_OK;
    }
    rc = sk_stats_acc_merge(*acc, other, err);
    sk_stats_acc_free(other);
    return rc;
}

int sk_mpi_stats_reduce(sk_stats_acc **acc, sk_error *err)
{
    int rank = 0, size = 1;
    if (!mpi_several_ranks(&rank, &size))
        return SK_OK;
    void *mine = NULL;
    size_t bytes = 0;
    int rc = *acc ? sk_stats_acc_encode(*acc, &mine, &bytes, err) : SK_OK;
    if (rc == SK_OK && bytes > (size_t)INT_MAX)
        rc = sk_fail(err, SK_ERR_RANGE, NULL, -1, "column statistics too large to send");
    int *counts = rank == 0 ? sk_malloc(sizeof *counts * 2 * (size_t)size) : NULL;
    if (rc == SK_OK && rank == 0 && !counts)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    rc = sk_mpi_agree(rc, err);
    unsigned char *all = NULL;
    if (rc == SK_OK) {
        int n = (int)bytes;
        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        int64_t total = 0;
        for (int r = 0; rank == 0 && r < size; r++) {
            counts[size + r] = (int)total;
            total += counts[r];
        }
        if (rank == 0)
            all = sk_malloc((size_t)total + 1);
        /* Rank 0 alone can fail here; the others wait for the gather either way. */
        MPI_Gatherv(mine, n, MPI_BYTE, all, counts, counts ? counts + size : NULL, MPI_BYTE, 0,
                    MPI_COMM_WORLD);
        if (rank == 0 && !all)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the ranks' statistics");
        /* Rank 0's own part is in *acc already: the others in rank order (the
         * merge is exact, so the order only keeps the message reproducible). */
        for (int r = 1; rank == 0 && all && r < size && rc == SK_OK; r++)
            rc = merge_encoded(acc, all + counts[size + r], counts[r], err);
    }
    sk_free(counts);
    sk_free(mine);
    sk_free(all);
    return rc;
}

int sk_mpi_sum_int64(int64_t *v, int n, sk_error *err)
{
    if (!running())
        return SK_OK;
    int mrc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return mrc == MPI_SUCCESS ? SK_OK : mpi_fail(err, mrc, "MPI_Allreduce");
}

int sk_mpi_max_double(double *v, int n, sk_error *err)
{
    if (!running())
        return SK_OK;
    int mrc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mrc == MPI_SUCCESS ? SK_OK : mpi_fail(err, mrc, "MPI_Allreduce");
}

int sk_mpi_gather_int(const int *v, int n, int *out, sk_error *err)
{
    if (!running()) {
        memcpy(out, v, sizeof *v * (size_t)n);
        return SK_OK;
    }
    int mrc = MPI_Gather(v, n, MPI_INT, out, n, MPI_INT, 0, MPI_COMM_WORLD);
    return mrc == MPI_SUCCESS ? SK_OK : mpi_fail(err, mrc, "MPI_Gather");
}

/* Doubles per message of a vector sum: 128 MiB, below MPI's int counts. */
#define SUM_CHUNK ((size_t)1 << 24)

/* v += the partner's vector, received chunk by chunk into buf. */
static int add_from(double *v, size_t n, double *buf, int from, sk_error *err)
{
    for (size_t at = 0; at < n; at += SUM_CHUNK) {
        size_t m = n - at < SUM_CHUNK ? n - at : SUM_CHUNK;
        int mrc = MPI_Recv(buf, (int)m, MPI_DOUBLE, from, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (mrc != MPI_SUCCESS)
            return mpi_fail(err, mrc, "MPI_Recv");
        for (size_t i = 0; i < m; i++)
            v[at + i] += buf[i];
    }
    return SK_OK;
}

static int send_to(const double *v, size_t n, int to, sk_error *err)
{
    for (size_t at = 0; at < n; at += SUM_CHUNK) {
        size_t m = n - at < SUM_CHUNK ? n - at : SUM_CHUNK;
        int mrc = MPI_Send(v + at, (int)m, MPI_DOUBLE, to, 71, MPI_COMM_WORLD);
        if (mrc != MPI_SUCCESS)
            return mpi_fail(err, mrc, "MPI_Send");
    }
    return SK_OK;
}

int sk_mpi_sum_double_tree(double *v, size_t n, int all, sk_error *err)
{
    int rank = 0, size = 1;
    if (!mpi_several_ranks(&rank, &size))
        return SK_OK;
    double *buf = sk_malloc(sizeof *buf * (n < SUM_CHUNK ? n : SUM_CHUNK) + 1);
    int rc = sk_mpi_agree(buf ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory"),
                          err);
    /* A binomial tree whose pairs depend only on the ranks: at step s, rank
     * r (a multiple of 2s) adds rank r + s's sum. The order of the
     * additions, hence every bit of the result, is fixed for a given size. */
    for (int step = 1; rc == SK_OK && step < size; step <<= 1) {
        if (rank % (2 * step) == step) {
            rc = send_to(v, n, rank - step, err);
            break;
        }
        if (rank % (2 * step) == 0 && rank + step < size)
            rc = add_from(v, n, buf, rank + step, err);
    }
    sk_free(buf);
    for (size_t at = 0; rc == SK_OK && all && at < n; at += SUM_CHUNK) {
        size_t m = n - at < SUM_CHUNK ? n - at : SUM_CHUNK;
        int mrc = MPI_Bcast(v + at, (int)m, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (mrc != MPI_SUCCESS)
            rc = mpi_fail(err, mrc, "MPI_Bcast");
    }
    return rc;
}

#else /* built without MPI: one process */

int sk_mpi_built(void)
{
    return 0;
}

void sk_mpi_get_world(sk_mpi_world *w)
{
    memset(w, 0, sizeof *w);
    w->size = w->local_size = 1;
}

int sk_mpi_start(sk_mpi_world *w, sk_error *err)
{
    sk_mpi_get_world(w);
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "snapkit was built without MPI (configure with -DSNAPKIT_MPI=ON and an MPI "
                   "library such as Debian's libopenmpi-dev)");
}

void sk_mpi_stop(const sk_mpi_world *w)
{
    (void)w;
}

int sk_mpi_agree(int rc, sk_error *err)
{
    (void)err;
    return rc;
}

int sk_mpi_stats_reduce(sk_stats_acc **acc, sk_error *err)
{
    (void)acc;
    (void)err;
    return SK_OK;
}

int sk_mpi_sum_int64(int64_t *v, int n, sk_error *err)
{
    (void)v;
    (void)n;
    (void)err;
    return SK_OK;
}

int sk_mpi_max_double(double *v, int n, sk_error *err)
{
    (void)v;
    (void)n;
    (void)err;
    return SK_OK;
}

int sk_mpi_gather_int(const int *v, int n, int *out, sk_error *err)
{
    (void)err;
    memcpy(out, v, sizeof *v * (size_t)n);
    return SK_OK;
}
int sk_mpi_sum_double_tree(double *v, size_t n, int all, sk_error *err)
{
    (void)v;
    (void)n;
    (void)all;
    (void)err;
    return SK_OK;
}

#endif
