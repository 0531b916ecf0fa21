/* snapkit/h5export.h: a table streamed in batches of uneven sizes (one row,
 * less than a chunk, several chunks) through the consumer, read back with
 * HDF5's own C API: every value, the chunk and filter settings, the
 * attributes; the VTKHDF grid's points, offsets and counts; the refusals
 * (a component twice, two in a .vtkhdf, one never streamed, a table that
 * is neither cells nor particles) and no file after an abort. */
#include <hdf5.h>

#include "check.h"
#include "snapkit/snapkit.h"

enum { ROWS = 5000 };
static const int64_t k_batches[] = {1, 999, 2500, 3, 1497};

static sk_table *cells(void)
{
    sk_error e;
    sk_table *t = sk_table_new(ROWS);
    int32_t *lev = sk_table_add(t, "level", SK_INT32, &e);
    int32_t *c[3] = {sk_table_add(t, "cx", SK_INT32, &e), sk_table_add(t, "cy", SK_INT32, &e),
                     sk_table_add(t, "cz", SK_INT32, &e)};
    double *rho = sk_table_add(t, "density", SK_FLOAT64, &e);
    int64_t *id = sk_table_add(t, "id", SK_INT64, &e);
    int32_t *kind = sk_table_add(t, "family", SK_CATEGORY, &e);
    for (int i = 0; i < ROWS; i++) {
        lev[i] = 3 + i % 4;
        for (int a = 0; a < 3; a++)
            c[a][i] = (i * (a + 7)) % (1 << lev[i]);
        rho[i] = 1.0 / (i + 1) + i;
        id[i] = (int64_t)i * 1000003;
        kind[i] = i % 3;
    }
    const char *labels[] = {"gas", "dust", "ice"};
    sk_table_set_labels(t, "family", labels, 3, &e);
    sk_table_meta_set(t, "kind", "cells");
    sk_table_meta_set(t, "component", "hydro");
    sk_table_meta_set(t, "boxlen", "2");
    sk_table_meta_set(t, "ndim", "3");
    sk_table_meta_set(t, "time", "0.125");
    return t;
}

/* Rows [from, from + n) of t as a new table (columns copied). */
static sk_table *slice(const sk_table *t, int64_t from, int64_t n)
{
    sk_error e;
    sk_table *b = sk_table_new(n);
    for (int i = 0; i < sk_table_ncols(t); i++) {
        const sk_column *col = sk_table_col(t, i);
        size_t size = sk_dtype_size(col->type);
        void *d = sk_table_add(b, col->name, col->type, &e);
        memcpy(d, (const char *)col->data + from * size, (size_t)n * size);
    }
    sk_table_meta_copy(b, t);
    return b;
}

/* Stream t as `component` into f in the uneven batches, on 2 threads. */
static int stream(sk_h5_file *f, const char *component, const sk_table *t, sk_error *e)
{
    sk_consumer c;
    int rc = sk_h5_component(f, component, &c, e);
    if (rc != SK_OK)
        return rc;
    CHECK(c.ordered);
    sk_table *schema = slice(t, 0, 0);
    rc = c.begin(c.ctx, 2, schema, e);
    sk_table_free(schema);
    int64_t at = 0;
    for (size_t k = 0; k < sizeof k_batches / sizeof k_batches[0] && rc == SK_OK; k++) {
        sk_table *b = slice(t, at, k_batches[k]);
        sk_batch_info info = {.index = (int64_t)k, .row = at};
        rc = c.batch(c.ctx, (int)k % 2, b, &info, e);
        at += k_batches[k];
        sk_table_free(b);
    }
    if (rc == SK_OK)
        CHECK_EQ_INT(at, ROWS);
    return rc;
}

static void read_all(hid_t file, const char *name, hid_t type, void *out, hsize_t want)
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    CHECK_MSG(d >= 0, "no dataset %s", name);
    hid_t s = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(s, dims, NULL);
    CHECK_EQ_INT(dims[0], want);
    CHECK(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
    H5Sclose(s);
    H5Dclose(d);
}

static void check_tables(const char *path, const sk_table *t, int gzip)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    double *rho = malloc(ROWS * sizeof *rho);
    int64_t *id = malloc(ROWS * sizeof *id);
    int32_t *fam = malloc(ROWS * sizeof *fam);
    read_all(f, "hydro/density", H5T_NATIVE_DOUBLE, rho, ROWS);
    read_all(f, "hydro/id", H5T_NATIVE_INT64, id, ROWS);
    read_all(f, "hydro/family", H5T_NATIVE_INT32, fam, ROWS);
    CHECK(!memcmp(rho, sk_table_find(t, "density")->data, ROWS * sizeof *rho));
    CHECK(!memcmp(id, sk_table_find(t, "id")->data, ROWS * sizeof *id));
    CHECK(!memcmp(fam, sk_table_find(t, "family")->data, ROWS * sizeof *fam));
    hid_t d = H5Dopen2(f, "hydro/density", H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(d);
    hsize_t chunk = 0;
    CHECK_EQ_INT(H5Pget_chunk(dcpl, 1, &chunk), 1);
    CHECK_EQ_INT(chunk, 1000);
    CHECK_EQ_INT(H5Pget_nfilters(dcpl), gzip ? 2 : 0);
    H5Pclose(dcpl);
    H5Dclose(d);
    double boxlen = 0, time = 0;
    int64_t rows = 0;
    hid_t g = H5Gopen2(f, "hydro", H5P_DEFAULT);
    hid_t a = H5Aopen(g, "boxlen", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, &boxlen);
    H5Aclose(a);
    a = H5Aopen(g, "time", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, &time);
    H5Aclose(a);
    a = H5Aopen(g, "rows", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, &rows);
    H5Aclose(a);
    CHECK(boxlen == 2 && time == 0.125);
    CHECK_EQ_INT(rows, ROWS);
    CHECK(H5Aexists_by_name(f, "hydro/family", "labels", H5P_DEFAULT) > 0);
    H5Gclose(g);
    H5Fclose(f);
    free(rho);
    free(id);
    free(fam);
}

