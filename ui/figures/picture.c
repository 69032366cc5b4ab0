/* Pictures under the inspection figures (see picture.h). */
#include "picture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool rf_picture_set(rf_picture *p, const float *pixels, int height, int width, int channels, int grid_h,
                    int grid_w, int token_offset)
{
    rf_picture_clear(p);
    if (pixels == NULL || height < 1 || width < 1 || (channels != 1 && channels != 3) || grid_h < 1 ||
        grid_w < 1)
        return false;
    size_t n = (size_t)height * (size_t)width * (size_t)channels;
    p->pixels = malloc(n * sizeof *p->pixels);
    if (p->pixels == NULL)
        return false;
    memcpy(p->pixels, pixels, n * sizeof *p->pixels);
    p->height = height;
    p->width = width;
    p->channels = channels;
    p->grid_h = grid_h;
    p->grid_w = grid_w;
    p->token_offset = token_offset;
    return true;
}

void rf_picture_clear(rf_picture *p)
{
    free(p->pixels);
    *p = (rf_picture){0};
}

/* The side of a square patch holding `feat` values of `channels` channels, or 0. */
static int patch_side(int feat, int channels)
{
    if (feat % channels != 0)
        return 0;
    int side = (int)lround(sqrt((double)(feat / channels)));
    return side * side * channels == feat ? side : 0;
}

bool rf_picture_from_tokens(rf_picture *p, const rf_dataset *ds, const float *tokens, int token_offset)
{
    rf_picture_clear(p);
    if (ds == NULL || ds->grid_h < 1 || ds->grid_w < 1 || ds->feat_dim < 1 ||
        (int64_t)ds->grid_h * ds->grid_w != ds->seq_len)
        return false;
    int channels = patch_side(ds->feat_dim, 1) > 0 ? 1 : 3;
    int side = patch_side(ds->feat_dim, channels);
    if (side == 0)
        return false;
    size_t n = (size_t)ds->seq_len * (size_t)ds->feat_dim;
    float *pixels = malloc(n * sizeof *pixels);
    if (pixels == NULL)
        return false;
    double lo, hi;
    rf_data_range(tokens, n, &lo, &hi);
    double scale = hi > lo ? 1.0 / (hi - lo) : 1.0;
    int width = ds->grid_w * side;
    /* Token (gy, gx) holds its patch's rows in raster order, channels interleaved. */
    for (int gy = 0; gy < ds->grid_h; gy++)
        for (int gx = 0; gx < ds->grid_w; gx++) {
            const float *t = tokens + ((size_t)gy * ds->grid_w + gx) * ds->feat_dim;
            for (int dy = 0; dy < side; dy++)
                for (int k = 0; k < side * channels; k++) {
                    size_t at = ((size_t)(gy * side + dy) * width + (size_t)gx * side) * channels + k;
                    pixels[at] = (float)((t[dy * side * channels + k] - lo) * scale);
                }
        }
    bool ok = rf_picture_set(p, pixels, ds->grid_h * side, width, channels, ds->grid_h, ds->grid_w, token_offset);
    free(pixels);
    return ok;
}

bool rf_picture_from_sample(rf_picture *p, const rf_dataset *ds, rf_split split, int64_t index, int token_offset)
{
    rf_picture_clear(p);
    if (ds == NULL || ds->get == NULL || ds->seq_len < 1 || ds->feat_dim < 1)
        return false;
    float *tokens = calloc((size_t)ds->seq_len * (size_t)ds->feat_dim, sizeof *tokens);
    int len = 0, label = 0;
    rf_status st = {0};
    bool ok = tokens != NULL && ds->get(ds, split, index, tokens, &len, &label, &st) &&
              rf_picture_from_tokens(p, ds, tokens, token_offset);
    free(tokens);
    return ok;
}

rf_rect rf_picture_fit(const rf_picture *p, rf_rect r)
{
    if (p->pixels == NULL || r.w <= 0 || r.h <= 0)
        return r;
    double s = fmin(r.w / p->width, r.h / p->height);
    double w = s * p->width, h = s * p->height;
    return (rf_rect){r.x + (r.w - w) / 2, r.y + (r.h - h) / 2, w, h};
}

