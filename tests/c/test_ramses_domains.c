/* RAMSES's Hilbert domains against the fixtures' own cpu_map: for every
 * leaf of every amr file (ghost octs included) the domain holding the key
 * of the cell's centre is the stored cpu_map; and every oct of a file's own
 * list has its father cell's centre (the oct centre) in that file's domain,
 * which is what the reader's region-to-files look-up relies on. */
#include <math.h>

#include "check.h"
#include "ramses/amr.h"
#include "ramses/mapfile.h"
#include "snapkit/snapkit.h"

static int domain_cpu(const sk_ramses_info *in, double x, double y, double z)
{
    double key = (double)sk_hilbert3d_point(x, y, z, in->levelmax + 1);
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
    for (int l = 1; l <= in->levelmax && rc == SK_OK; l++) {
        for (int ib = 1; ib <= a.ncpu + a.nboundary && rc == SK_OK; ib++) {
            int n = rs_amr_count(&a, l, ib);
            if (!n)
                continue;
            const uint8_t *rec[37];
            for (int k = 0; k < 37 && rc == SK_OK; k++) {
                size_t len;
                rc = fr_next(&a.cur, &rec[k], &len, &err);
            }
            CHECK_OK(rc, &err);
            for (int i = 0; i < n && rc == SK_OK; i++) {
                double xg[3] = {rd_f64(rec[3], i), rd_f64(rec[4], i), rd_f64(rec[5], i)};
                if (ib == icpu) {
                    (*own_octs)++;
                    bad_oct += domain_cpu(in, xg[0], xg[1], xg[2]) != icpu;
                }
                for (int ind = 0; ind < 8; ind++) {
                    if (rd_i32(rec[13 + ind], i) != 0)
                        continue;
                    double h = ldexp(1.0, -(l + 1));
                    double c[3] = {xg[0] + ((ind & 1) ? h : -h), xg[1] + ((ind & 2) ? h : -h),
                                   xg[2] + ((ind & 4) ? h : -h)};
                    (*leaves)++;
                    bad_leaf += domain_cpu(in, c[0], c[1], c[2]) != rd_i32(rec[21 + ind], i);
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
                                       "ramses/manyfiles/output_00002"};
    static const char *const shared[] = {"fixtures/ramses/gravpart/output_00001",
                                         "fixtures/ramses/sedov3d/output_00002",
                                         "fixtures/ramses/manyfiles/output_00001"};
    char buf[4096];
    for (size_t i = 0; i < 3; i++)
        check_output(test_data(buf, sizeof buf, data[i]));
    for (size_t i = 0; i < 3; i++)
        if (test_shared(buf, sizeof buf, shared[i]))
            check_output(buf);
    return test_done();
}
