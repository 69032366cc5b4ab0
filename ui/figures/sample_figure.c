/* The sample figure: setup, the header, the picture (see sample_figure.h). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sample_figure_private.h"

static const rf_rgb ink = {0.15, 0.15, 0.17};
static const rf_rgb muted = {0.40, 0.40, 0.44};

rf_sample_figure *rf_sample_figure_new(void)
{
    rf_sample_figure *f = g_new0(rf_sample_figure, 1);
    f->message = g_strdup("No sample");
    return f;
}

static void picture_clear(rf_sample_figure *f)
{
    f->mark_r1 = f->mark_r0 = 0;
    g_clear_pointer(&f->values, g_free);
    g_clear_pointer(&f->bytes, g_free);
    g_clear_pointer(&f->picture, cairo_surface_destroy);
}

void sample_reset(rf_sample_figure *f, sample_kind kind)
{
    picture_clear(f);
    sample_audio_clear(f);
    sample_tokens_clear(f);
    sample_sequence_clear(f);
    g_clear_pointer(&f->attr, g_free);
    f->attr_len = 0;
    g_clear_pointer(&f->message, g_free);
    f->kind = kind;
}

void rf_sample_figure_free(rf_sample_figure *f)
{
    if (f == NULL)
        return;
    sample_reset(f, SAMPLE_MESSAGE);
    g_free(f->title);
    g_free(f->label);
    g_free(f->prediction);
    g_free(f);
}

void rf_sample_figure_set_caption(rf_sample_figure *f, const char *title, const char *label)
{
    g_free(f->title);
    g_free(f->label);
    f->title = g_strdup(title);
    f->label = g_strdup(label);
    g_clear_pointer(&f->prediction, g_free);
}

void rf_sample_figure_set_prediction(rf_sample_figure *f, const char *text)
{
    g_free(f->prediction);
    f->prediction = g_strdup(text);
}

const char *rf_sample_figure_get_prediction(const rf_sample_figure *f)
{
    return f->prediction;
}

void rf_sample_figure_set_attribution(rf_sample_figure *f, const float *values, int len, const rf_map_scale *scale)
{
    g_clear_pointer(&f->attr, g_free);
    f->attr_len = values != NULL ? len : 0;
    if (values != NULL)
        f->attr = g_memdup2(values, sizeof(float) * (size_t)len);
    f->attr_scale = *scale;
    if (!(f->attr_scale.vmax > f->attr_scale.vmin))
        f->attr_scale.vmax = f->attr_scale.vmin + 1;
}

const float *rf_sample_figure_get_attribution(const rf_sample_figure *f, int *len)
{
    *len = f->attr_len;
    return f->attr;
}

void sample_attr_colour(const rf_sample_figure *f, cairo_t *cr, int i, double alpha)
{
    const rf_map_scale *s = &f->attr_scale;
    double t = (f->attr[i] - s->vmin) / (s->vmax - s->vmin);
    rf_set_color(cr, rf_colormap_of(s->kind, t), alpha);
}

void rf_sample_figure_set_message(rf_sample_figure *f, const char *message)
{
    sample_reset(f, SAMPLE_MESSAGE);
    f->message = g_strdup(message);
}

cairo_t *sample_scratch_context(void)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    cairo_surface_destroy(s);   /* the context keeps it alive */
    return cr;
}

/* ---- the picture ---- */

static uint8_t to_byte(double v)
{
    return (uint8_t)lround(v < 0 ? 0 : v > 255 ? 255 : v);
}

void rf_sample_figure_set_picture(rf_sample_figure *f, const uint8_t *pixels, const float *values, int height,
                                  int width, int channels, int patch)
{
    sample_reset(f, SAMPLE_PICTURE);
    size_t n = (size_t)height * width * channels;
    f->height = height;
    f->width = width;
    f->channels = channels;
    f->patch = patch > 0 ? patch : 1;
    f->values = g_memdup2(values, n * sizeof *values);
    f->stored_bytes = pixels != NULL;
    f->grey_lo = 0;
    f->grey_hi = 255;
    if (pixels != NULL) {
        f->bytes = g_memdup2(pixels, n);
    } else {
        double lo, hi;
        rf_data_range(values, n, &lo, &hi);
        f->grey_lo = lo;
        f->grey_hi = hi > lo ? hi : lo + 1;
        double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
        f->bytes = g_malloc(n);
        for (size_t i = 0; i < n; i++)
            f->bytes[i] = to_byte((values[i] - lo) * scale);
    }
    f->picture = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_surface_flush(f->picture);
    unsigned char *data = cairo_image_surface_get_data(f->picture);
    int stride = cairo_image_surface_get_stride(f->picture);
    for (int y = 0; y < height; y++) {
        uint32_t *row = (uint32_t *)(data + (size_t)y * stride);
        for (int x = 0; x < width; x++) {
            const uint8_t *p = f->bytes + ((size_t)y * width + x) * channels;
            uint32_t r = p[0], g = channels == 3 ? p[1] : p[0], b = channels == 3 ? p[2] : p[0];
            row[x] = r << 16 | g << 8 | b;
        }
    }
    cairo_surface_mark_dirty(f->picture);
}