static uint8_t byte_of(double v)
{
    return (uint8_t)lround(255 * fmin(1, fmax(0, isfinite(v) ? v : 0)));
}

/* Paint an ARGB32 image of w x h, scaled to fill `fit`, without smoothing. */
static void paint_scaled(cairo_t *cr, cairo_surface_t *img, int w, int h, rf_rect fit, double alpha)
{
    cairo_surface_mark_dirty(img);
    cairo_save(cr);
    cairo_rectangle(cr, fit.x, fit.y, fit.w, fit.h);
    cairo_clip(cr);
    cairo_translate(cr, fit.x, fit.y);
    cairo_scale(cr, fit.w / w, fit.h / h);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint_with_alpha(cr, alpha);
    cairo_restore(cr);
}

void rf_picture_draw(const rf_picture *p, cairo_t *cr, rf_rect fit)
{
    if (p->pixels == NULL)
        return;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->width, p->height);
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        uint8_t *row = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        for (int y = 0; y < p->height; y++, row += stride) {
            uint32_t *px = (uint32_t *)(void *)row;
            for (int x = 0; x < p->width; x++) {
                const float *v = p->pixels + ((size_t)y * p->width + x) * p->channels;
                uint8_t r = byte_of(v[0]);
                uint8_t g = p->channels == 3 ? byte_of(v[1]) : r, b = p->channels == 3 ? byte_of(v[2]) : r;
                px[x] = (uint32_t)r << 16 | (uint32_t)g << 8 | b;
            }
        }
        paint_scaled(cr, img, p->width, p->height, fit, 1);
    }
    cairo_surface_destroy(img);
}

void rf_picture_draw_overlay(const rf_picture *p, cairo_t *cr, rf_rect fit, const float *values, double vmin,
                             double vmax, double alpha)
{
    rf_picture_draw_overlay_in(p, cr, fit, values, vmin, vmax, RF_COLORMAP_SEQUENTIAL, alpha);
}

void rf_picture_draw_overlay_in(const rf_picture *p, cairo_t *cr, rf_rect fit, const float *values, double vmin,
                                double vmax, rf_colormap_kind kind, double alpha)
{
    if (p->pixels == NULL || values == NULL)
        return;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, p->grid_w, p->grid_h);
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        uint8_t *row = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        double span = vmax > vmin ? vmax - vmin : 1;
        for (int y = 0; y < p->grid_h; y++, row += stride) {
            uint32_t *px = (uint32_t *)(void *)row;
            for (int x = 0; x < p->grid_w; x++) {
                float v = values[(size_t)y * p->grid_w + x];
                if (!isfinite(v)) {
                    px[x] = 0;     /* transparent */
                    continue;
                }
                rf_rgb c = rf_colormap_of(kind, (v - vmin) / span);
                px[x] = 0xffu << 24 | (uint32_t)byte_of(c.r) << 16 | (uint32_t)byte_of(c.g) << 8 | byte_of(c.b);
            }
        }
        paint_scaled(cr, img, p->grid_w, p->grid_h, fit, alpha);
    }
    cairo_surface_destroy(img);
}

rf_rect rf_picture_cell(const rf_picture *p, rf_rect fit, int position)
{
    double cw = fit.w / p->grid_w, ch = fit.h / p->grid_h;
    int gy = position / p->grid_w, gx = position % p->grid_w;
    return (rf_rect){fit.x + gx * cw, fit.y + gy * ch, cw, ch};
}

bool rf_picture_position_at(const rf_picture *p, rf_rect fit, double x, double y, int *position)
{
    if (p->pixels == NULL || x < fit.x || y < fit.y || x >= fit.x + fit.w || y >= fit.y + fit.h)
        return false;
    int gx = (int)((x - fit.x) / fit.w * p->grid_w), gy = (int)((y - fit.y) / fit.h * p->grid_h);
    gx = gx < p->grid_w ? gx : p->grid_w - 1;
    gy = gy < p->grid_h ? gy : p->grid_h - 1;
    *position = gy * p->grid_w + gx;
    return true;
}
