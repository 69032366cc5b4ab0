/* Heatmaps: resample the visible cells to at most one value per device
 * pixel, keep that image, redraw from it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

void rf_heatmap_set(rf_heatmap *h, const float *data, int rows, int cols, double vmin, double vmax)
{
    h->data = data;
    h->rows = rows;
    h->cols = cols;
    h->vmin = vmin;
    h->vmax = vmax;
    h->version++;
}

void rf_heatmap_changed(rf_heatmap *h)
{
    h->version++;
}

void rf_heatmap_clear(rf_heatmap *h)
{
    if (h->image != NULL)
        cairo_surface_destroy(h->image);
    h->image = NULL;
    h->image_version = 0;
}

static uint32_t pack(rf_rgb c)
{
    return 0xff000000u | (uint32_t)lround(c.r * 255) << 16 | (uint32_t)lround(c.g * 255) << 8 |
           (uint32_t)lround(c.b * 255);
}

static void clamp_view(const rf_heatmap *h, double *r0, double *r1, double *c0, double *c1)
{
    *r0 = fmax(0, fmin(*r0, h->rows));
    *r1 = fmax(*r0, fmin(*r1, h->rows));
    *c0 = fmax(0, fmin(*c0, h->cols));
    *c1 = fmax(*c0, fmin(*c1, h->cols));
}

/* Image column (or row) of each cell in [first, first + n) for a view
 * [v0, v1) shown in `pixels`: every cell feeds exactly one pixel. */
static void map_cells(int *to, int first, int n, double v0, double v1, int pixels)
{
    for (int i = 0; i < n; i++) {
        int p = (int)floor((first + i + 0.5 - v0) * pixels / (v1 - v0));
        to[i] = p < 0 ? 0 : p >= pixels ? pixels - 1 : p;
    }
}

/* Pool the visible cells into iw x ih values, keeping in each pixel the
 * value of largest magnitude (one strong attention weight among thousands
 * of weak ones stays visible; NaN cells are skipped, all-NaN pixels stay
 * NaN). Cells map to pixels monotonically, so each pixel row gathers a run
 * of data rows and each pixel a run of columns: the rows of a run are
 * folded into per-column max and min (branch-free, contiguous), then each
 * pixel reduces its columns of those two arrays. */
static void pool_cells(const rf_heatmap *h, int iw, int ih, double r0, double r1, double c0, double c1,
                       float *val)
{
    int ra = (int)floor(r0), rb = (int)ceil(r1), ca = (int)floor(c0), cb = (int)ceil(c1), nc = cb - ca;
    int *col_px = malloc((size_t)nc * sizeof *col_px), *row_px = malloc((size_t)(rb - ra) * sizeof *row_px);
    int *run = malloc((size_t)(iw + 1) * sizeof *run);    /* first column of each pixel's run */
    float *hi = malloc((size_t)nc * sizeof *hi), *lo = malloc((size_t)nc * sizeof *lo);
    map_cells(col_px, ca, nc, c0, c1, iw);
    map_cells(row_px, ra, rb - ra, r0, r1, ih);
    for (int x = 0, c = 0; x <= iw; x++) {
        while (c < nc && col_px[c] < x)
            c++;
        run[x] = c;
    }
    for (size_t i = 0; i < (size_t)iw * ih; i++)
        val[i] = NAN;
    for (int r = ra; r < rb;) {
        int y = row_px[r - ra];
        for (int c = 0; c < nc; c++) {
            hi[c] = -INFINITY;
            lo[c] = INFINITY;
        }
        for (; r < rb && row_px[r - ra] == y; r++) {
            const float *row = h->data + (size_t)r * h->cols + ca;
            for (int c = 0; c < nc; c++) {    /* NaN compares false: skipped */
                hi[c] = row[c] > hi[c] ? row[c] : hi[c];
                lo[c] = row[c] < lo[c] ? row[c] : lo[c];
            }
        }
        float *v = val + (size_t)y * iw;
        for (int x = 0; x < iw; x++) {
            float a = -INFINITY, b = INFINITY;
            for (int c = run[x]; c < run[x + 1]; c++) {
                a = hi[c] > a ? hi[c] : a;
                b = lo[c] < b ? lo[c] : b;
            }
            if (b <= a)
                v[x] = -b > a ? b : a;
        }
    }
    free(hi);
    free(lo);
    free(run);
    free(col_px);
    free(row_px);
}

void rf_heatmap_pool(const float *src, int rows, int cols, float *dst, int out_rows, int out_cols)
{
    rf_heatmap_pool_block(src, rows, cols, rows, cols, dst, out_rows, out_cols);
}

void rf_heatmap_pool_block(const float *src, int rows, int cols, int keep_rows, int keep_cols, float *dst,
                           int out_rows, int out_cols)
{
    rf_heatmap h = {.data = src, .rows = rows, .cols = cols};
    pool_cells(&h, out_cols, out_rows, 0, keep_rows, 0, keep_cols, dst);
}

