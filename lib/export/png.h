/* PNG pictures of 8-bit RGBA pixels, written whole or not at all
 * (sk_atomic). The caller fills the rows one at a time, so a picture never
 * needs its whole RGBA copy in memory. */
#ifndef SNAPKIT_EXPORT_PNG_H
#define SNAPKIT_EXPORT_PNG_H

#include "snapkit/error.h"

/* Fill rgba (nx pixels, 4 bytes each) with row `row` of the picture, the
 * top row being 0. */
typedef void (*export_png_fill)(void *ctx, int row, unsigned char *rgba);

/* Write an nx x ny RGBA picture to path (fsync at commit when `fsync`).
 * SK_ERR_IO with libpng's message, SK_ERR_NOMEM without memory. */
int export_png_write(const char *path, int nx, int ny, export_png_fill fill, void *ctx, int fsync,
                     sk_error *err);

#endif
