/* The frame index of dumps and extended XYZ (include/snapkit/atoms_traj.h):
 * offsets against a brute-force scan of the text, every frame k read
 * through the index equal to the sequential read's frame k, the sidecar
 * (stale after a frame is appended or the content changes under the same
 * size and time; malformed), several files in timestep order, gzip, and
 * Python's slice semantics. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "check.h"
#include "snapkit/snapkit.h"

static char g_tmp[256];

/* Frame k of the generated files: 1 + (7k mod 5) atoms (and thousands
 * more when g_big: the line counting's 32-byte blocks and its chunks),
 * timestep 100k. */
static int g_big;
static int64_t natoms_of(int k) { return 1 + (7 * k) % 5 + (g_big ? 3000 + 997 * k : 0); }

static void put_dump_frame(FILE *fp, int k)
{
    fprintf(fp, "ITEM: TIMESTEP\n%d\nITEM: NUMBER OF ATOMS\n%lld\n", 100 * k,
            (long long)natoms_of(k));
    fprintf(fp, "ITEM: BOX BOUNDS pp pp pp\n0 10\n0 10\n0 %d.5\nITEM: ATOMS id type x y z\n", k + 1);
    for (int64_t i = 0; i < natoms_of(k); i++)
        fprintf(fp, "%lld 1 %d.25 %lld.5 0.%d\n", (long long)(i + 1), k, (long long)i, k % 10);
}

static void put_xyz_frame(FILE *fp, int k)
{
    fprintf(fp, "%lld\nLattice=\"10 0 0 0 10 0 0 0 10\" Properties=species:S:1:pos:R:3 step=%d\n",
            (long long)natoms_of(k), k);
    for (int64_t i = 0; i < natoms_of(k); i++)
        fprintf(fp, "Cu %d.25 %lld.5 0.%d\n", k, (long long)i, k % 10);
}

static void make_file(const char *path, int first, int n, int xyz)
{
    FILE *fp = fopen(path, "w");
    CHECK_MSG(fp != NULL, "cannot write %s", path);
    if (!fp)
        return;
    for (int k = first; k < first + n; k++)
        (xyz ? put_xyz_frame : put_dump_frame)(fp, k);
    fclose(fp);
}

/* Brute force: the byte offsets of the frames, from the text alone. */
static int64_t scan_offsets(const char *path, int xyz, int64_t *out, int64_t cap)
{
    FILE *fp = fopen(path, "r");
    char line[512];
    int64_t n = 0, pos = 0, skip = 0;
    while (fp && fgets(line, sizeof line, fp)) {
        if (xyz && skip == 0 && n < cap) {
            out[n++] = pos;
            skip = atoll(line) + 2;
        }
        if (!xyz && strcmp(line, "ITEM: TIMESTEP\n") == 0 && n < cap)
            out[n++] = pos;
        skip -= xyz;
        pos += (int64_t)strlen(line);
    }
    if (fp)
        fclose(fp);
    return n;
}

static int same_tables(const sk_table *a, const sk_table *b)
{
    if (sk_table_nrows(a) != sk_table_nrows(b) || sk_table_ncols(a) != sk_table_ncols(b))
        return 0;
    for (int i = 0; i < sk_table_ncols(a); i++) {
        const sk_column *x = sk_table_col(a, i), *y = sk_table_col(b, i);
        if (strcmp(x->name, y->name) || x->type != y->type ||
            memcmp(x->data, y->data, (size_t)sk_table_nrows(a) * sk_dtype_size(x->type)))
            return 0;
    }
    for (int i = 0; i < sk_table_meta_count(a); i++) {
        const char *v = sk_table_meta_get(b, sk_table_meta_key(a, i));
        if (!v || strcmp(v, sk_table_meta_value(a, i)))
            return 0;
    }
    return sk_table_meta_count(a) == sk_table_meta_count(b);
}

/* Index == brute force; frame k through the index == sequential frame k,
 * in a shuffled order of k. */