static void render_image(rf_heatmap *h, int iw, int ih, double r0, double r1, double c0, double c1)
{
    rf_heatmap_clear(h);
    float *val = malloc((size_t)iw * ih * sizeof *val);
    pool_cells(h, iw, ih, r0, r1, c0, c1, val);
    h->image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, iw, ih);
    cairo_surface_flush(h->image);
    unsigned char *pixels = cairo_image_surface_get_data(h->image);
    int stride = cairo_image_surface_get_stride(h->image);
    double span = h->vmax - h->vmin;
    if (!(span > 0))
        span = 1;
    /* The colour map as a table: a million pixels, a few thousand colours. */
    enum { LEVELS = 1024 };
    uint32_t lut[LEVELS + 1];
    for (int i = 0; i < LEVELS; i++)
        lut[i] = pack(rf_colormap_of(h->colormap, (i + 0.5) / LEVELS));
    lut[LEVELS] = pack(rf_colormap_of(h->colormap, NAN));
    float to_level = (float)(LEVELS / span), lo = (float)h->vmin;
    for (int y = 0; y < ih; y++) {
        uint32_t *out = (uint32_t *)(pixels + (size_t)y * stride);
        const float *v = val + (size_t)y * iw;
        for (int x = 0; x < iw; x++) {
            float t = (v[x] - lo) * to_level;
            int level = !isfinite(t) ? LEVELS : t < 0 ? 0 : t >= LEVELS ? LEVELS - 1 : (int)t;
            out[x] = lut[level];
        }
    }
    cairo_surface_mark_dirty(h->image);
    free(val);
    h->image_w = iw;
    h->image_h = ih;
    h->image_version = h->version;
    h->image_view[0] = r0;
    h->image_view[1] = r1;
    h->image_view[2] = c0;
    h->image_view[3] = c1;
}

bool rf_heatmap_cached_view(const rf_heatmap *h, int *iw, int *ih, double view[4])
{
    if (h->image == NULL)
        return false;
    *iw = h->image_w;
    *ih = h->image_h;
    memcpy(view, h->image_view, sizeof h->image_view);
    return true;
}

void rf_heatmap_prepare(rf_heatmap *h, int iw, int ih, const double view[4])
{
    if (h->data == NULL || h->rows <= 0 || h->cols <= 0 || iw < 1 || ih < 1)
        return;
    /* Only what rf_heatmap_draw would cache (the view may be another map's). */
    double r0 = view[0], r1 = view[1], c0 = view[2], c1 = view[3];
    clamp_view(h, &r0, &r1, &c0, &c1);
    if (r0 != view[0] || r1 != view[1] || c0 != view[2] || c1 != view[3] || iw > floor(c1 - c0) ||
        ih > floor(r1 - r0))
        return;
    render_image(h, iw, ih, r0, r1, c0, c1);
}

void rf_heatmap_draw(rf_heatmap *h, cairo_t *cr, rf_rect r, double r0, double r1, double c0, double c1)
{
    if (h->data == NULL || h->rows <= 0 || h->cols <= 0 || r.w < 1 || r.h < 1)
        return;
    clamp_view(h, &r0, &r1, &c0, &c1);
    if (r1 <= r0 || c1 <= c0)
        return;
    /* One image pixel per device pixel at most (the device may be scaled:
     * HiDPI, or an export at another size). */
    double dw = r.w, dh = r.h;
    cairo_user_to_device_distance(cr, &dw, &dh);
    /* floor: every image pixel then spans at least one cell centre. */
    int iw = (int)fmin(ceil(fabs(dw)), floor(c1 - c0));
    int ih = (int)fmin(ceil(fabs(dh)), floor(r1 - r0));
    iw = iw < 1 ? 1 : iw;
    ih = ih < 1 ? 1 : ih;
    bool same = h->image != NULL && h->image_version == h->version && h->image_w == iw && h->image_h == ih &&
                h->image_view[0] == r0 && h->image_view[1] == r1 && h->image_view[2] == c0 && h->image_view[3] == c1;
    if (!same)
        render_image(h, iw, ih, r0, r1, c0, c1);

    cairo_save(cr);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_clip(cr);
    cairo_translate(cr, r.x, r.y);
    cairo_scale(cr, r.w / iw, r.h / ih);
    cairo_set_source_surface(cr, h->image, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
}

bool rf_heatmap_cell_at(const rf_heatmap *h, rf_rect r, double r0, double r1, double c0, double c1, double px,
                        double py, int *row, int *col)
{
    if (h->data == NULL || px < r.x || py < r.y || px >= r.x + r.w || py >= r.y + r.h)
        return false;
    clamp_view(h, &r0, &r1, &c0, &c1);
    int rr = (int)floor(r0 + (py - r.y) / r.h * (r1 - r0));
    int cc = (int)floor(c0 + (px - r.x) / r.w * (c1 - c0));
    if (rr < 0 || rr >= h->rows || cc < 0 || cc >= h->cols)
        return false;
    *row = rr;
    *col = cc;
    return true;
}
