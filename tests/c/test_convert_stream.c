/* convert streams each component file by file (the store's appender): its
 * files are, byte for byte, those of the whole-table writer (each table
 * read whole and given to sk_store_writer_add) on every fixture, for a
 * full read and a box with a level cap; the fixture whose particles are
 * not in curve order across CPU files falls back to the whole table, with
 * the same bytes. The appender itself: pieces that overlap along the curve
 * give the whole-table file; a piece starting below rows already written
 * is refused, and the table taken back leaves the file as if it had never
 * been begun. */
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"
#include "formats/snapkit/order.h"
#include "formats/snapkit/writer_internal.h"

static char g_tmp[256];

static uint8_t *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)*n + 1);
    if (d && fread(d, 1, (size_t)*n, f) != (size_t)*n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    return d;
}

static int same_bytes(const char *a, const char *b)
{
    long na = 0, nb = 0;
    uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, (size_t)na) == 0;
    free(x);
    free(y);
    return same;
}

/* What convert writes, by the whole-table path: the file metadata, then
 * each table read whole and added. */
static void write_whole(const char *dir, const sk_store_convert_stats *st,
                        const sk_selection *sel, const char *path)
{
    sk_error e;
    sk_ramses *r;
    CHECK_OK(sk_ramses_open(&r, dir, &e), &e);
    sk_store_writer *w;
    CHECK_OK(sk_store_writer_open(&w, path, NULL, &e), &e);
    char list[128] = "";
    for (int i = 0; i < st->ntables; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
                 st->names[i]);
    CHECK_OK(sk_store_writer_set_meta(w, "convert.source", dir, &e), &e);
    CHECK_OK(sk_store_writer_set_meta(w, "convert.components", list, &e), &e);
    CHECK_OK(sk_store_writer_set_meta(w, "convert.with_coarse", "0", &e), &e);
    for (int i = 0; i < st->ntables; i++) {
        sk_table *t = NULL;
        CHECK_OK(sk_ramses_read(r, st->names[i], sel, NULL, &t, NULL, &e), &e);
        CHECK_OK(sk_store_writer_add(w, st->names[i], t, &e), &e);
        sk_table_free(t);
    }
    CHECK_OK(sk_store_writer_commit(w, NULL, &e), &e);
    sk_ramses_close(r);
}

/* Convert with the selection, streamed, and compare with the whole-table
 * file. Returns the tables that fell back. */
static int convert_case(const char *dir, const sk_selection *sel, const char *label)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/streamed.snapkit", g_tmp);
    snprintf(b, sizeof b, "%s/whole.snapkit", g_tmp);
    sk_store_convert_options opt;
    sk_store_convert_options_init(&opt);
    opt.selection = sel;
    sk_store_convert_stats st;
    sk_error e;
    CHECK_OK(sk_store_convert(dir, a, &opt, &st, &e), &e);
    write_whole(dir, &st, sel, b);
    CHECK_MSG(same_bytes(a, b), "%s: the streamed convert differs from the whole-table file",
              label);
    return st.fallbacks;
}

static void convert_output(const char *dir, const char *label, int fallbacks_expected)
{
    sk_selection sel;
    sk_selection_init(&sel);
    int fallbacks = convert_case(dir, &sel, label);
    CHECK_MSG(fallbacks == fallbacks_expected, "%s: %d tables fell back, %d expected", label,
              fallbacks, fallbacks_expected);
    sk_ramses *r;
    sk_error e;
    CHECK_OK(sk_ramses_open(&r, dir, &e), &e);
    const sk_ramses_info *in = sk_ramses_get_info(r);
    sel.lmax = in->levelmin + 1 < in->levelmax ? in->levelmin + 1 : 0;
    sel.has_box = 1;
    for (int ax = 0; ax < 3; ax++) {
        sel.lo[ax] = ax < in->ndim ? 0.2 : 0.0;
        sel.hi[ax] = ax < in->ndim ? 0.65 : 1.0;
    }
    sk_ramses_close(r);
    char what[128];
    snprintf(what, sizeof what, "%s, box and lmax", label);
    convert_case(dir, &sel, what);
}