static void check_index(const char *path, int xyz, int nframes)
{
    int64_t want[256];
    int64_t nwant = scan_offsets(path, xyz, want, 256);
    CHECK_EQ_INT(nwant, nframes);
    sk_error err;
    sk_atoms_file *f, *seq;
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_OK(sk_atoms_open(&seq, path, SK_ATOMS_AUTO, NULL, &err), &err);
    int64_t n = 0;
    CHECK_OK(sk_atoms_index(f, &n, &err), &err);
    CHECK_EQ_INT(n, nframes);
    for (int64_t k = 0; k < n && k < nwant; k++) {
        sk_atoms_frame_info fi;
        CHECK_OK(sk_atoms_frame_info_get(f, k, &fi, &err), &err);
        CHECK_EQ_INT(fi.offset, want[k]);
        CHECK_EQ_INT(fi.natoms, natoms_of((int)k));
        CHECK_EQ_INT(fi.timestep, xyz ? SK_ATOMS_NO_TIMESTEP : 100 * k);
    }
    sk_table *frames[256] = {0};
    for (int64_t k = 0; k < n; k++)
        CHECK_OK(sk_atoms_next(seq, &frames[k], &err), &err);
    for (int64_t j = 0; j < n; j++) {
        int64_t k = (j * 37) % n; /* 37 is prime to the counts used */
        sk_table *t = NULL;
        CHECK_OK(sk_atoms_read_frame(f, k, &t, &err), &err);
        CHECK_MSG(t && frames[k] && same_tables(t, frames[k]), "%s frame %lld", path,
                  (long long)k);
        sk_table_free(t);
    }
    for (int64_t k = 0; k < n; k++)
        sk_table_free(frames[k]);
    sk_atoms_close(f);
    sk_atoms_close(seq);
}

