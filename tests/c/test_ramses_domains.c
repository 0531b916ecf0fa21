/* RAMSES's Hilbert domains against the fixtures' own cpu_map: for every
 * leaf of every amr file (ghost octs included) the domain holding the key
 * of the cell's centre is the stored cpu_map; and every oct of a file's own
 * list has its father cell's centre (the oct centre) in that file's domain,
 * which is what the reader's region-to-files look-up relies on. With
 * physical boundaries (rt3d, sink3d) positions count from the box's coarse
 * cell, and the boundary lists' ghost octs lie outside the box. A box of
 * nx x ny x nz coarse cells (coarse222, coarse211b) has positions in units
 * of its x extent (RAMSES's scale = boxlen / nx) and the keys of the info
 * file's levelmax + log2 nx (the reader's levelmax). */
#include <math.h>

#include "check.h"
#include "formats/ramses/amr.h"
#include "formats/ramses/mapfile.h"
#include "snapkit/snapkit.h"
#include "snapkit/util/hilbert.h"

/* The grid index of box-unit x on 2^bits points per axis. */
static uint32_t grid(double x, int bits)
{
    return (uint32_t)floor(x * ldexp(1.0, bits));
}

/* RAMSES's key of a point: hilbert1d (the x index), hilbert2d, hilbert3d. */
static int domain_cpu(const sk_ramses_info *in, double x, double y, double z)
{
    int bits = in->levelmax + 1;
    double key = in->ndim == 3   ? (double)sk_hilbert3d_point(x, y, z, bits)
                 : in->ndim == 2 ? (double)sk_hilbert2d(grid(x, bits), grid(y, bits), bits)
                                 : (double)grid(x, bits);
    for (int d = 1; d <= in->ndomain; d++)
        if (key >= in->bound_key[d - 1] && key < in->bound_key[d])
            return (d - 1) % in->ncpu + 1;
    return -1;
}

static void check_file(const sk_ramses_info *in, const char *path, int icpu, int64_t *leaves,
                       int64_t *own_octs)
{
    rs_mapped m;
    sk_error err;
    int rc = rs_map(path, &m, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return;
    rs_amr a;
    rc = rs_amr_open(&a, path, m.data, m.size, in, icpu, &err);
    CHECK_OK(rc, &err);
    int bad_leaf = 0, bad_oct = 0;
    for (int l = 1; l <= in->levelmax - in->level_shift && rc == SK_OK; l++) { /* file levels */
        for (int ib = 1; ib <= a.ncpu + a.nboundary && rc == SK_OK; ib++) {
            int n = rs_amr_count(&a, l, ib);
            if (!n)
                continue;
            /* ind_grid, next, prev, xg[ndim], father, nbor[2 ndim], then
             * son, cpu_map and flag1 of each of the 2^ndim cells */
            int nd = in->ndim, ncell = 1 << nd, son = 4 + 3 * nd, cpu_map = son + ncell;
            const uint8_t *rec[37];
            for (int k = 0; k < cpu_map + 2 * ncell && rc == SK_OK; k++) {
                size_t len;
                rc = fr_next(&a.cur, &rec[k], &len, &err);
            }
            CHECK_OK(rc, &err);
            for (int i = 0; i < n && rc == SK_OK && ib <= a.ncpu; i++) {
                double xg[3] = {0.5, 0.5, 0.5};
                for (int d = 0; d < nd; d++)
                    xg[d] = (rd_f64(rec[3 + d], i) - a.coarse_min[d]) / a.coarse[0];
                if (ib == icpu) {
                    (*own_octs)++;
                    bad_oct += domain_cpu(in, xg[0], xg[1], xg[2]) != icpu;
                }
                for (int ind = 0; ind < ncell; ind++) {
                    if (rd_i32(rec[son + ind], i) != 0)
                        continue;
                    double h = ldexp(1.0, -(l + 1)) / a.coarse[0];
                    double c[3] = {xg[0] + ((ind & 1) ? h : -h),
                                   nd > 1 ? xg[1] + ((ind & 2) ? h : -h) : 0.5,
                                   nd > 2 ? xg[2] + ((ind & 4) ? h : -h) : 0.5};
                    (*leaves)++;
                    bad_leaf += domain_cpu(in, c[0], c[1], c[2]) != rd_i32(rec[cpu_map + ind], i);
                }
            }
        }
    }
    CHECK_MSG(bad_leaf == 0, "%s: %d leaves whose key domain is not their cpu_map", path, bad_leaf);
    CHECK_MSG(bad_oct == 0, "%s: %d own octs outside the file's domain", path, bad_oct);
    rs_unmap(&m);
}

static void check_output(const char *dir)
{
    sk_ramses *r;
    sk_error err;
    int rc = sk_ramses_open(&r, dir, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return;
    const sk_ramses_info *in = sk_ramses_get_info(r);
    int64_t leaves = 0, own = 0;
    for (int c = 1; c <= in->ncpu; c++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/amr_%05d.out%05d", dir, in->output, c);
        check_file(in, path, c, &leaves, &own);
    }
    CHECK(leaves > 0 && own > 0);
    printf("%s: %lld leaf entries, %lld own octs checked\n", dir, (long long)leaves, (long long)own);
    sk_ramses_close(r);
}

int main(void)
{
    static const char *const data[] = {"ramses/gravpart/output_00002", "ramses/sedov3d/output_00001",
                                       "ramses/manyfiles/output_00002", "ramses/tube1d/output_00002",
                                       "ramses/sedov2d/output_00002",
                                       "ramses/coarse222/output_00001",
                                       "ramses/coarse211b/output_00002"};
    static const char *const shared[] = {"fixtures/ramses/gravpart/output_00001",
                                         "fixtures/ramses/sedov3d/output_00002",
                                         "fixtures/ramses/manyfiles/output_00001",
                                         "fixtures/ramses/rt3d/output_00002",
                                         "fixtures/ramses/sink3d/output_00002"};
    char buf[4096];
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        check_output(test_data(buf, sizeof buf, data[i]));
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
        if (test_shared(buf, sizeof buf, shared[i]))
            check_output(buf);
    return test_done();
}
