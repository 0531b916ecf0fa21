/* Core: errors, accounting, tables, thread budget, units, selections,
 * JSON, atomic files. */
#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "check.h"
#include "core/memory_big.h"
#include "core/testhooks.h"
#include "snapkit/snapkit.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/util/json.h"
#include "snapkit/util/number.h"

static void test_errors(void)
{
    sk_error e;
    sk_error_clear(&e);
    CHECK_EQ_INT(e.code, SK_OK);
    int rc = sk_fail_record(&e, SK_ERR_FORMAT, "/d/amr_00001.out00003", 7, 1234,
                            "record markers disagree (%d vs %d)", 8, 12);
    CHECK_EQ_INT(rc, SK_ERR_FORMAT);
    CHECK_EQ_STR(e.message,
                 "/d/amr_00001.out00003: record 7 at byte 1234: record markers disagree (8 vs 12)");
    CHECK_EQ_INT(e.offset, 1234);
    CHECK_EQ_INT(e.record, 7);
    sk_fail_text(&e, SK_ERR_FORMAT, "a.dump", 12, 5, "not a number: '%s'", "1.2.3");
    CHECK_EQ_STR(e.message, "a.dump: line 12, column 5: not a number: '1.2.3'");
    sk_fail_errno(&e, "/nope", ENOENT, "cannot open");
    CHECK_EQ_STR(e.message, "/nope: cannot open: No such file or directory");
    CHECK_EQ_INT(e.code, SK_ERR_IO);
    sk_fail(&e, SK_ERR_ARG, NULL, -1, "bad %s", "thing");
    CHECK_EQ_STR(e.message, "bad thing");
    CHECK_EQ_INT(sk_fail(NULL, SK_ERR_RANGE, "x", 1, "ignored"), SK_ERR_RANGE);

    sk_error first, second;
    sk_error_clear(&first);
    sk_fail(&second, SK_ERR_IO, "b", -1, "second");
    sk_error_keep_first(&first, &second);
    CHECK_EQ_STR(first.message, "b: second");
    sk_fail(&second, SK_ERR_IO, "c", -1, "third");
    sk_error_keep_first(&first, &second);
    CHECK_EQ_STR(first.message, "b: second");
}

static void test_memory(void)
{
    sk_mem_stats a, b;
    sk_mem_get(&a);
    sk_mem_reset_peak();
    char *p = sk_malloc(1000);
    CHECK(p != NULL);
    CHECK_EQ_INT(((uintptr_t)p) % 64, 0);
    CHECK_EQ_INT(sk_block_size(p), 1000);
    sk_mem_get(&b);
    CHECK_EQ_INT(b.total - a.total, 1000);
    CHECK_EQ_INT(b.current - a.current, 1000);
    CHECK(b.peak >= a.current + 1000);
    p = sk_realloc(p, 5000);
    CHECK_EQ_INT(sk_block_size(p), 5000);
    sk_free(p);
    sk_mem_get(&b);
    CHECK_EQ_INT(b.current, a.current);
    CHECK_EQ_INT(b.total - a.total, 6000);
    CHECK(sk_calloc((size_t)-1, 16) == NULL);
}

/* Large blocks: 64-byte aligned, counted by their size, their freed
 * pages handed to the next allocation of about that size (the same
 * address, its bytes zero again through sk_calloc), not to one a quarter
 * smaller or larger than what they hold. */
