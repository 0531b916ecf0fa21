/* snapkit/util/lazylib.h - shared libraries opened on first use instead of
 * linked. A library the dynamic loader maps at start costs every process
 * its mapping and relocation, whether or not the process calls it: cfitsio
 * (25 libraries with its network dependencies) and cairo (its X11 and font
 * stack) are needed only by the commands that write FITS files or draw
 * figures.
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_UTIL_LAZYLIB_H
#define SNAPKIT_UTIL_LAZYLIB_H

#include "snapkit/export.h"

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest table of pointers a library may fill. */
#define SK_LAZY_MAX_TABLE (64 * sizeof(void *))

/* A function of the library and where its pointer goes in the table
 * (offsetof). */
typedef struct sk_lazy_symbol {
    const char *name;
    size_t at;
} sk_lazy_symbol;

/* A library to open on first use, defined once (static) by its user:
 *   static sk_lazy_lib lib = {.env = "SNAPKIT_X", .soname = "libx.so.1",
 *       .syms = symbols, .nsyms = N, .table = &calls, .table_size = sizeof calls,
 *       .lock = PTHREAD_MUTEX_INITIALIZER};
 * The environment variable, when set and not empty, names the file to open
 * instead of the soname. */
typedef struct sk_lazy_lib {
    const char *env, *soname;
    const sk_lazy_symbol *syms;
    size_t nsyms;
    void *table;          /* written only when every function is found */
    size_t table_size;
    pthread_mutex_t lock;
    int tried;
    const char *name;     /* what was opened (or tried) */
    char failure[512];    /* empty once loaded: dlerror's text or the missing function */
} sk_lazy_lib;

/* Opens the library on the first call (later calls give the first
 * answer): 1 when its table is filled, 0 with lib->name and lib->failure
 * saying why not. The library stays open for the process. */
SK_API int sk_lazy_load(sk_lazy_lib *lib);

#ifdef __cplusplus
}
#endif

#endif