static int square_root(int v)
{
    int r = (int)lround(sqrt(v));
    return r * r == v ? r : 0;
}

bool rf_sample_unpatch(const float *x, int grid_h, int grid_w, int feat_dim, float *out, int *height, int *width,
                       int *channels, int *patch)
{
    /* p * p and 3 * q * q never coincide, so the layout is unambiguous. */
    int c = square_root(feat_dim) > 0 ? 1 : feat_dim % 3 == 0 && square_root(feat_dim / 3) > 0 ? 3 : 0;
    if (c == 0 || grid_h <= 0 || grid_w <= 0)
        return false;
    int p = square_root(feat_dim / c), w = grid_w * p;
    *height = grid_h * p;
    *width = w;
    *channels = c;
    *patch = p;
    for (int gy = 0; out != NULL && gy < grid_h; gy++)
        for (int gx = 0; gx < grid_w; gx++) {
            const float *token = x + ((size_t)gy * grid_w + gx) * feat_dim;
            for (int py = 0; py < p; py++)
                memcpy(out + (((size_t)gy * p + py) * w + (size_t)gx * p) * c, token + (size_t)py * p * c,
                       (size_t)p * c * sizeof *out);
        }
    return true;
}

typedef struct picture_layout {
    rf_rect dest;               /* where the visible pixels land */
    double c0, r0, scale;       /* first visible column/row (fractional), device units per pixel */
    rf_rect caption;
    rf_rect bar;                /* a grey picture's legend */
} picture_layout;

static picture_layout picture_place(const rf_sample_figure *f, rf_rect body, const rf_zoom *z)
{
    picture_layout l;
    l.caption = (rf_rect){body.x, body.y + body.h - 24, body.w, 24};
    rf_rect room = {body.x + 12, body.y + 8, body.w - 24, body.h - 40};
    if (f->channels == 1)    /* room for the grey scale's legend */
        room.w -= RF_MAP_LEGEND_W + 20;
    l.c0 = z->x0 * f->width;
    l.r0 = z->y0 * f->height;
    double vis_w = (z->x1 - z->x0) * f->width, vis_h = (z->y1 - z->y0) * f->height;
    l.scale = fmax(1e-6, fmin(room.w / vis_w, room.h / vis_h));
    double w = vis_w * l.scale, h = vis_h * l.scale;
    l.dest = (rf_rect){room.x + (room.w - w) / 2, room.y + (room.h - h) / 2, w, h};
    l.bar = (rf_rect){l.dest.x + l.dest.w + 20, l.dest.y + RF_MAP_LEGEND_ABOVE, 14,
                      fmax(10, l.dest.h - RF_MAP_LEGEND_ABOVE - RF_MAP_LEGEND_BELOW)};
    return l;
}

