/* libFuzzer: a whole RAMSES output read through the public API, one of its
 * files replaced by the input.
 *
 * At start a small synthetic output (2 CPUs, levels 2 to 3, hydro, gravity, particles) is
 * written to a folder in /dev/shm (or /tmp). Byte 0 of an input picks one
 * of the output's files (in name order), the rest of the input replaces
 * it; every component is then opened, read whole and in a region, and the
 * file is put back. The seeds (fuzz/corpus/fuzz_ramses_output, written by
 * fuzz/make_seeds.py) are the same output's files behind their byte, so
 * the fuzzer starts from real amr, hydro, gravity and particle records,
 * descriptors, headers and info files. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapkit/snapkit.h"

#define MAX_FILES 64

static char g_root[200], g_dir[256];
static char *g_name[MAX_FILES];
static uint8_t *g_orig[MAX_FILES];
static size_t g_size[MAX_FILES];
static int g_nfiles;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int write_file(const char *name, const uint8_t *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static uint8_t *read_file(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    *n = buf && fread(buf, 1, (size_t)len, f) == (size_t)len ? (size_t)len : 0;
    fclose(f);
    return buf;
}

/* The synthetic output, and the list of its files with their bytes. */
static void make_output(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(g_root, sizeof g_root, "%s/snapkit-fuzz.%ld", base, (long)getpid());
    snprintf(g_dir, sizeof g_dir, "%s/output_00001", g_root);
    sk_synth_options opt;
    sk_synth_options_init(&opt);
    opt.ncpu = 2;
    opt.levelmin = 2;
    opt.levelmax = 3;
    opt.components = SK_SYNTH_HYDRO | SK_SYNTH_GRAVITY | SK_SYNTH_PARTICLES;
    opt.npart = 64;
    opt.output = 1;
    opt.threads = 1;
    sk_error err;
    if (sk_synth_write(g_dir, &opt, NULL, NULL, &err) != SK_OK) {
        fprintf(stderr, "fuzz_ramses_output: %s\n", err.message);
        abort();
    }
    DIR *d = opendir(g_dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && g_nfiles < MAX_FILES)
        if (e->d_name[0] != '.')
            g_name[g_nfiles++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(g_name, (size_t)g_nfiles, sizeof *g_name, by_name);
    for (int i = 0; i < g_nfiles; i++)
        g_orig[i] = read_file(g_name[i], &g_size[i]);
}

static void remove_output(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_ramses_output: could not remove %s\n", g_root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    make_output();
    atexit(remove_output);
    return 0;
}

static void read_all(void)
{
    sk_ramses *r;
    sk_error err;
    if (sk_ramses_open(&r, g_dir, &err) != SK_OK)
        return;
    static const char *const components[] = {"hydro", "gravity", "particles"};
    sk_read_options ro = {.threads = 1};
    for (int c = 0; c < 3; c++) {
        sk_table *t = NULL;
        if (sk_ramses_read(r, components[c], NULL, &ro, &t, NULL, &err) == SK_OK)
            sk_table_free(t);
        sk_selection sel;
        sk_selection_init(&sel);
        sel.has_box = 1;
        for (int a = 0; a < 3; a++) {
            sel.lo[a] = 0.3;
            sel.hi[a] = 0.6;
        }
        sel.lmax = 3;
        t = NULL;
        if (sk_ramses_read(r, components[c], &sel, &ro, &t, NULL, &err) == SK_OK)
            sk_table_free(t);
        sk_selection_clear(&sel);
    }
    sk_ramses_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || g_nfiles == 0)
        return 0;
    int k = data[0] % g_nfiles;
    if (write_file(g_name[k], data + 1, size - 1) != 0)
        return 0;
    read_all();
    write_file(g_name[k], g_orig[k], g_size[k]);
    return 0;
}
