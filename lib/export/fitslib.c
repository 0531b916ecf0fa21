/* cfitsio loaded on first use (fitslib.h says why), and the one way
 * snapkit writes a FITS file: built in memory, then written atomically. */
#include "export/fitslib.h"

#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "snapkit/util/lazylib.h"
#include "core/atomicfile.h"
#include "snapkit/memory.h"

#ifndef SNAPKIT_CFITSIO_SONAME
#define SNAPKIT_CFITSIO_SONAME "libcfitsio.so"
#endif

#define FITS_BLOCK 2880

fitslib fitslib_calls;

static const sk_lazy_symbol symbols[] = {
    {"ffimem", offsetof(fitslib, create_memfile)},  {"ffcrim", offsetof(fitslib, create_img)},
    {"ffcrtb", offsetof(fitslib, create_tbl)},      {"ffclos", offsetof(fitslib, close_file)},
    {"ffgerr", offsetof(fitslib, get_errstatus)},   {"ffcmsg", offsetof(fitslib, clear_errmsg)},
    {"ffghadll", offsetof(fitslib, get_hduaddrll)}, {"ffpcl", offsetof(fitslib, write_col)},
    {"ffpcom", offsetof(fitslib, write_comment)},   {"ffppr", offsetof(fitslib, write_img)},
    {"ffpky", offsetof(fitslib, write_key)},        {"ffpkyd", offsetof(fitslib, write_key_dbl)},
    {"ffpkyu", offsetof(fitslib, write_key_null)},  {"ffpkys", offsetof(fitslib, write_key_str)},
};

static sk_lazy_lib g_cfitsio = {.env = "SNAPKIT_CFITSIO",
                                .soname = SNAPKIT_CFITSIO_SONAME,
                                .syms = symbols,
                                .nsyms = sizeof symbols / sizeof symbols[0],
                                .table = &fitslib_calls,
                                .table_size = sizeof fitslib_calls,
                                .lock = PTHREAD_MUTEX_INITIALIZER};

static int load_once(const char *path, sk_error *err)
{
    if (sk_lazy_load(&g_cfitsio))
        return SK_OK;
    return sk_fail(err, SK_ERR_IO, path, -1,
                   "writing FITS needs cfitsio, and %s cannot be loaded: %s (Debian: apt-get "
                   "install libcfitsio10; SNAPKIT_CFITSIO may name the library)",
                   g_cfitsio.name, g_cfitsio.failure);
}

static int cfitsio_failed(const char *path, const char *what, int status, sk_error *err)
{
    char text[FLEN_STATUS] = "";
    fitslib_calls.get_errstatus(status, text);
    fitslib_calls.clear_errmsg();
    return sk_fail(err, status == MEMORY_ALLOCATION ? SK_ERR_NOMEM : SK_ERR_IO, path, -1,
                   "cannot build the FITS %s: %s (cfitsio status %d)", what, text, status);
}

int fitslib_write(const char *path, fitslib_build build, const void *ctx, int fsync,
                  const char *what, sk_error *err)
{
    int rc = load_once(path, err);
    if (rc != SK_OK)
        return rc;
    /* Zeroed: cfitsio reads the buffer it is given as a file already
     * there, so a recycled block holding an old FITS file would put that
     * file's HDUs before ours. */
    size_t size = 4 * FITS_BLOCK;
    void *buf = sk_calloc(1, size);
    if (!buf)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the FITS %s", what);
    fitsfile *ff = NULL;
    int st = 0;
    LONGLONG head = 0, data = 0, end = 0;
    fitslib_calls.create_memfile(&ff, &buf, &size, 64 * FITS_BLOCK, sk_realloc, &st);
    if (!st)
        build(ff, ctx, &st);
    fitslib_calls.get_hduaddrll(ff, &head, &data, &end, &st);
    int failed = st;
    st = 0;
    if (ff)
        fitslib_calls.close_file(ff, &st);
    if (failed || st) {
        sk_free(buf);
        return cfitsio_failed(path, what, failed ? failed : st, err);
    }
    size_t length = (size_t)((end + FITS_BLOCK - 1) / FITS_BLOCK * FITS_BLOCK);
    sk_atomic_file *f;
    rc = sk_atomic_open(&f, path, err);
    if (rc == SK_OK) {
        sk_atomic_set_fsync(f, fsync);
        rc = sk_atomic_write(f, buf, length <= size ? length : size, err);
        rc = rc == SK_OK ? sk_atomic_commit(f, err) : (sk_atomic_abort(f), rc);
    }
    sk_free(buf);
    return rc;
}

const char *fitslib_unit(const char *unit, char *buf, size_t n)
{
    if (strcmp(unit, "code") == 0)
        return NULL;
    if (strcmp(unit, "nH") == 0)
        return "cm-3";
    if (strcmp(unit, "Ba") == 0)
        return "erg/cm3";
    if (strncmp(unit, "Msun", 4) == 0) {
        snprintf(buf, n, "solMass%s", unit + 4);
        return buf;
    }
    return unit;
}
