/* libFuzzer target: open a .snapkit file from memory and read every table
 * whole, through a box, with lmax and with refined cells, then verify it.
 * Each input is tried twice: with checksums (the normal path, which must
 * reject damage cleanly) and without them, so that mutations reach the
 * footer parser and the chunk decoders behind the checksums. */
#include <stddef.h>
#include <stdint.h>

#include "snapkit/snapkit.h"

/* Tables bigger than this are not read (a footer may claim millions of
 * rows for columns that take no bytes), to keep runs fast and small. */
#define READ_LIMIT (16 << 20)
#define ROW_LIMIT (1 << 20)

static void read_table(sk_store *s, const char *name)
{
    sk_error e;
    sk_table *t = NULL;
    sk_read_options opt = {.threads = 1};
    sk_store_read(s, name, NULL, &opt, &t, NULL, &e);
    sk_table_free(t);

    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = 1;
    for (int a = 0; a < 3; a++) {
        sel.lo[a] = 0.25;
        sel.hi[a] = 0.6;
    }
    sel.lmax = 3;
    sk_store_read(s, name, &sel, &opt, &t, NULL, &e);
    sk_table_free(t);
    t = NULL;
    opt.with_refined = 1;
    sk_store_read(s, name, &sel, &opt, &t, NULL, &e);
    sk_table_free(t);
    t = NULL;
    sk_store_chunks_for(s, name, &sel, &opt, NULL, &e);
    sk_table_stats st;
    if (sk_store_stored_stats(s, name, &sel, &st, &e) == SK_OK)
        sk_table_stats_free(&st);
    if (sk_store_describe(s, name, &t, &e) == SK_OK)
        sk_table_free(t);
}

static void try_input(const uint8_t *data, size_t size, int skip_checksums)
{
    sk_store *s;
    sk_error e;
    sk_store_open_options opt = {.skip_checksums = skip_checksums};
    if (sk_store_open_memory(&s, data, size, "fuzz.snapkit", &opt, &e) != SK_OK)
        return;
    sk_store_file_info fi;
    sk_store_get_file_info(s, &fi);
    int64_t total = 0;
    for (int i = 0; i < fi.ntables; i++) {
        sk_store_table_info ti;
        if (sk_store_get_table_info(s, i, &ti, &e) != SK_OK)
            continue;
        int small = ti.bytes_raw <= READ_LIMIT && ti.rows <= ROW_LIMIT;
        total += small ? ti.bytes_raw : READ_LIMIT + 1;
        if (small)
            read_table(s, ti.name);
    }
    for (int i = 0; i < sk_store_meta_count(s); i++)
        (void)sk_store_meta_value(s, i);
    if (total <= READ_LIMIT)
        sk_store_verify(s, 1, (sk_progress){0}, &e);
    sk_store_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try_input(data, size, 0);
    try_input(data, size, 1);
    return 0;
}
