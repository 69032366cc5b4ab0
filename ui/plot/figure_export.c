/* A figure to a PNG, SVG or PDF file, written under a temporary name and
 * renamed so an old file survives a failed export. */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_options.h"
#include "figure.h"
#include "plot.h"
#include "png_resolution.h"

typedef enum { FORMAT_UNKNOWN, FORMAT_PNG, FORMAT_SVG, FORMAT_PDF } format;

static format format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot == NULL)
        return FORMAT_UNKNOWN;
    if (g_ascii_strcasecmp(dot, ".png") == 0)
        return FORMAT_PNG;
    if (g_ascii_strcasecmp(dot, ".svg") == 0)
        return FORMAT_SVG;
    if (g_ascii_strcasecmp(dot, ".pdf") == 0)
        return FORMAT_PDF;
    return FORMAT_UNKNOWN;
}

bool rf_figure_format_known(const char *path)
{
    return format_of(path) != FORMAT_UNKNOWN;
}

/* The figure laid out at `width` x `height` drawing units, each `scale`
 * device units (pixels or points), its text at the options' font size. */
static void draw(const rf_figure *f, const rf_zoom *zoom, cairo_surface_t *s, double width, double height,
                 double scale, double font_size, GString *svg_text)
{
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    rf_plot_set_figure_only(cr);
    rf_plot_set_text_scale(cr, font_size / RF_EXPORT_FONT_SIZE);
    if (svg_text != NULL)
        rf_plot_collect_svg_text(cr, svg_text);
    cairo_scale(cr, scale, scale);
    f->draw(f->data, cr, width, height, zoom);
    cairo_destroy(cr);
}

/* The figure's text elements into the SVG cairo wrote, before its end tag
 * (drawn last, over the figure, as its labels are). */
static bool add_svg_text(const char *tmp, const GString *text, const char **problem)
{
    g_autofree char *svg = NULL;
    gsize len = 0;
    char *end = NULL;
    if (!g_file_get_contents(tmp, &svg, &len, NULL) || (end = g_strrstr(svg, "</svg>")) == NULL) {
        *problem = "cairo wrote no SVG";
        return false;
    }
    g_autoptr(GString) out = g_string_new_len(svg, end - svg);
    g_string_append_len(out, text->str, (gssize)text->len);
    g_string_append(out, end);
    if (!g_file_set_contents(tmp, out->str, (gssize)out->len, NULL)) {
        *problem = "cannot write the SVG's text";
        return false;
    }
    return true;
}

static bool write_to(const rf_figure *f, const rf_zoom *zoom, format fmt, const char *tmp,
                     const rf_export_options *o, const char **problem)
{
    cairo_surface_t *s;
    double width, height, scale;
    rf_export_drawing_size(o, &width, &height);
    if (fmt == FORMAT_PNG) {
        int pw, ph;
        rf_export_png_size(o, &pw, &ph);
        s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
        /* The drawing fills the pixels exactly, whatever the rounding did. */
        scale = pw / width;
        height = ph / scale;
    } else {
        double pt_w, pt_h;
        rf_export_points(o, &pt_w, &pt_h);
        s = fmt == FORMAT_SVG ? cairo_svg_surface_create(tmp, pt_w, pt_h) : cairo_pdf_surface_create(tmp, pt_w, pt_h);
        scale = 72.0 / 96.0;
    }
    bool ok = cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
    g_autoptr(GString) svg_text = fmt == FORMAT_SVG ? g_string_new(NULL) : NULL;
    if (ok) {
        draw(f, zoom, s, width, height, scale, o->font_size, svg_text);
        if (fmt == FORMAT_PNG)
            ok = rf_png_write_with_resolution(s, o->dpi, tmp, problem);
        cairo_surface_finish(s);
        ok = ok && cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
    }
    if (!ok && *problem == NULL)
        *problem = cairo_status_to_string(cairo_surface_status(s));
    cairo_surface_destroy(s);
    if (ok && svg_text != NULL)
        ok = add_svg_text(tmp, svg_text, problem);
    return ok;
}

bool rf_figure_export(const rf_figure *f, const rf_zoom *zoom, const char *path, int width, int height, char *err,
                      size_t err_size)
{
    rf_export_options o = rf_export_pixels(width, height);
    return rf_figure_export_with(f, zoom, path, &o, err, err_size);
}

bool rf_figure_export_with(const rf_figure *f, const rf_zoom *zoom, const char *path, const rf_export_options *o,
                           char *err, size_t err_size)
{
    format fmt = format_of(path);
    if (fmt == FORMAT_UNKNOWN) {
        snprintf(err, err_size, "%s: unknown plot format (use .png, .svg or .pdf)", path);
        return false;
    }
    char why_not[256];
    if (!rf_export_options_check(o, fmt == FORMAT_PNG, why_not, sizeof why_not)) {
        snprintf(err, err_size, "%s: size %gx%g %s, %g dpi, font %g pt: %s", path, o->width, o->height,
                 rf_length_unit_name(o->unit), o->dpi, o->font_size, why_not);
        return false;
    }
    char why[256];
    if (f->empty != NULL && f->empty(f->data, why, sizeof why)) {
        snprintf(err, err_size, "%s: nothing to export: %s", path, why);
        return false;
    }
    rf_zoom all = RF_ZOOM_ALL;
    if (zoom == NULL)
        zoom = &all;

    char *tmp = g_strdup_printf("%s.XXXXXX", path);
    int fd = g_mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, err_size, "%s: cannot write: %s", path, g_strerror(errno));
        g_free(tmp);
        return false;
    }
    fchmod(fd, 0644);   /* mkstemp makes it private; an exported plot is not */
    close(fd);
    const char *problem = NULL;
    bool ok = write_to(f, zoom, fmt, tmp, o, &problem);
    if (!ok)
        snprintf(err, err_size, "%s: cannot write the plot: %s", path, problem);
    else if (g_rename(tmp, path) != 0) {
        snprintf(err, err_size, "%s: cannot write: %s", path, g_strerror(errno));
        ok = false;
    }
    if (!ok)
        g_unlink(tmp);
    g_free(tmp);
    return ok;
}
