/* Bad RAMSES input: each case is built in a scratch copy of a fixture and
 * must fail with one message that names the broken file (and where). */
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

static char g_src[1024], g_tmp[1024];

/* A fresh copy of an output_00002 fixture; returns its path. */
static const char *copy_of(const char *src, const char *name)
{
    static char dir[2048];
    char cmd[8192];
    snprintf(dir, sizeof dir, "%s/%s/output_00002", g_tmp, name);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s' && cp -r '%s' '%s/%s/'", g_tmp, name, src,
             g_tmp, name);
    CHECK(system(cmd) == 0);
    return dir;
}

/* A fresh copy of the gravpart fixture. */
static const char *fresh_copy(const char *name)
{
    return copy_of(g_src, name);
}


static void file_path(char *buf, size_t n, const char *dir, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static int g_threads; /* read threads for expect_failure; 0: the budget */

/* Read `component`; the read (or the open) must fail naming `file`. */
static void expect_failure(const char *dir, const char *component, const char *file,
                           const char *words)
{
    sk_read_options opt = {.threads = g_threads};
    sk_ramses *r = NULL;
    sk_table *t = NULL;
    sk_error err;
    sk_error_clear(&err);
    int rc = sk_ramses_open(&r, dir, &err);
    if (rc == SK_OK) {
        rc = sk_ramses_read(r, component, NULL, &opt, &t, NULL, &err);
        sk_ramses_close(r);
    }
    CHECK_MSG(rc != SK_OK, "reading %s of %s should fail", component, dir);
    CHECK_CONTAINS(err.message, file);
    if (words)
        CHECK_CONTAINS(err.message, words);
    CHECK(strchr(err.message, '\n') == NULL);
    printf("  %s\n", err.message);
    sk_table_free(t);
}

static void patch(const char *path, long offset, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f)
        return;
    fseek(f, offset, SEEK_SET);
    CHECK(fwrite(bytes, 1, n, f) == n);
    fclose(f);
}

/* Rewrite the first Fortran record from number `rec` (1-based) on that
 * holds more than `drop` bytes with `drop` fewer payload bytes, markers
 * kept consistent. */
