/* The Attribution view's figure (attribution_figure.h). */
#include "attribution_figure.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attribution_maps.h"
#include "data_sample.h"
#include "picture.h"
#include "position_words.h"

#define PAD 12.0
#define TITLE_H 24.0
#define CAPTION_H 22.0
#define TOKEN_MAX 28.0     /* tokens are drawn as large as fits, up to this */
#define STRIP_H 0.6        /* a token's strip under its text, of the text size */
#define LINE_GAP 0.5       /* between lines, of the text size */
#define CELL_MIN 4.0       /* a bare strip's cells are never narrower */
#define CELL_MAX 40.0
#define FRAMES_STRIP_H 16.0
#define OVERLAY_ALPHA 0.6
#define PANEL_LABEL_H 18.0 /* compare mode: each panel's name above it */
#define PROBS_W 220.0      /* compare mode: the class probabilities' column */
#define PROBS_LABEL_W 84.0
#define SHARED_RANGE "A, B, A − B"   /* compare mode: the legend's note that one range serves all three */
#define MAP_SHARE_REST 0.5   /* compare mode with a probe map: the attribution's share of a panel's width */

static const rf_rgb ink = {0.12, 0.12, 0.14};
static const rf_rgb muted = {0.30, 0.30, 0.34};

struct rf_attribution_figure {
    float *values;
    int len;
    int seq_len;                 /* the data set's padded length (the maps' padding) */
    rf_attr_method method;
    double fx, fbase, sum, completeness;
    char layout;                 /* see rf_attribution_figure_layout */
    char **words;                /* len names for hover, or NULL */
    char **tokens;               /* 't': len texts drawn */
    rf_picture picture;          /* 'p' */
    float *mel;                  /* 'a': bins x frames (rows high bin first), for the heatmap */
    int bins;
    rf_heatmap spectrogram;
    char *title, *message;
    /* compare mode (panels 3): B's values and A - B, B's numbers, each
     * model's class probabilities and the panels' names */
    int panels;
    float *b_values, *diff;
    double b_fx, b_fbase, b_sum, b_completeness;
    float *probs[2];
    int classes;
    char **class_names;
    char *names[2];
    rf_attribution_maps maps;    /* compare mode: a probe map of A and B, or none */
};

/* Where things go for one size: the data's room and the legend. */
typedef struct layout {
    double scale;
    rf_rect body, legend;
    rf_rect map_legend;          /* compare mode with a probe map */
    /* tokens: each drawn token's box (text above, strip below), n_placed
     * of them; or a bare strip of cols x rows cells of pitch */
    rf_rect *boxes;
    int placed;
    double token_size;           /* before the text scale */
    int cols, rows;
    double pitch;
    rf_rect fit;                 /* 'p': the picture; 'a': the spectrogram */
    rf_rect strip;               /* 'a': the frames' strip under it */
} layout;

rf_attribution_figure *rf_attribution_figure_new(void)
{
    rf_attribution_figure *f = g_new0(rf_attribution_figure, 1);
    f->message = g_strdup("Choose a method and Compute to see which positions decide the answer");
    f->panels = 1;
    return f;
}

static void clear(rf_attribution_figure *f)
{
    g_clear_pointer(&f->values, g_free);
    g_clear_pointer(&f->words, g_strfreev);
    g_clear_pointer(&f->tokens, g_strfreev);
    g_clear_pointer(&f->mel, g_free);
    rf_heatmap_clear(&f->spectrogram);
    memset(&f->spectrogram, 0, sizeof f->spectrogram);
    rf_picture_clear(&f->picture);
    g_clear_pointer(&f->title, g_free);
    g_clear_pointer(&f->message, g_free);
    g_clear_pointer(&f->b_values, g_free);
    g_clear_pointer(&f->diff, g_free);
    for (int i = 0; i < 2; i++) {
        g_clear_pointer(&f->probs[i], g_free);
        g_clear_pointer(&f->names[i], g_free);
    }
    g_clear_pointer(&f->class_names, g_strfreev);
    rf_attribution_maps_clear(&f->maps);
    f->panels = 1;
    f->len = 0;
    f->layout = 's';
}

