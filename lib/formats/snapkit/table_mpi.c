/* One table of a compact file written by MPI ranks: each rank orders its
 * share along the curve, the rows move so that each chunk is whole on one
 * rank (the rank holding its first row), each rank encodes its chunks and
 * writes them at offsets from an exclusive scan, and rank 0 gathers the
 * chunk index for the footer. The file is byte for byte the one a single
 * process writes, because the shares, concatenated in rank order, are
 * already in curve order: RAMSES's CPU files are consecutive pieces of its
 * Hilbert curve, the curve of the file order (checked, not assumed). A
 * table with refined cells goes through in pieces (refined_mpi.c). */
#include "formats/snapkit/convert_mpi.h"

#ifdef SNAPKIT_HAVE_MPI
#include <limits.h>
#include <string.h>

#include "snapkit/util/hilbert.h"
#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"
#include "snapkit/threads.h"
#include "formats/snapkit/writer_internal.h"

/* What every rank knows of every rank's sorted share. */
typedef struct shares {
    int rank, size;
    int64_t *n, *off;       /* rows and first file row of each rank */
    uint64_t *first, *last; /* keys of each rank's first and last row */
    int64_t total, chunk_rows, nchunks;
} shares;

static void shares_free(shares *s)
{
    sk_free(s->n);
    sk_free(s->off);
    sk_free(s->first);
    sk_free(s->last);
}

static int gather_shares(const st_order *o, int64_t chunk_rows, shares *s, sk_error *err)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    size_t m = (size_t)s->size;
    uint64_t mine[3] = {(uint64_t)o->nrows, o->key_ends[0], o->key_ends[1]};
    uint64_t *all = sk_malloc(3 * m * sizeof *all);
    s->n = sk_malloc(m * sizeof *s->n);
    s->off = sk_malloc(m * sizeof *s->off);
    s->first = sk_malloc(m * sizeof *s->first);
    s->last = sk_malloc(m * sizeof *s->last);
    int rc = all && s->n && s->off && s->first && s->last
                 ? SK_OK
                 : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK)
        MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    s->total = 0;
    for (int r = 0; rc == SK_OK && r < s->size; r++) {
        s->n[r] = (int64_t)all[3 * r];
        s->first[r] = all[3 * r + 1];
        s->last[r] = all[3 * r + 2];
        s->off[r] = s->total;
        s->total += s->n[r];
    }
    s->chunk_rows = chunk_rows;
    s->nchunks = (s->total + chunk_rows - 1) / chunk_rows;
    sk_free(all);
    return rc;
}

/* The shares follow each other along the curve: a stable sort of their
 * concatenation (ties keep rank order) is then their sorted shares end to
 * end. The same verdict on every rank. */
static int check_order(const shares *s, const char *name, sk_error *err)
{
    int prev = -1;
    for (int r = 0; r < s->size; r++) {
        if (s->n[r] == 0)
            continue;
        if (prev >= 0 && s->last[prev] > s->first[r])
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "%s: the rows of MPI ranks %d and %d interleave along the Hilbert "
                           "curve (their CPU files are not consecutive pieces of it): convert "
                           "with one process", name, prev, r);
        prev = r;
    }
    return SK_OK;
}

/* The rank that holds file row g (g < total). */
static int holder(const shares *s, int64_t g)
{
    int r = 0;
    while (r + 1 < s->size && !(g >= s->off[r] && g < s->off[r] + s->n[r]))
        r++;
    return r;
}

/* Rows of this rank's share going to each rank: each row to the holder of
 * its chunk's first row. */
static void send_rows(const shares *s, int64_t *count)
{
    memset(count, 0, (size_t)s->size * sizeof *count);
    int64_t g = s->off[s->rank], end = g + s->n[s->rank];
    while (g < end) {
        int64_t c = g / s->chunk_rows, stop = (c + 1) * s->chunk_rows;
        stop = stop < end ? stop : end;
        count[holder(s, c * s->chunk_rows)] += stop - g;
        g = stop;
    }
}

static int to_ints(const int64_t *v, int n, size_t w, int *out, int *displ, sk_error *err)
{
    int64_t at = 0;
    for (int r = 0; r < n; r++) {
        if ((int64_t)((size_t)v[r] * w) > INT_MAX || at > INT_MAX)
            return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                           "more than 2 GB of one column between two MPI ranks");
        out[r] = (int)((size_t)v[r] * w);
        displ[r] = (int)at;
        at += out[r];
    }
    return at > INT_MAX ? sk_fail(err, SK_ERR_RANGE, NULL, -1, "too many rows on one rank")
                        : SK_OK;
}

