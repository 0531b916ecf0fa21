/* Atom files against the facts of tests/data/atoms/README.md (files written
 * by LAMMPS and ASE): counts, boxes, first and last atoms, exact position
 * checksums; frames; write-then-read bit identity; threads; gzip. */
#include <math.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

typedef struct config {
    const char *name; /* cu_fcc_<name> */
    int64_t n;
    const char *edge; /* box edge as written */
    int tri;
    const char *first, *last; /* dump lines "id type x y z" */
    const char *sum[3];       /* plain left-to-right sums, %.17g */
    int64_t images;           /* atoms with a non-zero image flag (data file) */
} config;

static const config k_configs[] = {
    {"500", 500, "18.075000000000003", 0,
     "1 1 18.074620154546398 0.015937461292342036 0.060911940392531429",
     "500 1 14.426880288099349 16.224502085753254 16.201555254903649",
     {"4466.0560463156244", "4533.9204266758143", "4499.1111404204939"}, 68},
    {"4000", 4000, "36.150000000000006", 0,
     "1 1 36.149620154546405 0.015937461292342036 0.060911940392531429",
     "4000 1 32.50127441712948 34.316628695053112 34.323477757592208",
     {"72263.360475694863", "72004.965005837992", "72261.103117978389"}, 283},
    {"32000", 32000, "72.30000000000001", 0,
     "1 1 72.299620154546403 0.015937461292342036 0.060911940392531429",
     "32000 1 68.655322720552945 70.506464333345178 70.591050532198778",
     {"1157292.4232894685", "1156720.2261937249", "1155939.9379658836"}, 1175},
    {"tri_4000", 4000, "36.150000000000006", 1,
     "1 1 36.149620154546405 0.015937461292342029 0.060911940392531429",
     "4000 1 36.37169511672888 33.327326862083197 34.377571032370938",
     {"80429.533886860911", "70432.48647129575", "72588.123066433342"}, 304},
};

static char g_tmp[256];

static double num(const char *s)
{
    return strtod(s, NULL);
}

static void parse_line(const char *line, double v[5])
{
    const char *p = line;
    for (int i = 0; i < 5; i++) {
        char *e;
        v[i] = strtod(p, &e);
        p = e;
    }
}

static const double *col(const sk_table *t, const char *name)
{
    const sk_column *c = sk_table_find(t, name);
    CHECK_MSG(c && c->type == SK_FLOAT64, "column %s", name);
    return c && c->type == SK_FLOAT64 ? c->data : NULL;
}

static sk_table *read_file(const char *path, int64_t frame, int threads)
{
    sk_error e;
    sk_table *t = NULL;
    sk_atoms_options o = {.threads = threads};
    int rc = sk_atoms_read(path, SK_ATOMS_AUTO, frame, &o, &t, &e);
    CHECK_OK(rc, &e);
    return t;
}

static int exists(const char *path)
{
    return access(path, R_OK) == 0;
}

static void check_box(const sk_table *t, const config *c, const char *path)
{
    sk_box box;
    sk_error e;
    CHECK_OK(sk_atoms_get_box(t, &box, &e), &e);
    double L = num(c->edge);
    double b0 = c->tri ? 2.5 : 0, c0 = c->tri ? 1.5 : 0, c1 = c->tri ? -1 : 0;
    CHECK_MSG(box.a[0] == L && box.a[1] == 0 && box.a[2] == 0, "%s a", path);
    CHECK_MSG(box.b[0] == b0 && box.b[1] == L && box.b[2] == 0, "%s b", path);
    CHECK_MSG(box.c[0] == c0 && box.c[1] == c1 && box.c[2] == L, "%s c", path);
    CHECK_MSG(box.origin[0] == 0 && box.origin[1] == 0 && box.origin[2] == 0, "%s origin", path);
    CHECK_MSG(box.pbc[0] && box.pbc[1] && box.pbc[2], "%s pbc", path);
}