void rf_attribution_figure_free(rf_attribution_figure *f)
{
    if (f == NULL)
        return;
    clear(f);
    g_free(f);
}

/* The log-mel frames (len x bins) as the spectrogram's rows, highest bin
 * first, over the input's own range. */
static void set_spectrogram(rf_attribution_figure *f, const float *x, int len, int bins)
{
    f->bins = bins;
    f->mel = g_new(float, (size_t)bins * len);
    for (int b = 0; b < bins; b++)
        for (int t = 0; t < len; t++)
            f->mel[(size_t)(bins - 1 - b) * len + t] = x[(size_t)t * bins + b];
    double lo, hi;
    rf_data_range(f->mel, (size_t)bins * len, &lo, &hi);
    rf_heatmap_set(&f->spectrogram, f->mel, bins, len, lo, hi > lo ? hi : lo + 1);
    f->spectrogram.colormap = RF_COLORMAP_GREY;
}

void rf_attribution_figure_set(rf_attribution_figure *f, const rf_attribution *a, rf_attr_method method,
                               const rf_dataset *ds, const float *x, int len, const char *title)
{
    clear(f);
    f->values = g_memdup2(a->values, sizeof(float) * (size_t)a->len);
    f->len = a->len;
    f->seq_len = ds->seq_len;
    f->method = method;
    f->fx = a->fx;
    f->fbase = a->fbase;
    f->sum = a->sum;
    f->completeness = a->completeness;
    f->title = g_strdup(title);
    int n = 0;
    f->words = rf_position_words_range(ds, x, len, 0, 0, a->len, &n);
    if (f->words != NULL && n != a->len)
        g_clear_pointer(&f->words, g_strfreev);
    switch (rf_data_kind_of(ds)) {
    case RF_DATA_PICTURE:
        if (ds->grid_h * ds->grid_w == a->len && rf_picture_from_tokens(&f->picture, ds, x, 0))
            f->layout = 'p';
        break;
    case RF_DATA_AUDIO:
        if (len == a->len && ds->feat_dim > 0) {
            set_spectrogram(f, x, len, ds->feat_dim);
            f->layout = 'a';
        }
        break;
    case RF_DATA_LISTOPS:
    case RF_DATA_TEXT:
        if (f->words != NULL) {
            f->tokens = g_strdupv(f->words);
            f->layout = 't';
        }
        break;
    case RF_DATA_SEQUENCE:
        break;
    }
}

void rf_attribution_figure_set_compare(rf_attribution_figure *f, const rf_attribution *a, const rf_attribution *b,
                                       rf_attr_method method, const rf_dataset *ds, const float *x, int len,
                                       const char *title, const char *const names[2], const float *probs_a,
                                       const float *probs_b)
{
    rf_attribution_figure_set(f, a, method, ds, x, len, title);
    f->panels = 3;
    f->b_values = g_memdup2(b->values, sizeof(float) * (size_t)a->len);
    f->diff = g_new(float, (size_t)a->len);
    for (int i = 0; i < a->len; i++)
        f->diff[i] = a->values[i] - b->values[i];
    f->b_fx = b->fx;
    f->b_fbase = b->fbase;
    f->b_sum = b->sum;
    f->b_completeness = b->completeness;
    f->classes = ds->classes;
    f->probs[0] = g_memdup2(probs_a, sizeof(float) * (size_t)ds->classes);
    f->probs[1] = g_memdup2(probs_b, sizeof(float) * (size_t)ds->classes);
    f->class_names = g_new0(char *, (size_t)ds->classes + 1);
    char text[160];
    for (int k = 0; k < ds->classes; k++) {
        rf_data_class_text(ds, k, text, sizeof text);
        f->class_names[k] = g_strdup(text);
    }
    for (int i = 0; i < 2; i++)
        f->names[i] = g_strdup(names[i]);
}

void rf_attribution_figure_set_maps(rf_attribution_figure *f, const char *name, const rf_shape *shape,
                                    const float *a, const float *b)
{
    if (f->panels == 3)
        rf_attribution_maps_set(&f->maps, name, shape, a, b, f->seq_len, f->len);
}

