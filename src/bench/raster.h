/* Rendering a canvas to pixels, and pixels to PNG. */
#ifndef SNAPKIT_BENCH_RASTER_H
#define SNAPKIT_BENCH_RASTER_H

#include <stddef.h>
#include <stdint.h>

#include "bench/canvas.h"
#include "snapkit/error.h"

/* width * height * 3 bytes of RGB, rows top to bottom (sk_malloc block). */
int skb_rasterise(const skb_canvas *c, uint8_t **rgb, sk_error *err);

/* Encode RGB pixels as a PNG in memory (sk_malloc block). */
int skb_png_encode(const uint8_t *rgb, int width, int height, uint8_t **png, size_t *size,
                   sk_error *err);

#endif
