/* A minimal test harness: CHECK macros that report file:line and count
 * failures, and helpers to find test data. Include once per test program. */
#ifndef SNAPKIT_TEST_CHECK_H
#define SNAPKIT_TEST_CHECK_H

#include <dirent.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_failures, g_checks;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        g_checks++;                                                                   \
        if (!(cond)) {                                                                \
            g_failures++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                             \
    } while (0)

#define CHECK_MSG(cond, ...)                                                          \
    do {                                                                              \
        g_checks++;                                                                   \
        if (!(cond)) {                                                                \
            g_failures++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
        }                                                                             \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                            \
    CHECK_MSG((long long)(a) == (long long)(b), "%lld != %lld", (long long)(a), (long long)(b))

#define CHECK_EQ_STR(a, b)                                                            \
    CHECK_MSG(strcmp((a), (b)) == 0, "\"%s\" != \"%s\"", (a), (b))

/* |a - b| <= tol * max(|b|, tiny) */
#define CHECK_CLOSE(a, b, tol)                                                        \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol) * fmax(fabs((double)(b)), 1e-300), \
              "%.17g vs %.17g", (double)(a), (double)(b))

/* The status is SK_OK; prints the error otherwise. */
#define CHECK_OK(rc, err)                                                             \
    CHECK_MSG((rc) == 0, "status %d: %s", (int)(rc), (err)->message)

/* Message contains the substring. */
#define CHECK_CONTAINS(text, sub)                                                     \
    CHECK_MSG(strstr((text), (sub)) != NULL, "\"%s\" does not contain \"%s\"", (text), (sub))

/* The test's exit status: 1 when a check failed, and when none was made
 * (a test that checks nothing cannot fail, so it does not pass either). */
static int test_done(void)
{
    if (g_failures) {
        fprintf(stderr, "%d of %d checks failed\n", g_failures, g_checks);
        return 1;
    }
    if (g_checks == 0) {
        fprintf(stderr, "no check was made\n");
        return 1;
    }
    printf("%d checks passed\n", g_checks);
    return 0;
}

/* A part of the test not run for a missing input: a line the test summary
 * (scripts/test-summary.py) counts, while the rest of the test runs. */
static inline void test_skip_part(const char *what)
{
    printf("SKIP: %s\n", what);
}

/* The exit status of a test that stops for a missing input (CTest's
 * SKIP_RETURN_CODE, 77), unless a check already failed: a skip never hides
 * a failure that came before it. */
static inline int test_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    if (g_failures) {
        fprintf(stderr, "%d of %d checks failed before the skip\n", g_failures, g_checks);
        return 1;
    }
    return 77;
}

/* Path under tests/data (SNAPKIT_TEST_DATA), written into buf. */
static inline const char *test_data(char *buf, size_t n, const char *rel)
{
    const char *root = getenv("SNAPKIT_TEST_DATA");
    snprintf(buf, n, "%s/%s", root ? root : "tests/data", rel);
    return buf;
}

/* Path under ../shared (SNAPKIT_SHARED), or NULL when it is absent. */
static inline const char *test_shared(char *buf, size_t n, const char *rel)
{
    const char *root = getenv("SNAPKIT_SHARED");
    snprintf(buf, n, "%s/%s", root ? root : "../shared", rel);
    struct stat st;
    return stat(buf, &st) == 0 ? buf : NULL;
}

/* Call fn(path, ctx) for every RAMSES output folder (output_NNNNN) of
 * tests/data/ramses, then of ../shared/fixtures/ramses when present;
 * returns how many were found. */
static inline int test_each_output(void (*fn)(const char *path, void *ctx), void *ctx)
{
    char local[1024], shared[1024], pattern[1100];
    const char *bases[2] = {test_data(local, sizeof local, "ramses"),
                            test_shared(shared, sizeof shared, "fixtures/ramses")};
    int n = 0;
    for (int b = 0; b < 2; b++) {
        if (!bases[b])
            continue;
        snprintf(pattern, sizeof pattern, "%s/*/output_[0-9][0-9][0-9][0-9][0-9]", bases[b]);
        glob_t g;
        if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++, n++)
            fn(g.gl_pathv[i], ctx);
        globfree(&g);
    }
    return n;
}

/* The whole file as a NUL-terminated string (malloc'd), or NULL. */
static inline char *test_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return s;
}

/* Whether two text files (no NUL bytes) hold the same bytes. */
static inline int test_same_text(const char *a, const char *b)
{
    char *x = test_slurp(a), *y = test_slurp(b);
    int same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

/* Remove a directory of plain files (such as one written output). */
static inline void test_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

/* A fresh scratch directory under /tmp. */
static inline const char *test_tmpdir(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/snapkit-test-XXXXXX");
    return mkdtemp(buf);
}

#endif