const float *rf_attribution_figure_map(const rf_attribution_figure *f, int i, size_t *n, rf_shape *shape)
{
    *n = f->maps.n;
    *shape = f->maps.shape;
    return f->maps.name != NULL && i >= 0 && i < 3 ? f->maps.values[i] : NULL;
}

const char *rf_attribution_figure_map_name(const rf_attribution_figure *f)
{
    return f->maps.name;
}

rf_map_scale rf_attribution_figure_map_scale(const rf_attribution_figure *f)
{
    return rf_attribution_maps_scale(&f->maps);
}

int rf_attribution_figure_panels(const rf_attribution_figure *f)
{
    return f->len > 0 ? f->panels : 0;
}

const float *rf_attribution_figure_panel(const rf_attribution_figure *f, int i, int *len)
{
    *len = f->len;
    const float *panels[3] = {f->values, f->b_values, f->diff};
    return i >= 0 && i < rf_attribution_figure_panels(f) ? panels[i] : NULL;
}

void rf_attribution_figure_set_message(rf_attribution_figure *f, const char *message)
{
    clear(f);
    f->message = g_strdup(message);
}

const float *rf_attribution_figure_values(const rf_attribution_figure *f, int *len)
{
    *len = f->len;
    return f->values;
}

char rf_attribution_figure_layout(const rf_attribution_figure *f, int *rows, int *cols)
{
    *rows = f->layout == 'p' ? f->picture.grid_h : f->layout == 'a' ? f->bins : 1;
    *cols = f->layout == 'p' ? f->picture.grid_w : f->len;
    return f->layout;
}

rf_map_scale rf_attribution_figure_scale(const rf_attribution_figure *f)
{
    if (f->panels < 3 || f->len == 0)
        return rf_attribution_scale(f->values, f->len, f->method);
    /* one diverging range for A, B and A - B (a difference is signed even
     * for the unsigned gradient): the largest |value| of A and B */
    rf_map_scale a = rf_attribution_scale(f->values, f->len, RF_ATTR_GRAD_INPUT);
    rf_map_scale b = rf_attribution_scale(f->b_values, f->len, RF_ATTR_GRAD_INPUT);
    double m = fmax(a.vmax, b.vmax);
    return (rf_map_scale){.vmin = -m, .vmax = m, .kind = RF_COLORMAP_DIVERGING,
                          .quantity = rf_attr_method_name(f->method), .units = SHARED_RANGE};
}

rf_map_scale rf_attribution_scale(const float *values, int len, rf_attr_method method)
{
    double lo, hi;
    rf_data_range(values, (size_t)len, &lo, &hi);
    const char *quantity = rf_attr_method_name(method);
    if (method != RF_ATTR_GRAD) {   /* signed: centred at 0, white is no effect */
        double m = fmax(fmax(fabs(lo), fabs(hi)), 1e-12);
        return (rf_map_scale){.vmin = -m, .vmax = m, .kind = RF_COLORMAP_DIVERGING, .quantity = quantity};
    }
    return (rf_map_scale){.vmin = 0, .vmax = fmax(hi, 1e-12), .kind = RF_COLORMAP_SEQUENTIAL, .quantity = quantity};
}

/* ---- layout ---- */

/* Tokens flow in lines as text does, at text size `size`; false when they
 * do not all fit. */
static bool flow_tokens_at(const rf_attribution_figure *f, cairo_t *cr, layout *l, double size)
{
    double px = size * l->scale, line = px * (1.3 + STRIP_H + LINE_GAP);
    double gap = rf_text_width_in(cr, RF_PLOT_MONO, size, false, " ");
    double x = l->body.x, y = l->body.y;
    for (int i = 0; i < f->len; i++) {
        double w = fmax(rf_text_width_in(cr, RF_PLOT_MONO, size, false, f->tokens[i]), gap);
        if (x + w > l->body.x + l->body.w && x > l->body.x) {
            x = l->body.x;
            y += line;
        }
        if (y + line > l->body.y + l->body.h)
            return false;
        l->boxes[i] = (rf_rect){x, y, w, line - px * LINE_GAP};
        x += w + gap;
    }
    l->placed = f->len;
    l->token_size = size;
    return true;
}

