/* The binary sink files of RAMSES before the sink rewrite of July 2018.
 *
 * backup_sink (pm/output_sink.f90) wrote sink_NNNNN.outCCCCC, every CPU the
 * same sinks, as Fortran records: nsink, nindsink (int32), then, when
 * nsink > 0, nsink float64 each of msink, tsink (birth epoch), xsink,
 * vsink, lsink (ndim records each), delta_mass, [acc_rate], then nsink
 * int32 idsink, nsink logicals new_born (4 bytes), and one int32
 * sinkint_level. acc_rate is there from 2014-08 (trunk 792ce060) until
 * 2017-05 (fba2cd44) dropped it; the layouts differ only by that record,
 * so the number of float64 records tells them apart. Columns are named as
 * the csv files of the same versions name them. */
#include <stdio.h>
#include <string.h>

#include "formats/ramses/fortran.h"
#include "formats/ramses/internal.h"

enum { MAX_F64 = 2 + 3 * 3 + 2 };

/* The float64 records' names in file order, and in table order. */
static const char *const k_vec[3][3] = {
    {"x", "y", "z"}, {"vx", "vy", "vz"}, {"lx", "ly", "lz"}};

static int add_columns(rs_catalogue *cat, const char *path, int ndim, int with_acc,
                       sk_error *err)
{
    int rc = rs_catalogue_add_column(cat, path, "id", 1, err);
    if (rc == SK_OK)
        rc = rs_catalogue_add_column(cat, path, "msink", 0, err);
    for (int v = 0; v < 3; v++)
        for (int d = 0; d < ndim && rc == SK_OK; d++)
            rc = rs_catalogue_add_column(cat, path, k_vec[v][d], 0, err);
    static const char *const tail[] = {"tform", "acc_rate", "del_mass"};
    for (int k = 0; k < 3 && rc == SK_OK; k++)
        if (k != 1 || with_acc)
            rc = rs_catalogue_add_column(cat, path, tail[k], 0, err);
    if (rc == SK_OK)
        rc = rs_catalogue_add_column(cat, path, "new_born", 1, err);
    if (rc == SK_OK)
        rc = rs_catalogue_add_column(cat, path, "level", 1, err);
    return rc;
}

/* Table column of float64 record k (0-based) of a file with nf of them. */
static int column_of_record(int k, int ndim, int nf)
{
    if (k == 0)
        return 1;                      /* msink */
    if (k == 1)
        return 2 + 3 * ndim;           /* tsink -> tform */
    if (k < 2 + 3 * ndim)
        return k;                      /* x.., vx.., lx.. follow msink */
    int with_acc = nf == 4 + 3 * ndim;
    if (k == 2 + 3 * ndim)             /* delta_mass: after tform (and acc_rate) */
        return 3 + 3 * ndim + with_acc;
    return 3 + 3 * ndim;               /* acc_rate */
}

int rs_sink_binary_parse(rs_catalogue *cat, const char *path, const void *data, size_t size,
                         int ndim, sk_error *err)
{
    fr_cursor c;
    fr_init(&c, path, data, size);
    int32_t head[2] = {0, 0};
    int rc = fr_int32s(&c, head, 1, err);
    if (rc == SK_OK)
        rc = fr_int32s(&c, head + 1, 1, err);
    if (rc == SK_OK && (head[0] < 0 || (size_t)head[0] > size / 8))
        rc = fr_fail_last(&c, 4, err, "nsink = %d does not fit the file", (int)head[0]);
    if (rc != SK_OK)
        return rc;
    int n = head[0];
    size_t fsize = 8 * (size_t)n, isize = 4 * (size_t)n;
    const uint8_t *f64[MAX_F64];
    int nf = 0;
    /* The float64 records: every record of 8 nsink bytes before idsink. */
    while (rc == SK_OK && n > 0 && c.pos < c.size) {
        size_t save = c.pos;
        int64_t rec = c.record;
        const uint8_t *p;
        size_t len;
        rc = fr_next(&c, &p, &len, err);
        if (rc != SK_OK || len != fsize) {
            c.pos = save, c.record = rec;
            break;
        }
        if (nf == MAX_F64)
            return fr_fail_last(&c, len, err, "more than %d records of %d float64 values",
                                MAX_F64, n);
        f64[nf++] = p;
    }
    if (rc != SK_OK)
        return rc;
    int plain = 3 + 3 * ndim; /* msink, tsink, x, v, l, delta_mass */
    if (n > 0 && nf != plain && nf != plain + 1)
        return sk_fail(err, SK_ERR_FORMAT, path, (int64_t)c.pos,
                       "%d records of %d float64 values after nsink, nindsink; a %d-D sink "
                       "file of RAMSES 2014-2018 has %d or %d",
                       nf, n, ndim, plain, plain + 1);
    const uint8_t *ids = NULL, *born = NULL;
    int32_t level = 0;
    if (n > 0) {
        rc = fr_expect(&c, isize, &ids, err);
        if (rc == SK_OK)
            rc = fr_expect(&c, isize, &born, err);
        if (rc == SK_OK)
            rc = fr_int32s(&c, &level, 1, err);
    }
    if (rc == SK_OK && c.pos != c.size)
        rc = sk_fail(err, SK_ERR_FORMAT, path, (int64_t)c.pos,
                     "%zu bytes after the last record of the sink file", c.size - c.pos);
    if (rc != SK_OK)
        return rc;
    /* Without sinks the layout is unknown: the later one's columns. */
    rc = add_columns(cat, path, ndim, nf == plain + 1, err);
    if (rc != SK_OK || n == 0)
        return rc;
    double *rows = rs_catalogue_add_rows(cat, path, n, err);
    if (!rows)
        return err && err->code ? err->code : SK_ERR_NOMEM;
    int ncols = cat->ncols;
    for (int i = 0; i < n; i++) {
        double *row = rows + (size_t)i * (size_t)ncols;
        row[0] = rd_i32(ids, (size_t)i);
        for (int k = 0; k < nf; k++)
            row[column_of_record(k, ndim, nf)] = rd_f64(f64[k], (size_t)i);
        row[ncols - 2] = rd_i32(born, (size_t)i) != 0;
        row[ncols - 1] = level;
    }
    return SK_OK;
}