/* The exact facts every LAMMPS-exact file of a configuration shares. */
static void check_exact(const sk_table *t, const config *c, const char *path, int has_ids)
{
    CHECK_EQ_INT(sk_table_nrows(t), c->n);
    const double *x = col(t, "x"), *y = col(t, "y"), *z = col(t, "z");
    if (!x || !y || !z || sk_table_nrows(t) != c->n)
        return;
    double first[5], last[5];
    parse_line(c->first, first);
    parse_line(c->last, last);
    int64_t n = c->n;
    CHECK_MSG(x[0] == first[2] && y[0] == first[3] && z[0] == first[4], "%s first atom", path);
    CHECK_MSG(x[n - 1] == last[2] && y[n - 1] == last[3] && z[n - 1] == last[4],
              "%s last atom", path);
    double s[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        s[0] += x[i];
        s[1] += y[i];
        s[2] += z[i];
    }
    for (int k = 0; k < 3; k++)
        CHECK_MSG(s[k] == num(c->sum[k]), "%s: sum %d is %.17g, README %s", path, k, s[k],
                  c->sum[k]);
    if (has_ids) {
        const sk_column *id = sk_table_find(t, "id"), *type = sk_table_find(t, "type");
        CHECK(id && id->type == SK_INT64 && type && type->type == SK_INT32);
        int ok = 1;
        for (int64_t i = 0; id && type && i < n; i++)
            ok &= ((int64_t *)id->data)[i] == i + 1 && ((int32_t *)type->data)[i] == 1;
        CHECK_MSG(ok, "%s: ids 1..N in order, type 1", path);
    }
    check_box(t, c, path);
}

static void check_config(const char *dir, const config *c)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/cu_fcc_%s.dump", dir, c->name);
    if (!exists(path))
        return;
    sk_table *dump = read_file(path, 0, 0);
    if (dump) {
        check_exact(dump, c, path, 1);
        CHECK_EQ_STR(sk_table_meta_get(dump, "timestep"), "0");
        CHECK_EQ_STR(sk_table_meta_get(dump, "lammps.boundary"), "pp pp pp");
        if (c->tri)
            CHECK_EQ_STR(sk_table_meta_get(dump, "lammps.box"),
                         "0 36.150000000000006 0 36.150000000000006 0 36.150000000000006 2.5 "
                         "1.5 -1");
    }
    snprintf(path, sizeof path, "%s/cu_fcc_%s.data", dir, c->name);
    sk_table *data = read_file(path, 0, 0);
    if (data) {
        check_exact(data, c, path, 1);
        const sk_column *ix = sk_table_find(data, "ix"), *iy = sk_table_find(data, "iy"),
                        *iz = sk_table_find(data, "iz");
        CHECK(ix && iy && iz);
        int64_t flagged = 0;
        for (int64_t i = 0; ix && iy && iz && i < sk_table_nrows(data); i++)
            flagged += ((int32_t *)ix->data)[i] || ((int32_t *)iy->data)[i] ||
                       ((int32_t *)iz->data)[i];
        CHECK_EQ_INT(flagged, c->images);
        if (ix && strcmp(c->name, "4000") == 0)
            CHECK(((int32_t *)ix->data)[0] == -1 && ((int32_t *)iy->data)[0] == 0);
        const double *vx = col(data, "vx");
        int zero = 1;
        for (int64_t i = 0; vx && i < sk_table_nrows(data); i++)
            zero &= vx[i] == 0;
        CHECK(zero);
        CHECK_EQ_STR(sk_table_meta_get(data, "lammps.masses"), "63.546");
        CHECK_EQ_STR(sk_table_meta_get(data, "lammps.atom_style"), "atomic");
        CHECK_EQ_STR(sk_table_meta_get(data, "lammps.atom_types"), "1");
    }
    snprintf(path, sizeof path, "%s/cu_fcc_%s_full.extxyz", dir, c->name);
    sk_table *full = read_file(path, 0, 0);
    if (full) {
        check_exact(full, c, path, 0);
        const sk_column *el = sk_table_find(full, "element");
        CHECK(el && el->type == SK_CATEGORY && el->nlabels == 1 &&
              strcmp(el->labels[0], "Cu") == 0);
    }
    snprintf(path, sizeof path, "%s/cu_fcc_%s_ase.extxyz", dir, c->name);
    sk_table *ase = read_file(path, 0, 0);
    if (ase && full) {
        CHECK_EQ_INT(sk_table_nrows(ase), c->n);
        check_box(ase, c, path);
        double worst = 0;
        const char *names[3] = {"x", "y", "z"};
        for (int k = 0; k < 3; k++) {
            const double *a = col(ase, names[k]), *b = col(full, names[k]);
            for (int64_t i = 0; a && b && i < c->n; i++)
                worst = fmax(worst, fabs(a[i] - b[i]));
        }
        CHECK_MSG(worst <= 5.0e-9 && worst > 0, "%s: %g from the exact positions", path, worst);
    }
    snprintf(path, sizeof path, "%s/cu_fcc_%s_ase.data", dir, c->name);
    if (exists(path) && data) {
        sk_table *ad = read_file(path, 0, 0);
        if (ad) {
            check_exact(ad, c, path, 1);
            CHECK(sk_table_meta_get(ad, "lammps.masses") == NULL);
            CHECK(sk_table_find(ad, "ix") == NULL);
            sk_table_free(ad);
        }
    }
    sk_table_free(dump);
    sk_table_free(data);
    sk_table_free(full);
    sk_table_free(ase);
}

