/* cairo loaded on first use (cairo_lib.h says why). */
#define SKF_CAIRO_LOADER /* cairo's names stay the functions' here */
#include "figure/cairo_lib.h"

#include <stddef.h>

#include "snapkit/util/lazylib.h"

#ifndef SNAPKIT_CAIRO_SONAME
#define SNAPKIT_CAIRO_SONAME "libcairo.so.2"
#endif

skf_cairo_calls skf_cairo;

static const sk_lazy_symbol symbols[] = {
#define SKF_CAIRO_SYMBOL(f) {#f, offsetof(skf_cairo_calls, f)},
    SKF_CAIRO_CALLS(SKF_CAIRO_SYMBOL)
#undef SKF_CAIRO_SYMBOL
    {"FcFini", offsetof(skf_cairo_calls, fc_fini)},
};

static sk_lazy_lib g_cairo = {.env = "SNAPKIT_CAIRO",
                              .soname = SNAPKIT_CAIRO_SONAME,
                              .syms = symbols,
                              .nsyms = sizeof symbols / sizeof symbols[0],
                              .table = &skf_cairo,
                              .table_size = sizeof skf_cairo,
                              .lock = PTHREAD_MUTEX_INITIALIZER};

int skf_cairo_load(sk_error *err)
{
    if (sk_lazy_load(&g_cairo))
        return SK_OK;
    return sk_fail(err, SK_ERR_IO, NULL, -1,
                   "drawing figures needs cairo, and %s cannot be loaded: %s (Debian: apt-get "
                   "install libcairo2; SNAPKIT_CAIRO may name the library)",
                   g_cairo.name, g_cairo.failure);
}

int skf_cairo_loaded(void)
{
    return skf_cairo.cairo_create != NULL;
}