static void test_big_blocks(void)
{
    size_t n = (size_t)24 << 20;
    sk_mem_stats a, b;
    sk_mem_get(&a);
    unsigned char *p = sk_calloc(n, 1);
    CHECK(p != NULL && (uintptr_t)p % 64 == 0);
    if (!p)
        return;
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i += 4096)
        nonzero += p[i] != 0;
    CHECK_EQ_INT(nonzero, 0);
    memset(p, 0xab, n);
    sk_mem_get(&b);
    CHECK_EQ_INT(b.current - a.current, n);
    CHECK_EQ_INT(sk_block_size(p), n);
    sk_free(p);
    sk_mem_get(&b);
    CHECK_EQ_INT(b.current, a.current);
    unsigned char *q = sk_calloc(n - 4096, 1); /* fits the freed region */
    CHECK(q == p);
    for (size_t i = 0; q && i < n - 4096; i += 4093)
        nonzero += q[i] != 0;
    CHECK_EQ_INT(nonzero, 0);
    sk_free(q);
    unsigned char *small = sk_malloc(n / 2); /* would waste half of it */
    CHECK(small != NULL && small != p);
    unsigned char *again = sk_malloc(n);
    CHECK(again == p);
    sk_free(small);
    sk_free(again);
}

/* Freed large blocks are reused even when their size is not a whole number
 * of huge pages (4 MB of payload: a 6 MB region), and when more are freed
 * than the cache keeps, the ones freed longest ago go back to the kernel:
 * of 17 freed, the next 16 allocations get exactly the last 16. */
static void test_big_block_reuse(void)
{
    enum { N = 17 };
    size_t n = (size_t)4 << 20;
    void *p[N], *q[N - 1];
    for (int i = 0; i < N; i++) {
        p[i] = sk_malloc(n);
        CHECK(p[i] != NULL);
    }
    for (int i = 0; i < N; i++)
        sk_free(p[i]);
    int kept = 0, oldest = 0;
    for (int i = 0; i < N - 1; i++) {
        q[i] = sk_malloc(n);
        for (int k = 1; k < N; k++)
            kept += q[i] == p[k];
        oldest += q[i] == p[0];
    }
    CHECK_EQ_INT(kept, N - 1);
    CHECK_EQ_INT(oldest, 0);
    for (int i = 0; i < N - 1; i++)
        sk_free(q[i]);
}

/* The free 2 MB blocks huge page advice waits for, from /proc/buddyinfo's
 * counts of free blocks per order (order n: 4 KB << n): a line of this
 * machine's, worked by hand. */
static void test_buddyinfo(void)
{
    const char *text =
        "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
        "Node 0, zone    DMA32      4      1      2      2      2      2      1      4      4      2    752 \n"
        "Node 0, zone   Normal  33849  27132   8463   7252   2333   1632    932    764    366    264   2436 \n";
    size_t mb2 = (size_t)2 << 20, mb4 = (size_t)4 << 20;
    size_t want = (1 + 2 + 264) * mb2 + (3 + 752 + 2436) * mb4;
    CHECK_EQ_INT(big_free_huge_bytes(text, 4096), want);
    /* 64 KB pages: a 2 MB block from order 5 up (32 pages) */
    CHECK_EQ_INT(big_free_huge_bytes("Node 0, zone Normal 9 9 9 9 9 1 2\n", 65536), 1 * mb2 + 2 * mb4);
    CHECK_EQ_INT(big_free_huge_bytes("Node 0, zone Normal 5 5 5 5 5 5 5 5 5\n", 4096), 0);
    CHECK_EQ_INT(big_free_huge_bytes("Node 0, zone Normal 0 0 0 0 0 0 0 0 0 7", 4096), 7 * mb2);
    CHECK_EQ_INT(big_free_huge_bytes("", 4096), 0);
    CHECK_EQ_INT(big_free_huge_bytes("garbage\nmore", 4096), 0);
}

