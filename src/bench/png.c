/* PNG encoding with libpng, into memory so the file can be written
 * atomically like every other output. */
#include <png.h>
#include <string.h>

#include "bench/canvas.h"
#include "bench/raster.h"
#include "snapkit/memory.h"

typedef struct png_sink {
    uint8_t *data;
    size_t len, cap;
    int failed;
} png_sink;

static void sink_write(png_structp png, png_bytep bytes, png_size_t n)
{
    png_sink *s = png_get_io_ptr(png);
    if (s->failed)
        return;
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 1 << 16;
        while (cap < s->len + n)
            cap *= 2;
        uint8_t *d = sk_realloc(s->data, cap);
        if (!d) {
            s->failed = 1;
            return;
        }
        s->data = d;
        s->cap = cap;
    }
    memcpy(s->data + s->len, bytes, n);
    s->len += n;
}

static void sink_flush(png_structp png)
{
    (void)png;
}

int skb_png_encode(const uint8_t *rgb, int width, int height, uint8_t **out, size_t *size,
                   sk_error *err)
{
    *out = NULL;
    *size = 0;
    png_bytep *rows = sk_malloc((size_t)height * sizeof *rows);
    png_sink sink = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!rows || !png || !info) {
        png_destroy_write_struct(&png, &info);
        sk_free(rows);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory encoding the PNG");
    }
    for (int y = 0; y < height; y++)
        rows[y] = (png_bytep)(rgb + (size_t)y * (size_t)width * 3);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        sk_free(rows);
        sk_free(sink.data);
        return sk_fail(err, SK_ERR_FORMAT, NULL, -1, "libpng could not encode the figure");
    }
    png_set_write_fn(png, &sink, sink_write, sink_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_text text = {.compression = PNG_TEXT_COMPRESSION_NONE, .key = "Software",
                     .text = "snapkit bench"};
    png_set_text(png, info, &text, 1);
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    sk_free(rows);
    if (sink.failed) {
        sk_free(sink.data);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory encoding the PNG");
    }
    *out = sink.data;
    *size = sink.len;
    return SK_OK;
}

int skb_png(const skb_canvas *c, uint8_t **png, size_t *size, sk_error *err)
{
    uint8_t *rgb = NULL;
    int rc = skb_rasterise(c, &rgb, err);
    if (rc == SK_OK)
        rc = skb_png_encode(rgb, c->width, c->height, png, size, err);
    sk_free(rgb);
    return rc;
}
