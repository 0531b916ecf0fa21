/* PNG pictures through libpng, with snapkit's allocator, no printing
 * (warnings dropped, errors as sk_error) and the bytes going through
 * sk_atomic. */
#include "export/png.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>

#include "core/atomicfile.h"
#include "snapkit/memory.h"

typedef struct png_sink {
    sk_atomic_file *file;
    const char *path;
    sk_error *err;
    int rc;
    jmp_buf jump;
    char message[160];
} png_sink;

static void sink_write(png_structp png, png_bytep data, size_t n)
{
    png_sink *s = png_get_io_ptr(png);
    if (s->rc == SK_OK)
        s->rc = sk_atomic_write(s->file, data, n, s->err);
}

static void sink_flush(png_structp png)
{
    (void)png;
}

static void on_error(png_structp png, png_const_charp msg)
{
    png_sink *s = png_get_error_ptr(png);
    snprintf(s->message, sizeof s->message, "%s", msg);
    longjmp(s->jump, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* the library never prints */
    (void)msg;
}

static png_voidp png_alloc(png_structp png, png_alloc_size_t n)
{
    (void)png;
    return sk_malloc(n);
}

static void png_release(png_structp png, png_voidp p)
{
    (void)png;
    sk_free(p);
}

static int write_rows(png_sink *s, int nx, int ny, export_png_fill fill, void *ctx,
                      unsigned char *row)
{
    png_structp png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, s, on_error, on_warning,
                                                NULL, png_alloc, png_release);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        return sk_fail(s->err, SK_ERR_NOMEM, NULL, -1, "out of memory for the PNG writer");
    }
    if (setjmp(s->jump)) {
        png_destroy_write_struct(&png, &info);
        return s->rc != SK_OK ? s->rc
                              : sk_fail(s->err, SK_ERR_IO, s->path, -1, "libpng: %s", s->message);
    }
    png_set_write_fn(png, s, sink_write, sink_flush);
    png_set_IHDR(png, info, (png_uint_32)nx, (png_uint_32)ny, 8, PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int r = 0; r < ny && s->rc == SK_OK; r++) {
        fill(ctx, r, row);
        png_write_row(png, row);
    }
    if (s->rc == SK_OK)
        png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return s->rc;
}

int export_png_write(const char *path, int nx, int ny, export_png_fill fill, void *ctx, int fsync,
                     sk_error *err)
{
    unsigned char *row = sk_malloc(4 * (size_t)nx);
    png_sink s = {.path = path, .err = err, .rc = SK_OK};
    if (!row)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    int rc = sk_atomic_open(&s.file, path, err);
    if (rc == SK_OK) {
        sk_atomic_set_fsync(s.file, fsync);
        rc = write_rows(&s, nx, ny, fill, ctx, row);
        rc = rc == SK_OK ? sk_atomic_commit(s.file, err) : (sk_atomic_abort(s.file), rc);
    }
    sk_free(row);
    return rc;
}