/* The largest text size at which every token fits, down to the plots'
 * own; false when not even that fits. */
static bool flow_tokens(const rf_attribution_figure *f, cairo_t *cr, layout *l)
{
    l->boxes = g_new(rf_rect, (size_t)f->len);
    for (double size = TOKEN_MAX; size >= RF_PLOT_TEXT; size -= 1)
        if (flow_tokens_at(f, cr, l, size))
            return true;
    return false;
}

/* The widest square cells that still fit every position. */
static void lay_out_strip(const rf_attribution_figure *f, layout *l)
{
    l->pitch = CELL_MAX * l->scale;
    for (;;) {
        l->cols = MAX(1, (int)(l->body.w / l->pitch));
        l->rows = (f->len + l->cols - 1) / l->cols;
        if (l->rows * l->pitch <= l->body.h || l->pitch <= CELL_MIN)
            break;
        l->pitch *= 0.9;
    }
    if (l->rows == 1)
        l->cols = f->len;
}

/* The data's own layout within l->body. */
static void lay_out_body(const rf_attribution_figure *f, cairo_t *cr, layout *l)
{
    if (f->layout == 'p') {
        l->fit = rf_picture_fit(&f->picture, l->body);
    } else if (f->layout == 'a') {
        double strip = FRAMES_STRIP_H * l->scale;
        l->fit = (rf_rect){l->body.x, l->body.y, l->body.w, fmax(l->body.h - strip - 4 * l->scale, 10)};
        l->strip = (rf_rect){l->body.x, l->fit.y + l->fit.h + 4 * l->scale, l->body.w, strip};
    } else if (f->layout != 't' || !flow_tokens(f, cr, l)) {
        g_clear_pointer(&l->boxes, g_free);
        l->placed = 0;
        lay_out_strip(f, l);
    }
}

/* Compare mode: panel i's room for its data (under its name), left of
 * the probabilities' column; with a probe map, the room's left part (the
 * map takes the right, map_rect). */
static rf_rect panel_room(const rf_rect body, double scale, int i)
{
    double w = fmax(body.w - (PROBS_W + PAD) * scale, 10), h = body.h / 3, label = PANEL_LABEL_H * scale;
    return (rf_rect){body.x, body.y + i * h + label, w, fmax(h - label - 4 * scale, 10)};
}

static rf_rect panel_rect(const rf_attribution_figure *f, const rf_rect body, double scale, int i)
{
    rf_rect r = panel_room(body, scale, i);
    if (f->maps.name != NULL)
        r.w = fmax(r.w * MAP_SHARE_REST, 10);
    return r;
}

static rf_rect map_rect(const rf_rect body, double scale, int i)
{
    rf_rect r = panel_room(body, scale, i);
    double left = r.w * MAP_SHARE_REST + PAD * scale;
    return (rf_rect){r.x + left, r.y, fmax(r.w - left, 10), r.h};
}

static layout lay_out_panel(const rf_attribution_figure *f, cairo_t *cr, const layout *whole, int i)
{
    layout p = {.scale = whole->scale, .body = panel_rect(f, whole->body, whole->scale, i)};
    lay_out_body(f, cr, &p);
    return p;
}

static layout lay_out(const rf_attribution_figure *f, cairo_t *cr, double width, double height)
{
    layout l = {.scale = rf_plot_text_scale(cr)};
    double legend_w = rf_map_legend_w(l.scale);
    double top = TITLE_H * l.scale + rf_map_legend_above(l.scale);
    double bottom = height - CAPTION_H * l.scale - rf_map_legend_below(l.scale);
    l.body = (rf_rect){PAD, top, fmax(width - 3 * PAD - legend_w, 10), fmax(bottom - top, 10)};
    l.legend = (rf_rect){width - PAD - legend_w, top, 14 * l.scale, fmin(l.body.h, 240 * l.scale)};
    if (f->maps.name != NULL) {   /* the map's legend under the attribution's */
        double between = rf_map_legend_below(l.scale) + rf_map_legend_above(l.scale);
        l.legend.h = fmin((l.body.h - between) / 2, 240 * l.scale);
        l.map_legend = l.legend;
        l.map_legend.y = l.legend.y + l.legend.h + between;
    }
    lay_out_body(f, cr, &l);
    return l;
}

