/* Recording drawing operations. */
#include "bench/canvas.h"

#include <string.h>

#include "bench/font.h"
#include "snapkit/memory.h"

void skb_canvas_init(skb_canvas *c, int width, int height)
{
    memset(c, 0, sizeof *c);
    c->width = width;
    c->height = height;
}

void skb_canvas_free(skb_canvas *c)
{
    for (int i = 0; i < c->nops; i++) {
        sk_free(c->ops[i].xy);
        sk_free(c->ops[i].text);
    }
    sk_free(c->ops);
    memset(c, 0, sizeof *c);
}

static skb_op *push(skb_canvas *c, skb_op_kind kind, const double *xy, int n, const char *text)
{
    if (c->failed)
        return NULL;
    if (c->nops == c->cap) {
        int cap = c->cap ? 2 * c->cap : 256;
        skb_op *ops = sk_realloc(c->ops, (size_t)cap * sizeof *ops);
        if (!ops) {
            c->failed = 1;
            return NULL;
        }
        c->ops = ops;
        c->cap = cap;
    }
    skb_op *op = &c->ops[c->nops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->fill = SKB_NONE;
    op->alpha = 1.0;
    if (n > 0) {
        op->xy = sk_malloc((size_t)n * 2 * sizeof *op->xy);
        if (!op->xy) {
            c->failed = 1;
            return NULL;
        }
        memcpy(op->xy, xy, (size_t)n * 2 * sizeof *xy);
        op->npts = n;
    }
    if (text && !(op->text = sk_strdup(text))) {
        sk_free(op->xy);
        c->failed = 1;
        return NULL;
    }
    c->nops++;
    return op;
}

void skb_line(skb_canvas *c, const double *xy, int n, uint32_t color, double width, int dashed)
{
    if (n < 2)
        return;
    skb_op *op = push(c, SKB_LINE, xy, n, NULL);
    if (op) {
        op->color = color;
        op->width = width;
        op->dashed = dashed;
    }
}

void skb_segment(skb_canvas *c, double x0, double y0, double x1, double y1, uint32_t color,
                 double width)
{
    double xy[4] = {x0, y0, x1, y1};
    skb_line(c, xy, 2, color, width, 0);
}

void skb_fill(skb_canvas *c, const double *xy, int n, uint32_t color, double alpha)
{
    if (n < 3)
        return;
    skb_op *op = push(c, SKB_FILL, xy, n, NULL);
    if (op) {
        op->color = color;
        op->alpha = alpha;
    }
}

void skb_rect(skb_canvas *c, double x, double y, double w, double h, uint32_t fill,
              uint32_t stroke, double width)
{
    double r[4] = {x, y, w, h};
    skb_op *op = push(c, SKB_RECT, r, 2, NULL);
    if (op) {
        op->fill = fill;
        op->color = stroke;
        op->width = width;
    }
}

void skb_text(skb_canvas *c, double x, double y, const char *text, double px, skb_anchor anchor,
              int vertical, uint32_t color)
{
    double xy[2] = {x, y};
    skb_op *op = push(c, SKB_TEXT, xy, 1, text);
    if (op) {
        op->px = px;
        op->anchor = anchor;
        op->vertical = vertical;
        op->color = color;
    }
}

double skb_text_width(const char *text, double px)
{
    size_t n = strlen(text);
    return n ? ((double)n * SKB_GLYPH_ADVANCE - 1) * px : 0;
}

void skb_group(skb_canvas *c, const char *id)
{
    push(c, SKB_GROUP, NULL, 0, id);
}

void skb_group_end(skb_canvas *c)
{
    push(c, SKB_GROUP_END, NULL, 0, NULL);
}
