/* Read shares (sk_read_options.share_rank of share_count), what MPI ranks
 * read: concatenated in rank order they are the whole read, row for row
 * and byte for byte, for RAMSES CPU files and for compact-file chunks,
 * also with more shares than files (some empty) and with a region. */
#include "check.h"
#include "snapkit/snapkit.h"

/* Does the concatenation of parts[0..n) hold exactly whole's rows? */
static int same_concat(const sk_table *whole, sk_table **parts, int n)
{
    int64_t rows = 0;
    for (int p = 0; p < n; p++)
        rows += sk_table_nrows(parts[p]);
    if (rows != sk_table_nrows(whole))
        return 0;
    for (int j = 0; j < sk_table_ncols(whole); j++) {
        const sk_column *c = sk_table_col(whole, j);
        size_t size = sk_dtype_size(c->type);
        const unsigned char *at = c->data;
        for (int p = 0; p < n; p++) {
            int64_t m = sk_table_nrows(parts[p]);
            if (m == 0)
                continue;
            const sk_column *pc = sk_table_find(parts[p], c->name);
            if (!pc || pc->type != c->type || memcmp(pc->data, at, (size_t)m * size) != 0)
                return 0;
            at += (size_t)m * size;
        }
    }
    return 1;
}

static void check_ramses_shares(sk_ramses *r, const char *component, const sk_selection *sel,
                                int count)
{
    sk_error err;
    sk_table *whole = NULL, *parts[16] = {0};
    sk_read_options opt = {.threads = 2};
    CHECK(sk_ramses_read(r, component, sel, &opt, &whole, NULL, &err) == SK_OK);
    int files = 0, nonempty = 0;
    for (int p = 0; p < count; p++) {
        sk_read_stats st;
        sk_read_options so = {.threads = 1 + p % 2, .share_rank = p, .share_count = count};
        CHECK_MSG(sk_ramses_read(r, component, sel, &so, &parts[p], &st, &err) == SK_OK, "%s",
                  err.message);
        files += st.files_opened;
        nonempty += parts[p] && sk_table_nrows(parts[p]) > 0;
    }
    sk_read_stats all;
    sk_table_free(whole);
    CHECK(sk_ramses_read(r, component, sel, &opt, &whole, &all, &err) == SK_OK);
    CHECK_EQ_INT(files, all.files_opened); /* each file read by one share exactly */
    CHECK_MSG(same_concat(whole, parts, count), "%s in %d shares", component, count);
    if (count <= 8 && !sel)
        CHECK_EQ_INT(nonempty, count); /* 8 files, balanced: none left without work */
    for (int p = 0; p < count; p++)
        sk_table_free(parts[p]);
    sk_table_free(whole);
}

static void test_ramses(void)
{
    char dir[4096];
    sk_error err;
    sk_ramses *r = NULL;
    CHECK(sk_ramses_open(&r, test_data(dir, sizeof dir, "ramses/gravpart/output_00002"), &err) ==
          SK_OK);
    if (!r)
        return;
    for (int count = 1; count <= 9; count += 2) {
        check_ramses_shares(r, "hydro", NULL, count);
        check_ramses_shares(r, "particles", NULL, count);
    }
    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = 1;
    for (int d = 0; d < 3; d++) {
        sel.lo[d] = 0.3;
        sel.hi[d] = 0.6;
    }
    check_ramses_shares(r, "gravity", &sel, 4);
    sk_ramses_close(r);
}

static void test_store(void)
{
    char dir[4096], path[] = "/tmp/snapkit_test_share_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    sk_error err;
    sk_store_convert_options co;
    sk_store_convert_options_init(&co);
    co.components = "hydro";
    co.write.chunk_rows = SK_STORE_CHUNK_ROWS_MIN;
    CHECK(sk_store_convert(test_data(dir, sizeof dir, "ramses/gravpart/output_00002"), path, &co,
                           NULL, &err) == SK_OK);
    sk_store *s = NULL;
    CHECK(sk_store_open(&s, path, NULL, &err) == SK_OK);
    if (!s) {
        unlink(path);
        return;
    }
    int64_t total = 0;
    sk_store_chunks_for(s, "hydro", NULL, NULL, &total, &err);
    CHECK(total > 4); /* enough chunks to share */
    sk_table *whole = NULL, *parts[5] = {0};
    CHECK(sk_store_read(s, "hydro", NULL, NULL, &whole, NULL, &err) == SK_OK);
    int64_t chunks = 0;
    for (int p = 0; p < 5; p++) {
        sk_read_stats st;
        sk_read_options so = {.share_rank = p, .share_count = 5};
        CHECK(sk_store_read(s, "hydro", NULL, &so, &parts[p], &st, &err) == SK_OK);
        chunks += st.files_opened;
        CHECK(sk_table_nrows(parts[p]) > 0);
    }
    CHECK_EQ_INT(chunks, total);
    CHECK(same_concat(whole, parts, 5));
    for (int p = 0; p < 5; p++)
        sk_table_free(parts[p]);
    sk_table_free(whole);
    sk_store_close(s);
    unlink(path);
}

int main(void)
{
    test_ramses();
    test_store();
    return test_done();
}
