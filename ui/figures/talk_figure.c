/* The TaLK window-bounds figure (see talk_figure.h). */
#include "talk_figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#define TITLE_H 28.0
#define BAR_W RF_MAP_LEGEND_W

static const char *const bands_title =
    "Window of each token i, relative to i (band from a\u02e1 \u2212 i to a\u02b3 \u2212 i; red: the token itself)";

void rf_talk_figure_init(rf_talk_figure *f)
{
    *f = (rf_talk_figure){0};
    snprintf(f->message, sizeof f->message, "No window bounds yet: start training");
}

void rf_talk_figure_free(rf_talk_figure *f)
{
    free(f->left);
    free(f->right);
    free(f->widths);
    g_strfreev(f->names);
    rf_picture_clear(&f->picture);
    rf_talk_figure_init(f);
}

void rf_talk_figure_take_names(rf_talk_figure *f, char **names, int n)
{
    g_strfreev(f->names);
    f->names = names;
    f->n_names = names != NULL ? n : 0;
}

void rf_talk_figure_set_message(rf_talk_figure *f, const char *text)
{
    snprintf(f->message, sizeof f->message, "%s", text);
    f->cells = 0;
}

void rf_talk_figure_set_title(rf_talk_figure *f, const char *title)
{
    snprintf(f->title, sizeof f->title, "%s", title != NULL ? title : "");
}

bool rf_talk_figure_exact(const rf_talk_figure *f)
{
    return f->cells > 0 && f->cells == f->last - f->first;
}

/* The column of token t: the last i whose first token, first + floor(i n /
 * cells) as rf_pool_edge has it, is at most t. */
static int column_of(const rf_talk_figure *f, int64_t t)
{
    int64_t n = f->last - f->first;
    return (int)(((t - f->first + 1) * f->cells - 1) / n);
}

void rf_talk_figure_column(const rf_talk_figure *f, int i, int64_t *t0, int64_t *t1)
{
    int64_t n = f->last - f->first;
    *t0 = f->first + (int64_t)i * n / f->cells;
    *t1 = f->first + (int64_t)(i + 1) * n / f->cells;
}

/* Picture mode needs one column a token from the first. */
static bool whole_tokens(const rf_talk_figure *f)
{
    return rf_talk_figure_exact(f) && f->first == 0;
}

static void rebuild_widths(rf_talk_figure *f)
{
    const rf_picture *p = &f->picture;
    if (p->pixels == NULL || !whole_tokens(f))
        return;
    size_t cells = (size_t)p->grid_h * p->grid_w;
    float *w = realloc(f->widths, cells * sizeof *w);
    if (w == NULL)
        return;
    f->widths = w;
    for (size_t i = 0; i < cells; i++) {
        size_t t = i + (size_t)p->token_offset;
        w[i] = t < (size_t)f->cells ? f->right[t] - f->left[t] : NAN;
    }
}

/* Room for n columns; false (and a message) without it. */
static bool make_room(rf_talk_figure *f, int n)
{
    float *l = realloc(f->left, (size_t)n * sizeof *l);
    if (l != NULL)
        f->left = l;
    float *r = realloc(f->right, (size_t)n * sizeof *r);
    if (r != NULL)
        f->right = r;
    if (l == NULL || r == NULL) {
        rf_talk_figure_set_message(f, "Out of memory for the window bounds");
        return false;
    }
    return true;
}

bool rf_talk_figure_set_bounds(rf_talk_figure *f, const float *bounds, int tokens, int heads, int head)
{
    if (bounds == NULL || tokens < 1 || heads < 1 || head < 0 || head >= heads) {
        rf_talk_figure_set_message(f, "These window bounds could not be read");
        return false;
    }
    if (!make_room(f, tokens))
        return false;
    int valid = 1;
    for (int t = 0; t < tokens; t++) {
        float l = bounds[(size_t)t * 2 * heads + head], r = bounds[(size_t)t * 2 * heads + heads + head];
        f->left[t] = l - (float)t;
        f->right[t] = r - (float)t;
        if (l != 0 || r != 0)
            valid = t + 1;
    }
    f->cells = valid;
    f->first = 0;
    f->last = valid;
    rebuild_widths(f);
    return true;
}

