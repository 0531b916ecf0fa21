/* The extended XYZ comment grammar (docs/atoms.md): values typed as the
 * libAtoms specification says, malformed text named by column, the files of
 * tests/data/atoms/extxyz_grammar read, written and read back to the same
 * values, and keys and values that need quoting written so they do. */
#include <math.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

static char g_tmp[256];

/* Parse text and check type, dimensions, shape and the elements as text
 * ("1 2 3", strings joined by '|'). */
static void expect(const char *text, sk_xyz_type type, int ndim, int64_t rows, int64_t cols,
                   const char *elements)
{
    sk_xyz_value v;
    sk_error e;
    int rc = sk_xyz_value_parse(text, &v, &e);
    CHECK_MSG(rc == SK_OK, "%s: %s", text, e.message);
    if (rc != SK_OK)
        return;
    CHECK_MSG(v.type == type && v.ndim == ndim, "%s: type %d ndim %d", text, v.type, v.ndim);
    CHECK_MSG(v.shape[0] == rows && v.shape[1] == cols && v.n == (ndim == 0   ? 1
                                                                  : ndim == 1 ? rows
                                                                              : rows * cols),
              "%s: shape %lld %lld n %lld", text, (long long)v.shape[0], (long long)v.shape[1],
              (long long)v.n);
    char got[512] = "";
    for (int64_t i = 0; i < v.n; i++) {
        char one[128];
        if (v.type == SK_XYZ_BOOL)
            snprintf(one, sizeof one, "%s", ((uint8_t *)v.data)[i] ? "T" : "F");
        else if (v.type == SK_XYZ_INT)
            snprintf(one, sizeof one, "%lld", (long long)((int64_t *)v.data)[i]);
        else if (v.type == SK_XYZ_FLOAT)
            snprintf(one, sizeof one, "%.17g", ((double *)v.data)[i]);
        else
            snprintf(one, sizeof one, "%s", ((char **)v.data)[i]);
        strcat(got, i ? (v.type == SK_XYZ_STRING ? "|" : " ") : "");
        strcat(got, one);
    }
    CHECK_MSG(strcmp(got, elements) == 0, "%s: got '%s', expected '%s'", text, got, elements);
    sk_xyz_value_free(&v);
}

static void expect_bad(const char *text, int64_t column, const char *says)
{
    sk_xyz_value v;
    sk_error e;
    int rc = sk_xyz_value_parse(text, &v, &e);
    CHECK_MSG(rc == SK_ERR_FORMAT, "%s parsed", text);
    if (rc == SK_OK)
        sk_xyz_value_free(&v);
    else {
        CHECK_MSG(e.column == column, "%s: column %lld, expected %lld", text, (long long)e.column,
                  (long long)column);
        CHECK_MSG(strstr(e.message, says) != NULL, "%s: '%s' lacks '%s'", text, e.message, says);
    }
}

