/* The drawing as pixels: every operation rasterised at SS times the size
 * and averaged down, which smooths edges without a graphics library. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/canvas.h"
#include "bench/font.h"
#include "bench/raster.h"
#include "snapkit/memory.h"

enum { SS = 3 };

typedef struct image {
    int w, h;
    uint8_t *rgb;
} image;

static void blend(image *im, int x, int y, uint32_t color, double alpha)
{
    if (x < 0 || y < 0 || x >= im->w || y >= im->h)
        return;
    uint8_t *p = im->rgb + 3 * ((size_t)y * (size_t)im->w + (size_t)x);
    const uint8_t c[3] = {(uint8_t)(color >> 16), (uint8_t)(color >> 8), (uint8_t)color};
    for (int k = 0; k < 3; k++)
        p[k] = (uint8_t)lround(p[k] * (1 - alpha) + c[k] * alpha);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Even-odd scanline fill of a polygon given in device pixels: a pixel is
 * in when its centre is. */
static void fill_polygon(image *im, const double *xy, int n, uint32_t color, double alpha)
{
    double ylo = xy[1], yhi = xy[1];
    for (int i = 1; i < n; i++) {
        ylo = fmin(ylo, xy[2 * i + 1]);
        yhi = fmax(yhi, xy[2 * i + 1]);
    }
    int y0 = (int)fmax(0, floor(ylo)), y1 = (int)fmin(im->h - 1, ceil(yhi));
    double cross[256];
    for (int y = y0; y <= y1; y++) {
        double cy = y + 0.5;
        int nc = 0;
        for (int i = 0; i < n && nc < 256; i++) {
            double ax = xy[2 * i], ay = xy[2 * i + 1];
            double bx = xy[2 * ((i + 1) % n)], by = xy[2 * ((i + 1) % n) + 1];
            if ((ay <= cy) != (by <= cy))
                cross[nc++] = ax + (cy - ay) * (bx - ax) / (by - ay);
        }
        qsort(cross, (size_t)nc, sizeof *cross, cmp_double);
        for (int k = 0; k + 1 < nc; k += 2) {
            int xa = (int)ceil(cross[k] - 0.5), xb = (int)floor(cross[k + 1] - 0.5);
            for (int x = xa < 0 ? 0 : xa; x <= xb && x < im->w; x++)
                blend(im, x, y, color, alpha);
        }
    }
}

static void fill_rect(image *im, double x, double y, double w, double h, uint32_t color)
{
    double q[8] = {x, y, x + w, y, x + w, y + h, x, y + h};
    fill_polygon(im, q, 4, color, 1.0);
}

/* A thick segment as a quad, plus a square-ish cap so joints close. */
static void stroke_segment(image *im, double x0, double y0, double x1, double y1, double w,
                           uint32_t color)
{
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    double h = w / 2;
    if (len > 0) {
        double nx = -dy / len * h, ny = dx / len * h;
        double q[8] = {x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny};
        fill_polygon(im, q, 4, color, 1.0);
    }
    if (w > SS) {
        double oct[16];
        for (int k = 0; k < 8; k++) {
            oct[2 * k] = x1 + h * cos(k * M_PI / 4 + M_PI / 8);
            oct[2 * k + 1] = y1 + h * sin(k * M_PI / 4 + M_PI / 8);
        }
        fill_polygon(im, oct, 8, color, 1.0);
    }
}

static void stroke(image *im, const double *xy, int n, double w, int dashed, uint32_t color)
{
    double on = 4 * w, off = 3 * w, phase = 0; /* distance into the current dash cycle */
    for (int i = 0; i + 1 < n; i++) {
        double x0 = xy[2 * i], y0 = xy[2 * i + 1], x1 = xy[2 * i + 2], y1 = xy[2 * i + 3];
        double len = hypot(x1 - x0, y1 - y0);
        if (!dashed || len == 0) {
            stroke_segment(im, x0, y0, x1, y1, w, color);
            continue;
        }
        for (double t = 0; t < len;) {
            double in_cycle = fmod(phase, on + off);
            double step = in_cycle < on ? on - in_cycle : on + off - in_cycle;
            double end = fmin(len, t + step);
            if (in_cycle < on)
                stroke_segment(im, x0 + (x1 - x0) * t / len, y0 + (y1 - y0) * t / len,
                               x0 + (x1 - x0) * end / len, y0 + (y1 - y0) * end / len, w, color);
            phase += end - t;
            t = end;
        }
    }
}