static void set_mtime(const char *path, const struct stat *st)
{
    struct timespec ts[2] = {st->st_atim, st->st_mtim};
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

static void check_sidecar(const char *path)
{
    sk_error err, stale;
    sk_atoms_file *f;
    char side[600];
    snprintf(side, sizeof side, "%s.skidx", path);
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_EQ_INT(sk_atoms_index_load(f, NULL, &err), SK_ERR_IO); /* none yet */
    CHECK_OK(sk_atoms_index_sidecar(f, NULL, &stale, &err), &err);
    CHECK_EQ_INT(stale.code, SK_OK);
    sk_atoms_close(f);
    struct stat st;
    CHECK(stat(side, &st) == 0);

    /* a fresh handle takes the index from the sidecar */
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_OK(sk_atoms_index_load(f, NULL, &err), &err);
    sk_atoms_frame_info fi;
    CHECK_OK(sk_atoms_frame_info_get(f, 7, &fi, &err), &err);
    CHECK_EQ_INT(fi.natoms, natoms_of(7));
    CHECK_EQ_INT(fi.timestep, 700);
    sk_table *t = NULL;
    CHECK_OK(sk_atoms_read_frame(f, -1, &t, &err), &err);
    CHECK_EQ_STR(t ? sk_table_meta_get(t, "timestep") : "", "1900");
    sk_table_free(t);
    sk_atoms_close(f);

    /* a frame appended: stale, rebuilt with a message naming the reason */
    FILE *fp = fopen(path, "a");
    put_dump_frame(fp, 20);
    fclose(fp);
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_EQ_INT(sk_atoms_index_load(f, NULL, &err), SK_ERR_CHECKSUM);
    CHECK_CONTAINS(err.message, "no longer matches");
    CHECK_CONTAINS(err.message, "size");
    CHECK_OK(sk_atoms_index_sidecar(f, NULL, &stale, &err), &err);
    CHECK_EQ_INT(stale.code, SK_ERR_CHECKSUM);
    int64_t n;
    CHECK_OK(sk_atoms_index(f, &n, &err), &err);
    CHECK_EQ_INT(n, 21);
    sk_atoms_close(f);
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_OK(sk_atoms_index_load(f, NULL, &err), &err);
    CHECK_OK(sk_atoms_index(f, &n, &err), &err);
    CHECK_EQ_INT(n, 21);
    sk_atoms_close(f);

    /* the same size and time, other bytes: the hash of the ends tells */
    CHECK(stat(path, &st) == 0);
    fp = fopen(path, "r+");
    fseek(fp, -2, SEEK_END); /* the last atom's z: 0.0 -> 0.1 */
    fputs("1\n", fp);
    fclose(fp);
    set_mtime(path, &st);
    CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_EQ_INT(sk_atoms_index_load(f, NULL, &err), SK_ERR_CHECKSUM);
    CHECK_CONTAINS(err.message, "content changed");
    CHECK_OK(sk_atoms_index_save(f, NULL, &err), &err);

    /* malformed: one error naming the sidecar and the byte */
    fp = fopen(side, "r+");
    fseek(fp, 40, SEEK_SET);
    fputs("x", fp);
    fclose(fp);
    CHECK_EQ_INT(sk_atoms_index_load(f, NULL, &err), SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, ".skidx: byte 32: "); /* the field holding byte 40 */
    CHECK_CONTAINS(err.message, "malformed index sidecar");
    CHECK_EQ_INT(sk_atoms_index_sidecar(f, NULL, &stale, &err), SK_ERR_FORMAT);
    fp = fopen(side, "w");
    fputs("snapkit atoms index 1\nfile 1 2 3 dump 4 1\n5 1 1 -\n", fp);
    fclose(fp);
    CHECK_EQ_INT(sk_atoms_index_load(f, NULL, &err), SK_ERR_CHECKSUM); /* size 1 */
    sk_atoms_close(f);
    unlink(side);
}

/* Three files, their timesteps interleaved: one trajectory in step order. */
static void check_several(void)
{
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, "%s/dump.a", g_tmp);
    snprintf(b, sizeof b, "%s/dump.b", g_tmp);
    snprintf(c, sizeof c, "%s/dump.c", g_tmp);
    make_file(a, 10, 5, 0); /* steps 1000..1400 */
    make_file(b, 0, 5, 0);  /* 0..400 */
    make_file(c, 5, 5, 0);  /* 500..900 */
    const char *paths[3] = {a, b, c};
    sk_atoms_traj *t;
    sk_error err;
    CHECK_OK(sk_atoms_traj_open(&t, paths, 3, SK_ATOMS_AUTO, NULL, 1, NULL, &err), &err);
    CHECK_EQ_INT(sk_atoms_traj_count(t), 15);
    for (int64_t k = 0; k < 15; k++) {
        sk_atoms_frame_info fi;
        const char *p;
        int64_t ff;
        CHECK_OK(sk_atoms_traj_frame(t, k, &p, &ff, &fi), &err);
        CHECK_EQ_INT(fi.timestep, 100 * k);
        CHECK_EQ_STR(p, paths[k < 5 ? 1 : k < 10 ? 2 : 0]);
        CHECK_EQ_INT(ff, k % 5);
    }
    for (int64_t j = 0; j < 15; j++) {
        int64_t k = (j * 7) % 15 - (j % 2 ? 15 : 0); /* negatives too */
        sk_table *f = NULL;
        CHECK_OK(sk_atoms_traj_read(t, k, &f, &err), &err);
        int64_t kk = k < 0 ? k + 15 : k;
        char step[32];
        snprintf(step, sizeof step, "%lld", (long long)(100 * kk));
        CHECK_EQ_STR(f ? sk_table_meta_get(f, "timestep") : "", step);
        CHECK_EQ_INT(f ? sk_table_nrows(f) : -1, natoms_of((int)kk));
        sk_table_free(f);
    }
    CHECK_EQ_INT(sk_atoms_traj_read(t, 15, &(sk_table *){NULL}, &err), SK_ERR_RANGE);
    sk_atoms_traj_close(t);
    for (int i = 0; i < 3; i++) {
        char side[600];
        snprintf(side, sizeof side, "%s.skidx", paths[i]);
        CHECK_MSG(unlink(side) == 0, "no sidecar %s", side);
        unlink(paths[i]);
    }
}