/* Send the rows of t in o's order, the first sendn[0] to rank 0, the next
 * sendn[1] to rank 1, ...; *out: the rows received, in rank order, with
 * t's columns, labels and metadata. Collective. */
static int exchange(const sk_table *t, const st_order *o, const int64_t *counts, int size,
                    sk_table **out, sk_error *err)
{
    size_t m = (size_t)size;
    int64_t *sendn = sk_calloc(2 * m, sizeof *sendn), *recvn = sendn ? sendn + m : NULL;
    int *ints = sk_calloc(4 * m, sizeof *ints);
    int rc = sk_mpi_agree(sendn && ints ? SK_OK
                                        : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory"),
                          err);
    if (rc == SK_OK) {
        memcpy(sendn, counts, m * sizeof *sendn);
        MPI_Alltoall(sendn, 1, MPI_INT64_T, recvn, 1, MPI_INT64_T, MPI_COMM_WORLD);
    }
    int64_t mine = 0;
    for (size_t r = 0; rc == SK_OK && r < m; r++)
        mine += recvn[r];
    sk_table *u = rc == SK_OK ? sk_table_new(mine) : NULL;
    if (rc == SK_OK && (!u || sk_table_meta_copy(u, t) != SK_OK))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    size_t maxw = 8;
    void *buf = rc == SK_OK ? sk_malloc((size_t)o->nrows * maxw + 1) : NULL;
    if (rc == SK_OK && !buf)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int j = 0; j < sk_table_ncols(t); j++) {
        const sk_column *c = sk_table_col(t, j);
        size_t w = sk_dtype_size(c->type);
        int lrc = rc;
        if (lrc == SK_OK)
            lrc = to_ints(sendn, size, w, ints, ints + m, err);
        if (lrc == SK_OK)
            lrc = to_ints(recvn, size, w, ints + 2 * m, ints + 3 * m, err);
        void *dst = lrc == SK_OK ? sk_table_add(u, c->name, c->type, err) : NULL;
        if (lrc == SK_OK && !dst)
            lrc = err ? err->code : SK_ERR_NOMEM;
        if (lrc == SK_OK && c->type == SK_CATEGORY)
            lrc = sk_table_set_labels(u, c->name, (const char *const *)c->labels, c->nlabels,
                                      err);
        /* Every rank takes part in every column's exchange or none. */
        rc = sk_mpi_agree(lrc, err);
        if (rc != SK_OK)
            break;
        for (int64_t i = 0; i < o->nrows; i++)
            memcpy((char *)buf + (size_t)i * w, (const char *)c->data + (size_t)o->perm[i] * w, w);
        MPI_Alltoallv(buf, ints, ints + m, MPI_BYTE, dst, ints + 2 * m, ints + 3 * m, MPI_BYTE,
                      MPI_COMM_WORLD);
    }
    sk_free(buf);
    sk_free(sendn);
    sk_free(ints);
    if (rc != SK_OK) {
        sk_table_free(u);
        return rc;
    }
    *out = u;
    return SK_OK;
}

/* Where each of this rank's sorted rows goes so that the ranks hold
 * consecutive pieces of the curve: rank r takes the keys from its first
 * key (made non-decreasing over the ranks) up to the next rank's. In a
 * RAMSES output only the cells near the domains' edges move: a coarse
 * cell whose centre is in one CPU's domain can start on the curve before
 * the last fine cells of the previous one. */
static int key_ranges(const sk_table *t, const st_geometry *g, const st_order *o,
                      const shares *s, int64_t *count, sk_error *err)
{
    size_t m = (size_t)s->size;
    uint64_t *split = sk_malloc(m * sizeof *split);
    uint64_t *key = sk_malloc((size_t)o->nrows * sizeof *key + 1);
    int rc = split && key ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK)
        rc = st_order_keys(t, g, o->perm, o->nrows, o->curve_bits, key, err);
    memset(count, 0, m * sizeof *count);
    uint64_t top = 0;
    int any = 0;
    for (int r = 0; rc == SK_OK && r < s->size; r++) {
        if (s->n[r] > 0) {
            top = any && top > s->first[r] ? top : s->first[r];
            any = 1;
        }
        split[r] = top;
    }
    int dest = 0;
    while (dest + 1 < s->size && s->n[dest] == 0)
        dest++;
    for (int64_t i = 0; rc == SK_OK && i < o->nrows; i++) {
        /* the last non-empty rank whose range starts at or below the key
         * (keys ascend, so dest only moves on) */
        for (int r = dest + 1; r < s->size; r++) {
            if (s->n[r] == 0)
                continue;
            if (split[r] > key[i])
                break;
            dest = r;
        }
        count[dest]++;
    }
    sk_free(split);
    sk_free(key);
    return rc;
}

