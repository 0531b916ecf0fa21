/* amr_ file header and oct blocks; hydro_/grav_ headers and blocks. */
#include "formats/ramses/amr.h"

#include <math.h>
#include <string.h>

/* One int32 record and a check that it holds `want`. */
static int expect_int(fr_cursor *c, int want, const char *what, sk_error *err)
{
    int32_t v = 0;
    int rc = fr_int32s(c, &v, 1, err);
    if (rc == SK_OK && v != want)
        rc = fr_fail_last(c, 4, err, "%s is %d, expected %d", what, (int)v, want);
    return rc;
}

/* The coarse cells that are the box: those with a CPU in cpu_map (RAMSES
 * pads the grid with boundary cells, whose cpu_map is 0, and puts the box
 * at icoarse_min..icoarse_max etc.; read_hydro_params.f90). They must form
 * one block; its corner and size go to a->coarse_min and a->coarse. */
static int find_box_cells(rs_amr *a, fr_cursor *c, const int32_t nx[3], sk_error *err)
{
    size_t ncoarse = (size_t)nx[0] * (size_t)nx[1] * (size_t)nx[2];
    const uint8_t *cpu_map;
    int rc = fr_expect(c, 4 * ncoarse, &cpu_map, err);
    if (rc != SK_OK)
        return rc;
    int lo[3] = {nx[0], nx[1], nx[2]}, hi[3] = {-1, -1, -1};
    size_t n = 0;
    for (size_t i = 0; i < ncoarse; i++) {
        if (rd_i32(cpu_map, i) == 0)
            continue;
        int at[3] = {(int)(i % (size_t)nx[0]), (int)(i / (size_t)nx[0] % (size_t)nx[1]),
                     (int)(i / ((size_t)nx[0] * (size_t)nx[1]))};
        for (int d = 0; d < 3; d++) {
            lo[d] = at[d] < lo[d] ? at[d] : lo[d];
            hi[d] = at[d] > hi[d] ? at[d] : hi[d];
        }
        n++;
    }
    size_t block = n ? (size_t)(hi[0] - lo[0] + 1) * (size_t)(hi[1] - lo[1] + 1) *
                           (size_t)(hi[2] - lo[2] + 1)
                     : 0;
    if (n == 0 || n != block)
        return fr_fail_last(c, 4 * ncoarse, err,
                            "the box is %zu of the %dx%dx%d coarse cells (nboundary %d), "
                            "which do not form one block",
                            n, (int)nx[0], (int)nx[1], (int)nx[2], a->nboundary);
    for (int d = 0; d < 3; d++) {
        a->coarse_min[d] = lo[d];
        a->coarse[d] = hi[d] - lo[d] + 1;
    }
    return SK_OK;
}

int rs_coarse_shift(const int coarse[3])
{
    int k = 0;
    while (k < 7 && (1 << k) < coarse[0])
        k++;
    return (1 << k) == coarse[0] ? k : -1;
}

/* The box of file 1 must be the output's (info->coarse, all 0 before it
 * is known: then any box is taken). */
static int check_box(const rs_amr *a, const sk_ramses_info *info, sk_error *err)
{
    const int *want = info->coarse;
    if (want[0] == 0)
        return SK_OK;
    if (a->coarse[0] != want[0] || a->coarse[1] != want[1] || a->coarse[2] != want[2])
        return sk_fail(err, SK_ERR_FORMAT, a->cur.path, -1,
                       "the box is %dx%dx%d coarse cells, but %dx%dx%d in the first amr file",
                       a->coarse[0], a->coarse[1], a->coarse[2], want[0], want[1], want[2]);
    return SK_OK;
}

