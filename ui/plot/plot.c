/* Colours, text and the axes panel. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

rf_rgb rf_colormap(double t)
{
    if (isnan(t))
        return (rf_rgb){0.6, 0.6, 0.6};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    /* Viridis as a degree-6 polynomial fit (max error ~0.01 per channel). */
    static const double c[7][3] = {
        {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
        {0.1050930431085774, 1.404613529898575, 1.384590162594685},
        {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
        {-4.634230498983486, -5.799100973351585, -19.33244095627987},
        {6.228269936347081, 14.17993336680509, 56.69055260068105},
        {4.776384997670288, -13.74514537774601, -65.35303263337234},
        {-5.435455855934631, 4.645852612178535, 26.3124352495832},
    };
    double v[3];
    for (int k = 0; k < 3; k++) {
        double s = c[6][k];
        for (int i = 5; i >= 0; i--)
            s = c[i][k] + t * s;
        v[k] = s < 0 ? 0 : s > 1 ? 1 : s;
    }
    return (rf_rgb){v[0], v[1], v[2]};
}

rf_rgb rf_colormap_of(rf_colormap_kind kind, double t)
{
    if (kind == RF_COLORMAP_GREY) {
        t = isnan(t) ? 0.5 : t < 0 ? 0 : t > 1 ? 1 : t;
        return (rf_rgb){t, t, t};
    }
    if (kind != RF_COLORMAP_DIVERGING)
        return rf_colormap(t);
    if (isnan(t))
        return (rf_rgb){0.6, 0.6, 0.6};
    /* RdBu's five anchor colours, blue (negative) to red (positive) */
    static const rf_rgb stops[5] = {{0.020, 0.188, 0.380},
                                    {0.263, 0.576, 0.765},
                                    {0.969, 0.969, 0.969},
                                    {0.839, 0.376, 0.302},
                                    {0.404, 0.000, 0.122}};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    int i = t >= 1 ? 3 : (int)(t * 4);
    double u = t * 4 - i;
    return (rf_rgb){stops[i].r + u * (stops[i + 1].r - stops[i].r), stops[i].g + u * (stops[i + 1].g - stops[i].g),
                    stops[i].b + u * (stops[i + 1].b - stops[i].b)};
}

rf_rgb rf_series_color(int i)
{
    /* Okabe-Ito, reordered so neighbours contrast; yellow left out (unreadable
     * on white). Then four darker hues, so that a plot of up to 12 runs (a
     * paper config beside its ablations) gives each its own colour. */
    static const rf_rgb palette[RF_SERIES_COLORS] = {
        {0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451}, {0.800, 0.475, 0.655},
        {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914}, {0.200, 0.200, 0.200}, {0.600, 0.600, 0.600},
        {0.600, 0.080, 0.150}, {0.400, 0.200, 0.600}, {0.450, 0.500, 0.100}, {0.550, 0.340, 0.160},
    };
    return palette[((i % RF_SERIES_COLORS) + RF_SERIES_COLORS) % RF_SERIES_COLORS];
}

void rf_set_color(cairo_t *cr, rf_rgb c, double alpha)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

static const rf_rgb ink = {0.15, 0.15, 0.17};
static const rf_rgb muted = {0.40, 0.40, 0.44};
static const rf_rgb grid = {0.90, 0.90, 0.92};

static const cairo_user_data_key_t text_scale_key;

void rf_plot_set_text_scale(cairo_t *cr, double scale)
{
    double *kept = malloc(sizeof *kept);
    if (kept == NULL)
        return;
    *kept = scale;
    if (cairo_surface_set_user_data(cairo_get_target(cr), &text_scale_key, kept, free) != CAIRO_STATUS_SUCCESS)
        free(kept);
}

double rf_plot_text_scale(cairo_t *cr)
{
    const double *scale = cairo_surface_get_user_data(cairo_get_target(cr), &text_scale_key);
    return scale != NULL ? *scale : 1.0;
}

double rf_plot_text_size(cairo_t *cr)
{
    return RF_PLOT_TEXT * rf_plot_text_scale(cr);
}

/* size is the nominal size; the target's text scale applies here, so every
 * text drawn or measured follows an export's font size. */
static void set_font(cairo_t *cr, const char *family, double size, bool bold)
{
    size *= rf_plot_text_scale(cr);
    cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double rf_text_width_in(cairo_t *cr, const char *family, double size, bool bold, const char *text)
{
    cairo_text_extents_t e;
    set_font(cr, family, size, bold);
    cairo_text_extents(cr, text, &e);
    return e.x_advance;
}

double rf_text_width(cairo_t *cr, double size, bool bold, const char *text)
{
    return rf_text_width_in(cr, RF_PLOT_FONT, size, bold, text);
}

static const cairo_user_data_key_t svg_text_key;

/* Text as an SVG <text> element (cairo's SVG surface draws glyph outlines,
 * which no editor or screen reader takes for text): at (x, y) in user
 * units under cr's current transform, in the current solid colour. */
static void svg_text_element(GString *out, cairo_t *cr, const char *family, double x, double y, double size, bool bold,
                             const char *text)
{
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    double r = 0, g = 0, b = 0, a = 1;
    cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &a);
    g_autofree char *escaped = g_markup_escape_text(text, -1);
    char num[6][G_ASCII_DTOSTR_BUF_SIZE], at[2][G_ASCII_DTOSTR_BUF_SIZE], sz[G_ASCII_DTOSTR_BUF_SIZE],
        op[G_ASCII_DTOSTR_BUF_SIZE];
    const double mv[6] = {m.xx, m.yx, m.xy, m.yy, m.x0, m.y0};
    for (int i = 0; i < 6; i++)
        g_ascii_formatd(num[i], sizeof num[i], "%.4f", mv[i]);
    g_ascii_formatd(at[0], sizeof at[0], "%.2f", x);
    g_ascii_formatd(at[1], sizeof at[1], "%.2f", y);
    g_ascii_formatd(sz, sizeof sz, "%.2f", size);
    g_ascii_formatd(op, sizeof op, "%.3f", a);
    g_string_append_printf(out,
                           "<text transform=\"matrix(%s %s %s %s %s %s)\" x=\"%s\" y=\"%s\" "
                           "font-family=\"%s, %s\" font-size=\"%s\"%s fill=\"#%02x%02x%02x\" "
                           "fill-opacity=\"%s\" xml:space=\"preserve\">%s</text>\n",
                           num[0], num[1], num[2], num[3], num[4], num[5], at[0], at[1], family,
                           strcmp(family, RF_PLOT_MONO) == 0 ? "monospace" : "sans-serif", sz,
                           bold ? " font-weight=\"bold\"" : "", (int)lround(r * 255), (int)lround(g * 255),
                           (int)lround(b * 255), op, escaped);
}

void rf_draw_text(cairo_t *cr, double x, double y, double ax, double ay, double size, bool bold, const char *text)
{
    rf_draw_text_in(cr, RF_PLOT_FONT, x, y, ax, ay, size, bold, text);
}

void rf_draw_text_in(cairo_t *cr, const char *family, double x, double y, double ax, double ay, double size, bool bold,
                     const char *text)
{
    cairo_text_extents_t e;
    cairo_font_extents_t fe;
    set_font(cr, family, size, bold);
    cairo_text_extents(cr, text, &e);
    cairo_font_extents(cr, &fe);
    /* Anchor on the advance width and the font's cap height, not the ink,
     * so labels line up whatever glyphs they hold. */
    double h = fe.ascent * 0.75, left = x - ax * e.x_advance, baseline = y - ay * h + h;
    GString *svg_text = cairo_surface_get_user_data(cairo_get_target(cr), &svg_text_key);
    if (svg_text != NULL) {
        svg_text_element(svg_text, cr, family, left, baseline, size * rf_plot_text_scale(cr), bold, text);
        return;
    }
    cairo_move_to(cr, left, baseline);
    cairo_show_text(cr, text);
}

void rf_plot_collect_svg_text(cairo_t *cr, GString *out)
{
    cairo_surface_set_user_data(cairo_get_target(cr), &svg_text_key, out, NULL);
}

void rf_draw_message(cairo_t *cr, rf_rect r, const char *text)
{
    cairo_save(cr);
    rf_set_color(cr, muted, 1);
    rf_draw_text(cr, r.x + r.w / 2, r.y + r.h / 2, 0.5, 0.5, RF_PLOT_TITLE, false, text);
    cairo_restore(cr);
}

/* --- the panel --- */

static double axis_frac(const rf_axis *a, double v)
{
    if (a->scale == RF_AXIS_LOG)
        return (log(v) - log(a->min)) / (log(a->max) - log(a->min));
    return (v - a->min) / (a->max - a->min);
}

static double axis_value(const rf_axis *a, double f)
{
    if (a->scale == RF_AXIS_LOG)
        return exp(log(a->min) + f * (log(a->max) - log(a->min)));
    return a->min + f * (a->max - a->min);
}

double rf_plot_px(const rf_plot *p, double x) { return p->frame.x + axis_frac(&p->x, x) * p->frame.w; }
double rf_plot_py(const rf_plot *p, double y) { return p->frame.y + (1 - axis_frac(&p->y, y)) * p->frame.h; }
double rf_plot_x_at(const rf_plot *p, double px) { return axis_value(&p->x, (px - p->frame.x) / p->frame.w); }
double rf_plot_y_at(const rf_plot *p, double py) { return axis_value(&p->y, 1 - (py - p->frame.y) / p->frame.h); }

bool rf_plot_contains(const rf_plot *p, double px, double py)
{
    return px >= p->frame.x && px <= p->frame.x + p->frame.w && py >= p->frame.y && py <= p->frame.y + p->frame.h;
}

#define MAX_TICKS 12

void rf_plot_begin(rf_plot *p, cairo_t *cr, rf_rect outer, const rf_axis *x, const rf_axis *y, const char *title)
{
    *p = (rf_plot){.cr = cr, .outer = outer, .x = *x, .y = *y};
    double xt[MAX_TICKS], yt[MAX_TICKS];
    int nx = rf_axis_ticks(x, xt, MAX_TICKS), ny = rf_axis_ticks(y, yt, MAX_TICKS);
    char buf[64];

    double label_w = 0, text = rf_plot_text_size(cr), title_size = RF_PLOT_TITLE * rf_plot_text_scale(cr);
    for (int i = 0; i < ny; i++) {
        rf_axis_format_value(y, yt[i], buf, sizeof buf);
        label_w = fmax(label_w, rf_text_width(cr, RF_PLOT_TEXT, false, buf));
    }
    double left = label_w + 10 + (y->label != NULL ? text + 8 : 0);
    double bottom = text + 10 + (x->label != NULL ? text + 8 : 0);
    double top = title != NULL ? title_size + 14 : 10;
    double right = 16;
    p->frame = (rf_rect){outer.x + left, outer.y + top, fmax(10, outer.w - left - right),
                         fmax(10, outer.h - top - bottom)};
    rf_rect f = p->frame;
    /* As many x ticks as fit side by side with a gap. */
    double tick_w = 0;
    for (int i = 0; i < nx; i++) {
        rf_axis_format_value(x, xt[i], buf, sizeof buf);
        tick_w = fmax(tick_w, rf_text_width(cr, RF_PLOT_TEXT, false, buf));
    }
    for (int fit = (int)(f.w / (tick_w + 14)); nx > fit && nx > 2; fit = (int)(f.w / (tick_w + 14)))
        nx = rf_axis_ticks(x, xt, nx - 1);
    /* As many y ticks as fit one above another with a gap (a short panel,
     * such as the Compare view's lower row on a laptop). */
    for (int fit = (int)(f.h / (text + 8)); ny > fit && ny > 2;)
        ny = rf_axis_ticks(y, yt, ny - 1);

    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, outer.x, outer.y, outer.w, outer.h);
    cairo_fill(cr);

    cairo_set_line_width(cr, 1);
    rf_set_color(cr, grid, 1);
    for (int i = 0; i < nx; i++) {
        double px = round(rf_plot_px(p, xt[i])) + 0.5;
        cairo_move_to(cr, px, f.y);
        cairo_line_to(cr, px, f.y + f.h);
    }
    for (int i = 0; i < ny; i++) {
        double py = round(rf_plot_py(p, yt[i])) + 0.5;
        cairo_move_to(cr, f.x, py);
        cairo_line_to(cr, f.x + f.w, py);
    }
    cairo_stroke(cr);

    rf_set_color(cr, muted, 1);
    for (int i = 0; i < nx; i++) {
        rf_axis_format_value(x, xt[i], buf, sizeof buf);
        rf_draw_text(cr, rf_plot_px(p, xt[i]), f.y + f.h + 5, 0.5, 0, RF_PLOT_TEXT, false, buf);
    }
    for (int i = 0; i < ny; i++) {
        rf_axis_format_value(y, yt[i], buf, sizeof buf);
        rf_draw_text(cr, f.x - 6, rf_plot_py(p, yt[i]), 1, 0.5, RF_PLOT_TEXT, false, buf);
    }
    rf_set_color(cr, ink, 1);
    if (x->label != NULL)
        rf_draw_text(cr, f.x + f.w / 2, outer.y + outer.h - 4, 0.5, 1, RF_PLOT_TEXT, false, x->label);
    if (y->label != NULL) {
        cairo_save(cr);
        cairo_translate(cr, outer.x + 4, f.y + f.h / 2);
        cairo_rotate(cr, -M_PI / 2);
        rf_draw_text(cr, 0, 0, 0.5, 0, RF_PLOT_TEXT, false, y->label);
        cairo_restore(cr);
    }
    if (title != NULL) {
        /* a title wider than its panel (a long one at a large font size) is
         * drawn smaller, down to the tick labels' size */
        double room = outer.x + outer.w - f.x, w = rf_text_width(cr, RF_PLOT_TITLE, true, title);
        double size = w > room ? fmax(RF_PLOT_TEXT, RF_PLOT_TITLE * room / w) : RF_PLOT_TITLE;
        rf_draw_text(cr, f.x, outer.y + 6, 0, 0, size, true, title);
    }
    cairo_restore(cr);
}