static void check_vtk(const char *path, const sk_table *t)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    double *pts = malloc(8 * 3 * ROWS * sizeof *pts);
    int64_t *off = malloc((ROWS + 1) * sizeof *off);
    int64_t n[3];
    read_all(f, "VTKHDF/Points", H5T_NATIVE_DOUBLE, pts, 8 * ROWS);
    read_all(f, "VTKHDF/Offsets", H5T_NATIVE_INT64, off, ROWS + 1);
    read_all(f, "VTKHDF/NumberOfCells", H5T_NATIVE_INT64, n, 1);
    read_all(f, "VTKHDF/NumberOfPoints", H5T_NATIVE_INT64, n + 1, 1);
    CHECK_EQ_INT(n[0], ROWS);
    CHECK_EQ_INT(n[1], 8 * ROWS);
    int bad = 0;
    const int32_t *lev = sk_table_find(t, "level")->data, *cx = sk_table_find(t, "cx")->data,
                  *cz = sk_table_find(t, "cz")->data;
    for (int i = 0; i < ROWS; i++) {
        double dx = 2.0 / (1 << lev[i]);
        bad += off[i] != 8 * i;
        bad += pts[24 * i] != cx[i] * dx || pts[24 * i + 3] != (cx[i] + 1) * dx; /* x of 0, 1 */
        bad += pts[24 * i + 2] != cz[i] * dx || pts[24 * i + 23] != (cz[i] + 1) * dx;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(off[ROWS], 8 * ROWS);
    H5Fclose(f);
    free(pts);
    free(off);
}

static void check_refusals(const char *dir, const sk_table *t)
{
    sk_error e;
    char path[512];
    sk_h5_format fmt;
    CHECK_OK(sk_h5_format_of("a/b.HDF5", &fmt, &e), &e);
    CHECK_EQ_INT(fmt, SK_H5_TABLES);
    CHECK_OK(sk_h5_format_of("b.vtkhdf", &fmt, &e), &e);
    CHECK_EQ_INT(fmt, SK_H5_VTKHDF);
    CHECK(sk_h5_format_of("b.vtu", &fmt, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "unknown output format");

    sk_h5_file *f;
    sk_consumer c;
    snprintf(path, sizeof path, "%s/twice.h5", dir);
    CHECK_OK(sk_h5_create(&f, path, SK_H5_TABLES, NULL, &e), &e);
    CHECK_OK(stream(f, "hydro", t, &e), &e);
    CHECK(sk_h5_component(f, "hydro", &c, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "given twice");
    CHECK_OK(sk_h5_component(f, "gravity", &c, &e), &e);
    CHECK(sk_h5_commit(f, &e) == SK_ERR_ARG); /* gravity was never streamed */
    CHECK_CONTAINS(e.message, "never streamed");
    CHECK(access(path, F_OK) != 0);

    snprintf(path, sizeof path, "%s/two.vtkhdf", dir);
    CHECK_OK(sk_h5_create(&f, path, SK_H5_VTKHDF, NULL, &e), &e);
    CHECK_OK(stream(f, "hydro", t, &e), &e);
    CHECK(sk_h5_component(f, "particles", &c, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "holds one component");
    sk_h5_abort(f);
    CHECK(access(path, F_OK) != 0);

    snprintf(path, sizeof path, "%s/neither.vtkhdf", dir);
    sk_table *odd = slice(t, 0, 10);
    sk_table_meta_set(odd, "kind", "atoms");
    CHECK_OK(sk_h5_create(&f, path, SK_H5_VTKHDF, NULL, &e), &e);
    CHECK(stream(f, "atoms", odd, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "neither cells");
    sk_h5_abort(f);
    sk_table_free(odd);
    CHECK(access(path, F_OK) != 0);

    sk_h5_options o;
    sk_h5_options_init(&o);
    o.gzip = 10;
    CHECK(sk_h5_create(&f, path, SK_H5_TABLES, &o, &e) == SK_ERR_ARG);
}

int main(void)
{
    char dir[] = "/tmp/snapkit-h5export-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    sk_table *t = cells();
    sk_error e;
    char path[512];
    sk_h5_options o;
    sk_h5_options_init(&o);
    o.chunk_rows = 1000;
    o.fsync = 0;
    for (int gzip = 0; gzip <= 4; gzip += 4) {
        o.gzip = gzip;
        snprintf(path, sizeof path, "%s/t%d.h5", dir, gzip);
        sk_h5_file *f;
        CHECK_OK(sk_h5_create(&f, path, SK_H5_TABLES, &o, &e), &e);
        CHECK_OK(stream(f, "hydro", t, &e), &e);
        CHECK_EQ_INT(sk_h5_rows(f), ROWS);
        CHECK_OK(sk_h5_commit(f, &e), &e);
        check_tables(path, t, gzip);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/g.vtkhdf", dir);
    sk_h5_file *f;
    CHECK_OK(sk_h5_create(&f, path, SK_H5_VTKHDF, &o, &e), &e);
    CHECK_OK(stream(f, "hydro", t, &e), &e);
    CHECK_OK(sk_h5_commit(f, &e), &e);
    check_vtk(path, t);
    unlink(path);
    check_refusals(dir, t);
    sk_table_free(t);
    CHECK(rmdir(dir) == 0); /* nothing left behind */
    return test_done();
}