/* ---- the appender on hand-made pieces ---- */

/* 40 chunks of 1024 rows; pieces cut 12 rows past a chunk's end, so that
 * rows written as soon as a chunk fills would include rows the next piece
 * still has to be merged before. */
enum { NPOINTS = 40960, NPIECES = 8 };

static int64_t cut_at(int64_t p)
{
    return p == 0 ? 0 : p == NPIECES ? NPOINTS : p * 5120 + 12;
}

static sk_table *points(uint64_t seed)
{
    sk_error e;
    sk_table *t = sk_table_new(NPOINTS);
    double *x = sk_table_add(t, "position_x", SK_FLOAT64, &e);
    double *y = sk_table_add(t, "position_y", SK_FLOAT64, &e);
    double *z = sk_table_add(t, "position_z", SK_FLOAT64, &e);
    int64_t *id = sk_table_add(t, "identity", SK_INT64, &e);
    float *m = sk_table_add(t, "mass", SK_FLOAT32, &e);
    for (int64_t i = 0; i < NPOINTS; i++) {
        double u[3];
        for (int a = 0; a < 3; a++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            u[a] = (double)(seed >> 11) / 9007199254740992.0;
        }
        /* A clump in a corner: uneven pieces of the curve. */
        x[i] = i % 3 ? u[0] : 0.1 * u[0];
        y[i] = i % 3 ? u[1] : 0.1 * u[1];
        z[i] = u[2];
        id[i] = i;
        m[i] = (float)(1.0 + u[0]);
    }
    return t;
}

/* Rows rows[0..n) of t as a new table. */
static sk_table *rows_of(const sk_table *t, const int64_t *rows, int64_t n)
{
    sk_table *p = NULL;
    sk_error e;
    CHECK_OK(st_table_like(t, n, &p, &e), &e);
    for (int j = 0; j < sk_table_ncols(t); j++)
        st_gather(sk_table_col(t, j), rows, n, sk_table_col(p, j)->data);
    return p;
}

/* The table cut into pieces of the curve whose edges interleave: piece
 * p holds sorted positions [cut_at(p), cut_at(p + 1)), but of the 20 rows
 * before each cut every other one goes to the next piece, which then
 * starts below the end of the one before it; rows reversed within each
 * piece. pieces[p] are new tables; *whole their concatenation. */
static void cut_pieces(const sk_table *t, sk_table **pieces, sk_table **whole)
{
    st_geometry g;
    st_geometry_detect(t, &g);
    st_batch_order o = {0};
    sk_error e;
    CHECK_OK(st_batch_order_sort(&o, t, &g, &e), &e);
    int64_t *owner = malloc(NPOINTS * sizeof *owner);
    for (int64_t r = 0, p = 0; r < NPOINTS; r++) {
        p += r == cut_at(p + 1);
        owner[r] = p + (p + 1 < NPIECES && cut_at(p + 1) - r <= 20 && r % 2); /* after the cut */
    }
    int64_t *rows = malloc(NPOINTS * sizeof *rows), n_all = 0;
    int64_t *all = malloc(NPOINTS * sizeof *all);
    for (int p = 0; p < NPIECES; p++) {
        int64_t n = 0;
        for (int64_t r = NPOINTS - 1; r >= 0; r--)
            if (owner[r] == p)
                rows[n++] = o.idx[r];
        pieces[p] = rows_of(t, rows, n);
        memcpy(all + n_all, rows, (size_t)n * sizeof *rows);
        n_all += n;
    }
    CHECK(n_all == NPOINTS);
    *whole = rows_of(t, all, n_all);
    free(owner);
    free(rows);
    free(all);
    st_batch_order_free(&o);
}