bool rf_talk_figure_set_spans(rf_talk_figure *f, const float *spans, int cells, int heads, int head, int64_t first,
                              int64_t last)
{
    if (spans == NULL || cells < 1 || heads < 1 || head < 0 || head >= heads || first < 0 ||
        last - first < cells) {
        rf_talk_figure_set_message(f, "These window bounds could not be read");
        return false;
    }
    if (!make_room(f, cells))
        return false;
    for (int i = 0; i < cells; i++) {
        f->left[i] = spans[(size_t)i * 2 * heads + head];
        f->right[i] = spans[(size_t)i * 2 * heads + heads + head];
    }
    f->cells = cells;
    f->first = first;
    f->last = last;
    rebuild_widths(f);
    return true;
}

static bool picture_on(const rf_talk_figure *f)
{
    return f->show_picture && f->picture.pixels != NULL && whole_tokens(f);
}

void rf_talk_figure_show_picture(rf_talk_figure *f, bool on)
{
    f->show_picture = on;
    rebuild_widths(f);
}

void rf_talk_figure_set_token(rf_talk_figure *f, int token)
{
    f->token = token;
}

/* ---- layout ---- */

typedef struct layout {
    rf_rect bands;               /* the panel */
    rf_axis x, y;                /* tokens; positions relative to the token */
    rf_rect fit, bar;            /* picture mode */
} layout;

/* s: the text's scale (rf_plot_text_scale; 1 on screen). */
static layout lay_out(const rf_talk_figure *f, double width, double height, const rf_zoom *zoom, double s)
{
    layout l = {0};
    double title_h = TITLE_H * s;
    if (picture_on(f)) {
        l.fit = rf_picture_fit(&f->picture, (rf_rect){8, title_h + 4, fmax(1, width - BAR_W * s - 16),
                                                      fmax(1, height - title_h - 36)});
        l.bar = (rf_rect){l.fit.x + l.fit.w + 18, l.fit.y + rf_map_legend_above(s), 14,
                          fmax(1, l.fit.h - rf_map_legend_above(s) - rf_map_legend_below(s))};
        return l;
    }
    l.bands = (rf_rect){0, title_h, width, fmax(1, height - title_h)};
    rf_axis x = {.min = f->first - 0.5, .max = f->last - 0.5, .label = "token i", .whole = true};
    rf_axis y = {.min = -0.5, .max = 0.5, .label = "position relative to the token"};
    for (int i = 0; i < f->cells; i++) {
        rf_axis_include(&y, f->left[i] - 0.5);
        rf_axis_include(&y, f->right[i] + 0.5);
    }
    rf_axis_finish(&y, false);
    /* zoom y runs top to bottom; this axis runs bottom to top */
    l.x = rf_axis_zoom(&x, zoom->x0, zoom->x1);
    l.y = rf_axis_zoom(&y, 1 - zoom->y1, 1 - zoom->y0);
    return l;
}

/* The union of the relative windows of columns [i0, i1]. */
static void window_union(const rf_talk_figure *f, int i0, int i1, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = i0; i <= i1; i++) {
        *lo = fmin(*lo, f->left[i]);
        *hi = fmax(*hi, f->right[i]);
    }
}

