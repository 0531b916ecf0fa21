/* The drawing as SVG: one element per operation, panels as groups. Text
 * uses a monospace font stretched to the bitmap font's width, so the SVG
 * and the PNG lay out alike. */
#include <stdio.h>

#include "bench/canvas.h"
#include "bench/font.h"
#include "bench/strbuf.h"

static void colour(skb_buf *b, const char *attr, uint32_t c)
{
    if (c == SKB_NONE)
        skb_printf(b, " %s=\"none\"", attr);
    else
        skb_printf(b, " %s=\"#%06x\"", attr, (unsigned)c & 0xFFFFFFu);
}

static void escaped(skb_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': skb_puts(b, "&amp;"); break;
        case '<': skb_puts(b, "&lt;"); break;
        case '>': skb_puts(b, "&gt;"); break;
        case '"': skb_puts(b, "&quot;"); break;
        default:
            if ((unsigned char)*s >= 32 || *s == '\t')
                skb_printf(b, "%c", *s);
        }
    }
}

static void points(skb_buf *b, const skb_op *op)
{
    skb_puts(b, " points=\"");
    for (int i = 0; i < op->npts; i++)
        skb_printf(b, "%s%.2f,%.2f", i ? " " : "", op->xy[2 * i], op->xy[2 * i + 1]);
    skb_puts(b, "\"");
}

static void text(skb_buf *b, const skb_op *op)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    double x = op->xy[0], y = op->xy[1];
    skb_printf(b, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"monospace\" font-size=\"%.2f\" "
                  "text-anchor=\"%s\" textLength=\"%.2f\" lengthAdjust=\"spacingAndGlyphs\"",
               x, y, op->px * 10.0, anchors[op->anchor], skb_text_width(op->text, op->px));
    colour(b, "fill", op->color);
    if (op->vertical)
        skb_printf(b, " transform=\"rotate(-90 %.2f %.2f)\"", x, y);
    skb_puts(b, ">");
    escaped(b, op->text);
    skb_puts(b, "</text>\n");
}

static void element(skb_buf *b, const skb_op *op)
{
    switch (op->kind) {
    case SKB_LINE:
        skb_puts(b, "<polyline");
        points(b, op);
        skb_puts(b, " fill=\"none\"");
        colour(b, "stroke", op->color);
        skb_printf(b, " stroke-width=\"%.2f\" stroke-linejoin=\"round\"", op->width);
        if (op->dashed)
            skb_printf(b, " stroke-dasharray=\"%.1f %.1f\"", 4 * op->width, 3 * op->width);
        skb_puts(b, "/>\n");
        break;
    case SKB_FILL:
        skb_puts(b, "<polygon");
        points(b, op);
        colour(b, "fill", op->color);
        if (op->alpha < 1)
            skb_printf(b, " fill-opacity=\"%.3f\"", op->alpha);
        skb_puts(b, "/>\n");
        break;
    case SKB_RECT:
        skb_printf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", op->xy[0],
                   op->xy[1], op->xy[2], op->xy[3]);
        colour(b, "fill", op->fill);
        colour(b, "stroke", op->color);
        if (op->color != SKB_NONE)
            skb_printf(b, " stroke-width=\"%.2f\"", op->width);
        skb_puts(b, "/>\n");
        break;
    case SKB_TEXT:
        text(b, op);
        break;
    case SKB_GROUP:
        skb_puts(b, "<g class=\"panel\" id=\"");
        escaped(b, op->text);
        skb_puts(b, "\">\n");
        break;
    case SKB_GROUP_END:
        skb_puts(b, "</g>\n");
        break;
    }
}

char *skb_svg(const skb_canvas *c)
{
    if (c->failed)
        return NULL;
    skb_buf b = {0};
    skb_printf(&b,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\">\n"
               "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
               c->width, c->height, c->width, c->height, c->width, c->height);
    for (int i = 0; i < c->nops; i++)
        element(&b, &c->ops[i]);
    skb_puts(&b, "</svg>\n");
    return skb_take(&b);
}