void rf_plot_end(rf_plot *p)
{
    cairo_t *cr = p->cr;
    cairo_save(cr);
    rf_set_color(cr, muted, 1);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, round(p->frame.x) + 0.5, round(p->frame.y) + 0.5, round(p->frame.w), round(p->frame.h));
    cairo_stroke(cr);
    cairo_restore(cr);
}

static void clip_frame(rf_plot *p)
{
    cairo_rectangle(p->cr, p->frame.x, p->frame.y, p->frame.w, p->frame.h);
    cairo_clip(p->cr);
}

static const cairo_user_data_key_t replay_scale_key;

void rf_plot_set_replay_scale(cairo_t *cr, double scale)
{
    double *kept = malloc(sizeof *kept);
    if (kept == NULL)
        return;
    *kept = scale;
    if (cairo_surface_set_user_data(cairo_get_target(cr), &replay_scale_key, kept, free) != CAIRO_STATUS_SUCCESS)
        free(kept);
}

static const cairo_user_data_key_t figure_only_key;

void rf_plot_set_figure_only(cairo_t *cr)
{
    cairo_surface_set_user_data(cairo_get_target(cr), &figure_only_key, (void *)&figure_only_key, NULL);
}

bool rf_plot_figure_only(cairo_t *cr)
{
    return cairo_surface_get_user_data(cairo_get_target(cr), &figure_only_key) != NULL;
}