static void draw_bands(const rf_talk_figure *f, cairo_t *cr, const layout *l)
{
    rf_plot p;
    rf_plot_begin(&p, cr, l->bands, &l->x, &l->y, bands_title);
    cairo_save(cr);
    cairo_rectangle(cr, p.frame.x, p.frame.y, p.frame.w, p.frame.h);
    cairo_clip(cr);
    rf_set_color(cr, rf_series_color(0), 0.6);
    int64_t first = (int64_t)fmax(f->first, ceil(l->x.min - 0.5));
    int64_t last = (int64_t)fmin(f->last - 1, floor(l->x.max + 0.5));
    double cell = p.frame.w / (l->x.max - l->x.min) * (double)(f->last - f->first) / f->cells;   /* a column's pixels */
    if (cell >= 1) {
        double gap = cell >= 4 ? 0.15 * cell : 0;
        for (int i = column_of(f, first); i <= column_of(f, last); i++) {
            int64_t t0, t1;
            rf_talk_figure_column(f, i, &t0, &t1);
            double x0 = rf_plot_px(&p, t0 - 0.5) + gap, x1 = rf_plot_px(&p, t1 - 0.5) - gap;
            double y0 = rf_plot_py(&p, f->right[i] + 0.5), y1 = rf_plot_py(&p, f->left[i] - 0.5);
            cairo_rectangle(cr, x0, y0, fmax(x1 - x0, 0.5), y1 - y0);
        }
    } else {
        /* More columns than pixels: one box per pixel, the union of its
         * columns' windows. Whole-pixel boxes let cairo fill them without
         * antialiased rasterisation (tall windows otherwise cost ~40 ms). */
        for (double px = floor(p.frame.x); px < p.frame.x + p.frame.w; px += 1) {
            int64_t t0 = (int64_t)fmax(first, ceil(rf_plot_x_at(&p, px) - 0.5));
            int64_t t1 = (int64_t)fmin(last, ceil(rf_plot_x_at(&p, px + 1) - 0.5) - 1);
            if (t1 < t0)
                continue;
            double lo, hi;
            window_union(f, column_of(f, t0), column_of(f, t1), &lo, &hi);
            double y0 = round(rf_plot_py(&p, hi + 0.5)), y1 = round(rf_plot_py(&p, lo - 0.5));
            cairo_rectangle(cr, px, y0, 1, fmax(y1 - y0, 1));
        }
    }
    cairo_fill(cr);
    cairo_restore(cr);
    double self_x[2] = {f->first - 0.5, f->last - 0.5}, self_y[2] = {0, 0};
    rf_plot_line(&p, self_x, self_y, 2, (rf_rgb){0.85, 0.2, 0.1}, cell >= 4 ? 2 : 1.5, 0);
    rf_plot_end(&p);
}

static void draw_picture(const rf_talk_figure *f, cairo_t *cr, const layout *l)
{
    const rf_picture *p = &f->picture;
    rf_picture_draw(p, cr, l->fit);
    double lo = 0, hi = 1;
    if (f->widths != NULL) {
        rf_data_range(f->widths, (size_t)p->grid_h * p->grid_w, &lo, &hi);
        lo = fmin(0, lo);
        hi = hi > lo ? hi : lo + 1;
        rf_picture_draw_overlay(p, cr, l->fit, f->widths, lo, hi, 0.45);
    }
    rf_map_scale scale = {.vmin = lo, .vmax = hi, .kind = RF_COLORMAP_SEQUENTIAL, .quantity = "window width",
                          .units = "positions"};
    rf_map_legend(cr, l->bar, &scale);
    int cells = p->grid_h * p->grid_w;
    char caption[160];
    if (f->token >= 0 && f->token < f->cells) {
        /* Outline the positions the chosen token's window touches. */
        double al = f->left[f->token] + f->token, ar = f->right[f->token] + f->token;
        rf_set_color(cr, (rf_rgb){1, 0.85, 0.2}, 1);
        cairo_set_line_width(cr, 1.5);
        for (int t = (int)floor(al); t <= (int)ceil(ar); t++) {
            int pos = t - p->token_offset;
            if (pos < 0 || pos >= cells)
                continue;
            rf_rect c = rf_picture_cell(p, l->fit, pos);
            cairo_rectangle(cr, c.x + 1, c.y + 1, c.w - 2, c.h - 2);
        }
        cairo_stroke(cr);
        int pos = f->token - p->token_offset;
        if (pos >= 0 && pos < cells) {
            rf_rect c = rf_picture_cell(p, l->fit, pos);
            rf_set_color(cr, (rf_rgb){1, 0.2, 0.1}, 1);
            cairo_set_line_width(cr, 2.5);
            cairo_rectangle(cr, c.x, c.y, c.w, c.h);
            cairo_stroke(cr);
        }
        snprintf(caption, sizeof caption, "Window of token %d: [%.1f, %.1f] (outlined); click a position to choose",
                 f->token, al, ar);
    } else {
        snprintf(caption, sizeof caption, "Click a position to outline its window");
    }
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, l->fit.x + l->fit.w / 2, l->fit.y + l->fit.h + 6, 0.5, 0, RF_PLOT_TEXT, false, caption);
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    rf_talk_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->cells == 0) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->message);
        cairo_restore(cr);
        return;
    }
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, 12, 6, 0, 0, RF_PLOT_TITLE, true, f->title);
    layout l = lay_out(f, width, height, zoom, rf_plot_text_scale(cr));
    if (picture_on(f)) {
        draw_picture(f, cr, &l);
    } else {
        draw_bands(f, cr, &l);
    }
    cairo_restore(cr);
}

