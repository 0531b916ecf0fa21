/* Refined cells (convert --with-coarse) written by MPI ranks: one
 * process's file holds the leaves along the curve, then the refined cells
 * level by level, each level along the curve with its chunks starting at
 * the level's first row. Each of those pieces is written by every rank as
 * a table of its own (cv_mpi_write_segment), so the file is byte for byte
 * one process's. */
#include "formats/snapkit/convert_mpi.h"

#ifdef SNAPKIT_HAVE_MPI
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

/* The rows of t whose keep[] is set, in order, with t's columns, labels
 * and metadata (*out). */
static int take_rows(const sk_table *t, const uint8_t *keep, sk_table **out, sk_error *err)
{
    int64_t n = sk_table_nrows(t), k = 0;
    for (int64_t i = 0; i < n; i++)
        k += keep[i] != 0;
    sk_table *u = sk_table_new(k);
    int rc = u && sk_table_meta_copy(u, t) == SK_OK
                 ? SK_OK
                 : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int j = 0; rc == SK_OK && j < sk_table_ncols(t); j++) {
        const sk_column *c = sk_table_col(t, j);
        size_t w = sk_dtype_size(c->type);
        char *dst = sk_table_add(u, c->name, c->type, err);
        if (!dst)
            rc = err ? err->code : SK_ERR_NOMEM;
        if (rc == SK_OK && c->type == SK_CATEGORY)
            rc = sk_table_set_labels(u, c->name, (const char *const *)c->labels, c->nlabels, err);
        for (int64_t i = 0; rc == SK_OK && i < n; i++)
            if (keep[i]) {
                memcpy(dst, (const char *)c->data + (size_t)i * w, w);
                dst += w;
            }
    }
    if (rc != SK_OK) {
        sk_table_free(u);
        return rc;
    }
    *out = u;
    return SK_OK;
}

enum { MAX_LEVELS = 34 };

/* This rank's leaves (level < 0) or refined cells of one level, as a
 * table (*out). */
static int piece(const sk_table *t, const st_geometry *g, int level, sk_table **out,
                 sk_error *err)
{
    int64_t n = sk_table_nrows(t);
    const uint8_t *refined = sk_table_col(t, g->refined)->data;
    const int32_t *lv = sk_table_col(t, g->level)->data;
    uint8_t *keep = sk_malloc((size_t)n + 1);
    if (!keep)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int64_t i = 0; i < n; i++)
        keep[i] = level < 0 ? !refined[i] : refined[i] && lv[i] == level;
    int rc = take_rows(t, keep, out, err);
    sk_free(keep);
    return rc;
}

/* The refined cells of every level over the ranks (levels[MAX_LEVELS]),
 * and the leaves (*leaves). */
static int count_pieces(const sk_table *t, const st_geometry *g, int64_t *leaves,
                        int64_t *levels, sk_error *err)
{
    int64_t n = sk_table_nrows(t), c[MAX_LEVELS + 1] = {0};
    const uint8_t *refined = sk_table_col(t, g->refined)->data;
    const int32_t *lv = sk_table_col(t, g->level)->data;
    for (int64_t i = 0; i < n; i++) {
        if (!refined[i])
            c[MAX_LEVELS]++;
        else if (lv[i] >= 0 && lv[i] < MAX_LEVELS)
            c[lv[i]]++;
        else
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "row %lld: refined cell at level %d",
                           (long long)i, lv[i]);
    }
    int rc = sk_mpi_agree(SK_OK, err);
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(c, MAX_LEVELS + 1, err);
    memcpy(levels, c, sizeof *levels * MAX_LEVELS);
    *leaves = c[MAX_LEVELS];
    return rc;
}

/* The refined cells (with_coarse), level by level after the leaves, as one
 * process's file orders them. Collective. */
int cv_mpi_write_refined(cv_mpi_file *f, const char *name, const sk_table *t,
                         const st_geometry *g, cv_segment *sg, const sk_store_write_options *wo,
                         st_table *whole, sk_error *err)
{
    int64_t leaves = 0, levels[MAX_LEVELS] = {0};
    int rc = sk_mpi_agree(g->kind == SK_STORE_CELLS
                              ? SK_OK
                              : sk_fail(err, SK_ERR_ARG, NULL, -1,
                                        "%s: a refined column in a table that is not cells", name),
                          err);
    if (rc == SK_OK)
        rc = sk_mpi_agree(count_pieces(t, g, &leaves, levels, err), err);
    for (int level = -1; rc == SK_OK && level < MAX_LEVELS; level++) {
        if (level >= 0 && levels[level] == 0)
            continue;
        sk_table *p = NULL;
        rc = sk_mpi_agree(piece(t, g, level, &p, err), err);
        sg->kind = level < 0 ? ST_KIND_ROWS : ST_KIND_REFINED;
        if (rc == SK_OK)
            rc = cv_mpi_write_segment(f, name, p, sg, wo, whole, err);
        sk_table_free(p);
        sg->row0 += level < 0 ? leaves : levels[level];
    }
    return rc;
}
#endif
