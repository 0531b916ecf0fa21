/* Gathering chosen rows of every rank's share on rank 0 (sk_mpi_gather_rows):
 * for finders that need every selected row in one place, such as clumps. */
#include <limits.h>
#include <string.h>

#include "snapkit/memory.h"
#include "mpi/collectives.h"

/* Rows of `share` that keep marks (all when keep is NULL), column by
 * column, packed into one buffer in column order. */
static int pack(const sk_table *share, const uint8_t *keep, int64_t *kept, void **out,
                size_t *bytes, sk_error *err)
{
    int64_t n = sk_table_nrows(share), m = 0;
    for (int64_t i = 0; i < n; i++)
        m += !keep || keep[i];
    size_t row = 0;
    for (int j = 0; j < sk_table_ncols(share); j++)
        row += sk_dtype_size(sk_table_col(share, j)->type);
    unsigned char *buf = sk_malloc((size_t)m * row + 1), *at = buf;
    if (!buf)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for %lld rows to send",
                       (long long)m);
    for (int j = 0; j < sk_table_ncols(share); j++) {
        const sk_column *c = sk_table_col(share, j);
        size_t w = sk_dtype_size(c->type);
        for (int64_t i = 0; i < n; i++)
            if (!keep || keep[i]) {
                memcpy(at, (const unsigned char *)c->data + (size_t)i * w, w);
                at += w;
            }
    }
    *kept = m;
    *out = buf;
    *bytes = (size_t)m * row;
    return SK_OK;
}

/* Rank 0: a table of `rows` rows with share's columns, labels and
 * metadata, filled from every rank's packed block in rank order. */
static int unpack(const sk_table *share, const unsigned char *all, const int64_t *rows, int size,
                  const int64_t *offsets, sk_table **out, sk_error *err)
{
    int64_t total = 0;
    for (int r = 0; r < size; r++)
        total += rows[r];
    sk_table *t = sk_table_new(total);
    if (!t || sk_table_meta_copy(t, share) != SK_OK) {
        sk_table_free(t);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for %lld gathered rows",
                       (long long)total);
    }
    size_t before = 0; /* bytes of a rank's block before column j */
    for (int j = 0; j < sk_table_ncols(share); j++) {
        const sk_column *c = sk_table_col(share, j);
        size_t w = sk_dtype_size(c->type);
        unsigned char *dst = sk_table_add(t, c->name, c->type, err);
        if (!dst || (c->type == SK_CATEGORY &&
                     sk_table_set_labels(t, c->name, (const char *const *)c->labels,
                                         c->nlabels, err) != SK_OK)) {
            sk_table_free(t);
            return err ? err->code : SK_ERR_NOMEM;
        }
        for (int r = 0; r < size; r++) {
            memcpy(dst, all + offsets[r] + before * (size_t)rows[r], (size_t)rows[r] * w);
            dst += (size_t)rows[r] * w;
        }
        before += w;
    }
    *out = t;
    return SK_OK;
}

#ifdef SNAPKIT_HAVE_MPI
#include <mpi.h>

int sk_mpi_gather_rows(const sk_table *share, const uint8_t *keep, sk_table **out,
                       sk_error *err)
{
    *out = NULL;
    int init = 0, rank = 0, size = 1;
    MPI_Initialized(&init);
    if (init) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    void *mine = NULL;
    size_t bytes = 0;
    int64_t kept = 0;
    int rc = pack(share, keep, &kept, &mine, &bytes, err);
    if (rc == SK_OK && bytes > (size_t)INT_MAX)
        rc = sk_fail(err, SK_ERR_RANGE, NULL, -1,
                     "%lld rows (%zu bytes) are too many to send from one rank", (long long)kept,
                     bytes);
    int64_t *rows = rank == 0 ? sk_calloc((size_t)size * 2, sizeof *rows) : NULL;
    int *counts = rank == 0 ? sk_calloc((size_t)size * 2, sizeof *counts) : NULL;
    if (rc == SK_OK && rank == 0 && (!rows || !counts))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    rc = sk_mpi_agree(rc, err);
    unsigned char *all = NULL;
    if (rc == SK_OK) {
        int n = (int)bytes;
        MPI_Gather(&kept, 1, MPI_INT64_T, rows, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        int64_t total = 0;
        for (int r = 0; rank == 0 && r < size; r++) {
            rows[size + r] = total;
            total += counts[r];
        }
        int fits = total <= INT_MAX;
        for (int r = 0; rank == 0 && r < size; r++)
            counts[size + r] = fits ? (int)rows[size + r] : 0;
        all = rank == 0 && fits ? sk_malloc((size_t)total + 1) : NULL;
        if (rank == 0 && !all)
            rc = fits ? sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the rows of "
                                                              "every rank")
                      : sk_fail(err, SK_ERR_RANGE, NULL, -1,
                                "the rows of every rank (%lld bytes) are too many to gather",
                                (long long)total);
        rc = sk_mpi_agree(rc, err);
        if (rc == SK_OK)
            MPI_Gatherv(mine, n, MPI_BYTE, all, counts, counts + size, MPI_BYTE, 0,
                        MPI_COMM_WORLD);
        if (rc == SK_OK && rank == 0)
            rc = unpack(share, all, rows, size, rows + size, out, err);
    }
    sk_free(mine);
    sk_free(all);
    sk_free(rows);
    sk_free(counts);
    return rc;
}

#else

int sk_mpi_gather_rows(const sk_table *share, const uint8_t *keep, sk_table **out,
                       sk_error *err)
{
    *out = NULL;
    void *mine = NULL;
    size_t bytes = 0;
    int64_t kept = 0, offset = 0;
    int rc = pack(share, keep, &kept, &mine, &bytes, err);
    if (rc == SK_OK)
        rc = unpack(share, mine, &kept, 1, &offset, out, err);
    sk_free(mine);
    return rc;
}
#endif
