/* Shared libraries opened on first use (lazylib.h). */
#include "snapkit/util/lazylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void open_lib(sk_lazy_lib *lib)
{
    const char *named = lib->env ? getenv(lib->env) : NULL;
    lib->name = named && *named ? named : lib->soname;
    void *h = dlopen(lib->name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *text = dlerror();
        snprintf(lib->failure, sizeof lib->failure, "%s", text ? text : "dlopen failed");
        return;
    }
    unsigned char filled[SK_LAZY_MAX_TABLE];
    if (lib->table_size > sizeof filled) {
        snprintf(lib->failure, sizeof lib->failure, "its table of %zu bytes is too large",
                 lib->table_size);
        dlclose(h);
        return;
    }
    memset(filled, 0, lib->table_size);
    for (size_t i = 0; i < lib->nsyms; i++) {
        /* dlsym also searches the libraries this one brought in */
        void *f = dlsym(h, lib->syms[i].name);
        if (!f || lib->syms[i].at + sizeof f > lib->table_size) {
            snprintf(lib->failure, sizeof lib->failure, "it has no function %s",
                     lib->syms[i].name);
            dlclose(h);
            return;
        }
        memcpy(filled + lib->syms[i].at, &f, sizeof f);
    }
    memcpy(lib->table, filled, lib->table_size);
}

int sk_lazy_load(sk_lazy_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    if (!lib->tried)
        open_lib(lib);
    lib->tried = 1;
    pthread_mutex_unlock(&lib->lock);
    return !lib->failure[0];
}