double rf_plot_raster_scale(cairo_t *cr)
{
    cairo_surface_t *target = cairo_get_target(cr);
    cairo_surface_type_t type = cairo_surface_get_type(target);
    if (type != CAIRO_SURFACE_TYPE_IMAGE && type != CAIRO_SURFACE_TYPE_RECORDING)
        return 0;
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    double sx = 1, sy = 1;
    cairo_surface_get_device_scale(target, &sx, &sy);
    if (m.xy != 0 || m.yx != 0 || m.xx <= 0 || m.xx != m.yy || sx != sy)
        return 0;
    const double *replay = cairo_surface_get_user_data(target, &replay_scale_key);
    return m.xx * sx * (replay != NULL ? *replay : 1);
}

bool rf_plot_drawable(const rf_plot *p, double x, double y)
{
    return isfinite(x) && isfinite(y) && (p->x.scale != RF_AXIS_LOG || x > 0) && (p->y.scale != RF_AXIS_LOG || y > 0);
}

void rf_plot_line(rf_plot *p, const double *x, const double *y, int n, rf_rgb color, double width, double dash)
{
    rf_plot_line_alpha(p, x, y, n, color, 1, width, dash);
}

/* Segments stroked at a time: cairo's stroker slows down more than linearly
 * with a path's length when a noisy curve crosses itself (the Training
 * figure of one 511-row run drew in 50 ms with whole paths, 18 ms in
 * pieces). Pieces are opaque, so their shared ends do not show; a
 * translucent line is drawn opaque into a group then painted with its alpha.
 * On an SVG surface a translucent line is one whole path with the alpha in
 * its colour instead: cairo 1.16's SVG surface leaks each group it paints
 * (the stroking cost is the viewer's there). */