/* This rank's chunks of the rows it received (u, in file order): those
 * whose first row it held. */
static int local_order(const shares *s, int64_t nrows, int bits, uint8_t kind, st_order *lo,
                       int64_t *c0, sk_error *err)
{
    memset(lo, 0, sizeof *lo);
    int64_t first = -1, count = 0;
    for (int64_t c = 0; c < s->nchunks; c++)
        if (holder(s, c * s->chunk_rows) == s->rank) {
            first = first < 0 ? c : first;
            count++;
        }
    lo->nrows = nrows;
    lo->nchunks = count;
    lo->curve_bits = bits;
    lo->perm = sk_malloc((size_t)nrows * sizeof *lo->perm + 1);
    lo->start = sk_malloc((size_t)(count + 1) * sizeof *lo->start);
    lo->kind = sk_malloc((size_t)count + 1);
    if (!lo->perm || !lo->start || !lo->kind) {
        st_order_free(lo);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    for (int64_t i = 0; i < nrows; i++)
        lo->perm[i] = i;
    for (int64_t i = 0; i < count; i++) {
        lo->start[i] = i * s->chunk_rows;
        lo->kind[i] = kind;
    }
    lo->start[count] = nrows;
    *c0 = first < 0 ? 0 : first;
    return SK_OK;
}

/* Write this rank's encoded chunks at `at`, in pieces MPI's int counts take. */
static int write_at(MPI_File fh, int64_t at, const uint8_t *p, int64_t n, sk_error *err)
{
    for (int64_t done = 0; done < n;) {
        int piece = n - done < (1 << 30) ? (int)(n - done) : 1 << 30;
        int mrc = MPI_File_write_at(fh, at + done, p + done, piece, MPI_BYTE, MPI_STATUS_IGNORE);
        if (mrc != MPI_SUCCESS)
            return sk_fail(err, SK_ERR_IO, NULL, at + done, "MPI_File_write_at failed");
        done += piece;
    }
    return SK_OK;
}

/* Rank 0: every rank's chunk index (count chunks each) in rank order
 * appended to *whole's (NULL on the other ranks). */
static int gather_index(const st_table *mine, int64_t count, const shares *s, st_table *whole,
                        sk_error *err)
{
    size_t m = (size_t)s->size, ncols = (size_t)mine->ncols;
    int64_t *counts = s->rank == 0 ? sk_calloc(m, sizeof *counts) : NULL;
    int *ints = s->rank == 0 ? sk_calloc(4 * m, sizeof *ints) : NULL;
    int rc = s->rank != 0 || (counts && ints)
                 ? SK_OK
                 : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK)
        MPI_Gather(&count, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int64_t had = whole ? whole->nchunks : 0;
    if (rc == SK_OK && s->rank == 0) {
        size_t n = (size_t)(had + s->nchunks);
        st_chunk *chunks = sk_realloc(whole->chunks, (n + 1) * sizeof *chunks);
        if (chunks)
            whole->chunks = chunks;
        st_cc *cc = sk_realloc(whole->cc, (n * ncols + 1) * sizeof *cc);
        if (cc)
            whole->cc = cc;
        if (!chunks || !cc)
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the chunk index");
        else
            whole->nchunks = (int64_t)n;
        if (rc == SK_OK)
            rc = to_ints(counts, s->size, sizeof(st_chunk), ints, ints + m, err);
        if (rc == SK_OK)
            rc = to_ints(counts, s->size, sizeof(st_cc) * ncols, ints + 2 * m, ints + 3 * m,
                         err);
    }
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK) {
        MPI_Gatherv(mine->chunks, (int)(count * (int64_t)sizeof(st_chunk)), MPI_BYTE,
                    s->rank == 0 ? whole->chunks + had : NULL, ints, ints + m, MPI_BYTE, 0,
                    MPI_COMM_WORLD);
        MPI_Gatherv(mine->cc, (int)(count * (int64_t)(sizeof(st_cc) * ncols)), MPI_BYTE,
                    s->rank == 0 ? whole->cc + (size_t)had * ncols : NULL, ints + 2 * m,
                    ints + 3 * m, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    sk_free(counts);
    sk_free(ints);
    return rc;
}

/* Encode this rank's chunks of u, write them after *pos at this rank's
 * offset, and fill the index of `mine` with file offsets and first rows
 * (u's first row being table row row0). */
static int encode_write(const sk_table *u, const st_order *lo, int64_t row0, const shares *s,
                        const sk_store_write_options *wo, int stats, cv_mpi_file *f,
                        st_table *mine, sk_error *err)
{
    st_geometry g;
    st_geometry_detect(u, &g);
    mine->ncols = sk_table_ncols(u);
    mine->chunks = sk_calloc((size_t)lo->nchunks + 1, sizeof *mine->chunks);
    mine->cc = sk_calloc((size_t)lo->nchunks * (size_t)mine->ncols + 1, sizeof *mine->cc);
    int rc = mine->chunks && mine->cc ? SK_OK
                                       : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK && stats)
        rc = sk_stats_acc_new(u, &mine->acc, err);
    uint8_t *bytes = NULL;
    int64_t nbytes = 0;
    sk_thread_budget budget;
    if (rc == SK_OK)
        rc = st_encode_to_memory(u, &g, lo, mine, row0, wo->compress,
                                 sk_thread_budget_get(wo->threads, &budget), s->chunk_rows,
                                 &bytes, &nbytes, err);
    rc = sk_mpi_agree(rc, err);
    int64_t before = 0, total = nbytes;
    if (rc == SK_OK) {
        MPI_Exscan(&nbytes, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (s->rank == 0)
            before = 0; /* MPI_Exscan leaves rank 0's undefined */
        MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        int64_t base = f->pos + before;
        for (int64_t ci = 0; ci < lo->nchunks; ci++)
            for (int j = 0; j < mine->ncols; j++)
                st_cc_at(mine, ci, j)->offset += base;
        rc = sk_mpi_agree(write_at(f->fh, base, bytes, nbytes, err), err);
        f->pos += total;
    }
    sk_free(bytes);
    return rc;
}

/* The finest level of every rank's cells: the curve's bits of the file. */
static int curve_bits(const sk_table *t, const st_geometry *g, int *bits, sk_error *err)
{
    *bits = 0;
    if (g->kind != SK_STORE_CELLS)
        return SK_OK;
    const int32_t *lv = sk_table_col(t, g->level)->data;
    int top = 0;
    for (int64_t i = 0; i < sk_table_nrows(t); i++)
        top = lv[i] > top ? lv[i] : top;
    int mrc = MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mrc != MPI_SUCCESS)
        return sk_fail(err, SK_ERR_IO, NULL, -1, "MPI_Allreduce failed");
    *bits = top < 1 ? 1 : top > SK_HILBERT_MAX_BITS ? SK_HILBERT_MAX_BITS : top;
    return SK_OK;
}

/* One piece of the table (convert_mpi.h), written by every rank. */
int cv_mpi_write_segment(cv_mpi_file *f, const char *name, const sk_table *t,
                         const cv_segment *sg, const sk_store_write_options *wo, st_table *whole,
                         sk_error *err)
{
    st_order o;
    memset(&o, 0, sizeof o);
    int rc = sk_mpi_agree(st_order_plan_bits(t, sg->plan, sg->chunk_rows, sg->bits, &o, err), err);
    shares s;
    memset(&s, 0, sizeof s);
    if (rc == SK_OK)
        rc = gather_shares(&o, sg->chunk_rows, &s, err);
    /* First the rows move to the rank of their piece of the curve, then to
     * the rank that encodes their chunk. */
    sk_table *v = NULL;
    if (rc == SK_OK && o.curve_bits) {
        int64_t *count = sk_calloc((size_t)s.size, sizeof *count);
        rc = count ? key_ranges(t, sg->plan, &o, &s, count, err)
                   : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        rc = sk_mpi_agree(rc, err);
        if (rc == SK_OK)
            rc = exchange(t, &o, count, s.size, &v, err);
        sk_free(count);
        st_order_free(&o);
        shares_free(&s);
        memset(&s, 0, sizeof s);
        if (rc == SK_OK)
            rc = sk_mpi_agree(st_order_plan_bits(v, sg->plan, sg->chunk_rows, sg->bits, &o, err),
                              err);
        if (rc == SK_OK)
            rc = gather_shares(&o, sg->chunk_rows, &s, err);
    }
    if (rc == SK_OK && o.curve_bits)
        rc = check_order(&s, name, err);
    sk_table *u = NULL;
    int64_t *count = sk_calloc((size_t)s.size + 1, sizeof *count);
    if (rc == SK_OK && !count)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK) {
        send_rows(&s, count);
        rc = exchange(v ? v : t, &o, count, s.size, &u, err);
    }
    sk_free(count);
    sk_table_free(v);
    st_order lo;
    memset(&lo, 0, sizeof lo);
    int64_t c0 = 0;
    if (rc == SK_OK)
        rc = sk_mpi_agree(local_order(&s, sk_table_nrows(u), o.curve_bits, sg->kind, &lo, &c0,
                                      err),
                          err);
    st_table mine;
    memset(&mine, 0, sizeof mine);
    if (rc == SK_OK)
        rc = encode_write(u, &lo, sg->row0 + c0 * sg->chunk_rows, &s, wo, sg->stats, f, &mine,
                          err);
    if (rc == SK_OK)
        rc = gather_index(&mine, lo.nchunks, &s, whole, err);
    rc = sk_mpi_agree(rc, err);
    /* Every rank's statistics merged into rank 0's, for the footer; none
     * when some rank's rows refused them (the writer then dropped its). */
    int stats = sg->stats && mine.acc;
    if (rc == SK_OK && sg->stats)
        MPI_Allreduce(MPI_IN_PLACE, &stats, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc == SK_OK && stats)
        rc = sk_mpi_stats_reduce(&mine.acc, err);
    if (rc == SK_OK && whole && stats) {
        whole->acc = mine.acc;
        mine.acc = NULL;
    }
    st_table_clear(&mine);
    st_order_free(&lo);
    st_order_free(&o);
    sk_table_free(u);
    shares_free(&s);
    return sk_mpi_agree(rc, err);
}