static void test_extra_and_rich(const char *dir)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/cu_fcc_4000_extra.dump", dir);
    sk_table *t = read_file(path, 0, 0);
    if (!t)
        return;
    static const char *const names[] = {"id", "type", "element", "x", "y", "z", "ix", "iy",
                                        "iz", "vx", "vy", "vz", "fx", "fy", "fz", "c_pe"};
    CHECK_EQ_INT(sk_table_ncols(t), 16);
    for (int i = 0; i < 16 && i < sk_table_ncols(t); i++)
        CHECK_EQ_STR(sk_table_col(t, i)->name, names[i]);
    const sk_column *el = sk_table_find(t, "element");
    CHECK(el && el->type == SK_CATEGORY && el->nlabels == 1 && strcmp(el->labels[0], "Cu") == 0);
    CHECK(sk_table_find(t, "ix")->type == SK_INT32);
    const double *vx = col(t, "vx"), *fz = col(t, "fz"), *pe = col(t, "c_pe");
    CHECK(vx[0] == 3.8137261408103829 && fz[0] == -0.53425128445743442 &&
          pe[0] == -3.5415980117065846);
    CHECK(vx[3999] == 1.094581608052507 && fz[3999] == 0.37164960465877367 &&
          pe[3999] == -3.5171861516131853);
    CHECK(((int32_t *)sk_table_find(t, "ix")->data)[0] == -1);

    snprintf(path, sizeof path, "%s/cu_fcc_4000.data", dir);
    sk_table *data = read_file(path, 0, 0);
    snprintf(path, sizeof path, "%s/cu_fcc_4000_rich.extxyz", dir);
    sk_table *rich = read_file(path, 0, 0);
    if (data && rich) {
        static const char *const rn[] = {"element", "x", "y", "z", "masses", "momenta_0",
                                         "momenta_1", "momenta_2", "id", "type", "travel_0",
                                         "travel_1", "travel_2"};
        CHECK_EQ_INT(sk_table_ncols(rich), 13);
        for (int i = 0; i < 13 && i < sk_table_ncols(rich); i++)
            CHECK_EQ_STR(sk_table_col(rich, i)->name, rn[i]);
        const sk_column *tr = sk_table_find(rich, "travel_0"), *ix = sk_table_find(data, "ix");
        const sk_column *id = sk_table_find(rich, "id");
        int same = tr && ix && tr->type == SK_INT64 && id && id->type == SK_INT64;
        for (int64_t i = 0; same && i < 4000; i++)
            same = ((int64_t *)tr->data)[i] == ((int32_t *)ix->data)[i] &&
                   ((int64_t *)id->data)[i] == i + 1;
        CHECK_MSG(same, "travel_0 = the data file's ix, ids in order");
        CHECK(col(rich, "masses")[0] == 63.54600002);
    }
    sk_table_free(t);
    sk_table_free(data);
    sk_table_free(rich);
}