static void test_values(void)
{
    /* bare words */
    expect("42", SK_XYZ_INT, 0, 0, 0, "42");
    expect("-5", SK_XYZ_INT, 0, 0, 0, "-5");
    expect("+3", SK_XYZ_INT, 0, 0, 0, "3");
    expect("2.5", SK_XYZ_FLOAT, 0, 0, 0, "2.5");
    expect(".5", SK_XYZ_FLOAT, 0, 0, 0, "0.5");
    expect("1E5", SK_XYZ_FLOAT, 0, 0, 0, "100000");
    expect("123456789012345678901234567890", SK_XYZ_FLOAT, 0, 0, 0, "1.2345678901234568e+29");
    expect("hello", SK_XYZ_STRING, 0, 0, 0, "hello");
    expect("", SK_XYZ_BOOL, 0, 0, 0, "T"); /* a key alone */
    /* every bool spelling */
    static const char *const yes[] = {"T", "True", "TRUE", "true"}, *const no[] = {"F", "False",
                                                                                   "FALSE", "false"};
    for (int i = 0; i < 4; i++) {
        expect(yes[i], SK_XYZ_BOOL, 0, 0, 0, "T");
        expect(no[i], SK_XYZ_BOOL, 0, 0, 0, "F");
    }
    expect("tRUE", SK_XYZ_STRING, 0, 0, 0, "tRUE");
    /* Fortran exponents */
    expect("1.0D+00", SK_XYZ_FLOAT, 0, 0, 0, "1");
    expect("1.0d-3", SK_XYZ_FLOAT, 0, 0, 0, "0.001");
    expect("-2.5D2", SK_XYZ_FLOAT, 0, 0, 0, "-250");
    /* underflow rounds to zero, subnormals are kept */
    expect("1e-400", SK_XYZ_FLOAT, 0, 0, 0, "0");
    expect("-2.5e-400", SK_XYZ_FLOAT, 0, 0, 0, "-0");
    expect("4e-320", SK_XYZ_FLOAT, 0, 0, 0, "3.999955468730732e-320");
    /* quoted strings and escapes */
    expect("\"hello world\"", SK_XYZ_STRING, 0, 0, 0, "hello world");
    expect("'it is'", SK_XYZ_STRING, 0, 0, 0, "it is");
    expect("\"say \\\"hi\\\"\"", SK_XYZ_STRING, 0, 0, 0, "say \"hi\"");
    expect("\"a\\nb\"", SK_XYZ_STRING, 0, 0, 0, "a\nb");
    expect("\"back\\\\slash\"", SK_XYZ_STRING, 0, 0, 0, "back\\slash");
    expect("\"x=y\"", SK_XYZ_STRING, 0, 0, 0, "x=y");
    expect("\"\"", SK_XYZ_STRING, 0, 0, 0, "");
    /* old-style arrays; one element is a scalar */
    expect("'1 2 3'", SK_XYZ_INT, 1, 3, 0, "1 2 3");
    expect("\"1.5 2 3\"", SK_XYZ_FLOAT, 1, 3, 0, "1.5 2 3");
    expect("\"T F T\"", SK_XYZ_BOOL, 1, 3, 0, "T F T");
    expect("\"True false TRUE\"", SK_XYZ_BOOL, 1, 3, 0, "T F T");
    expect("\"7\"", SK_XYZ_INT, 0, 0, 0, "7");
    expect("\"T\"", SK_XYZ_BOOL, 0, 0, 0, "T");
    expect("{1 2 3}", SK_XYZ_INT, 1, 3, 0, "1 2 3");
    expect("{1, 2, 3}", SK_XYZ_INT, 1, 3, 0, "1 2 3");
    expect("\"1d0 2D1\"", SK_XYZ_FLOAT, 1, 2, 0, "1 20");
    expect("\"a b c\"", SK_XYZ_STRING, 0, 0, 0, "a b c");
    expect("\"1 T\"", SK_XYZ_STRING, 0, 0, 0, "1 T");
    /* new-style arrays, 1-D and 2-D */
    expect("[1,2,3]", SK_XYZ_INT, 1, 3, 0, "1 2 3");
    expect("[1.5, 2, 3e0]", SK_XYZ_FLOAT, 1, 3, 0, "1.5 2 3");
    expect("[T, F]", SK_XYZ_BOOL, 1, 2, 0, "T F");
    expect("[true, FALSE]", SK_XYZ_BOOL, 1, 2, 0, "T F");
    expect("[ 4 , 5 ]", SK_XYZ_INT, 1, 2, 0, "4 5");
    expect("[5]", SK_XYZ_INT, 1, 1, 0, "5");
    expect("[\"a\", \"b c\", d]", SK_XYZ_STRING, 1, 3, 0, "a|b c|d");
    expect("[\"1\", \"x\\\"y\"]", SK_XYZ_STRING, 1, 2, 0, "1|x\"y");
    expect("[[1,2],[3,4]]", SK_XYZ_INT, 2, 2, 2, "1 2 3 4");
    expect("[[1.5, 2], [3, 4]]", SK_XYZ_FLOAT, 2, 2, 2, "1.5 2 3 4");
    expect("[[T,F],[F,T]]", SK_XYZ_BOOL, 2, 2, 2, "T F F T");
    expect("[[\"a\",\"b\"],[\"c\",\"d\"]]", SK_XYZ_STRING, 2, 2, 2, "a|b|c|d");
    expect("[[1,2,3]]", SK_XYZ_INT, 2, 1, 3, "1 2 3");
    expect("[[4,1,0.5],[0,3,0.7],[0,0,2]]", SK_XYZ_FLOAT, 2, 3, 3, "4 1 0.5 0 3 0.69999999999999996 0 0 2");
    /* malformed: one error naming the column */
    expect_bad("\"abc", 1, "unterminated quoted string");
    expect_bad("'abc\\'", 1, "unterminated quoted string");
    expect_bad("[1,2", 1, "'[' without its ']'");
    expect_bad("[[1,2],[3,4]", 1, "'[' without its ']'");
    expect_bad("{1 2", 1, "'{' without its '}'");
    expect_bad("]", 1, "']' without its '['");
    expect_bad("1e400", 1, "too large for a double");
    expect_bad("\"1 1e400\"", 4, "number '1e400' is too large");
    expect_bad("[1, 1e400]", 5, "too large");
    expect_bad("[1, a]", 1, "mixes strings with numbers");
    expect_bad("[1, T]", 1, "mixes bools with numbers");
    expect_bad("[[1,2],[3]]", 9, "rows of 2 and 1 elements");
    expect_bad("[[1,2],3]", 1, "mixes rows and elements");
    expect_bad("[[[1]]]", 3, "at most two deep");
    expect_bad("[]", 1, "empty array");
    expect_bad("[1,]", 3, "',' before ']'");
    expect_bad("[1]x", 4, "more than one value");
    expect_bad("a b", 2, "more than one value");
}