static void picture_draw(rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z)
{
    picture_layout l = picture_place(f, body, z);
    cairo_save(cr);
    cairo_rectangle(cr, l.dest.x, l.dest.y, l.dest.w, l.dest.h);
    cairo_clip(cr);
    cairo_save(cr);
    cairo_translate(cr, l.dest.x - l.c0 * l.scale, l.dest.y - l.r0 * l.scale);
    cairo_scale(cr, l.scale, l.scale);
    cairo_set_source_surface(cr, f->picture, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    int grid_w = f->width / f->patch, grid_h = f->height / f->patch;
    if (f->attr != NULL && f->attr_len == grid_w * grid_h)   /* in picture pixels, as scaled */
        for (int i = 0; i < f->attr_len; i++) {
            sample_attr_colour(f, cr, i, SAMPLE_ATTR_ALPHA);
            cairo_rectangle(cr, (i % grid_w) * f->patch, (i / grid_w) * f->patch, f->patch, f->patch);
            cairo_fill(cr);
        }
    if (f->mark_r1 > f->mark_r0 && f->mark_c1 > f->mark_c0) {   /* the rectangle being dragged */
        cairo_rectangle(cr, f->mark_c0, f->mark_r0, f->mark_c1 - f->mark_c0, f->mark_r1 - f->mark_r0);
        cairo_set_source_rgba(cr, 0.1, 0.5, 1.0, 0.35);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.1, 0.5, 1.0);
        cairo_set_line_width(cr, 2 / l.scale);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    /* The token grid, where patches are big enough on screen to tell apart. */
    double cell = f->patch * l.scale;
    if (f->patch > 1 && cell >= 8) {
        cairo_set_source_rgba(cr, 1, 0.4, 0.1, 0.45);
        cairo_set_line_width(cr, 1);
        for (int gx = 1; gx * f->patch < f->width; gx++) {
            double px = l.dest.x + (gx * f->patch - l.c0) * l.scale;
            cairo_move_to(cr, px, l.dest.y);
            cairo_line_to(cr, px, l.dest.y + l.dest.h);
        }
        for (int gy = 1; gy * f->patch < f->height; gy++) {
            double py = l.dest.y + (gy * f->patch - l.r0) * l.scale;
            cairo_move_to(cr, l.dest.x, py);
            cairo_line_to(cr, l.dest.x + l.dest.w, py);
        }
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    rf_set_color(cr, muted, 1);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, l.dest.x - 0.5, l.dest.y - 0.5, l.dest.w + 1, l.dest.h + 1);
    cairo_stroke(cr);
    if (f->channels == 1) {    /* colour pictures show their own colours: no scale to explain */
        rf_map_scale scale = {.vmin = f->grey_lo, .vmax = f->grey_hi, .kind = RF_COLORMAP_GREY,
                              .quantity = f->stored_bytes ? "pixel value" : "input value"};
        rf_map_legend(cr, l.bar, &scale);
        rf_set_color(cr, muted, 1);
    }

    char caption[160];
    int tokens = (f->height / f->patch) * (f->width / f->patch);
    if (f->patch > 1)
        snprintf(caption, sizeof caption, "%d × %d pixels, %s · %d × %d patches: %d tokens", f->width, f->height,
                 f->channels == 3 ? "RGB" : "gray", f->patch, f->patch, tokens);
    else
        snprintf(caption, sizeof caption, "%d × %d pixels, %s · one token per pixel", f->width, f->height,
                 f->channels == 3 ? "RGB" : "gray");
    rf_draw_text(cr, l.caption.x + l.caption.w / 2, l.caption.y + l.caption.h / 2, 0.5, 0.5, RF_PLOT_TEXT, false,
                 caption);
}

/* The pixel under (x, y), clamped to the picture when `clamp`. */
static bool picture_pixel(const rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, bool clamp,
                          int *row, int *col)
{
    picture_layout l = picture_place(f, body, z);
    int c = (int)floor(l.c0 + (x - l.dest.x) / l.scale), r = (int)floor(l.r0 + (y - l.dest.y) / l.scale);
    if (!clamp && (c < 0 || r < 0 || c >= f->width || r >= f->height))
        return false;
    *col = CLAMP(c, 0, f->width - 1);
    *row = CLAMP(r, 0, f->height - 1);
    return true;
}

static bool picture_hover(rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, char *text,
                          size_t size)
{
    picture_layout l = picture_place(f, body, z);
    if (x < l.dest.x || y < l.dest.y || x >= l.dest.x + l.dest.w || y >= l.dest.y + l.dest.h)
        return false;
    int col = (int)floor(l.c0 + (x - l.dest.x) / l.scale), row = (int)floor(l.r0 + (y - l.dest.y) / l.scale);
    if (col < 0 || row < 0 || col >= f->width || row >= f->height)
        return false;
    size_t at = ((size_t)row * f->width + col) * f->channels;
    int token = (row / f->patch) * (f->width / f->patch) + col / f->patch;
    const uint8_t *b = f->bytes + at;
    const float *v = f->values + at;
    if (f->channels == 3 && f->stored_bytes)
        snprintf(text, size, "row %d, col %d: RGB %u %u %u · input %.3g %.3g %.3g · token %d", row, col, b[0], b[1],
                 b[2], v[0], v[1], v[2], token);
    else if (f->channels == 3)
        snprintf(text, size, "row %d, col %d: input %.3g %.3g %.3g · token %d", row, col, v[0], v[1], v[2], token);
    else if (f->stored_bytes)
        snprintf(text, size, "row %d, col %d: pixel %u · input %.3g · token %d", row, col, b[0], v[0], token);
    else
        snprintf(text, size, "row %d, col %d: input %.3g · token %d", row, col, v[0], token);
    return true;
}

/* ---- the whole figure ---- */

/* The header's two lines at `scale`, cr's text scale (1 on screen, where
 * hover reads the same layout). */
static void header_draw(const rf_sample_figure *f, cairo_t *cr, double width, double scale)
{
    cairo_save(cr);
    cairo_rectangle(cr, 0, 0, width, SAMPLE_HEADER_H * scale);
    cairo_clip(cr);
    rf_set_color(cr, ink, 1);
    if (f->title != NULL)
        rf_draw_text(cr, 14, 10 * scale, 0, 0, RF_PLOT_TITLE, true, f->title);
    rf_set_color(cr, muted, 1);
    if (f->label != NULL)
        rf_draw_text(cr, 14, 31 * scale, 0, 0, RF_PLOT_TEXT + 1, false, f->label);
    rf_set_color(cr, ink, 1);
    if (f->prediction != NULL)
        rf_draw_text(cr, width - 14, 31 * scale, 1, 0, RF_PLOT_TEXT + 1, false, f->prediction);
    cairo_restore(cr);
}

static rf_rect body_of(double width, double height, double scale)
{
    double header = SAMPLE_HEADER_H * scale;
    return (rf_rect){0, header, width, fmax(1, height - header)};
}

static void figure_draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    rf_sample_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double scale = rf_plot_text_scale(cr);
    header_draw(f, cr, width, scale);
    rf_rect body = body_of(width, height, scale);
    switch (f->kind) {
    case SAMPLE_MESSAGE:
        rf_draw_message(cr, body, f->message);
        break;
    case SAMPLE_PICTURE:
        picture_draw(f, cr, body, zoom);
        break;
    case SAMPLE_AUDIO:
        sample_audio_draw(f, cr, body, zoom);
        break;
    case SAMPLE_TOKENS:
        sample_tokens_draw(f, cr, body, zoom);
        break;
    case SAMPLE_SEQUENCE:
        sample_sequence_draw(f, cr, body, zoom);
        break;
    }
    cairo_restore(cr);
}