/* Append pieces in the order `seq` (len n); returns 1 when all were
 * taken, 0 when one was refused (the table is then discarded). */
static int append_pieces(sk_store_writer *w, sk_table **pieces, const int *seq, int n)
{
    sk_error e;
    st_appender *a = NULL;
    CHECK_OK(st_append_begin(w, "points", pieces[0], NPOINTS, &a, &e), &e);
    st_geometry g;
    st_geometry_detect(pieces[0], &g);
    st_batch_order o = {0};
    int in_order = 1;
    for (int i = 0; i < n && in_order; i++) {
        CHECK_OK(st_batch_order_sort(&o, pieces[seq[i]], &g, &e), &e);
        CHECK_OK(st_append(a, pieces[seq[i]], o.idx, o.key, &in_order, &e), &e);
    }
    st_batch_order_free(&o);
    if (!in_order) {
        CHECK_OK(st_append_discard(a, &e), &e);
        return 0;
    }
    int64_t rows = 0;
    CHECK_OK(st_append_end(a, &rows, &e), &e);
    CHECK(rows == NPOINTS);
    return 1;
}

static void appender(void)
{
    sk_table *t = points(12345), *pieces[NPIECES], *whole = NULL;
    cut_pieces(t, pieces, &whole);
    sk_table *other = points(777);
    char ref[512], got[512];
    snprintf(ref, sizeof ref, "%s/ref.snapkit", g_tmp);
    snprintf(got, sizeof got, "%s/got.snapkit", g_tmp);
    sk_error e;
    sk_store_writer *w;
    /* The reference: another table, then the whole table. */
    const sk_table *two[2] = {other, whole};
    const char *names[2] = {"other", "points"};
    CHECK_OK(sk_store_save(ref, two, names, 2, NULL, NULL, &e), &e);

    /* Overlapping pieces in table order: the same file. */
    int in_order[NPIECES] = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK_OK(sk_store_writer_open(&w, got, NULL, &e), &e);
    CHECK_OK(sk_store_writer_add(w, "other", other, &e), &e);
    CHECK(append_pieces(w, pieces, in_order, NPIECES) == 1);
    CHECK_OK(sk_store_writer_commit(w, NULL, &e), &e);
    CHECK_MSG(same_bytes(ref, got), "overlapping pieces: not the whole-table file");

    /* Piece 2 after 5 and 6 (5 written by then): refused, taken back, and
     * the whole table written instead gives the reference again. */
    int shuffled[NPIECES] = {0, 1, 5, 6, 2, 3, 4, 7};
    CHECK_OK(sk_store_writer_open(&w, got, NULL, &e), &e);
    CHECK_OK(sk_store_writer_add(w, "other", other, &e), &e);
    CHECK(append_pieces(w, pieces, shuffled, NPIECES) == 0);
    CHECK_OK(sk_store_writer_add(w, "points", whole, &e), &e);
    CHECK_OK(sk_store_writer_commit(w, NULL, &e), &e);
    CHECK_MSG(same_bytes(ref, got), "after a refused piece: not the whole-table file");

    for (int p = 0; p < NPIECES; p++)
        sk_table_free(pieces[p]);
    sk_table_free(whole);
    sk_table_free(other);
    sk_table_free(t);
}

/* cosmo32's particles are not sorted by CPU file along the curve: that
 * table is read whole. */
static void convert_fixture(const char *path, void *ctx)
{
    (void)ctx;
    convert_output(path, path, strstr(path, "/cosmo32/") ? 1 : 0);
}

int main(void)
{
    CHECK(test_tmpdir(g_tmp, sizeof g_tmp) != NULL);
    appender();
    int n = test_each_output(convert_fixture, NULL);
    CHECK(n >= 3);
    printf("%d outputs converted\n", n);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
    CHECK(system(cmd) == 0);
    return test_done();
}