/* Every extxyz.* pair of a equals b's, verbatim and typed. */
static void same_info(const sk_table *a, const sk_table *b, const char *what)
{
    int n = 0;
    for (int i = 0; i < sk_table_meta_count(a); i++) {
        const char *k = sk_table_meta_key(a, i);
        if (strncmp(k, "extxyz.", 7) != 0 && strncmp(k, "box.", 4) != 0)
            continue;
        n++;
        const char *va = sk_table_meta_value(a, i), *vb = sk_table_meta_get(b, k);
        CHECK_MSG(vb && strcmp(va, vb) == 0, "%s: %s is '%s' then '%s'", what, k, va,
                  vb ? vb : "(absent)");
    }
    for (int i = 0; i < sk_table_meta_count(b); i++) {
        const char *k = sk_table_meta_key(b, i);
        n -= strncmp(k, "extxyz.", 7) == 0 || strncmp(k, "box.", 4) == 0;
    }
    CHECK_MSG(n == 0, "%s: the rewrite has other keys", what);
}

static void test_files(const char *dir)
{
    char pattern[1100];
    snprintf(pattern, sizeof pattern, "%s/*.extxyz", dir);
    glob_t g;
    CHECK(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc >= 10);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        if (strstr(path, "/bad_"))
            continue;
        sk_atoms_file *f;
        sk_error e;
        int64_t n = 0;
        CHECK_OK(sk_atoms_open(&f, path, SK_ATOMS_AUTO, NULL, &e), &e);
        CHECK_OK(sk_atoms_count_frames(f, &n, &e), &e);
        char out[512];
        snprintf(out, sizeof out, "%s/rewrite.extxyz", g_tmp);
        sk_atoms_writer *w;
        CHECK_OK(sk_atoms_writer_open(&w, out, SK_ATOMS_AUTO, NULL, &e), &e);
        for (int64_t k = 0; k < n; k++) {
            sk_table *t;
            CHECK_OK(sk_atoms_read_frame(f, k, &t, &e), &e);
            CHECK_OK(sk_atoms_writer_add(w, t, &e), &e);
            sk_table_free(t);
        }
        CHECK_OK(sk_atoms_writer_commit(w, &e), &e);
        for (int64_t k = 0; k < n; k++) {
            sk_table *a, *b;
            CHECK_OK(sk_atoms_read_frame(f, k, &a, &e), &e);
            CHECK_OK(sk_atoms_read(out, SK_ATOMS_AUTO, k, NULL, &b, &e), &e);
            same_info(a, b, path);
            for (int c = 0; c < sk_table_ncols(a); c++) {
                const sk_column *ca = sk_table_col(a, c), *cb = sk_table_find(b, ca->name);
                CHECK_MSG(cb && cb->type == ca->type, "%s: column %s", path, ca->name);
                if (cb && ca->type == SK_FLOAT64)
                    CHECK_MSG(memcmp(ca->data, cb->data, (size_t)sk_table_nrows(a) * 8) == 0,
                              "%s: column %s differs", path, ca->name);
            }
            sk_table_free(a);
            sk_table_free(b);
        }
        unlink(out);
        sk_atoms_close(f);
    }
    globfree(&g);
}

static sk_table *read_one(const char *dir, const char *name)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sk_table *t = NULL;
    sk_error e;
    CHECK_OK(sk_atoms_read(path, SK_ATOMS_AUTO, 0, NULL, &t, &e), &e);
    return t;
}