int rs_amr_open(rs_amr *a, const char *path, const void *data, size_t size,
                const sk_ramses_info *info, int icpu, sk_error *err)
{
    memset(a, 0, sizeof *a);
    fr_cursor *c = &a->cur;
    fr_init(c, path, data, size);
    a->icpu = icpu;
    int32_t v[3] = {0, 0, 0};
    int rc = expect_int(c, info->ncpu, "ncpu", err);
    if (rc == SK_OK)
        rc = expect_int(c, info->ndim, "ndim", err);
    a->ndim = info->ndim;
    a->ncell = 1 << info->ndim;
    int32_t nx[3] = {1, 1, 1};
    if (rc == SK_OK && (rc = fr_int32s(c, nx, 3, err)) == SK_OK &&
        (nx[0] < 1 || nx[1] < 1 || nx[2] < 1 || nx[0] > 64 || nx[1] > 64 || nx[2] > 64))
        rc = fr_fail_last(c, 12, err, "coarse grid %dx%dx%d is out of range", (int)nx[0],
                          (int)nx[1], (int)nx[2]);
    if (rc == SK_OK)
        rc = expect_int(c, info->levelmax - info->level_shift, "nlevelmax", err);
    if (rc == SK_OK)
        rc = fr_skip(c, 1, err); /* ngridmax */
    if (rc == SK_OK && (rc = fr_int32s(c, v, 1, err)) == SK_OK && (v[0] < 0 || v[0] > 1000))
        rc = fr_fail_last(c, 4, err, "nboundary = %d is out of range", (int)v[0]);
    a->ncpu = info->ncpu;
    a->nlevelmax = info->levelmax - info->level_shift;
    a->nboundary = v[0];
    if (rc == SK_OK)
        rc = fr_skip(c, 1, err); /* ngrid_current */
    if (rc == SK_OK && (rc = fr_float64(c, &a->boxlen, err)) == SK_OK &&
        !(isfinite(a->boxlen) && a->boxlen > 0))
        rc = fr_fail_last(c, 8, err, "boxlen = %g is not a positive finite number", a->boxlen);
    if (rc == SK_OK)
        rc = fr_skip(c, 13, err); /* noutput .. headl, taill */
    size_t nl = (size_t)a->ncpu * (size_t)a->nlevelmax;
    if (rc == SK_OK)
        rc = fr_expect(c, 4 * nl, &a->numbl, err);
    if (rc == SK_OK)
        rc = fr_skip(c, 1, err); /* numbtot */
    if (rc == SK_OK && a->nboundary > 0) {
        rc = fr_skip(c, 2, err); /* headb, tailb */
        if (rc == SK_OK)
            rc = fr_expect(c, 4 * (size_t)a->nboundary * (size_t)a->nlevelmax, &a->numbb, err);
    }
    if (rc == SK_OK)
        rc = fr_skip(c, 1, err); /* headf, tailf, numbf, used_mem, used_mem_tot */
    const uint8_t *ord;
    size_t len;
    if (rc == SK_OK)
        rc = fr_next(c, &ord, &len, err);
    if (rc == SK_OK) {
        int bisection = len >= 9 && memcmp(ord, "bisection", 9) == 0;
        rc = fr_skip(c, bisection ? 5 : 1, err); /* bound_key, or the bisection tree */
    }
    if (rc == SK_OK)
        rc = fr_skip(c, 2, err); /* coarse son, flag1 */
    if (rc == SK_OK)
        rc = find_box_cells(a, c, nx, err);
    if (rc == SK_OK)
        rc = check_box(a, info, err);
    if (rc == SK_OK)
        for (size_t i = 0; i < nl; i++)
            if (rd_i32(a->numbl, i) < 0)
                return sk_fail(err, SK_ERR_FORMAT, path, -1, "negative oct count in numbl");
    return rc;
}

int rs_amr_count(const rs_amr *a, int level, int ibound)
{
    if (ibound <= a->ncpu)
        return rd_i32(a->numbl, (size_t)(level - 1) * (size_t)a->ncpu + (size_t)(ibound - 1));
    int32_t n = rd_i32(a->numbb, (size_t)(level - 1) * (size_t)a->nboundary +
                                     (size_t)(ibound - a->ncpu - 1));
    return n > 0 ? n : 0;
}

/* A neighbour's oct block: ind_grid, next, prev, xg[ndim], then father,
 * nbor[2 ndim], son, cpu_map and flag1 of each cell, each record checked
 * for size (amr/output_amr.f90). */
