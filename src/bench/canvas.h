/* A drawing recorded as a list of operations, so one figure renders both
 * as SVG text and as pixels. Coordinates are in pixels of the PNG, y down. */
#ifndef SNAPKIT_BENCH_CANVAS_H
#define SNAPKIT_BENCH_CANVAS_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"

#define SKB_NONE 0xFFFFFFFFu /* no fill / no stroke */

typedef enum skb_op_kind { SKB_LINE, SKB_FILL, SKB_RECT, SKB_TEXT, SKB_GROUP, SKB_GROUP_END } skb_op_kind;

typedef enum skb_anchor { SKB_LEFT, SKB_MIDDLE, SKB_RIGHT } skb_anchor;

typedef struct skb_op {
    skb_op_kind kind;
    uint32_t color;      /* 0xRRGGBB: stroke of lines and rects, fill of polygons, text */
    uint32_t fill;       /* rects: fill colour or SKB_NONE */
    double alpha;        /* fill opacity */
    double width;        /* stroke width */
    int dashed;
    int npts;
    double *xy;          /* npts (x, y) pairs; rects: x, y, w, h */
    double px;           /* text: size of one font pixel */
    skb_anchor anchor;
    int vertical;        /* text read bottom to top */
    char *text;          /* text, or the group's id */
} skb_op;

typedef struct skb_canvas {
    int width, height;
    int nops, cap;
    skb_op *ops;
    int failed;          /* memory ran out while recording */
} skb_canvas;

void skb_canvas_init(skb_canvas *c, int width, int height);
void skb_canvas_free(skb_canvas *c);

/* A polyline through n points. */
void skb_line(skb_canvas *c, const double *xy, int n, uint32_t color, double width, int dashed);
void skb_segment(skb_canvas *c, double x0, double y0, double x1, double y1, uint32_t color,
                 double width);
/* A filled polygon. */
void skb_fill(skb_canvas *c, const double *xy, int n, uint32_t color, double alpha);
/* A rectangle, filled and/or outlined (SKB_NONE for neither). */
void skb_rect(skb_canvas *c, double x, double y, double w, double h, uint32_t fill,
              uint32_t stroke, double width);
/* Text with its baseline at y; px is one font pixel (a character is 6 px
 * wide, 7 px above the baseline). */
void skb_text(skb_canvas *c, double x, double y, const char *text, double px, skb_anchor anchor,
              int vertical, uint32_t color);
/* Width of text at font pixel px. */
double skb_text_width(const char *text, double px);
/* Operations between group and group_end form one named part (a panel). */
void skb_group(skb_canvas *c, const char *id);
void skb_group_end(skb_canvas *c);

/* The drawing as SVG text (sk_malloc block); NULL when out of memory. */
char *skb_svg(const skb_canvas *c);
/* The drawing as an 8-bit RGB PNG. */
int skb_png(const skb_canvas *c, uint8_t **png, size_t *size, sk_error *err);

#endif