static void info_is(const sk_table *t, const char *key, sk_xyz_type type, int ndim,
                    const char *first)
{
    sk_xyz_value v;
    sk_error e;
    int rc = sk_atoms_info(t, key, &v, &e);
    CHECK_MSG(rc == SK_OK, "%s: %s", key, e.message);
    if (rc != SK_OK)
        return;
    CHECK_MSG(v.type == type && v.ndim == ndim, "%s: type %d ndim %d", key, v.type, v.ndim);
    if (v.type == SK_XYZ_STRING)
        CHECK_MSG(strcmp(((char **)v.data)[0], first) == 0, "%s: '%s'", key,
                  ((char **)v.data)[0]);
    sk_xyz_value_free(&v);
}

static void test_file_facts(const char *dir)
{
    sk_table *t = read_one(dir, "escapes.extxyz");
    if (t) {
        info_is(t, "a\"b", SK_XYZ_INT, 0, NULL);
        info_is(t, "key with spaces", SK_XYZ_INT, 0, NULL);
        info_is(t, "nl", SK_XYZ_STRING, 0, "a\nb");
        info_is(t, "q", SK_XYZ_STRING, 0, "say \"hi\"");
        sk_error e;
        sk_xyz_value v;
        CHECK(sk_atoms_info(t, "absent", &v, &e) == SK_ERR_ARG);
    }
    sk_table_free(t);
    t = read_one(dir, "quoted_values.extxyz");
    if (t)
        info_is(t, "k", SK_XYZ_INT, 1, NULL);
    sk_table_free(t);
    /* the 3x3 Lattice: its columns are the cell vectors, as the nine
     * numbers fill it in column order */
    sk_table *nested = read_one(dir, "lattice_nested.extxyz"), *old = read_one(dir, "lattice_old.extxyz");
    sk_box bn, bo;
    sk_error e;
    if (nested && old && sk_atoms_get_box(nested, &bn, &e) == SK_OK &&
        sk_atoms_get_box(old, &bo, &e) == SK_OK) {
        CHECK(bn.a[0] == 4 && bn.a[1] == 0 && bn.b[0] == 1 && bn.b[1] == 3 && bn.c[0] == 0.5 &&
              bn.c[1] == 0.7 && bn.c[2] == 2);
        CHECK(memcmp(&bn, &bo, sizeof bn) == 0);
    }
    sk_table_free(nested);
    sk_table_free(old);
    /* every pbc spelling, frame by frame */
    char path[1100];
    snprintf(path, sizeof path, "%s/pbc.extxyz", dir);
    static const int want[8][3] = {{1, 0, 1}, {1, 0, 1}, {1, 0, 1}, {0, 0, 0},
                                   {1, 0, 1}, {1, 1, 1}, {1, 0, 1}, {1, 0, 1}};
    for (int k = 0; k < 8; k++) {
        sk_table *p = NULL;
        sk_box b;
        CHECK_OK(sk_atoms_read(path, SK_ATOMS_AUTO, k, NULL, &p, &e), &e);
        CHECK_OK(p ? sk_atoms_get_box(p, &b, &e) : SK_ERR_ARG, &e);
        CHECK_MSG(p && memcmp(b.pbc, want[k], sizeof b.pbc) == 0, "pbc frame %d", k);
        sk_table_free(p);
    }
    /* Fortran exponents and underflow in atom columns */
    t = read_one(dir, "fortran.extxyz");
    const sk_column *c = t ? sk_table_find(t, "x") : NULL, *q = t ? sk_table_find(t, "q") : NULL;
    CHECK(c && q && ((double *)c->data)[0] == 1.0 && ((double *)q->data)[0] == -0.01);
    sk_table_free(t);
    t = read_one(dir, "underflow.extxyz");
    c = t ? sk_table_find(t, "y") : NULL;
    q = t ? sk_table_find(t, "q") : NULL;
    CHECK(c && q && ((double *)c->data)[0] == 0.0 && ((double *)q->data)[0] == 0.0 &&
          signbit(((double *)q->data)[0]));
    sk_table_free(t);
}

