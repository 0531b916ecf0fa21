/* Figures drawn with cairo: one drawing code for PNG, SVG and PDF.
 *
 * A figure is a page of width x height points (one point is one pixel of
 * the PNG), drawn through its cairo context and finished into the file's
 * bytes, or written atomically. The primitives below cover what the
 * bench report and the map figures draw: text with real fonts, lines,
 * polygons and rectangles. Part of the command line's side (linked by the
 * CLI and the bench module), never of libsnapkit.
 */
#ifndef SNAPKIT_FIGURE_FIGURE_H
#define SNAPKIT_FIGURE_FIGURE_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/util/text.h"
#include "figure/cairo_lib.h"
#include "snapkit/error.h"

typedef enum skf_format { SKF_PNG, SKF_SVG, SKF_PDF } skf_format;

/* The format of a file name's extension (.png, .svg, .pdf, any case); -1
 * when it is none of them. */
int skf_format_of(const char *path, skf_format *fmt);
/* "png", "svg", "pdf". */
const char *skf_format_name(skf_format fmt);

typedef struct skf_figure {
    skf_format format;
    double width, height;     /* points */
    cairo_surface_t *surface;
    cairo_t *cr;
    sk_text out;              /* SVG and PDF bytes as the surface writes them */
} skf_figure;

/* Begin a white page. */
int skf_begin(skf_figure *f, skf_format fmt, double width, double height, sk_error *err);
/* Finish: the file's bytes (an sk_malloc block the caller frees). The
 * figure is released either way. */
int skf_end(skf_figure *f, char **bytes, size_t *size, sk_error *err);
/* Finish and write to path atomically (a temporary file, then a rename). */
int skf_end_write(skf_figure *f, const char *path, sk_error *err);
/* Release without output. */
void skf_discard(skf_figure *f);

/* Release what cairo and fontconfig keep for the whole process (font
 * caches): call once at the end of a program that drew figures, so that
 * leak checkers see nothing left. No figure may be drawn afterwards. */
void skf_release(void);

/* A context on a 1 x 1 page, for measuring text before a page is laid
 * out (free with cairo_destroy); NULL when cairo cannot be loaded. */
cairo_t *skf_scratch(void);

/* ----------------------------------------------------------- primitives */

#define SKF_NONE 0xFFFFFFFFu /* no fill / no stroke */

enum {
    SKF_BLUE = 0x1f77b4, SKF_ORANGE = 0xff7f0e, SKF_GREEN = 0x2ca02c, SKF_RED = 0xd62728,
    SKF_PURPLE = 0x9467bd, SKF_BROWN = 0x8c564b, SKF_GREY = 0x7f7f7f, SKF_INK = 0x222222,
    SKF_LIGHT = 0xdddddd, SKF_WHITE = 0xffffff
};

typedef enum skf_anchor { SKF_LEFT, SKF_CENTRE, SKF_RIGHT } skf_anchor;

enum { SKF_TEXT_BOLD = 1, SKF_TEXT_VERTICAL = 2 };

/* The colour 0xRRGGBB with opacity alpha as the source. */
void skf_colour(cairo_t *cr, uint32_t rgb, double alpha);
/* Advance width of text (UTF-8) at font size `size`. */
double skf_text_width(cairo_t *cr, const char *text, double size, int flags);
/* Text with its baseline at y, anchored at x (vertical: read bottom to
 * top, anchored along the line at y, baseline at x). */
void skf_text(cairo_t *cr, double x, double y, const char *text, double size, skf_anchor anchor,
              int flags, uint32_t colour);
/* A polyline through n points (x, y pairs). */
void skf_line(cairo_t *cr, const double *xy, int n, uint32_t colour, double width, int dashed);
void skf_segment(cairo_t *cr, double x0, double y0, double x1, double y1, uint32_t colour,
                 double width);
/* A filled polygon. */
void skf_fill(cairo_t *cr, const double *xy, int n, uint32_t colour, double alpha);
/* A rectangle, filled and/or outlined (SKF_NONE for neither). */
void skf_rect(cairo_t *cr, double x, double y, double w, double h, uint32_t fill,
              uint32_t stroke, double width);

#endif