#define STROKE_PIECE 32

static bool svg_target(cairo_t *cr)
{
    return cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_SVG;
}

void rf_plot_line_alpha(rf_plot *p, const double *x, const double *y, int n, rf_rgb color, double alpha,
                        double width, double dash)
{
    cairo_t *cr = p->cr;
    cairo_save(cr);
    clip_frame(p);
    bool whole = alpha < 1 && svg_target(cr), translucent = alpha < 1 && !whole;
    if (translucent) {   /* an alpha-only target (a coverage mask) gets an alpha-only group */
        bool alpha_only = cairo_surface_get_content(cairo_get_group_target(cr)) == CAIRO_CONTENT_ALPHA;
        cairo_push_group_with_content(cr, alpha_only ? CAIRO_CONTENT_ALPHA : CAIRO_CONTENT_COLOR_ALPHA);
    }
    rf_set_color(cr, color, whole ? alpha : 1);
    cairo_set_line_width(cr, width);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    if (dash > 0)
        cairo_set_dash(cr, &dash, 1, 0);
    bool pen_down = false;
    int segments = 0;
    for (int i = 0; i < n; i++) {
        if (!rf_plot_drawable(p, x[i], y[i])) {
            pen_down = false;
            continue;
        }
        double px = rf_plot_px(p, x[i]), py = rf_plot_py(p, y[i]);
        if (pen_down) {
            cairo_line_to(cr, px, py);
            if (++segments == STROKE_PIECE && dash <= 0 && !whole) {
                cairo_stroke(cr);
                cairo_move_to(cr, px, py);
                segments = 0;
            }
        } else {
            cairo_move_to(cr, px, py);
        }
        pen_down = true;
    }
    cairo_stroke(cr);
    if (translucent) {
        cairo_pop_group_to_source(cr);
        cairo_paint_with_alpha(cr, alpha);
    }
    cairo_restore(cr);
}