static void layout_clear(layout *l)
{
    g_clear_pointer(&l->boxes, g_free);
}

/* ---- drawing ---- */

static void set_value_colour(cairo_t *cr, const rf_map_scale *s, double v, double alpha)
{
    rf_set_color(cr, rf_colormap_of(s->kind, (v - s->vmin) / (s->vmax - s->vmin)), alpha);
}

static void draw_tokens(const rf_attribution_figure *f, const float *values, cairo_t *cr, const layout *l,
                        const rf_map_scale *s)
{
    double px = l->token_size * l->scale, strip = px * STRIP_H;
    for (int i = 0; i < l->placed; i++) {
        rf_rect b = l->boxes[i];
        set_value_colour(cr, s, values[i], 1);
        cairo_rectangle(cr, b.x, b.y + b.h - strip, b.w, strip);
        cairo_fill(cr);
        rf_set_color(cr, ink, 1);
        rf_draw_text_in(cr, RF_PLOT_MONO, b.x, b.y + px * 0.65, 0, 0.5, l->token_size, false, f->tokens[i]);
    }
}

static void draw_strip(const rf_attribution_figure *f, const float *values, cairo_t *cr, const layout *l,
                       const rf_map_scale *s)
{
    for (int i = 0; i < f->len; i++) {
        set_value_colour(cr, s, values[i], 1);
        cairo_rectangle(cr, l->body.x + (i % l->cols) * l->pitch, l->body.y + (i / l->cols) * l->pitch, l->pitch,
                        l->pitch);
        cairo_fill(cr);
    }
}

static void draw_frames(rf_attribution_figure *f, const float *values, cairo_t *cr, const layout *l,
                        const rf_map_scale *s)
{
    rf_heatmap_draw(&f->spectrogram, cr, l->fit, 0, f->bins, 0, f->len);
    double w = l->fit.w / f->len;
    for (int t = 0; t < f->len; t++) {
        set_value_colour(cr, s, values[t], OVERLAY_ALPHA);
        cairo_rectangle(cr, l->fit.x + t * w, l->fit.y, w, l->fit.h);
        cairo_fill(cr);
        set_value_colour(cr, s, values[t], 1);
        cairo_rectangle(cr, l->strip.x + t * w, l->strip.y, w, l->strip.h);
        cairo_fill(cr);
    }
}

/* One panel's values in the data's own terms. */
static void draw_values(rf_attribution_figure *f, const float *values, cairo_t *cr, const layout *l,
                        const rf_map_scale *s)
{
    if (f->layout == 'p') {
        rf_picture_draw(&f->picture, cr, l->fit);
        rf_picture_draw_overlay_in(&f->picture, cr, l->fit, values, s->vmin, s->vmax, s->kind, OVERLAY_ALPHA);
    } else if (f->layout == 'a') {
        draw_frames(f, values, cr, l, s);
    } else if (l->placed > 0) {
        draw_tokens(f, values, cr, l, s);
    } else {
        draw_strip(f, values, cr, l, s);
    }
}

/* The two models' class probabilities, side by side: a bar each per class. */
static void draw_probabilities(const rf_attribution_figure *f, cairo_t *cr, rf_rect r, double scale)
{
    rf_set_color(cr, ink, 1);
    rf_draw_text(cr, r.x, r.y + 7 * scale, 0, 0.5, RF_PLOT_TEXT, true, "Class probabilities");
    double key = r.y + 22 * scale, row = fmin(24 * scale, (r.h - 32 * scale) / MAX(1, f->classes));
    for (int m = 0; m < 2; m++) {
        rf_set_color(cr, rf_series_color(m), 1);
        cairo_rectangle(cr, r.x + m * 90 * scale, key - 4 * scale, 10 * scale, 8 * scale);
        cairo_fill(cr);
        rf_set_color(cr, ink, 1);
        rf_draw_text(cr, r.x + m * 90 * scale + 14 * scale, key, 0, 0.5, RF_PLOT_TEXT, false, m == 0 ? "A" : "B");
    }
    double bars_x = r.x + PROBS_LABEL_W * scale, bars_w = r.w - PROBS_LABEL_W * scale;
    for (int k = 0; k < f->classes; k++) {
        double y = key + 10 * scale + k * row;
        rf_set_color(cr, ink, 1);
        rf_draw_text(cr, r.x, y + row / 2, 0, 0.5, RF_PLOT_TEXT, false, f->class_names[k]);
        for (int m = 0; m < 2; m++) {
            rf_set_color(cr, rf_series_color(m), 1);
            cairo_rectangle(cr, bars_x, y + m * row * 0.45, fmax(f->probs[m][k] * bars_w, 0.5), row * 0.4);
            cairo_fill(cr);
        }
    }
}