static void test_frames(const char *dir)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/cu_fcc_4000_md3.dump", dir);
    sk_error e;
    sk_atoms_file *f;
    if (!exists(path))
        return;
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &e), &e);
    sk_table *t = NULL;
    CHECK_OK(sk_atoms_read_frame(f, 2, &t, &e), &e); /* straight to the last */
    CHECK_EQ_STR(sk_table_meta_get(t, "timestep"), "20");
    CHECK_EQ_STR(sk_table_meta_get(t, "frame"), "2");
    const double *x = col(t, "x"), *y = col(t, "y"), *z = col(t, "z"), *vz = col(t, "vz");
    CHECK(x[0] == 36.262026745656009 && y[0] == 0.074259995307749099 &&
          z[0] == -0.012349470284052221 && vz[0] == -2.2104949231270141);
    double lo = x[0], hi = x[0];
    for (int64_t i = 0; i < 4000; i++) {
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    CHECK_MSG(fabs(lo - -0.15674) < 5e-6 && fabs(hi - 36.29950) < 5e-6, "x in [%g, %g]", lo, hi);
    sk_table_free(t);
    CHECK(sk_atoms_read_frame(f, 3, &t, &e) == SK_ERR_RANGE && t == NULL);
    int64_t n;
    CHECK_OK(sk_atoms_count_frames(f, &n, &e), &e);
    CHECK_EQ_INT(n, 3);
    CHECK_OK(sk_atoms_read_frame(f, -2, &t, &e), &e);
    CHECK_EQ_STR(sk_table_meta_get(t, "timestep"), "10");
    sk_table_free(t);
    sk_atoms_close(f);

    /* iteration */
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_DUMP, NULL, &e), &e);
    const char *steps[3] = {"0", "10", "20"};
    int k = 0;
    while (sk_atoms_next(f, &t, &e) == SK_OK && t) {
        CHECK(k < 3 && strcmp(sk_table_meta_get(t, "timestep"), steps[k]) == 0);
        CHECK_EQ_INT(sk_table_nrows(t), 4000);
        if (k == 0) { /* frame 0 equals cu_fcc_4000.dump */
            char single[2200];
            snprintf(single, sizeof single, "%s/cu_fcc_4000.dump", dir);
            sk_table *one = read_file(single, 0, 0);
            CHECK(one && memcmp(col(one, "x"), col(t, "x"), 4000 * sizeof(double)) == 0);
            sk_table_free(one);
        }
        sk_table_free(t);
        k++;
    }
    CHECK_EQ_INT(k, 3);
    sk_atoms_close(f);
}

/* Every column of a that b also has holds the same bits. */
static void check_same(const sk_table *a, const sk_table *b, const char *what)
{
    CHECK_EQ_INT(sk_table_nrows(a), sk_table_nrows(b));
    if (sk_table_nrows(a) != sk_table_nrows(b))
        return;
    for (int i = 0; i < sk_table_ncols(a); i++) {
        const sk_column *ca = sk_table_col(a, i), *cb = sk_table_find(b, ca->name);
        if (!cb)
            continue;
        if (ca->type == SK_CATEGORY || cb->type == SK_CATEGORY) {
            int same = ca->type == cb->type;
            for (int64_t r = 0; same && r < sk_table_nrows(a); r++)
                same = strcmp(ca->labels[((int32_t *)ca->data)[r]],
                              cb->labels[((int32_t *)cb->data)[r]]) == 0;
            CHECK_MSG(same, "%s: column %s", what, ca->name);
            continue;
        }
        int same = 1;
        for (int64_t r = 0; same && r < sk_table_nrows(a); r++) {
            double x = sk_column_get_double(ca, r), y = sk_column_get_double(cb, r);
            same = memcmp(&x, &y, sizeof x) == 0;
        }
        CHECK_MSG(same, "%s: column %s differs", what, ca->name);
    }
    sk_box ba, bb;
    int ha = sk_atoms_get_box(a, &ba, NULL) == SK_OK, hb = sk_atoms_get_box(b, &bb, NULL) == SK_OK;
    CHECK_MSG(ha == hb && (!ha || memcmp(&ba, &bb, sizeof ba) == 0), "%s: box", what);
}