void rf_plot_points(rf_plot *p, const double *x, const double *y, int n, rf_rgb color, double radius)
{
    cairo_t *cr = p->cr;
    cairo_save(cr);
    clip_frame(p);
    rf_set_color(cr, color, 1);
    /* Dense points (radius 1 and below) are whole-pixel 2x2 boxes: they look
     * the same and fill without antialiased rasterisation of every circle
     * (thousands of arcs cost ~15 ms a frame). */
    bool boxes = radius <= 1;
    for (int i = 0; i < n; i++) {
        if (!rf_plot_drawable(p, x[i], y[i]))
            continue;
        double px = rf_plot_px(p, x[i]), py = rf_plot_py(p, y[i]);
        if (boxes) {
            cairo_rectangle(cr, round(px) - 1, round(py) - 1, 2, 2);
            continue;
        }
        cairo_new_sub_path(cr);
        cairo_arc(cr, px, py, radius, 0, 2 * M_PI);
    }
    cairo_fill(cr);
    cairo_restore(cr);
}

void rf_plot_hline(rf_plot *p, double y, rf_rgb color, const char *label)
{
    if (!rf_plot_drawable(p, p->x.min, y) || y < fmin(p->y.min, p->y.max) || y > fmax(p->y.min, p->y.max))
        return;
    cairo_t *cr = p->cr;
    double py = round(rf_plot_py(p, y)) + 0.5;
    cairo_save(cr);
    rf_set_color(cr, color, 1);
    cairo_set_line_width(cr, 1.5);
    double dash = 6;
    cairo_set_dash(cr, &dash, 1, 0);
    cairo_move_to(cr, p->frame.x, py);
    cairo_line_to(cr, p->frame.x + p->frame.w, py);
    cairo_stroke(cr);
    if (label != NULL)
        rf_draw_text(cr, p->frame.x + 6, py - 5, 0, 1, RF_PLOT_TEXT, false, label);
    cairo_restore(cr);
}