static void draw_text(image *im, const skb_op *op)
{
    double u = fmax(1.0, round(op->px * SS));
    size_t n = strlen(op->text);
    double width = n ? ((double)n * SKB_GLYPH_ADVANCE - 1) * u : 0;
    double shift = op->anchor == SKB_MIDDLE ? width / 2 : op->anchor == SKB_RIGHT ? width : 0;
    double ox = round(op->xy[0] * SS), oy = round(op->xy[1] * SS);
    for (size_t i = 0; i < n; i++)
        for (int row = 0; row < SKB_GLYPH_ROWS; row++)
            for (int col = 0; col < SKB_GLYPH_W; col++) {
                if (!skb_glyph_pixel((unsigned char)op->text[i], col, row))
                    continue;
                /* offset along the text (dx) and down from the baseline (dy) */
                double dx = (double)i * SKB_GLYPH_ADVANCE * u + col * u - shift;
                double dy = (row - SKB_GLYPH_BASELINE) * u;
                if (op->vertical) /* rotated a quarter turn anticlockwise */
                    fill_rect(im, ox + dy, oy - dx - u, u, u, op->color);
                else
                    fill_rect(im, ox + dx, oy + dy, u, u, op->color);
            }
}

static int draw(image *im, const skb_op *op)
{
    double *xy = NULL;
    if (op->kind == SKB_LINE || op->kind == SKB_FILL) {
        xy = sk_malloc((size_t)op->npts * 2 * sizeof *xy);
        if (!xy)
            return 0;
        for (int i = 0; i < 2 * op->npts; i++)
            xy[i] = op->xy[i] * SS;
    }
    switch (op->kind) {
    case SKB_LINE:
        stroke(im, xy, op->npts, fmax(1.0, op->width * SS), op->dashed, op->color);
        break;
    case SKB_FILL:
        fill_polygon(im, xy, op->npts, op->color, op->alpha);
        break;
    case SKB_RECT: {
        double x = op->xy[0] * SS, y = op->xy[1] * SS, w = op->xy[2] * SS, h = op->xy[3] * SS;
        if (op->fill != SKB_NONE)
            fill_rect(im, x, y, w, h, op->fill);
        if (op->color != SKB_NONE) {
            double box[10] = {x, y, x + w, y, x + w, y + h, x, y + h, x, y};
            stroke(im, box, 5, fmax(1.0, op->width * SS), 0, op->color);
        }
        break;
    }
    case SKB_TEXT:
        draw_text(im, op);
        break;
    case SKB_GROUP:
    case SKB_GROUP_END:
        break;
    }
    sk_free(xy);
    return 1;
}

int skb_rasterise(const skb_canvas *c, uint8_t **rgb, sk_error *err)
{
    *rgb = NULL;
    if (c->failed)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory drawing the figure");
    image big = {c->width * SS, c->height * SS, NULL};
    big.rgb = sk_malloc((size_t)big.w * (size_t)big.h * 3);
    uint8_t *out = sk_malloc((size_t)c->width * (size_t)c->height * 3);
    if (!big.rgb || !out) {
        sk_free(big.rgb);
        sk_free(out);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory drawing the figure");
    }
    memset(big.rgb, 0xFF, (size_t)big.w * (size_t)big.h * 3);
    int ok = 1;
    for (int i = 0; i < c->nops && ok; i++)
        ok = draw(&big, &c->ops[i]);
    for (int y = 0; y < c->height; y++)
        for (int x = 0; x < c->width; x++)
            for (int k = 0; k < 3; k++) {
                unsigned sum = 0;
                for (int sy = 0; sy < SS; sy++)
                    for (int sx = 0; sx < SS; sx++)
                        sum += big.rgb[3 * ((size_t)(y * SS + sy) * (size_t)big.w +
                                            (size_t)(x * SS + sx)) + (size_t)k];
                out[3 * ((size_t)y * (size_t)c->width + (size_t)x) + (size_t)k] =
                    (uint8_t)((sum + SS * SS / 2) / (SS * SS));
            }
    sk_free(big.rgb);
    if (!ok) {
        sk_free(out);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory drawing the figure");
    }
    *rgb = out;
    return SK_OK;
}
