/* Export sizes with units, resolutions and font sizes (export_options.h). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export_options.h"

#define UNITS_PER_INCH 96.0

static const char *const unit_names[] = {"px", "in", "cm", "pt"};

rf_export_options rf_export_pixels(int width, int height)
{
    return (rf_export_options){width, height, RF_LENGTH_PX, RF_EXPORT_DPI, RF_EXPORT_FONT_SIZE};
}

const char *rf_length_unit_name(rf_length_unit unit)
{
    return unit <= RF_LENGTH_PT ? unit_names[unit] : "px";
}

bool rf_length_unit_from_name(const char *name, rf_length_unit *unit)
{
    for (int i = 0; i < (int)G_N_ELEMENTS(unit_names); i++)
        if (strcmp(name, unit_names[i]) == 0) {
            *unit = (rf_length_unit)i;
            return true;
        }
    return false;
}

bool rf_export_parse_size(const char *text, double *width, double *height, rf_length_unit *unit)
{
    char *end = NULL;
    double w = g_ascii_strtod(text, &end);
    if (end == text || (*end != 'x' && *end != 'X'))
        return false;
    const char *rest = end + 1;
    double h = g_ascii_strtod(rest, &end);
    if (end == rest || !(w > 0 && h > 0) || !isfinite(w) || !isfinite(h))
        return false;
    rf_length_unit u = RF_LENGTH_PX;
    if (*end != '\0' && !rf_length_unit_from_name(end, &u))
        return false;
    /* Pixels are whole. */
    if (u == RF_LENGTH_PX && (w != floor(w) || h != floor(h)))
        return false;
    *width = w;
    *height = h;
    *unit = u;
    return true;
}

static double inches(const rf_export_options *o, double v)
{
    switch (o->unit) {
    case RF_LENGTH_IN: return v;
    case RF_LENGTH_CM: return v / 2.54;
    case RF_LENGTH_PT: return v / 72.0;
    case RF_LENGTH_PX:
    default: return v / o->dpi;
    }
}

void rf_export_drawing_size(const rf_export_options *o, double *width, double *height)
{
    *width = inches(o, o->width) * UNITS_PER_INCH;
    *height = inches(o, o->height) * UNITS_PER_INCH;
}

void rf_export_png_size(const rf_export_options *o, int *width, int *height)
{
    *width = (int)lround(o->unit == RF_LENGTH_PX ? o->width : inches(o, o->width) * o->dpi);
    *height = (int)lround(o->unit == RF_LENGTH_PX ? o->height : inches(o, o->height) * o->dpi);
}

void rf_export_points(const rf_export_options *o, double *width, double *height)
{
    *width = inches(o, o->width) * 72.0;
    *height = inches(o, o->height) * 72.0;
}

static bool side_ok(double v)
{
    return v >= RF_EXPORT_SIDE_MIN - 1e-9 && v <= RF_EXPORT_SIDE_MAX + 1e-9;
}

bool rf_export_options_check(const rf_export_options *o, bool png, char *err, size_t err_size)
{
    if (!(o->dpi >= RF_EXPORT_DPI_MIN && o->dpi <= RF_EXPORT_DPI_MAX)) {
        snprintf(err, err_size, "the resolution %g dpi is outside %g..%g", o->dpi, RF_EXPORT_DPI_MIN,
                 RF_EXPORT_DPI_MAX);
        return false;
    }
    if (!(o->font_size >= RF_EXPORT_FONT_MIN && o->font_size <= RF_EXPORT_FONT_MAX)) {
        snprintf(err, err_size, "the font size %g pt is outside %g..%g", o->font_size, RF_EXPORT_FONT_MIN,
                 RF_EXPORT_FONT_MAX);
        return false;
    }
    double w, h;
    rf_export_drawing_size(o, &w, &h);
    int pw, ph;
    rf_export_png_size(o, &pw, &ph);
    if (!side_ok(w) || !side_ok(h) || (png && (!side_ok(pw) || !side_ok(ph)))) {
        snprintf(err, err_size, "each side must come to %d..%d pixels at %g dpi", RF_EXPORT_SIDE_MIN,
                 RF_EXPORT_SIDE_MAX, o->dpi);
        return false;
    }
    return true;
}