/* The frame rf_plot_begin lays out for `outer` (hover needs it without drawing). */
static rf_plot frame_of(rf_rect outer, const rf_axis *x, const rf_axis *y, const char *title)
{
    rf_plot p;
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(scratch);
    rf_plot_begin(&p, cr, outer, x, y, title);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    p.cr = NULL;
    return p;
}

/* Column i: an exact token's window in positions, or a pooled column's
 * widest window relative to each of its tokens. */
static void describe(const rf_talk_figure *f, int i, char *text, size_t size)
{
    int64_t t0, t1;
    rf_talk_figure_column(f, i, &t0, &t1);
    if (t1 - t0 > 1) {
        snprintf(text, size, "tokens %lld-%lld: windows reach from %+.1f to %+.1f around each token", (long long)t0,
                 (long long)t1 - 1, f->left[i], f->right[i]);
        return;
    }
    char word[96] = "";
    int64_t k = t0 - f->first;
    if (k < f->n_names && f->names[k] != NULL)
        snprintf(word, sizeof word, " \"%s\"", f->names[k]);
    snprintf(text, size, "token %lld%s: window [%.1f, %.1f]", (long long)t0, word, f->left[i] + (double)t0,
             f->right[i] + (double)t0);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    rf_talk_figure *f = data;
    if (f->cells == 0)
        return false;
    layout l = lay_out(f, width, height, zoom, 1.0);
    if (picture_on(f)) {
        int pos;
        if (!rf_picture_position_at(&f->picture, l.fit, x, y, &pos) || pos + f->picture.token_offset >= f->cells)
            return false;
        int t = pos + f->picture.token_offset;
        char head[48];
        snprintf(head, sizeof head, "position (%d, %d) = ", pos / f->picture.grid_w, pos % f->picture.grid_w);
        size_t n = (size_t)snprintf(text, size, "%s", head);
        if (n < size)
            describe(f, t, text + n, size - n);
        return true;
    }
    rf_plot p = frame_of(l.bands, &l.x, &l.y, bands_title);
    if (!rf_plot_contains(&p, x, y))
        return false;
    int64_t t = (int64_t)llround(rf_plot_x_at(&p, x));
    if (t < f->first || t >= f->last)
        return false;
    describe(f, column_of(f, t), text, size);
    return true;
}

bool rf_talk_figure_token_at(const rf_talk_figure *f, double width, double height, double x, double y, int *token)
{
    if (!picture_on(f))
        return false;
    layout l = lay_out(f, width, height, &RF_ZOOM_ALL, 1.0);
    int pos;
    if (!rf_picture_position_at(&f->picture, l.fit, x, y, &pos))
        return false;
    *token = pos + f->picture.token_offset;
    return *token < f->cells;
}

rf_figure rf_talk_figure_get(rf_talk_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f};
}