static void test_table(void)
{
    sk_error e;
    sk_table *t = sk_table_new(5);
    double *x = sk_table_add(t, "x", SK_FLOAT64, &e);
    int32_t *lv = sk_table_add(t, "level", SK_INT32, &e);
    CHECK(x && lv);
    for (int i = 0; i < 5; i++) {
        x[i] = i * 1.5;
        lv[i] = 10 + i;
    }
    CHECK(sk_table_add(t, "x", SK_FLOAT64, &e) == NULL);
    CHECK_CONTAINS(e.message, "already");
    CHECK_EQ_INT(sk_table_ncols(t), 2);
    CHECK_EQ_INT(sk_table_bytes(t), 5 * 12);
    CHECK(sk_table_find(t, "level") == sk_table_col(t, 1));
    CHECK(sk_table_find(t, "nope") == NULL);
    CHECK_CLOSE(sk_column_get_double(sk_table_find(t, "x"), 3), 4.5, 0);

    uint8_t keep[5] = {1, 0, 1, 0, 1};
    CHECK_EQ_INT(sk_table_filter(t, keep), 3);
    x = sk_table_find(t, "x")->data;
    lv = sk_table_find(t, "level")->data;
    CHECK_CLOSE(x[1], 3.0, 0);
    CHECK_EQ_INT(lv[2], 14);

    CHECK_OK(sk_table_rename(t, "x", "position_x", &e), &e);
    CHECK(sk_table_find(t, "position_x") != NULL);
    CHECK_EQ_INT(sk_table_remove(t, "level"), SK_OK);
    CHECK_EQ_INT(sk_table_remove(t, "level"), SK_ERR_ARG);

    sk_table_meta_set(t, "boxlen", "2.5");
    sk_table_meta_set_double(t, "time", 0.1);
    sk_table_meta_set(t, "boxlen", "3");
    CHECK_EQ_INT(sk_table_meta_count(t), 2);
    CHECK_CLOSE(sk_table_meta_double(t, "boxlen", 0), 3.0, 0);
    CHECK_EQ_STR(sk_table_meta_get(t, "time"), "0.1");
    CHECK_CLOSE(sk_table_meta_double(t, "missing", -1), -1, 0);

    int32_t *codes = sk_table_add(t, "species", SK_CATEGORY, &e);
    codes[0] = 0;
    const char *labels[] = {"Cu", "Ni"};
    CHECK_OK(sk_table_set_labels(t, "species", labels, 2, &e), &e);
    CHECK_EQ_STR(sk_table_find(t, "species")->labels[1], "Ni");
    CHECK_EQ_STR(sk_dtype_name(SK_UINT16), "uint16");
    CHECK_EQ_INT(sk_dtype_from_name("float32"), SK_FLOAT32);
    sk_table_free(t);
}

struct fake_env {
    const char *names[8];
    const char *values[8];
};

static const char *fake_getenv(const char *name, void *ctx)
{
    struct fake_env *f = ctx;
    for (int i = 0; i < 8 && f->names[i]; i++)
        if (strcmp(f->names[i], name) == 0)
            return f->values[i];
    return NULL;
}

static void test_threads(void)
{
    sk_thread_budget b;
    struct fake_env none = {{0}, {0}};
    CHECK_EQ_INT(sk_thread_budget_from(0, fake_getenv, &none, 8, 16, &b), 8);
    CHECK_EQ_STR(b.limited_by, "affinity");
    CHECK_EQ_INT(sk_thread_budget_from(0, fake_getenv, &none, 0, 16, &b), 16);
    CHECK_EQ_STR(b.limited_by, "machine");
    CHECK_EQ_INT(sk_thread_budget_from(3, fake_getenv, &none, 8, 16, &b), 3);
    CHECK_EQ_INT(b.owned, 8);
    CHECK_EQ_INT(sk_thread_budget_from(32, fake_getenv, &none, 8, 16, &b), 8);

    const char *vars[] = {"SLURM_CPUS_PER_TASK", "SLURM_JOB_CPUS_PER_NODE", "PBS_NP", "NSLOTS",
                          "OMP_NUM_THREADS"};
    for (int i = 0; i < 5; i++) {
        struct fake_env one = {{vars[i]}, {"4"}};
        CHECK_EQ_INT(sk_thread_budget_from(0, fake_getenv, &one, 8, 16, &b), 4);
        CHECK_EQ_STR(b.limited_by, vars[i]);
    }
    struct fake_env two = {{"SLURM_JOB_CPUS_PER_NODE", "OMP_NUM_THREADS"}, {"6(x2),4", "5"}};
    CHECK_EQ_INT(sk_thread_budget_from(0, fake_getenv, &two, 8, 16, &b), 5);
    CHECK_EQ_STR(b.limited_by, "OMP_NUM_THREADS");
    struct fake_env bad = {{"SLURM_CPUS_PER_TASK"}, {"zero"}};
    CHECK_EQ_INT(sk_thread_budget_from(0, fake_getenv, &bad, 8, 16, &b), 8);
    CHECK_EQ_INT(sk_parse_cpu_count("16(x2),8"), 16);
    CHECK_EQ_INT(sk_parse_cpu_count("0"), 0);

    /* The real affinity mask: pin to one CPU and the budget follows. */
    cpu_set_t old, one;
    if (sched_getaffinity(0, sizeof old, &old) == 0) {
        int first = -1;
        for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
            if (CPU_ISSET(c, &old))
                first = c;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        if (sched_setaffinity(0, sizeof one, &one) == 0) {
            unsetenv("OMP_NUM_THREADS");
            sk_thread_budget_get(0, &b);
            CHECK_EQ_INT(b.threads, 1);
            CHECK_EQ_INT(b.affinity, 1);
            sched_setaffinity(0, sizeof old, &old);
        }
    }
}

