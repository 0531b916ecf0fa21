/* Figures with cairo: PNG through an image surface, SVG and PDF through
 * vector surfaces that stream into memory. */
#include "figure/figure.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "snapkit/util/atomicfile.h"
#include "snapkit/memory.h"

static const char k_font[] = "DejaVu Sans";

int skf_format_of(const char *path, skf_format *fmt)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return -1;
    static const char *const ext[] = {".png", ".svg", ".pdf"};
    for (int i = 0; i < 3; i++)
        if (!strcasecmp(dot, ext[i])) {
            *fmt = (skf_format)i;
            return 0;
        }
    return -1;
}

const char *skf_format_name(skf_format fmt)
{
    static const char *const names[] = {"png", "svg", "pdf"};
    return names[fmt];
}

static cairo_status_t to_text(void *closure, const unsigned char *data, unsigned int n)
{
    sk_text *t = closure;
    sk_text_put(t, (const char *)data, n);
    return t->failed ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

static int drawing_failed(cairo_status_t st, const char *path, const char *what, sk_error *err)
{
    return sk_fail(err, st == CAIRO_STATUS_NO_MEMORY ? SK_ERR_NOMEM : SK_ERR_IO, path, -1,
                   "%s: %s", what, cairo_status_to_string(st));
}

int skf_begin(skf_figure *f, skf_format fmt, double width, double height, sk_error *err)
{
    memset(f, 0, sizeof *f);
    int rc = skf_cairo_load(err);
    if (rc != SK_OK)
        return rc;
    f->format = fmt;
    f->width = width;
    f->height = height;
    if (fmt == SKF_PNG)
        f->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(width),
                                                (int)ceil(height));
    else if (fmt == SKF_SVG)
        f->surface = cairo_svg_surface_create_for_stream(to_text, &f->out, width, height);
    else
        f->surface = cairo_pdf_surface_create_for_stream(to_text, &f->out, width, height);
    cairo_status_t st = cairo_surface_status(f->surface);
    if (st == CAIRO_STATUS_SUCCESS) {
        if (fmt == SKF_SVG)
            cairo_svg_surface_set_document_unit(f->surface, CAIRO_SVG_UNIT_PX);
        if (fmt == SKF_PDF)
            cairo_pdf_surface_set_metadata(f->surface, CAIRO_PDF_METADATA_CREATOR, "snapkit");
        f->cr = cairo_create(f->surface);
        st = cairo_status(f->cr);
    }
    if (st != CAIRO_STATUS_SUCCESS) {
        skf_discard(f);
        return drawing_failed(st, NULL, "cannot start the figure", err);
    }
    cairo_set_source_rgb(f->cr, 1, 1, 1);
    cairo_paint(f->cr);
    cairo_select_font_face(f->cr, k_font, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    return SK_OK;
}

void skf_discard(skf_figure *f)
{
    if (f->cr)
        cairo_destroy(f->cr);
    if (f->surface)
        cairo_surface_destroy(f->surface);
    sk_text_free(&f->out);
    f->cr = NULL;
    f->surface = NULL;
}

static int finish(skf_figure *f, const char *path, char **bytes, size_t *size, sk_error *err)
{
    *bytes = NULL;
    *size = 0;
    cairo_status_t st = cairo_status(f->cr);
    cairo_destroy(f->cr);
    f->cr = NULL;
    if (st == CAIRO_STATUS_SUCCESS && f->format == SKF_PNG)
        st = cairo_surface_write_to_png_stream(f->surface, to_text, &f->out);
    cairo_surface_finish(f->surface); /* vector surfaces write their last bytes */
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(f->surface);
    if (st == CAIRO_STATUS_SUCCESS && f->out.failed)
        st = CAIRO_STATUS_NO_MEMORY;
    if (st != CAIRO_STATUS_SUCCESS) {
        skf_discard(f);
        return drawing_failed(st, path, "cannot draw the figure", err);
    }
    *size = f->out.len;
    *bytes = sk_text_take(&f->out);
    skf_discard(f);
    return *bytes ? SK_OK : sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory for the figure");
}

int skf_end(skf_figure *f, char **bytes, size_t *size, sk_error *err)
{
    return finish(f, NULL, bytes, size, err);
}

int skf_end_write(skf_figure *f, const char *path, sk_error *err)
{
    char *bytes;
    size_t size;
    int rc = finish(f, path, &bytes, &size, err);
    if (rc != SK_OK)
        return rc;
    sk_atomic_file *file = NULL;
    rc = sk_atomic_open(&file, path, err);
    if (rc == SK_OK) {
        rc = sk_atomic_write(file, bytes, size, err);
        rc = rc == SK_OK ? sk_atomic_commit(file, err) : (sk_atomic_abort(file), rc);
    }
    sk_free(bytes);
    return rc;
}

void skf_release(void)
{
    if (!skf_cairo_loaded())
        return;
    cairo_debug_reset_static_data();
    skf_cairo.fc_fini();
}

cairo_t *skf_scratch(void)
{
    sk_error err;
    if (skf_cairo_load(&err) != SK_OK)
        return NULL;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s); /* holds its own reference to s */
    cairo_surface_destroy(s);
    return cr;
}

