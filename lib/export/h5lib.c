/* libhdf5 loaded on first use (h5lib.h says why), its errors turned into
 * snapkit's. */
#include "export/h5lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/util/lazylib.h"

#ifndef SNAPKIT_HDF5_SONAME
#define SNAPKIT_HDF5_SONAME "libhdf5.so"
#endif

h5lib h5lib_calls;

#define H5LIB_SYMBOL(name) {#name, offsetof(h5lib, p_##name)},
static const sk_lazy_symbol symbols[] = {H5LIB_FUNCTIONS(H5LIB_SYMBOL) H5LIB_IDS(H5LIB_SYMBOL)};
#undef H5LIB_SYMBOL

static sk_lazy_lib g_hdf5 = {.env = "SNAPKIT_HDF5",
                             .soname = SNAPKIT_HDF5_SONAME,
                             .syms = symbols,
                             .nsyms = sizeof symbols / sizeof symbols[0],
                             .table = &h5lib_calls,
                             .table_size = sizeof h5lib_calls,
                             .lock = PTHREAD_MUTEX_INITIALIZER};

/* H5open once, after the load: it sets the predefined identifiers. */
static pthread_once_t g_open_once = PTHREAD_ONCE_INIT;
static int g_open_status = -1, g_deflate = 0;

/* A program linked with libhdf5 itself may hold copies of its variables
 * (copy relocations), which libhdf5 then sets instead of its own: the
 * identifiers are read where the program's symbols say. */
static void find_ids(void)
{
#define H5LIB_GLOBAL(name)                                                                     \
    {                                                                                          \
        hid_t *p = dlsym(RTLD_DEFAULT, #name);                                                 \
        if (p)                                                                                 \
            h5lib_calls.p_##name = p;                                                          \
    }
    H5LIB_IDS(H5LIB_GLOBAL)
#undef H5LIB_GLOBAL
}

static void open_library(void)
{
    find_ids();
    /* No closing at exit: a file whose writing failed (a full disk) cannot
     * be closed, and HDF5's exit handler crashes trying again; a file that
     * is kept is closed before its rename. */
    H5dont_atexit();
    g_open_status = H5open();
    g_deflate = g_open_status >= 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 &&
                H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0;
}

int h5lib_load(const char *path, sk_error *err)
{
    if (!sk_lazy_load(&g_hdf5))
        return sk_fail(err, SK_ERR_IO, path, -1,
                       "writing HDF5 needs libhdf5, and %s cannot be loaded: %s (Debian: apt-get "
                       "install libhdf5-103-1; SNAPKIT_HDF5 may name the library)",
                       g_hdf5.name, g_hdf5.failure);
    pthread_once(&g_open_once, open_library);
    if (g_open_status < 0)
        return sk_fail(err, SK_ERR_IO, path, -1, "%s does not start (H5open failed)", g_hdf5.name);
    if (!g_deflate)
        return sk_fail(err, SK_ERR_IO, path, -1,
                       "%s has no deflate or shuffle filter, which snapkit compresses with",
                       g_hdf5.name);
    /* The error stack (and whether it prints) is the calling thread's. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return SK_OK;
}

/* What HDF5's error stack says: its innermost message, and a system
 * call's own words ("No space left on device") where one failed. */
typedef struct h5_said {
    char inner[256], sys[128];
} h5_said;

static herr_t read_stack(unsigned n, const H5E_error2_t *e, void *data)
{
    h5_said *said = data;
    if (!e->desc)
        return 0;
    if (n == 0)
        snprintf(said->inner, sizeof said->inner, "%s", e->desc);
    const char *sys = strstr(e->desc, "error message = '");
    if (sys && !said->sys[0]) {
        sys += strlen("error message = '");
        const char *end = strchr(sys, '\'');
        snprintf(said->sys, sizeof said->sys, "%.*s",
                 (int)(end ? end - sys : (ptrdiff_t)strlen(sys)), sys);
    }
    return 0;
}

/* What the failed call said, kept before the calls that clean up (every
 * HDF5 call clears the thread's error stack as it begins). */
static _Thread_local h5_said t_kept;

void h5lib_keep(void)
{
    if (t_kept.inner[0] || t_kept.sys[0])
        return; /* the first failure is the cause */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, read_stack, &t_kept);
}

int h5lib_fail(sk_error *err, const char *path, const char *what)
{
    h5_said said = {"", ""};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, read_stack, &said);
    H5Eclear2(H5E_DEFAULT);
    if (t_kept.inner[0] || t_kept.sys[0])
        said = t_kept;
    memset(&t_kept, 0, sizeof t_kept);
    const char *why = said.sys[0] ? said.sys : said.inner;
    return sk_fail(err, SK_ERR_IO, path, -1, "%s%s%s", what, why[0] ? ": " : "", why);
}

hid_t h5lib_type(sk_dtype type)
{
    switch (type) {
    case SK_INT8: return H5T_NATIVE_INT8;
    case SK_UINT8: return H5T_NATIVE_UINT8;
    case SK_INT16: return H5T_NATIVE_INT16;
    case SK_UINT16: return H5T_NATIVE_UINT16;
    case SK_INT32:
    case SK_CATEGORY: return H5T_NATIVE_INT32;
    case SK_UINT32: return H5T_NATIVE_UINT32;
    case SK_INT64: return H5T_NATIVE_INT64;
    case SK_UINT64: return H5T_NATIVE_UINT64;
    case SK_FLOAT32: return H5T_NATIVE_FLOAT;
    case SK_FLOAT64: return H5T_NATIVE_DOUBLE;
    }
    return -1;
}