static void test_round_trips(const char *dir)
{
    static const char *const files[] = {"cu_fcc_4000.dump", "cu_fcc_4000.data",
                                        "cu_fcc_4000_full.extxyz", "cu_fcc_tri_4000.dump",
                                        "cu_fcc_tri_4000.data", "cu_fcc_tri_4000_full.extxyz",
                                        "cu_fcc_4000_extra.dump", "cu_fcc_4000_rich.extxyz"};
    static const char *const outs[] = {"dump", "data", "extxyz", "dump.gz", "extxyz.gz"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char in[2200], out[2200];
        snprintf(in, sizeof in, "%s/%s", dir, files[i]);
        sk_table *t = read_file(in, 0, 0);
        for (size_t k = 0; t && k < sizeof outs / sizeof outs[0]; k++) {
            snprintf(out, sizeof out, "%s/rt_%zu.%s", g_tmp, i, outs[k]);
            sk_error e;
            sk_atoms_options o = {.threads = 2};
            CHECK_OK(sk_atoms_write(out, t, SK_ATOMS_AUTO, &o, &e), &e);
            sk_table *back = read_file(out, 0, 3);
            if (back)
                check_same(t, back, out);
            /* extxyz from a data file gains the species its Masses name (63.546: Cu) */
            int named = strstr(files[i], ".data") && strstr(outs[k], "extxyz");
            if (back && strstr(outs[k], "data") == NULL) /* same columns, same order */
                CHECK_EQ_INT(sk_table_ncols(back), sk_table_ncols(t) + named);
            if (back && named) {
                const sk_column *el = sk_table_find(back, "element");
                CHECK(el && el->type == SK_CATEGORY && el->nlabels == 1 &&
                      strcmp(el->labels[0], "Cu") == 0);
            }
            for (int c = 0; back && strstr(outs[k], "extxyz") && c < sk_table_ncols(t); c++) {
                const sk_column *a = sk_table_col(t, c), *b = sk_table_find(back, a->name);
                CHECK_MSG(b && a->type == b->type, "%s: column %s changed type", out, a->name);
            }
            sk_table_free(back);
            unlink(out);
        }
        sk_table_free(t);
    }
    /* LAMMPS' own files come back byte for byte */
    static const char *const same_bytes[] = {"cu_fcc_4000.data", "cu_fcc_tri_4000.data"};
    for (size_t i = 0; i < 2; i++) {
        char in[2200], out[2200], cmd[4600];
        snprintf(in, sizeof in, "%s/%s", dir, same_bytes[i]);
        snprintf(out, sizeof out, "%s/same.data", g_tmp);
        sk_table *t = read_file(in, 0, 0);
        sk_error e;
        CHECK_OK(sk_atoms_write(out, t, SK_ATOMS_DATA, NULL, &e), &e);
        snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", in, out);
        CHECK_MSG(system(cmd) == 0, "%s rewritten differs", in);
        unlink(out);
        sk_table_free(t);
    }
}

static void test_threads(const char *dir)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/cu_fcc_4000_extra.dump", dir);
    sk_table *one = read_file(path, 0, 1), *three = read_file(path, 0, 3);
    if (one && three)
        check_same(one, three, "1 vs 3 threads");
    sk_table_free(one);
    sk_table_free(three);
    /* the reader allocates the result and little else */
    sk_mem_stats before, after;
    sk_mem_reset_peak();
    sk_mem_get(&before);
    sk_table *t = read_file(path, 0, 2);
    sk_mem_get(&after);
    CHECK_MSG(after.peak - before.current <= (uint64_t)sk_table_bytes(t) + 300000,
              "peak %llu for %lld bytes of result", (unsigned long long)(after.peak - before.current),
              (long long)sk_table_bytes(t));
    sk_table_free(t);
}

/* A file large enough to be cut into pieces, whose pieces meet the
 * element labels in different orders: the merged labels and codes must
 * give every atom its element, whatever the thread count. */