static void shorten_record(const char *path, int rec, int drop)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *in = malloc((size_t)size), *out = malloc((size_t)size);
    CHECK(fread(in, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    long pos = 0, w = 0;
    int done = 0;
    for (int k = 1; pos < size; k++) {
        int32_t n;
        memcpy(&n, in + pos, 4);
        int32_t m = n;
        if (!done && k >= rec && n > drop) {
            m = n - drop;
            done = 1;
        }
        memcpy(out + w, &m, 4);
        memcpy(out + w + 4, in + pos + 4, (size_t)m);
        memcpy(out + w + 4 + m, &m, 4);
        w += 8 + m;
        pos += 8 + n;
    }
    f = fopen(path, "wb");
    CHECK(fwrite(out, 1, (size_t)w, f) == (size_t)w);
    fclose(f);
    free(in);
    free(out);
}

static void rewrite_text(const char *path, const char *from, const char *to)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *at = strstr(buf, from);
    CHECK_MSG(at != NULL, "'%s' not in %s", from, path);
    if (!at)
        return;
    f = fopen(path, "wb");
    fwrite(buf, 1, (size_t)(at - buf), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
}

/* RAMSES-RT with physical boundaries (the shared rt3d fixture). */
static void rt_cases(void)
{
    char src[4096], p[8192];
    if (!test_shared(src, sizeof src, "fixtures/ramses/rt3d/output_00002")) {
        test_skip_part("the rt3d cases (shared fixture absent)");
        return;
    }
    printf("coarse cells of the box that do not form a block\n");
    const char *d = copy_of(src, "rt_coarse");
    file_path(p, sizeof p, d, "amr_00002.out00002");
    int32_t cpu = 2;
    patch(p, 1944, &cpu, 4); /* record 32, cpu_map of the first (boundary) coarse cell */
    expect_failure(d, "hydro", "amr_00002.out00002: record 32",
                   "the box is 2 of the 3x3x3 coarse cells (nboundary 6), which do not form one block");

    printf("a box of 2x1x1 coarse cells in one file, 1x1x1 in the first\n");
    d = copy_of(src, "rt_coarse_other");
    file_path(p, sizeof p, d, "amr_00002.out00002");
    patch(p, 1944 + 4 * 12, &cpu, 4); /* cell (0, 1, 1), beside the box (1, 1, 1) */
    expect_failure(d, "hydro", "amr_00002.out00002",
                   "the box is 2x1x1 coarse cells, but 1x1x1 in the first amr file");

    printf("a box of 3 coarse cells along x\n");
    d = copy_of(src, "rt_coarse_three");
    file_path(p, sizeof p, d, "amr_00002.out00001");
    patch(p, 1944 + 4 * 12, &cpu, 4);
    patch(p, 1944 + 4 * 14, &cpu, 4);
    expect_failure(d, "hydro", "amr_00002.out00001",
                   "the box is 3x1x1 coarse cells: only boxes of a power of two coarse cells along x");

    printf("rt descriptor and files that disagree\n");
    d = copy_of(src, "rt_descriptor");
    file_path(p, sizeof p, d, "rt_file_descriptor.txt");
    rewrite_text(p, "12, photon_flux_03_z, d\n", "");
    expect_failure(d, "rt", "rt_file_descriptor.txt lists 11 variables", "the rt files hold 12");

    printf("truncated rt file\n");
    d = copy_of(src, "rt_truncated");
    file_path(p, sizeof p, d, "rt_00002.out00003");
    CHECK(truncate(p, 100000) == 0);
    expect_failure(d, "rt", "rt_00002.out00003", "truncated");
}

int main(void)
{
    char p[8192];
    test_data(g_src, sizeof g_src, "ramses/gravpart/output_00002");
    CHECK(test_tmpdir(g_tmp, sizeof g_tmp) != NULL);

    printf("missing file\n");
    const char *d = fresh_copy("missing");
    file_path(p, sizeof p, d, "hydro_00002.out00003");
    CHECK(unlink(p) == 0);
    expect_failure(d, "hydro", "hydro_00002.out00003", "No such file");
    file_path(p, sizeof p, d, "amr_00002.out00005");
    CHECK(unlink(p) == 0);
    expect_failure(d, "gravity", "amr_00002.out00005", "missing");

    printf("truncated file\n");
    d = fresh_copy("truncated");
    file_path(p, sizeof p, d, "hydro_00002.out00002");
    CHECK(truncate(p, 300000) == 0);
    expect_failure(d, "hydro", "hydro_00002.out00002", "truncated");
    file_path(p, sizeof p, d, "part_00002.out00006");
    CHECK(truncate(p, 20000) == 0);
    expect_failure(d, "particles", "part_00002.out00006", "truncated");

    printf("record markers that disagree\n");
    d = fresh_copy("markers");
    file_path(p, sizeof p, d, "amr_00002.out00004");
    int32_t five = 5;
    patch(p, 8, &five, 4); /* tail marker of record 1 */
    expect_failure(d, "hydro", "amr_00002.out00004: record 1 at byte 0", "disagree");

    printf("record of the wrong length\n");
    d = fresh_copy("length");
    file_path(p, sizeof p, d, "grav_00002.out00007");
    shorten_record(p, 7, 8); /* the first per-cell record of level 1 */
    expect_failure(d, "gravity", "grav_00002.out00007: record ", "expected");
    file_path(p, sizeof p, d, "amr_00002.out00002");
    shorten_record(p, 3, 4); /* nx, ny, nz */
    expect_failure(d, "hydro", "amr_00002.out00002: record 3 at byte 24", "holds 8 bytes");

    printf("ncpu that does not match the files\n");
    d = fresh_copy("ncpu");
    file_path(p, sizeof p, d, "info_00002.txt");
    rewrite_text(p, "ncpu        =          8", "ncpu        =          4");
    expect_failure(d, "hydro", "info_00002.txt", "ncpu = 4");
    d = fresh_copy("ncpu16");
    file_path(p, sizeof p, d, "info_00002.txt");
    rewrite_text(p, "ncpu        =          8", "ncpu        =         16");
    expect_failure(d, "hydro", "info_00002.txt", "ncpu = 16");

    printf("not a RAMSES output\n");
    snprintf(p, sizeof p, "%s/empty", g_tmp);
    CHECK(mkdir(p, 0700) == 0);
    expect_failure(p, "hydro", "empty", "not a RAMSES output");
    d = fresh_copy("noamr");
    snprintf(p, sizeof p, "rm %s/amr_*", d);
    CHECK(system(p) == 0);
    expect_failure(d, "hydro", "output_00002", "not a RAMSES output");
    file_path(p, sizeof p, d, "info_00002.txt");
    expect_failure(p, "hydro", "info_00002.txt", "not a folder");
    d = fresh_copy("badinfo");
    file_path(p, sizeof p, d, "info_00002.txt");
    rewrite_text(p, "levelmax    =          8", "levelmax    =      eight");
    expect_failure(d, "hydro", "info_00002.txt: line 4", "not a number");

    printf("corrupt descriptor\n");
    d = fresh_copy("descriptor");
    file_path(p, sizeof p, d, "hydro_file_descriptor.txt");
    rewrite_text(p, " 3, velocity_y, d", " 3, velocity_y, z");
    expect_failure(d, "hydro", "hydro_file_descriptor.txt: line 5, column 17", "unknown variable type");
    d = fresh_copy("descriptor2");
    file_path(p, sizeof p, d, "part_file_descriptor.txt");
    rewrite_text(p, " 9, levelp, i", "10, levelp, i");
    expect_failure(d, "particles", "part_file_descriptor.txt: line 11", "variable 10 where variable 9");
    d = fresh_copy("descriptor3");
    file_path(p, sizeof p, d, "hydro_file_descriptor.txt");
    rewrite_text(p, " 6, metallicity, d\n", "");
    expect_failure(d, "hydro", "hydro_file_descriptor.txt lists 5 variables", "hold 6");

    printf("bytes after the last record\n");
    d = fresh_copy("trailing");
    file_path(p, sizeof p, d, "amr_00002.out00003");
    FILE *tail = fopen(p, "ab");
    CHECK(tail && fwrite("junk", 1, 4, tail) == 4);
    if (tail)
        fclose(tail);
    expect_failure(d, "hydro", "amr_00002.out00003: byte ", "4 bytes after the last record");

    printf("a part descriptor that lists fewer fields than the files hold\n");
    d = fresh_copy("fewer_fields");
    file_path(p, sizeof p, d, "part_file_descriptor.txt");
    rewrite_text(p, "13, metallicity, d\n", "");
    /* Every part file is now wrong: the error must name the first, on any
     * number of threads (it once named whichever thread failed first). */
    for (g_threads = 1; g_threads <= 4; g_threads++)
        for (int again = 0; again < 4; again++)
            expect_failure(d, "particles", "part_00002.out00001: record ",
                           "1 more records than the 12 fields the descriptor lists");
    g_threads = 0;

    rt_cases();

    snprintf(p, sizeof p, "rm -rf '%s'", g_tmp);
    CHECK(system(p) == 0);
    return test_done();
}