void rf_plot_hline_label(rf_plot *p, double y, rf_rgb color, const char *label)
{
    if (!rf_plot_drawable(p, p->x.min, y) || y < fmin(p->y.min, p->y.max) || y > fmax(p->y.min, p->y.max))
        return;
    cairo_t *cr = p->cr;
    double py = round(rf_plot_py(p, y)) + 0.5, right = p->frame.x + p->frame.w - 6;
    double w = rf_text_width(cr, RF_PLOT_TEXT, false, label), h = rf_plot_text_size(cr) + 4;
    cairo_save(cr);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
    cairo_rectangle(cr, right - w - 3, py - 3 - h, w + 6, h);
    cairo_fill(cr);
    rf_set_color(cr, color, 1);
    rf_draw_text(cr, right, py - 5, 1, 1, RF_PLOT_TEXT, false, label);
    cairo_restore(cr);
}

void rf_plot_vline(rf_plot *p, double x, rf_rgb color, const char *label)
{
    if (!rf_plot_drawable(p, x, p->y.min) || x < fmin(p->x.min, p->x.max) || x > fmax(p->x.min, p->x.max))
        return;
    cairo_t *cr = p->cr;
    double px = round(rf_plot_px(p, x)) + 0.5;
    cairo_save(cr);
    rf_set_color(cr, color, 1);
    cairo_set_line_width(cr, 1.5);
    double dash = 6;
    cairo_set_dash(cr, &dash, 1, 0);
    cairo_move_to(cr, px, p->frame.y);
    cairo_line_to(cr, px, p->frame.y + p->frame.h);
    cairo_stroke(cr);
    if (label != NULL)
        rf_draw_text(cr, px + 4, p->frame.y + 4, 0, 0, RF_PLOT_TEXT, false, label);
    cairo_restore(cr);
}

/* Where rf_plot_legend puts its box, the height of one entry and the
 * text's size. */
typedef struct legend_box {
    double x, y, w, h, line_h, size;
} legend_box;

/* Labels too wide for the frame (long run names at a large font size) are
 * drawn smaller, down to this share of the text size, then shortened with
 * an ellipsis: the box never leaves its panel. */
#define LEGEND_MIN_SHRINK 0.7

