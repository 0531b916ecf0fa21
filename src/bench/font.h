/* The figure's bitmap font: 5x7 glyphs with two descender rows, printable
 * ASCII. A glyph cell is 6 pixels wide and 10 high; rows 0-6 stand on the
 * baseline, rows 7-8 hang below it. */
#ifndef SNAPKIT_BENCH_FONT_H
#define SNAPKIT_BENCH_FONT_H

enum { SKB_GLYPH_W = 5, SKB_GLYPH_ROWS = 9, SKB_GLYPH_ADVANCE = 6, SKB_GLYPH_BASELINE = 7 };

/* Is pixel (col, row) of character ch set? Characters outside printable
 * ASCII draw as a hollow box. */
int skb_glyph_pixel(int ch, int col, int row);

#endif