bool rf_sample_figure_picture_pixel(const rf_sample_figure *f, double width, double height, const rf_zoom *z,
                                    double x, double y, bool clamp, int *row, int *col)
{
    return f->kind == SAMPLE_PICTURE && picture_pixel(f, body_of(width, height, 1), z, x, y, clamp, row, col);
}

void rf_sample_figure_set_mark(rf_sample_figure *f, int r0, int c0, int r1, int c1)
{
    f->mark_r0 = r0;
    f->mark_c0 = c0;
    f->mark_r1 = r1;
    f->mark_c1 = c1;
}

bool rf_sample_figure_attribution_strip(const rf_sample_figure *f, double width, double height, const rf_zoom *z, int i,
                                        rf_rect *strip)
{
    return f->kind == SAMPLE_TOKENS && sample_tokens_strip(f, body_of(width, height, 1), z, i, strip);
}

static bool figure_hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                         size_t size)
{
    rf_sample_figure *f = data;
    rf_rect body = body_of(width, height, 1);
    if (y < body.y)
        return false;
    switch (f->kind) {
    case SAMPLE_PICTURE:
        return picture_hover(f, body, zoom, x, y, text, size);
    case SAMPLE_AUDIO:
        return sample_audio_hover(f, body, zoom, x, y, text, size);
    case SAMPLE_TOKENS:
        return sample_tokens_hover(f, body, zoom, x, y, text, size);
    case SAMPLE_SEQUENCE:
        return sample_sequence_hover(f, body, zoom, x, y, text, size);
    case SAMPLE_MESSAGE:
        break;
    }
    return false;
}

rf_figure rf_sample_figure_get(rf_sample_figure *f)
{
    return (rf_figure){.draw = figure_draw, .hover = figure_hover, .data = f};
}