/* A .gz trajectory indexes like the plain one (offsets into its text). */
static void check_gzip(const char *plain)
{
    char gz[600], cmd[1400];
    snprintf(gz, sizeof gz, "%s/traj.dump.gz", g_tmp);
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", plain, gz);
    if (system(cmd) != 0) {
        test_skip_part("gzip (no gzip program)");
        return;
    }
    sk_error err;
    sk_atoms_file *f, *g;
    CHECK_OK(sk_atoms_open(&f, plain, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_OK(sk_atoms_open(&g, gz, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_OK(sk_atoms_index_sidecar(g, NULL, NULL, &err), &err);
    sk_atoms_close(g);
    CHECK_OK(sk_atoms_open(&g, gz, SK_ATOMS_AUTO, NULL, &err), &err);
    CHECK_OK(sk_atoms_index_load(g, NULL, &err), &err);
    int64_t n, m;
    CHECK_OK(sk_atoms_index(f, &n, &err), &err);
    CHECK_OK(sk_atoms_index(g, &m, &err), &err);
    CHECK_EQ_INT(n, m);
    for (int64_t k = 0; k < n; k++) {
        sk_atoms_frame_info a, b;
        sk_atoms_frame_info_get(f, k, &a, &err);
        sk_atoms_frame_info_get(g, k, &b, &err);
        CHECK(a.offset == b.offset && a.natoms == b.natoms && a.timestep == b.timestep);
        sk_table *x = NULL, *y = NULL;
        sk_atoms_read_frame(f, k, &x, &err);
        sk_atoms_read_frame(g, k, &y, &err);
        CHECK_MSG(x && y && same_tables(x, y), "gz frame %lld", (long long)k);
        sk_table_free(x);
        sk_table_free(y);
    }
    sk_atoms_close(f);
    sk_atoms_close(g);
    snprintf(cmd, sizeof cmd, "%s.skidx", gz);
    unlink(cmd);
    unlink(gz);
}

/* sk_atoms_slice against Python's range(n)[slice]. */
static void check_slices(void)
{
    static const struct {
        const char *text;
        int64_t n, start, step, count;
    } cases[] = {
        {"0:1000:10", 95, 0, 10, 10}, {"::10", 95, 0, 10, 10},   {"::-1", 5, 4, -1, 5},
        {"-3:", 10, 7, 1, 3},         {":-3", 10, 0, 1, 7},      {"5:2", 10, 5, 1, 0},
        {"5:2:-1", 10, 5, -1, 3},     {"-100:100", 4, 0, 1, 4},  {"::-3", 10, 9, -3, 4},
        {"8:-100:-2", 10, 8, -2, 5},  {"-1", 10, 9, 1, 1},       {"3", 10, 3, 1, 1},
        {":", 0, 0, 1, 0},            {"100::-1", 10, 9, -1, 10}, {"1:9:4", 10, 1, 4, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t a = -7, s = -7, c = -7;
        sk_error err;
        CHECK_OK(sk_atoms_slice(cases[i].text, cases[i].n, &a, &s, &c, &err), &err);
        CHECK_MSG(c == cases[i].count && (c == 0 || (a == cases[i].start && s == cases[i].step)),
                  "%s of %lld: %lld %lld %lld", cases[i].text, (long long)cases[i].n,
                  (long long)a, (long long)s, (long long)c);
    }
    const char *bad[] = {"1:2:0", "a:b", "1:2:3:4", "1.5", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t a, s, c;
        sk_error err;
        CHECK_MSG(sk_atoms_slice(bad[i], 10, &a, &s, &c, &err) != SK_OK, "'%s' accepted", bad[i]);
    }
    int64_t a, s, c;
    sk_error err;
    CHECK_EQ_INT(sk_atoms_slice("10", 10, &a, &s, &c, &err), SK_ERR_RANGE);
}

int main(void)
{
    if (!test_tmpdir(g_tmp, sizeof g_tmp))
        return 1;
    char dump[512], xyz[512];
    snprintf(dump, sizeof dump, "%s/traj.dump", g_tmp);
    snprintf(xyz, sizeof xyz, "%s/traj.extxyz", g_tmp);
    make_file(dump, 0, 20, 0);
    make_file(xyz, 0, 20, 1);
    check_index(dump, 0, 20);
    check_index(xyz, 1, 20);
    g_big = 1;
    make_file(dump, 0, 6, 0);
    make_file(xyz, 0, 6, 1);
    check_index(dump, 0, 6);
    check_index(xyz, 1, 6);
    g_big = 0;
    make_file(dump, 0, 20, 0);
    check_gzip(dump);
    check_sidecar(dump);
    check_several();
    check_slices();
    unlink(dump);
    unlink(xyz);
    rmdir(g_tmp);
    return test_done();
}