static void test_units_and_selection(void)
{
    sk_units u;
    sk_error e;
    /* A 100 kpc box in code units of 1 kpc (boxlen 100). */
    sk_units_set(&u, 100.0, SK_CM_PER_KPC, 1e-24, 3.15e13);
    double f;
    CHECK_OK(sk_box_units_per(&u, "kpc", &f, &e), &e);
    CHECK_CLOSE(f, 0.01, 1e-15);
    CHECK_OK(sk_box_units_per(&u, "Mpc", &f, &e), &e);
    CHECK_CLOSE(f, 10.0, 1e-15);
    CHECK_OK(sk_box_units_per(&u, "code", &f, &e), &e);
    CHECK_CLOSE(f, 0.01, 1e-15);
    CHECK(sk_box_units_per(&u, "furlong", &f, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "furlong");
    CHECK_CLOSE(u.unit_m, 1e-24 * pow(SK_CM_PER_KPC, 3), 1e-15);
    /* T = p/rho * unit_v^2 * mH * mu / kB */
    double v = SK_CM_PER_KPC / 3.15e13;
    CHECK_CLOSE(sk_temperature_factor(&u, 0), v * v * 1.66e-24 / 0.76 / 1.380649e-16, 1e-14);

    sk_selection sel;
    sk_selection_init(&sel);
    sk_region_request r = {0};
    strcpy(r.unit, "kpc");
    r.center_is_bc = 1;
    r.has_range[0] = 1;
    r.range[0][0] = -10;
    r.range[0][1] = 10;
    CHECK_OK(sk_selection_set_region(&sel, &r, &u, &e), &e);
    CHECK(sel.has_box);
    CHECK_CLOSE(sel.lo[0], 0.4, 1e-15);
    CHECK_CLOSE(sel.hi[0], 0.6, 1e-15);
    CHECK_CLOSE(sel.hi[1], 1.0, 0);
    CHECK(sk_selection_contains(&sel, 0.4, 0.9, 0.0));
    CHECK(!sk_selection_contains(&sel, 0.6, 0.5, 0.5));
    r.range[0][0] = 5;
    r.range[0][1] = 5;
    CHECK(sk_selection_set_region(&sel, &r, &u, &e) == SK_ERR_ARG);

    CHECK_OK(sk_selection_set_vars(&sel, "density, pressure,,metallicity", &e), &e);
    CHECK_EQ_INT(sel.nvars, 3);
    CHECK(sk_selection_wants(&sel, "pressure"));
    CHECK(!sk_selection_wants(&sel, "velocity_x"));
    sk_table *t = sk_table_new(0);
    sel.lmax = 7;
    CHECK_OK(sk_selection_to_meta(&sel, t), &e);
    CHECK_EQ_STR(sk_table_meta_get(t, "selection.vars"), "density,pressure,metallicity");
    CHECK_EQ_STR(sk_table_meta_get(t, "selection.lmax"), "7");
    sk_table_free(t);
    sk_selection_clear(&sel);
}

static void test_json(void)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "name", "a\"b\n");
    sk_json_kv_double(&j, "x", 0.1);
    sk_json_kv_int(&j, "n", -42);
    sk_json_key(&j, "list");
    sk_json_array_begin(&j);
    sk_json_double(&j, 1e300);
    sk_json_double(&j, NAN);
    sk_json_object_begin(&j);
    sk_json_object_end(&j);
    sk_json_array_end(&j);
    sk_json_object_end(&j);
    CHECK_EQ_STR(sk_json_text(&j),
                 "{\"name\":\"a\\\"b\\n\",\"x\":0.1,\"n\":-42,\"list\":[1e+300,null,{}]}");
    sk_json_free(&j);
}