int cv_mpi_write_table(cv_mpi_file *f, const char *name, const sk_table *t,
                       const sk_store_write_options *wo, st_footer *footer, sk_error *err)
{
    st_geometry g;
    st_geometry_detect(t, &g);
    int64_t total = sk_table_nrows(t);
    int bits = 0;
    int rc = sk_mpi_sum_int64(&total, 1, err);
    if (rc == SK_OK)
        rc = curve_bits(t, &g, &bits, err);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    st_table *whole = rank == 0 ? &footer->tables[footer->ntables] : NULL;
    if (whole)
        memset(whole, 0, sizeof *whole);
    /* The plan sees every row of a piece as one sequence along the curve. */
    st_geometry plan = g;
    plan.refined = -1;
    cv_segment sg = {.plan = &plan, .bits = bits, .chunk_rows = st_rows_per_chunk(wo, total),
                  .row0 = 0, .kind = ST_KIND_ROWS, .stats = g.refined < 0};
    if (rc == SK_OK)
        rc = g.refined >= 0 ? cv_mpi_write_refined(f, name, t, &g, &sg, wo, whole, err)
                            : cv_mpi_write_segment(f, name, t, &sg, wo, whole, err);
    if (rc == SK_OK && whole) {
        whole->name = sk_strdup(name);
        whole->geometry = g.kind;
        whole->curve_bits = g.kind == SK_STORE_CELLS  ? bits
                            : g.kind == SK_STORE_POINTS ? SK_HILBERT_MAX_BITS
                                                        : 0;
        whole->flags = g.refined >= 0 ? ST_TABLE_HAS_REFINED : 0;
        whole->nrows = total;
        whole->ncols = sk_table_ncols(t);
        footer->ntables++;
        rc = whole->name ? st_copy_schema(t, &whole->schema, err)
                         : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    if (rc != SK_OK && whole && whole != &footer->tables[footer->ntables - 1])
        st_table_clear(whole); /* a failed gather's partial index */
    return sk_mpi_agree(rc, err);
}
#endif
