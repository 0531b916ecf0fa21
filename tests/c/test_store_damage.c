/* Damaged and interrupted compact files: one byte of a chunk or of the
 * footer, truncation, another file, a newer version, and writes that fail
 * midway (as on a full disk) leaving the old file as it was. */
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "formats/snapkit/format.h"
#include "formats/snapkit/reader.h"
#include "store_tables.h"

static cells g_cells;
static char g_dir[256];

static void flip_byte(const char *path, int64_t offset)
{
    int fd = open(path, O_RDWR);
    uint8_t b;
    CHECK(pread(fd, &b, 1, offset) == 1);
    b ^= 0x5a;
    CHECK(pwrite(fd, &b, 1, offset) == 1);
    close(fd);
}

static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        fwrite(buf, 1, n, b);
    fclose(a);
    fclose(b);
}

/* Read everything; return the status and leave the message in e. */
static int read_all(const char *path, sk_error *e)
{
    sk_store *s;
    int rc = sk_store_open(&s, path, NULL, e);
    if (rc != SK_OK)
        return rc;
    for (int i = 0; i < s->footer.ntables && rc == SK_OK; i++) {
        sk_table *t = NULL;
        rc = sk_store_read(s, s->footer.tables[i].name, NULL, NULL, &t, NULL, e);
        sk_table_free(t);
    }
    sk_store_close(s);
    return rc;
}

static void test_damage(void)
{
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    const sk_table *tables[] = {hydro};
    char good[512], bad[512];
    tmp_path(g_dir, "good.snapkit", good, sizeof good);
    tmp_path(g_dir, "bad.snapkit", bad, sizeof bad);
    sk_error e;
    CHECK_OK(sk_store_save(good, tables, NULL, 1, NULL, NULL, &e), &e);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, good, NULL, &e), &e);
    const st_table *t = st_find_table(s, "hydro", &e);
    int dens = sk_table_index(t->schema, "density");
    const st_cc *cc = st_cc_at(t, 3, dens);
    int64_t chunk_byte = cc->offset + cc->stored / 2, footer = s->footer_offset + 100;
    int64_t size = s->size;
    sk_store_close(s);

    /* One byte of chunk 4's density. */
    copy_file(good, bad);
    flip_byte(bad, chunk_byte);
    CHECK_EQ_INT(read_all(bad, &e), SK_ERR_CHECKSUM);
    CHECK_CONTAINS(e.message, "table hydro, chunk 4 of");
    CHECK_CONTAINS(e.message, "column density: checksum mismatch");
    CHECK_EQ_INT(e.record, 4);
    CHECK_OK(sk_store_open(&s, bad, NULL, &e), &e);
    t = st_find_table(s, "hydro", &e);
    CHECK_EQ_INT(sk_store_verify(s, 0, (sk_progress){0}, &e), SK_ERR_CHECKSUM);
    CHECK_CONTAINS(e.message, "chunk 4 of");
    /* A box that misses chunk 4 still reads. */
    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = 1;
    for (int a = 0; a < 3; a++) {
        sel.lo[a] = t->chunks[3].hi[a] < 0.5 ? 0.6 : 0.0;
        sel.hi[a] = t->chunks[3].hi[a] < 0.5 ? 1.0 : 0.05;
    }
    sk_table *part = NULL;
    int rc = sk_store_read(s, "hydro", &sel, NULL, &part, NULL, &e);
    CHECK_OK(rc, &e);
    sk_table_free(part);
    sk_store_close(s);

    /* One byte of the footer. */
    copy_file(good, bad);
    flip_byte(bad, footer);
    CHECK_EQ_INT(read_all(bad, &e), SK_ERR_CHECKSUM);
    CHECK_CONTAINS(e.message, "footer checksum mismatch");

    /* Truncated: by a little, by a lot, to nothing. */
    int64_t cuts[] = {size - 1, size - 41, size / 2, 20, 3, 0};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        copy_file(good, bad);
        CHECK(truncate(bad, cuts[k]) == 0);
        CHECK_EQ_INT(read_all(bad, &e), SK_ERR_FORMAT);
        if (cuts[k] >= 8)
            CHECK_CONTAINS(e.message, "truncated");
    }
    /* Something else entirely. */
    FILE *f = fopen(bad, "wb");
    for (int i = 0; i < 1000; i++)
        fputs("not a snapkit file\n", f);
    fclose(f);
    CHECK_EQ_INT(read_all(bad, &e), SK_ERR_FORMAT);
    CHECK_CONTAINS(e.message, "not a snapkit file");
    /* A newer major version in the tail. */
    copy_file(good, bad);
    int fd = open(bad, O_RDWR);
    uint8_t two[4] = {2, 0, 0, 0}; /* major 2, minor 0 */
    CHECK(pwrite(fd, two, 4, size - 16) == 4);
    close(fd);
    CHECK_EQ_INT(read_all(bad, &e), SK_ERR_VERSION);
    CHECK_CONTAINS(e.message, "format version 2.0 is newer than this snapkit reads (1.x)");
    CHECK_EQ_INT(read_all(g_dir, &e), SK_ERR_FORMAT);
    CHECK_CONTAINS(e.message, "is a folder");
    sk_table_free(hydro);
}