/* ----------------------------------------------------------- primitives */

void skf_colour(cairo_t *cr, uint32_t rgb, double alpha)
{
    cairo_set_source_rgba(cr, ((rgb >> 16) & 255) / 255.0, ((rgb >> 8) & 255) / 255.0,
                          (rgb & 255) / 255.0, alpha);
}

static void font(cairo_t *cr, double size, int flags)
{
    cairo_select_font_face(cr, k_font, CAIRO_FONT_SLANT_NORMAL,
                           flags & SKF_TEXT_BOLD ? CAIRO_FONT_WEIGHT_BOLD
                                                 : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double skf_text_width(cairo_t *cr, const char *text, double size, int flags)
{
    cairo_text_extents_t e;
    font(cr, size, flags);
    cairo_text_extents(cr, text, &e);
    return e.x_advance;
}

void skf_text(cairo_t *cr, double x, double y, const char *text, double size, skf_anchor anchor,
              int flags, uint32_t colour)
{
    double w = skf_text_width(cr, text, size, flags);
    double shift = anchor == SKF_LEFT ? 0 : anchor == SKF_CENTRE ? -w / 2 : -w;
    cairo_save(cr);
    skf_colour(cr, colour, 1);
    if (flags & SKF_TEXT_VERTICAL) {
        cairo_translate(cr, x, y);
        cairo_rotate(cr, -M_PI / 2);
        cairo_move_to(cr, shift, 0);
    } else {
        cairo_move_to(cr, x + shift, y);
    }
    cairo_show_text(cr, text);
    cairo_new_path(cr);
    cairo_restore(cr);
}

static void path(cairo_t *cr, const double *xy, int n)
{
    cairo_new_path(cr);
    for (int i = 0; i < n; i++)
        cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
}

void skf_line(cairo_t *cr, const double *xy, int n, uint32_t colour, double width, int dashed)
{
    if (n < 2)
        return;
    cairo_save(cr);
    path(cr, xy, n);
    skf_colour(cr, colour, 1);
    cairo_set_line_width(cr, width);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    if (dashed) {
        const double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

void skf_segment(cairo_t *cr, double x0, double y0, double x1, double y1, uint32_t colour,
                 double width)
{
    const double xy[4] = {x0, y0, x1, y1};
    skf_line(cr, xy, 2, colour, width, 0);
}

void skf_fill(cairo_t *cr, const double *xy, int n, uint32_t colour, double alpha)
{
    if (n < 3)
        return;
    cairo_save(cr);
    path(cr, xy, n);
    cairo_close_path(cr);
    skf_colour(cr, colour, alpha);
    cairo_fill(cr);
    cairo_restore(cr);
}

void skf_rect(cairo_t *cr, double x, double y, double w, double h, uint32_t fill,
              uint32_t stroke, double width)
{
    cairo_save(cr);
    cairo_new_path(cr);
    cairo_rectangle(cr, x, y, w, h);
    if (fill != SKF_NONE) {
        skf_colour(cr, fill, 1);
        if (stroke != SKF_NONE)
            cairo_fill_preserve(cr);
        else
            cairo_fill(cr);
    }
    if (stroke != SKF_NONE) {
        skf_colour(cr, stroke, 1);
        cairo_set_line_width(cr, width);
        cairo_stroke(cr);
    }
    cairo_new_path(cr);
    cairo_restore(cr);
}
