/* cfitsio, loaded when the first FITS file is written rather than linked.
 * Debian's cfitsio brings libcurl, GnuTLS, Kerberos and LDAP with it:
 * about 25 libraries that the dynamic loader would map and relocate at the
 * start of every snapkit process (10 ms here, measured with a program that
 * does nothing), while most commands write no FITS file.
 *
 * The code that builds FITS files keeps cfitsio's documented long names:
 * this header points each one snapkit uses at the loaded library. */
#ifndef SNAPKIT_PROJECT_FITSLIB_H
#define SNAPKIT_PROJECT_FITSLIB_H

#include <fitsio.h>

#include "snapkit/error.h"

typedef struct fitslib {
    __typeof__(&ffimem) create_memfile;
    __typeof__(&ffcrim) create_img;
    __typeof__(&ffcrtb) create_tbl;
    __typeof__(&ffclos) close_file;
    __typeof__(&ffgerr) get_errstatus;
    __typeof__(&ffcmsg) clear_errmsg;
    __typeof__(&ffghadll) get_hduaddrll;
    __typeof__(&ffpcl) write_col;
    __typeof__(&ffpcom) write_comment;
    __typeof__(&ffppr) write_img;
    __typeof__(&ffpky) write_key;
    __typeof__(&ffpkyd) write_key_dbl;
    __typeof__(&ffpkyu) write_key_null;
    __typeof__(&ffpkys) write_key_str;
} fitslib;

/* Filled by fitslib_write before it calls a builder. */
extern fitslib fitslib_calls;

#undef fits_create_img
#undef fits_create_tbl
#undef fits_write_col
#undef fits_write_comment
#undef fits_write_img
#undef fits_write_key
#undef fits_write_key_dbl
#undef fits_write_key_null
#undef fits_write_key_str
#define fits_create_img fitslib_calls.create_img
#define fits_create_tbl fitslib_calls.create_tbl
#define fits_write_col fitslib_calls.write_col
#define fits_write_comment fitslib_calls.write_comment
#define fits_write_img fitslib_calls.write_img
#define fits_write_key fitslib_calls.write_key
#define fits_write_key_dbl fitslib_calls.write_key_dbl
#define fits_write_key_null fitslib_calls.write_key_null
#define fits_write_key_str fitslib_calls.write_key_str

/* Adds the HDUs of a file to ff; on failure sets *status (cfitsio's). */
typedef void (*fitslib_build)(fitsfile *ff, const void *ctx, int *status);

/* Load cfitsio (once, thread-safe: the library named by the environment
 * variable SNAPKIT_CFITSIO, else the one snapkit was built against), build
 * a FITS file in memory with build, and write it to path whole or not at
 * all (sk_atomic; fsync when `fsync`). `what` names the file in errors
 * ("maps", "clump catalogue"). SK_ERR_IO when cfitsio cannot be loaded or
 * fails (its message and status in err), SK_ERR_NOMEM without memory. */
int fitslib_write(const char *path, fitslib_build build, const void *ctx, int fsync,
                  const char *what, sk_error *err);

/* A unit as FITS and astropy.units spell it (nH is cm-3, Ba erg/cm3,
 * Msun... solMass...), in buf when it must be rewritten; NULL for code
 * units (BUNIT is then left out). */
const char *fitslib_unit(const char *unit, char *buf, size_t n);

#endif