static int skip_block(const rs_amr *a, fr_cursor *c, int n, sk_error *err)
{
    int rc = fr_skip_sized(c, 3, 4 * (size_t)n, err);
    if (rc == SK_OK)
        rc = fr_skip_sized(c, a->ndim, 8 * (size_t)n, err);
    if (rc == SK_OK)
        rc = fr_skip_sized(c, 1 + 2 * a->ndim + 3 * a->ncell, 4 * (size_t)n, err);
    return rc;
}

static int read_own_block(const rs_amr *a, fr_cursor *c, int n, rs_octs *own, sk_error *err)
{
    int rc = fr_skip_sized(c, 3, 4 * (size_t)n, err); /* ind_grid, next, prev */
    memset(own->xg, 0, sizeof own->xg);
    if (rc == SK_OK)
        rc = fr_records_sized(c, a->ndim, 8 * (size_t)n, own->xg, err);
    if (rc == SK_OK)
        rc = fr_skip_sized(c, 1 + 2 * a->ndim, 4 * (size_t)n, err); /* father, nbor */
    if (rc == SK_OK)
        rc = fr_records_sized(c, a->ncell, 4 * (size_t)n, own->son, err);
    if (rc == SK_OK)
        rc = fr_skip_sized(c, 2 * a->ncell, 4 * (size_t)n, err); /* cpu_map, flag1 */
    own->n = n;
    return rc;
}

int rs_amr_level(rs_amr *a, int level, rs_octs *own, sk_error *err)
{
    own->level = level;
    own->n = 0;
    int rc = SK_OK;
    for (int ib = 1; ib <= a->ncpu + a->nboundary && rc == SK_OK; ib++) {
        int n = rs_amr_count(a, level, ib);
        if (n == 0)
            continue;
        if (ib == a->icpu)
            rc = read_own_block(a, &a->cur, n, own, err);
        else
            rc = skip_block(a, &a->cur, n, err);
    }
    return rc;
}

int rs_cellfile_open(rs_cellfile *f, rs_cellform form, const char *path, const void *data,
                     size_t size, const rs_amr *a, sk_error *err)
{
    fr_cursor *c = &f->cur;
    fr_init(c, path, data, size);
    f->nvar = 1;
    f->width = form == RS_FORM_IDS ? 4 : 8;
    if (form == RS_FORM_IDS)
        return SK_OK;
    int32_t nvar = 0;
    int rc = expect_int(c, a->ncpu, "ncpu", err);
    if (rc == SK_OK && (rc = fr_int32s(c, &nvar, 1, err)) == SK_OK && (nvar < 1 || nvar > 100000))
        rc = fr_fail_last(c, 4, err, "nvar = %d is out of range", (int)nvar);
    f->nvar = nvar;
    if (rc == SK_OK && form == RS_FORM_HYDRO)
        rc = expect_int(c, a->ndim, "ndim", err);
    if (rc == SK_OK)
        rc = expect_int(c, a->nlevelmax, "nlevelmax", err);
    if (rc == SK_OK)
        rc = expect_int(c, a->nboundary, "nboundary", err);
    if (rc == SK_OK && form == RS_FORM_HYDRO)
        rc = fr_skip(c, 1, err); /* gamma */
    return rc;
}

int rs_cellfile_level(rs_cellfile *f, const rs_amr *a, int level, const uint8_t **vars,
                      sk_error *err)
{
    fr_cursor *c = &f->cur;
    int rc = SK_OK;
    int64_t per_block = (int64_t)a->ncell * f->nvar;
    for (int ib = 1; ib <= a->ncpu + a->nboundary && rc == SK_OK; ib++) {
        int n = rs_amr_count(a, level, ib);
        rc = expect_int(c, level, "level", err);
        if (rc == SK_OK)
            rc = expect_int(c, n, "oct count (the amr file's numbl)", err);
        if (rc != SK_OK || n == 0)
            continue;
        if (ib != a->icpu) {
            rc = fr_skip_sized(c, per_block, (size_t)f->width * (size_t)n, err);
            continue;
        }
        rc = fr_records_sized(c, per_block, (size_t)f->width * (size_t)n, vars, err);
    }
    return rc;
}