static void test_pieces(void)
{
    enum { N = 120000 };
    sk_error e;
    sk_table *t = sk_table_new(N);
    int64_t *id = sk_table_add(t, "id", SK_INT64, &e);
    int32_t *el = sk_table_add(t, "element", SK_CATEGORY, &e);
    double *x = sk_table_add(t, "x", SK_FLOAT64, &e), *y = sk_table_add(t, "y", SK_FLOAT64, &e),
           *z = sk_table_add(t, "z", SK_FLOAT64, &e);
    const char *labels[3] = {"Ni", "Cu", "Zr"};
    CHECK_OK(sk_table_set_labels(t, "element", labels, 3, &e), &e);
    for (int64_t i = 0; i < N; i++) {
        id[i] = N - i;
        el[i] = i < N / 2 ? (int32_t)(i % 2) : (i % 3 == 0 ? 2 : 1); /* Zr first in 2nd half */
        x[i] = 1.0 / (double)(i + 3);
        y[i] = (double)i * 1e-7 - 0.25;
        z[i] = -1e300 / (double)(i + 1);
    }
    sk_box box = {{0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {0, 0, 10}, {1, 1, 0}};
    CHECK_OK(sk_atoms_set_box(t, &box), &e);
    const char *exts[] = {"extxyz", "dump", "lammpstrj.gz"};
    for (int k = 0; k < 3; k++) {
        char out[400];
        snprintf(out, sizeof out, "%s/pieces.%s", g_tmp, exts[k]);
        sk_atoms_options o = {.threads = 3};
        CHECK_OK(sk_atoms_write(out, t, SK_ATOMS_AUTO, &o, &e), &e);
        sk_table *one = read_file(out, 0, 1), *three = read_file(out, 0, 3);
        if (one && three) {
            check_same(t, one, "pieces, 1 thread");
            check_same(t, three, "pieces, 3 threads");
        }
        sk_table_free(one);
        sk_table_free(three);
        unlink(out);
    }
    sk_table_free(t);
}

/* A multi-frame file written frame by frame, read back as frames. */
static void test_writer_frames(const char *dir)
{
    char in[2200], out[2200];
    snprintf(in, sizeof in, "%s/cu_fcc_4000_md3.dump", dir);
    const char *exts[] = {"lammpstrj", "extxyz", "xyz.gz"};
    for (int k = 0; k < 3; k++) {
        snprintf(out, sizeof out, "%s/frames.%s", g_tmp, exts[k]);
        sk_error e;
        sk_atoms_file *f;
        sk_atoms_writer *w;
        CHECK_OK(sk_atoms_open(&f, in, SK_ATOMS_AUTO, NULL, &e), &e);
        CHECK_OK(sk_atoms_writer_open(&w, out, SK_ATOMS_AUTO, NULL, &e), &e);
        sk_table *t;
        while (sk_atoms_next(f, &t, &e) == SK_OK && t) {
            CHECK_OK(sk_atoms_writer_add(w, t, &e), &e);
            sk_table_free(t);
        }
        CHECK(!exists(out)); /* nothing at the target before commit */
        CHECK_OK(sk_atoms_writer_commit(w, &e), &e);
        sk_atoms_file *g;
        CHECK_OK(sk_atoms_open(&g, out, SK_ATOMS_AUTO, NULL, &e), &e);
        int64_t n = 0;
        CHECK_OK(sk_atoms_count_frames(g, &n, &e), &e);
        CHECK_EQ_INT(n, 3);
        sk_table *a = NULL, *b = NULL;
        CHECK_OK(sk_atoms_read_frame(f, 1, &a, &e), &e);
        CHECK_OK(sk_atoms_read_frame(g, 1, &b, &e), &e);
        if (a && b)
            check_same(a, b, out);
        CHECK(b && strcmp(sk_table_meta_get(b, k ? "extxyz.timestep" : "timestep"), "10") == 0);
        sk_table_free(a);
        sk_table_free(b);
        sk_atoms_close(f);
        sk_atoms_close(g);
        unlink(out);
    }
}

static void test_write_failures(const char *dir)
{
    char in[2200], out[2200], cmd[2400];
    snprintf(in, sizeof in, "%s/cu_fcc_4000_ase.extxyz", dir);
    sk_table *t = read_file(in, 0, 0);
    sk_error e;
    /* no box: a data file cannot be written, and nothing is left behind */
    sk_table *nobox = sk_table_new(1);
    double *x = sk_table_add(nobox, "x", SK_FLOAT64, &e);
    double *y = sk_table_add(nobox, "y", SK_FLOAT64, &e);
    double *z = sk_table_add(nobox, "z", SK_FLOAT64, &e);
    x[0] = y[0] = z[0] = 1;
    snprintf(out, sizeof out, "%s/nobox.data", g_tmp);
    CHECK(sk_atoms_write(out, nobox, SK_ATOMS_AUTO, NULL, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "nobox.data");
    CHECK_CONTAINS(e.message, "no box");
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", g_tmp);
    CHECK_MSG(system(cmd) == 0, "a temporary file was left in %s", g_tmp);
    CHECK(sk_atoms_write("/nonexistent/dir/x.dump", t, SK_ATOMS_AUTO, NULL, &e) == SK_ERR_IO);
    snprintf(out, sizeof out, "%s/x.unknown", g_tmp);
    CHECK(sk_atoms_write(out, t, SK_ATOMS_AUTO, NULL, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "give it");
    sk_table_free(nobox);
    sk_table_free(t);
}

static void test_names(void)
{
    CHECK(sk_atoms_guess_format("a/b.lammpstrj") == SK_ATOMS_DUMP);
    CHECK(sk_atoms_guess_format("run.dump.gz") == SK_ATOMS_DUMP);
    CHECK(sk_atoms_guess_format("dump.cu") == SK_ATOMS_DUMP);
    CHECK(sk_atoms_guess_format("x/data.melt") == SK_ATOMS_DATA);
    CHECK(sk_atoms_guess_format("a.lmp") == SK_ATOMS_DATA);
    CHECK(sk_atoms_guess_format("a.xyz") == SK_ATOMS_EXTXYZ);
    CHECK(sk_atoms_guess_format("a.extxyz.gz") == SK_ATOMS_EXTXYZ);
    CHECK(sk_atoms_guess_format("a.txt") == SK_ATOMS_AUTO);
    CHECK(sk_atoms_format_from_name("lammps-data") == SK_ATOMS_DATA);
    CHECK(sk_atoms_format_from_name("nope") == SK_ATOMS_AUTO);
    CHECK(sk_element_mass("Cu") == 63.546);
    CHECK(strcmp(sk_element_from_mass(63.54600001634684), "Cu") == 0);
    CHECK(sk_element_from_mass(1000) == NULL);
    /* content sniffing when the name says nothing */
    const char *dump = "ITEM: TIMESTEP\n5\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS pp pp ff\n"
                       "0 1\n0 1\n0 1\nITEM: ATOMS id type xs ys zs\n7 2 0.5 0.25 1\n";
    sk_atoms_file *f;
    sk_error e;
    sk_table *t = NULL;
    CHECK_OK(sk_atoms_open_memory(&f, dump, strlen(dump), "mem", SK_ATOMS_AUTO, NULL, &e), &e);
    CHECK(sk_atoms_file_format(f) == SK_ATOMS_DUMP);
    CHECK_OK(sk_atoms_read_frame(f, 0, &t, &e), &e);
    if (t) { /* scaled coordinates arrive as x y z */
        CHECK(col(t, "x")[0] == 0.5 && col(t, "y")[0] == 0.25 && col(t, "z")[0] == 1);
        CHECK_EQ_STR(sk_table_meta_get(t, "box.pbc"), "T T F");
    }
    sk_table_free(t);
    sk_atoms_close(f);
    /* type labels and a string column arrive as categories */
    const char *labels = "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n3\nITEM: BOX BOUNDS pp pp pp\n"
                         "0 1\n0 1\n0 1\nITEM: ATOMS id type x y z c_tag\n1 Cu 0 0 0 a\n"
                         "2 Ni 0 0 0 b\n3 Cu 0 0 0 a\n";
    t = NULL;
    CHECK_OK(sk_atoms_open_memory(&f, labels, strlen(labels), "labels", SK_ATOMS_DUMP, NULL, &e),
             &e);
    CHECK_OK(sk_atoms_read_frame(f, 0, &t, &e), &e);
    const sk_column *type = t ? sk_table_find(t, "type") : NULL;
    CHECK(type && type->type == SK_CATEGORY && type->nlabels == 2 &&
          strcmp(type->labels[1], "Ni") == 0 && ((int32_t *)type->data)[2] == 0);
    CHECK(t && sk_table_find(t, "c_tag")->type == SK_CATEGORY);
    sk_table_free(t);
    sk_atoms_close(f);
}

int main(void)
{
    char data[1024], shared[1024];
    test_data(data, sizeof data, "atoms");
    const char *sh = test_shared(shared, sizeof shared, "fixtures/atoms");
    if (!test_tmpdir(g_tmp, sizeof g_tmp))
        return 1;
    for (size_t i = 0; i < sizeof k_configs / sizeof k_configs[0]; i++) {
        check_config(data, &k_configs[i]);
        if (sh)
            check_config(sh, &k_configs[i]);
    }
    if (!sh)
        test_skip_part("32000 atoms (no shared fixtures)");
    test_extra_and_rich(data);
    test_frames(data);
    test_round_trips(data);
    test_threads(data);
    test_pieces();
    test_writer_frames(data);
    test_write_failures(data);
    test_names();
    rmdir(g_tmp);
    return test_done();
}