static void test_bad_files(const char *dir)
{
    static const struct {
        const char *name;
        int64_t line, column;
        const char *says;
    } bad[] = {
        {"bad_unterminated_quote.extxyz", 2, 42, "unterminated quoted string"},
        {"bad_unterminated_key.extxyz", 2, 32, "unterminated quoted key"},
        {"bad_unbalanced_bracket.extxyz", 2, 34, "'[' without its ']'"},
        {"bad_stray_bracket.extxyz", 2, 38, "']' without its '['"},
        {"bad_overflow.extxyz", 2, 36, "value of big: number '1e400' is too large for a double"},
        {"bad_mixed_array.extxyz", 2, 36, "value of mix: an array mixes strings"},
        {"bad_ragged.extxyz", 2, 42, "value of m: rows of 2 and 1 elements"},
        {"bad_overflow_column.extxyz", 3, 9, "number '1e400' for q is too large"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/%s", dir, bad[i].name);
        sk_table *t = NULL;
        sk_error e;
        CHECK_MSG(sk_atoms_read(path, SK_ATOMS_AUTO, 0, NULL, &t, &e) == SK_ERR_FORMAT, "%s",
                  bad[i].name);
        CHECK_MSG(e.line == bad[i].line && e.column == bad[i].column && strstr(e.path, bad[i].name),
                  "%s: line %lld column %lld", bad[i].name, (long long)e.line,
                  (long long)e.column);
        CHECK_MSG(strstr(e.message, bad[i].says) != NULL, "%s: %s", bad[i].name, e.message);
        sk_table_free(t);
    }
}

/* Keys and values set by hand that need quoting are written so that they
 * read back the same; text that is not one value becomes a string. */
static void test_writer_quotes(void)
{
    static const char *const kv[][3] = {
        /* key, value set, value typed back as a string (NULL: verbatim) */
        {"key with spaces", "1", NULL},
        {"quote\"key", "x", NULL},
        {"eq=key", "y", NULL},
        {"[bracket]", "z", NULL},
        {"newline\nkey", "w", NULL},
        {"value_quotes", "say \"hi\"", "say \"hi\""},
        {"value_newline", "a\nb", "a\nb"},
        {"value_spaces", "a b c", "a b c"},
        {"value_backslash", "C:\\dir", NULL},
        {"value_bad_array", "[1, a]", "[1, a]"},
        {"value_open", "\"abc", "\"abc"},
        {"value_eq", "k=v", NULL},
    };
    size_t n = sizeof kv / sizeof kv[0];
    sk_table *t = sk_table_new(1);
    sk_error e;
    double *x = sk_table_add(t, "x", SK_FLOAT64, &e), *y = sk_table_add(t, "y", SK_FLOAT64, &e),
           *z = sk_table_add(t, "z", SK_FLOAT64, &e);
    *x = *y = *z = 0.5;
    for (size_t i = 0; i < n; i++) {
        char key[300];
        snprintf(key, sizeof key, "extxyz.%s", kv[i][0]);
        CHECK(sk_table_meta_set(t, key, kv[i][1]) == SK_OK);
    }
    char out[512];
    snprintf(out, sizeof out, "%s/quotes.extxyz", g_tmp);
    CHECK_OK(sk_atoms_write(out, t, SK_ATOMS_AUTO, NULL, &e), &e);
    sk_table *b = NULL;
    CHECK_OK(sk_atoms_read(out, SK_ATOMS_AUTO, 0, NULL, &b, &e), &e);
    for (size_t i = 0; b && i < n; i++) {
        char key[300];
        snprintf(key, sizeof key, "extxyz.%s", kv[i][0]);
        const char *got = sk_table_meta_get(b, key);
        CHECK_MSG(got != NULL, "key '%s' lost", kv[i][0]);
        if (!got)
            continue;
        if (!kv[i][2]) {
            CHECK_MSG(strcmp(got, kv[i][1]) == 0, "%s: '%s'", kv[i][0], got);
        } else {
            sk_xyz_value v;
            CHECK_OK(sk_atoms_info(b, kv[i][0], &v, &e), &e);
            CHECK_MSG(v.type == SK_XYZ_STRING && v.ndim == 0 &&
                          strcmp(((char **)v.data)[0], kv[i][2]) == 0,
                      "%s: typed back wrong", kv[i][0]);
            sk_xyz_value_free(&v);
        }
    }
    unlink(out);
    sk_table_free(b);
    sk_table_free(t);
}

int main(void)
{
    char dir[1024];
    test_data(dir, sizeof dir, "atoms/extxyz_grammar");
    if (!test_tmpdir(g_tmp, sizeof g_tmp))
        return 1;
    test_values();
    test_files(dir);
    test_file_facts(dir);
    test_bad_files(dir);
    test_writer_quotes();
    rmdir(g_tmp);
    return test_done();
}