/* Read the hydro table of an open handle: its status. */
static int read_hydro(sk_store *s, sk_error *e)
{
    sk_table *t = NULL;
    int rc = sk_store_read(s, "hydro", NULL, NULL, &t, NULL, e);
    sk_table_free(t);
    return rc;
}

/* A handle keeps the checks of chunk-columns only while the file is the
 * one they were made in and its last change is over a second old
 * (lib/formats/snapkit/checks.c): a byte changed in place between two reads of one
 * handle is found, young file or settled, and verify hashes every byte. */
static void test_damage_between_reads(void)
{
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    const sk_table *tables[] = {hydro};
    char path[512];
    tmp_path(g_dir, "held.snapkit", path, sizeof path);
    sk_error e;
    CHECK_OK(sk_store_save(path, tables, NULL, 1, NULL, NULL, &e), &e);
    struct timespec settle = {1, 300000000}; /* the change time over a second old */
    for (int settled = 0; settled < 2; settled++) {
        if (settled)
            nanosleep(&settle, NULL);
        sk_store *s;
        CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
        const st_table *t = st_find_table(s, "hydro", &e);
        int dens = sk_table_index(t->schema, "density");
        const st_cc *cc = st_cc_at(t, 3, dens);
        int64_t byte = cc->offset + cc->stored / 2;
        CHECK_OK(read_hydro(s, &e), &e);
        CHECK_OK(read_hydro(s, &e), &e);
        /* a young file is hashed at every read; a settled one keeps its checks */
        CHECK_EQ_INT(s->checks_kept, settled);
        CHECK_EQ_INT(cc->checked == s->checks_gen, settled);
        flip_byte(path, byte);
        if (settled) /* settled again: only the file's new times tell the change */
            nanosleep(&settle, NULL);
        CHECK_EQ_INT(read_hydro(s, &e), SK_ERR_CHECKSUM);
        CHECK_CONTAINS(e.message, "chunk 4 of");
        CHECK_EQ_INT(sk_store_verify(s, 0, (sk_progress){0}, &e), SK_ERR_CHECKSUM);
        flip_byte(path, byte); /* the same bytes again, changed once more */
        CHECK_OK(read_hydro(s, &e), &e);
        CHECK_OK(sk_store_verify(s, 0, (sk_progress){0}, &e), &e);
        sk_store_close(s);
    }
    sk_table_free(hydro);
}

static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)))
        n += strstr(ent->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

static void test_interrupted_write_keeps_old_file(void)
{
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    sk_table *part = particle_table(20000);
    const sk_table *tables[] = {hydro, part};
    char path[512], copy[512];
    tmp_path(g_dir, "keep.snapkit", path, sizeof path);
    tmp_path(g_dir, "keep.copy", copy, sizeof copy);
    sk_error e;
    CHECK_OK(sk_store_save(path, tables, NULL, 1, NULL, NULL, &e), &e);
    copy_file(path, copy);
    int64_t before = file_size(path);
    sk_store_write_options opt;
    sk_store_write_options_init(&opt);
    int64_t points[] = {0, 10, 5000, before / 2, before + 20000};
    for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
        opt.fail_after_bytes = points[k];
        CHECK_EQ_INT(sk_store_save(path, tables, NULL, 2, &opt, NULL, &e), SK_ERR_IO);
        CHECK_CONTAINS(e.message, "No space left on device");
        CHECK_EQ_INT(file_size(path), before);
        CHECK_EQ_INT(count_temp_files(g_dir), 0);
    }
    FILE *a = fopen(path, "rb"), *b = fopen(copy, "rb");
    int same = 1, ca, cb;
    do {
        ca = fgetc(a);
        cb = fgetc(b);
        same &= ca == cb;
    } while (ca != EOF && cb != EOF);
    fclose(a);
    fclose(b);
    CHECK(same);
    CHECK_EQ_INT(read_all(path, &e), SK_OK);
    /* The same tables give the same bytes. */
    CHECK_OK(sk_store_save(copy, tables, NULL, 1, NULL, NULL, &e), &e);
    CHECK_EQ_INT(file_size(copy), before);
    sk_table_free(hydro);
    sk_table_free(part);
}

int main(void)
{
    CHECK(test_tmpdir(g_dir, sizeof g_dir) != NULL);
    build(&g_cells, 0, 0, 0, 0, 3, 7);
    test_damage();
    test_damage_between_reads();
    test_interrupted_write_keeps_old_file();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    CHECK(system(cmd) == 0);
    cells_free(&g_cells);
    return test_done();
}