/* A, B and A - B one above another, each under its name, on one range. */
static void draw_compare(rf_attribution_figure *f, cairo_t *cr, const layout *l, const rf_map_scale *s)
{
    const char *diff_name = "A − B (on the same colour range)";
    const char *names[3] = {f->names[0], f->names[1], diff_name};
    const float *values[3] = {f->values, f->b_values, f->diff};
    for (int i = 0; i < 3; i++) {
        layout p = lay_out_panel(f, cr, l, i);
        rf_set_color(cr, ink, 1);
        rf_draw_text(cr, p.body.x, p.body.y - PANEL_LABEL_H * l->scale / 2, 0, 0.5, RF_PLOT_TEXT, true, names[i]);
        draw_values(f, values[i], cr, &p, s);
        layout_clear(&p);
        if (f->maps.name != NULL)
            rf_attribution_maps_draw(&f->maps, cr, map_rect(l->body, l->scale, i), l->scale, i);
    }
    rf_rect body = l->body;
    double w = PROBS_W * l->scale;
    draw_probabilities(f, cr, (rf_rect){body.x + body.w - w, body.y, w, body.h}, l->scale);
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    (void)zoom;
    rf_attribution_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->len == 0) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->message != NULL ? f->message : "");
        cairo_restore(cr);
        return;
    }
    layout l = lay_out(f, cr, width, height);
    rf_set_color(cr, ink, 1);
    rf_draw_text(cr, PAD, TITLE_H * l.scale / 2, 0, 0.5, RF_PLOT_TITLE, true, f->title != NULL ? f->title : "");
    rf_map_scale s = rf_attribution_figure_scale(f);
    if (f->panels == 3) {
        draw_compare(f, cr, &l, &s);
    } else {
        draw_values(f, f->values, cr, &l, &s);
    }
    rf_map_legend(cr, l.legend, &s);
    if (f->maps.name != NULL) {
        rf_map_scale maps = rf_attribution_maps_scale(&f->maps);
        rf_map_legend(cr, l.map_legend, &maps);
    }
    char caption[320];
    if (isnan(f->fbase)) {   /* grad and grad-input do not score the baseline */
        if (f->panels == 3)
            snprintf(caption, sizeof caption, "A: F(x) %.4g · sum %.4g    B: F(x) %.4g · sum %.4g", f->fx, f->sum,
                     f->b_fx, f->b_sum);
        else
            snprintf(caption, sizeof caption, "F(x) %.4g · sum %.4g", f->fx, f->sum);
    } else if (f->panels == 3) {
        snprintf(caption, sizeof caption, "A: F(x) %.4g · F(baseline) %.4g · sum %.4g    B: F(x) %.4g · F(baseline) "
                 "%.4g · sum %.4g", f->fx, f->fbase, f->sum, f->b_fx, f->b_fbase, f->b_sum);
    } else {
        snprintf(caption, sizeof caption, "F(x) %.4g · F(baseline) %.4g · sum %.4g", f->fx, f->fbase, f->sum);
    }
    size_t n = strlen(caption);
    if (f->method == RF_ATTR_IG && f->panels == 3)
        snprintf(caption + n, sizeof caption - n, " · completeness error A %.3g, B %.3g", f->completeness,
                 f->b_completeness);
    else if (f->method == RF_ATTR_IG)
        snprintf(caption + n, sizeof caption - n, " · completeness error %.3g", f->completeness);
    rf_set_color(cr, muted, 1);
    rf_draw_text(cr, PAD, height - CAPTION_H * l.scale / 2, 0, 0.5, RF_PLOT_TEXT, false, caption);
    layout_clear(&l);
    cairo_restore(cr);
}

