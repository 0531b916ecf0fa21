/* The record reader and the in-memory cell walk on the hand-built
 * one-oct output of fuzz/corpus/fuzz_ramses_records/one_oct (made by
 * fuzz/make_seeds.py): 8 leaves at level 1; and its error paths. */
#include "check.h"
#include "formats/ramses/fortran.h"
#include "formats/ramses/internal.h"
#include "snapkit/snapkit.h"

static void test_one_oct(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/../../fuzz/corpus/fuzz_ramses_records/one_oct",
             getenv("SNAPKIT_TEST_DATA") ? getenv("SNAPKIT_TEST_DATA") : "tests/data");
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    static uint8_t buf[8192];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t split = (size_t)buf[2] | ((size_t)buf[3] << 8);
    sk_ramses_info info = {.ncpu = 1, .ndim = 3, .levelmin = 1, .levelmax = 1};
    int64_t cells = 0;
    sk_error err;
    int rc = rs_cells_from_memory(buf + 4, split, buf + 4 + split, n - 4 - split, &info, 1, &cells,
                                  &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(cells, 8);
    /* A hydro file cut short: the error names the record and offset. */
    rc = rs_cells_from_memory(buf + 4, split, buf + 4 + split, n - 4 - split - 5, &info, 1, &cells,
                              &err);
    CHECK_EQ_INT(rc, SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "hydro: record 48 at byte");
    CHECK_CONTAINS(err.message, "truncated");
    /* An oct centre off the level's grid. */
    double bad = 0.25;
    uint8_t copy[8192];
    memcpy(copy, buf, n);
    fr_cursor c;
    fr_init(&c, "amr", copy + 4, split);
    CHECK_OK(fr_skip(&c, 32, &err), &err);
    memcpy((uint8_t *)c.data + c.pos + 4, &bad, 8);
    rc = rs_cells_from_memory(copy + 4, split, copy + 4 + split, n - 4 - split, &info, 1, &cells,
                              &err);
    CHECK_CONTAINS(err.message, "centre 0.25 is not on the level's grid");
}

static void test_record_errors(void)
{
    uint8_t data[32] = {4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 9};
    fr_cursor c;
    sk_error err;
    const uint8_t *p;
    size_t len;
    fr_init(&c, "f", data, 24);
    CHECK_OK(fr_next(&c, &p, &len, &err), &err);
    CHECK_EQ_INT(len, 4);
    CHECK_EQ_INT(rd_i32(p, 0), 1);
    CHECK_EQ_INT(fr_next(&c, &p, &len, &err), SK_ERR_FORMAT);
    CHECK_EQ_STR(err.message, "f: record 2 at byte 12: record of 8 bytes runs past the end of the "
                              "file (8 bytes left; truncated?)");
    fr_init(&c, "f", data, 12);
    CHECK_EQ_INT(fr_skip_sized(&c, 1, 8, &err), SK_ERR_FORMAT);
    CHECK_EQ_STR(err.message, "f: record 1 at byte 0: record holds 4 bytes, expected 8");
    int32_t neg = -4;
    memcpy(data, &neg, 4);
    fr_init(&c, "f", data, 12);
    CHECK_EQ_INT(fr_next(&c, &p, &len, &err), SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "negative record marker -4");
    fr_init(&c, "f", data, 2);
    CHECK_EQ_INT(fr_next(&c, &p, &len, &err), SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "inside a record marker");
}

int main(void)
{
    test_one_oct();
    test_record_errors();
    return test_done();
}