static legend_box legend_layout(const rf_plot *p, const char *const *labels, int n, rf_legend_corner corner)
{
    double w = 0, swatch = 18, size = RF_PLOT_TEXT;
    for (int i = 0; i < n; i++)
        w = fmax(w, rf_text_width(p->cr, RF_PLOT_TEXT, false, labels[i]));
    double room = p->frame.w - 16 - swatch - 22;
    if (w > room && w > 0) {
        double shrink = fmax(LEGEND_MIN_SHRINK, room / w);
        size *= shrink;
        w *= shrink;
    }
    double line_h = rf_plot_text_size(p->cr) * size / RF_PLOT_TEXT + 6;
    double bw = fmin(w + swatch + 22, p->frame.w - 16), bh = n * line_h + 8;
    double x = corner == RF_LEGEND_TOP_LEFT ? p->frame.x + 8 : p->frame.x + p->frame.w - bw - 8;
    double y = corner == RF_LEGEND_BOTTOM_RIGHT ? p->frame.y + p->frame.h - bh - 8 : p->frame.y + 8;
    return (legend_box){x, y, bw, bh, line_h, size};
}

/* `text` into buf, shortened with "…" until it is at most `room` wide at `size`. */
static void fit_text(cairo_t *cr, double size, const char *text, double room, char *buf, size_t buf_size)
{
    g_strlcpy(buf, text, buf_size);
    if (rf_text_width(cr, size, false, buf) <= room)
        return;
    glong chars = g_utf8_strlen(text, -1);
    for (glong keep = chars - 1; keep > 0; keep--) {
        const char *end = g_utf8_offset_to_pointer(text, keep);
        if ((size_t)(end - text) + sizeof "…" > buf_size)
            continue;
        memcpy(buf, text, (size_t)(end - text));
        strcpy(buf + (end - text), "…");
        if (rf_text_width(cr, size, false, buf) <= room)
            return;
    }
    g_strlcpy(buf, "…", buf_size);
}

void rf_plot_legend(rf_plot *p, const char *const *labels, const rf_rgb *colors, int n, rf_legend_corner corner)
{
    rf_plot_legend_dimmed(p, labels, colors, NULL, n, corner);
}

void rf_plot_legend_dimmed(rf_plot *p, const char *const *labels, const rf_rgb *colors, const bool *dimmed, int n,
                           rf_legend_corner corner)
{
    if (n <= 0)
        return;
    cairo_t *cr = p->cr;
    legend_box b = legend_layout(p, labels, n, corner);
    double swatch = 18;
    cairo_save(cr);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.88);
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_fill_preserve(cr);
    rf_set_color(cr, grid, 1);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    for (int i = 0; i < n; i++) {
        bool dim = dimmed != NULL && dimmed[i];
        double cy = b.y + 4 + b.line_h * (i + 0.5);
        rf_set_color(cr, dim ? grid : colors[i], 1);
        cairo_set_line_width(cr, 2.5);
        cairo_move_to(cr, b.x + 8, cy);
        cairo_line_to(cr, b.x + 8 + swatch, cy);
        cairo_stroke(cr);
        rf_set_color(cr, dim ? muted : ink, dim ? 0.6 : 1);
        char shown[256];
        fit_text(cr, b.size, labels[i], b.w - swatch - 22, shown, sizeof shown);
        rf_draw_text(cr, b.x + 14 + swatch, cy, 0, 0.5, b.size, false, shown);
    }
    cairo_restore(cr);
}

rf_rect rf_plot_legend_rect(const rf_plot *p, const char *const *labels, int n, rf_legend_corner corner)
{
    legend_box b = legend_layout(p, labels, n, corner);
    return (rf_rect){b.x, b.y, b.w, b.h};
}

int rf_plot_legend_entry_at(const rf_plot *p, const char *const *labels, int n, rf_legend_corner corner, double px,
                            double py)
{
    if (n <= 0)
        return -1;
    legend_box b = legend_layout(p, labels, n, corner);
    if (px < b.x || px > b.x + b.w || py < b.y + 4 || py >= b.y + 4 + n * b.line_h)
        return -1;
    return (int)((py - b.y - 4) / b.line_h);
}

void rf_data_range(const float *v, size_t n, double *lo, double *hi)
{
    float a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        float x = v[i];
        if (!isfinite(x))
            continue;
        a = x < a ? x : a;    /* plain compares: libm fmin/fmax are calls */
        b = x > b ? x : b;
    }
    if (a > b) {
        a = 0;
        b = 1;
    }
    *lo = a;
    *hi = b;
}