bool rf_attribution_figure_map_cell(const rf_attribution_figure *f, double width, double height, int panel,
                                    size_t index, rf_rect *cell)
{
    const rf_attribution_maps *m = &f->maps;
    if (m->name == NULL || f->len == 0 || panel < 0 || panel > 2 || index >= m->n)
        return false;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(surface);
    layout l = lay_out(f, cr, width, height);
    size_t per_slice = (size_t)m->rows * m->cols;
    bool ok = rf_attribution_maps_cell_rect(m, map_rect(l.body, l.scale, panel), l.scale, (int)(index / per_slice),
                                            (int)(index % per_slice / m->cols), (int)(index % m->cols), cell);
    layout_clear(&l);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    return ok;
}

/* ---- hover ---- */

static bool inside(rf_rect r, double x, double y)
{
    return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

static int position_at(const rf_attribution_figure *f, const layout *l, double x, double y)
{
    int i = -1;
    if (f->layout == 'p') {
        if (!rf_picture_position_at(&f->picture, l->fit, x, y, &i))
            return -1;
    } else if (f->layout == 'a') {
        if (inside(l->fit, x, y) || inside(l->strip, x, y))
            i = (int)((x - l->body.x) / (l->body.w / f->len));
    } else if (l->placed > 0) {
        for (int k = 0; k < l->placed && i < 0; k++)
            if (inside(l->boxes[k], x, y))
                i = k;
    } else if (x >= l->body.x && y >= l->body.y) {
        int col = (int)((x - l->body.x) / l->pitch), row = (int)((y - l->body.y) / l->pitch);
        if (col < l->cols && row < l->rows)
            i = row * l->cols + col;
    }
    return i >= 0 && i < f->len ? i : -1;
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    (void)zoom;
    rf_attribution_figure *f = data;
    if (f->len == 0)
        return false;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(surface);
    layout l = lay_out(f, cr, width, height);
    int panel = 0;
    static const char *const prefix[3] = {"A: ", "B: ", "A − B: "};
    for (int k = 0; f->maps.name != NULL && k < 3; k++) {   /* a probe map's cell */
        size_t at;
        if (rf_attribution_maps_cell_at(&f->maps, map_rect(l.body, l.scale, k), l.scale, x, y, &at)) {
            layout_clear(&l);
            cairo_destroy(cr);
            cairo_surface_destroy(surface);
            char cell[160];
            rf_attribution_maps_describe(&f->maps, at, cell, sizeof cell);
            snprintf(text, size, "%s%s: %.4g", prefix[k], cell, f->maps.values[k][at]);
            return true;
        }
    }
    if (f->panels == 3)   /* the panel under the point, laid out alone */
        for (int k = 0; k < 3; k++) {
            rf_rect r = panel_rect(f, l.body, l.scale, k);
            if (y >= r.y - PANEL_LABEL_H * l.scale && y < r.y + r.h) {
                panel = k;
                layout p = lay_out_panel(f, cr, &l, k);
                layout_clear(&l);
                l = p;
                break;
            }
        }
    int i = position_at(f, &l, x, y);
    layout_clear(&l);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    if (i < 0)
        return false;
    int len = 0;
    const float *values = rf_attribution_figure_panel(f, panel, &len);
    const char *pre = f->panels == 3 ? prefix[panel] : "";
    if (f->words != NULL && f->words[i] != NULL)
        snprintf(text, size, "%sposition %d (%s): %s %.4g", pre, i, f->words[i], rf_attr_method_name(f->method),
                 values[i]);
    else
        snprintf(text, size, "%sposition %d: %s %.4g", pre, i, rf_attr_method_name(f->method), values[i]);
    return true;
}

static bool empty(void *data, char *why, size_t size)
{
    rf_attribution_figure *f = data;
    if (f->len > 0)
        return false;
    g_strlcpy(why, f->message != NULL ? f->message : "Nothing computed yet", size);
    return true;
}

rf_figure rf_attribution_figure_get(rf_attribution_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .empty = empty, .data = f};
}