/* Strings are valid UTF-8 JSON whatever their bytes (issue 34, row 12):
 * well-formed sequences stay, every other byte becomes U+FFFD. */
static void test_json_utf8(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        {"a\xff" "b", "\"a\\ufffdb\""},                    /* not a lead byte */
        {"\xc3", "\"\\ufffd\""},                        /* cut at the end */
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},              /* overlong */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},    /* a surrogate */
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* above U+10FFFF */
        {"\xe2\x82x", "\"\\ufffd\\ufffdx\""},             /* a continuation missing */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_json_string(&j, cases[i].in);
        CHECK_EQ_STR(sk_json_text(&j), cases[i].out);
        sk_json_free(&j);
    }
}

/* Text values: numbers when the whole text is one, strings otherwise. */
static void test_json_text_value(void)
{
    static const char *const in[] = {"12", "-0.5", "1e3", "", "abc", "1.5 kpc", " 7"};
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_array_begin(&j);
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        sk_json_text_value(&j, in[i]);
    sk_json_array_end(&j);
    CHECK_EQ_STR(sk_json_text(&j), "[12,-0.5,1000,\"\",\"abc\",\"1.5 kpc\",\" 7\"]");
    sk_json_free(&j);
}

static void test_atomic_file(void)
{
    char dir[64], path[128];
    sk_error e;
    CHECK(test_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/out.bin", dir);

    sk_atomic_file *f;
    CHECK_OK(sk_atomic_open(&f, path, &e), &e);
    CHECK_OK(sk_atomic_write(f, "hello ", 6, &e), &e);
    CHECK_OK(sk_atomic_write(f, "world", 5, &e), &e);
    CHECK_OK(sk_atomic_pwrite(f, "W", 1, 6, &e), &e);
    CHECK_EQ_INT(access(path, F_OK), -1); /* nothing at the target before commit */
    CHECK_OK(sk_atomic_commit(f, &e), &e);
    char buf[32] = {0};
    FILE *in = fopen(path, "rb");
    CHECK(in && fread(buf, 1, sizeof buf, in) == 11);
    if (in)
        fclose(in);
    CHECK_EQ_STR(buf, "hello World");

    /* A write that fails midway (a full disk) leaves the old file untouched
     * and no temporary file behind. */
    CHECK_OK(sk_atomic_open(&f, path, &e), &e);
    sk_atomic_fail_after(f, 4);
    CHECK(sk_atomic_write(f, "replacement", 11, &e) == SK_ERR_IO);
    CHECK_CONTAINS(e.message, "No space left on device");
    sk_atomic_abort(f);
    in = fopen(path, "rb");
    memset(buf, 0, sizeof buf);
    CHECK(in && fread(buf, 1, sizeof buf, in) == 11);
    if (in)
        fclose(in);
    CHECK_EQ_STR(buf, "hello World");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 1", dir);
    CHECK_EQ_INT(system(cmd), 0);

    snprintf(path, sizeof path, "%s/no/such/dir/x", dir);
    CHECK(sk_atomic_open(&f, path, &e) == SK_ERR_IO);
    CHECK_CONTAINS(e.message, "no/such/dir/x");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

static void test_numbers(void)
{
    char buf[SK_NUMBER_BUFSIZE];
    sk_format_double(0.1, buf);
    CHECK_EQ_STR(buf, "0.1");
    sk_format_double(36.150000000000006, buf);
    CHECK_EQ_STR(buf, "36.150000000000006");
    double v;
    const char *s = "  -1.5e3x", *stop;
    CHECK(sk_parse_double(s + 2, s + strlen(s), &v, &stop));
    CHECK_CLOSE(v, -1500.0, 0);
    CHECK(*stop == 'x');
    int64_t i;
    const char *big = "9223372036854775807";
    CHECK(sk_parse_int64(big, big + strlen(big), &i, NULL) && i == INT64_MAX);
    const char *over = "9223372036854775808";
    CHECK(!sk_parse_int64(over, over + strlen(over), &i, NULL));
    const char *neg = "-9223372036854775808";
    CHECK(sk_parse_int64(neg, neg + strlen(neg), &i, NULL) && i == INT64_MIN);
}

/* The struct layout table: known answers, unknown names, and members that
 * tile each struct leaving only alignment padding (a member left out of
 * the table would leave a hole). */
static void test_abi(void)
{
    size_t size = 0, off = 0, fsize = 0;
    int n = 0;
    CHECK_EQ_INT(sk_abi_struct("sk_error", &size, &n), 0);
    CHECK_EQ_INT(size, sizeof(sk_error));
    CHECK_EQ_INT(n, 7);
    CHECK_EQ_INT(sk_abi_field("sk_error", "message", &off, &fsize), 0);
    CHECK_EQ_INT(off, offsetof(sk_error, message));
    CHECK_EQ_INT(fsize, 2048);
    CHECK_EQ_INT(sk_abi_field("sk_read_options", "progress", &off, &fsize), 0);
    CHECK_EQ_INT(off, offsetof(sk_read_options, progress));
    CHECK_EQ_INT(fsize, sizeof(sk_progress));
    CHECK_EQ_INT(sk_abi_struct("sk_nothing", &size, &n), -1);
    CHECK_EQ_INT(sk_abi_struct(NULL, NULL, NULL), -1);
    CHECK_EQ_INT(sk_abi_field("sk_error", "nothing", &off, NULL), -1);
    CHECK(sk_abi_field_name("sk_error", 7) == NULL);
    CHECK(sk_abi_field_name("sk_error", -1) == NULL);
    CHECK_EQ_STR(sk_abi_field_name("sk_error", 0), "code");
    int nstructs = 0;
    for (const char *name; (name = sk_abi_struct_name(nstructs)) != NULL; nstructs++) {
        CHECK_EQ_INT(sk_abi_struct(name, &size, &n), 0);
        CHECK_MSG(n > 0, "%s has no members", name);
        size_t end = 0;
        for (int i = 0; i < n; i++) {
            const char *field = sk_abi_field_name(name, i);
            CHECK(field != NULL);
            if (!field)
                break;
            CHECK_EQ_INT(sk_abi_field(name, field, &off, &fsize), 0);
            CHECK_MSG(off >= end && off - end < 8, "%s.%s: at %zu after a member ending at %zu",
                      name, field, off, end);
            end = off + fsize;
        }
        CHECK_MSG(end <= size && size - end < 8, "%s: members end at %zu of %zu", name, end, size);
    }
    CHECK(nstructs >= 19);
}

int main(void)
{
    test_errors();
    test_memory();
    test_big_blocks();
    test_buddyinfo();
    test_big_block_reuse();
    test_table();
    test_threads();
    test_units_and_selection();
    test_json();
    test_json_utf8();
    test_json_text_value();
    test_atomic_file();
    test_numbers();
    test_abi();
    CHECK_EQ_STR(sk_version(), "0.1.0");
    return test_done();
}
