/* cairo, loaded when the first figure is drawn rather than linked
 * (snapkit/util/lazylib.h): Debian's cairo brings X11, xcb, fontconfig, freetype
 * and pixman, 17 libraries that every snapkit process mapped and
 * relocated at start while most commands draw nothing.
 *
 * The drawing code keeps cairo's own names: after this header each one
 * snapkit uses stands for the pointer the loaded library gave. Include it
 * instead of <cairo.h>; call skf_cairo_load (skf_begin and skf_scratch do)
 * before the first cairo call. */
#ifndef SNAPKIT_FIGURE_CAIRO_LIB_H
#define SNAPKIT_FIGURE_CAIRO_LIB_H

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include "snapkit/error.h"

#define SKF_CAIRO_CALLS(X)                                                                         \
    X(cairo_clip) X(cairo_close_path) X(cairo_create) X(cairo_debug_reset_static_data)             \
    X(cairo_destroy) X(cairo_fill) X(cairo_fill_preserve) X(cairo_get_source)                      \
    X(cairo_image_surface_create) X(cairo_image_surface_create_from_png)                           \
    X(cairo_image_surface_get_data) X(cairo_image_surface_get_height)                              \
    X(cairo_image_surface_get_stride) X(cairo_image_surface_get_width) X(cairo_line_to)            \
    X(cairo_move_to) X(cairo_new_path)                                                             \
    X(cairo_paint) X(cairo_pattern_set_extend) X(cairo_pattern_set_filter)                         \
    X(cairo_pdf_surface_create_for_stream) X(cairo_pdf_surface_set_metadata) X(cairo_rectangle)    \
    X(cairo_restore) X(cairo_rotate) X(cairo_save) X(cairo_scale) X(cairo_select_font_face)        \
    X(cairo_set_antialias)                                                                         \
    X(cairo_set_dash) X(cairo_set_font_size) X(cairo_set_line_join) X(cairo_set_line_width)        \
    X(cairo_set_source_rgb) X(cairo_set_source_rgba) X(cairo_set_source_surface)                   \
    X(cairo_show_text) X(cairo_status) X(cairo_status_to_string) X(cairo_stroke)                   \
    X(cairo_surface_destroy) X(cairo_surface_finish) X(cairo_surface_flush)                        \
    X(cairo_surface_mark_dirty) X(cairo_surface_status) X(cairo_surface_write_to_png_stream)       \
    X(cairo_svg_surface_create_for_stream) X(cairo_svg_surface_set_document_unit)                  \
    X(cairo_text_extents) X(cairo_translate)

typedef struct skf_cairo_calls {
#define SKF_CAIRO_MEMBER(f) __typeof__(&f) f;
    SKF_CAIRO_CALLS(SKF_CAIRO_MEMBER)
#undef SKF_CAIRO_MEMBER
    void (*fc_fini)(void); /* fontconfig's FcFini, from cairo's dependencies */
} skf_cairo_calls;

/* Filled by skf_cairo_load. */
extern skf_cairo_calls skf_cairo;

/* Loads cairo once (the SONAME found at build time, or the file named by
 * SNAPKIT_CAIRO). SK_OK, or SK_ERR_IO with one line saying what to install. */
int skf_cairo_load(sk_error *err);
/* Has cairo been loaded (and figures perhaps drawn)? */
int skf_cairo_loaded(void);

#ifndef SKF_CAIRO_LOADER
#define cairo_clip (skf_cairo.cairo_clip)
#define cairo_close_path (skf_cairo.cairo_close_path)
#define cairo_create (skf_cairo.cairo_create)
#define cairo_debug_reset_static_data (skf_cairo.cairo_debug_reset_static_data)
#define cairo_destroy (skf_cairo.cairo_destroy)
#define cairo_fill (skf_cairo.cairo_fill)
#define cairo_fill_preserve (skf_cairo.cairo_fill_preserve)
#define cairo_get_source (skf_cairo.cairo_get_source)
#define cairo_image_surface_create (skf_cairo.cairo_image_surface_create)
#define cairo_image_surface_create_from_png (skf_cairo.cairo_image_surface_create_from_png)
#define cairo_image_surface_get_data (skf_cairo.cairo_image_surface_get_data)
#define cairo_image_surface_get_height (skf_cairo.cairo_image_surface_get_height)
#define cairo_image_surface_get_stride (skf_cairo.cairo_image_surface_get_stride)
#define cairo_image_surface_get_width (skf_cairo.cairo_image_surface_get_width)
#define cairo_line_to (skf_cairo.cairo_line_to)
#define cairo_move_to (skf_cairo.cairo_move_to)
#define cairo_new_path (skf_cairo.cairo_new_path)
#define cairo_paint (skf_cairo.cairo_paint)
#define cairo_pattern_set_extend (skf_cairo.cairo_pattern_set_extend)
#define cairo_pattern_set_filter (skf_cairo.cairo_pattern_set_filter)
#define cairo_pdf_surface_create_for_stream (skf_cairo.cairo_pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata (skf_cairo.cairo_pdf_surface_set_metadata)
#define cairo_rectangle (skf_cairo.cairo_rectangle)
#define cairo_restore (skf_cairo.cairo_restore)
#define cairo_rotate (skf_cairo.cairo_rotate)
#define cairo_save (skf_cairo.cairo_save)
#define cairo_scale (skf_cairo.cairo_scale)
#define cairo_select_font_face (skf_cairo.cairo_select_font_face)
#define cairo_set_antialias (skf_cairo.cairo_set_antialias)
#define cairo_set_dash (skf_cairo.cairo_set_dash)
#define cairo_set_font_size (skf_cairo.cairo_set_font_size)
#define cairo_set_line_join (skf_cairo.cairo_set_line_join)
#define cairo_set_line_width (skf_cairo.cairo_set_line_width)
#define cairo_set_source_rgb (skf_cairo.cairo_set_source_rgb)
#define cairo_set_source_rgba (skf_cairo.cairo_set_source_rgba)
#define cairo_set_source_surface (skf_cairo.cairo_set_source_surface)
#define cairo_show_text (skf_cairo.cairo_show_text)
#define cairo_status (skf_cairo.cairo_status)
#define cairo_status_to_string (skf_cairo.cairo_status_to_string)
#define cairo_stroke (skf_cairo.cairo_stroke)
#define cairo_surface_destroy (skf_cairo.cairo_surface_destroy)
#define cairo_surface_finish (skf_cairo.cairo_surface_finish)
#define cairo_surface_flush (skf_cairo.cairo_surface_flush)
#define cairo_surface_mark_dirty (skf_cairo.cairo_surface_mark_dirty)
#define cairo_surface_status (skf_cairo.cairo_surface_status)
#define cairo_surface_write_to_png_stream (skf_cairo.cairo_surface_write_to_png_stream)
#define cairo_svg_surface_create_for_stream (skf_cairo.cairo_svg_surface_create_for_stream)
#define cairo_svg_surface_set_document_unit (skf_cairo.cairo_svg_surface_set_document_unit)
#define cairo_text_extents (skf_cairo.cairo_text_extents)
#define cairo_translate (skf_cairo.cairo_translate)
#endif

#endif
