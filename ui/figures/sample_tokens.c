/* The sample figure for ListOps expressions: the tokens as text coloured by
 * nesting level, above the level profile along the sequence; and for texts
 * read as bytes: each byte as its character coloured by its class, above
 * the ids along the sequence. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sample_figure_private.h"

#define TOKEN_SIZE 13.0
#define LINE_H 20.0   /* at the text scale */
/* An attribution's strip under each token, and the gap above it: tall
 * enough to read its colour at a glance (the lines grow to make room). */
#define STRIP_H 9.0
#define STRIP_GAP 2.0
/* The colour bar's words above and below it and a bar worth reading. */
#define LEGEND_ROOM (RF_MAP_LEGEND_ABOVE + RF_MAP_LEGEND_BELOW + 24.0)

static const rf_rgb muted = {0.40, 0.40, 0.44};

/* Ten text colours readable on white, neighbours contrasting, one per
 * nesting level (ListOps trees are at most 10 deep by default). */
static rf_rgb level_color(int level)
{
    static const rf_rgb palette[10] = {
        {0.12, 0.31, 0.61}, {0.84, 0.37, 0.00}, {0.00, 0.55, 0.40}, {0.60, 0.25, 0.60}, {0.55, 0.42, 0.10},
        {0.00, 0.55, 0.75}, {0.80, 0.20, 0.35}, {0.35, 0.50, 0.10}, {0.35, 0.35, 0.75}, {0.15, 0.15, 0.17},
    };
    return palette[(level > 0 ? level - 1 : 0) % 10];
}

void sample_tokens_clear(rf_sample_figure *f)
{
    if (f->tokens != NULL)
        g_strfreev(f->tokens);
    f->tokens = NULL;
    g_clear_pointer(&f->level, g_free);
    g_clear_pointer(&f->step_x, g_free);
    g_clear_pointer(&f->step_y, g_free);
    f->n_tokens = f->tree_depth = 0;
    f->byte_text = false;
}

void rf_sample_figure_set_tokens(rf_sample_figure *f, const char *const *tokens, int n)
{
    sample_reset(f, SAMPLE_TOKENS);
    f->n_tokens = n;
    f->tokens = g_new0(char *, (size_t)n + 1);
    f->level = g_new(int, (size_t)n + 1);
    f->step_x = g_new(double, 2 * (size_t)n + 2);
    f->step_y = g_new(double, 2 * (size_t)n + 2);
    int open = 0;
    for (int i = 0; i < n; i++) {
        f->tokens[i] = g_strdup(tokens[i]);
        if (tokens[i][0] == ']') {
            f->level[i] = open > 1 ? open : 1;   /* a closing bracket sits at its operator's level */
            open = open > 0 ? open - 1 : 0;
        } else {
            f->level[i] = open + 1;
            open += tokens[i][0] == '[';
        }
        f->tree_depth = f->level[i] > f->tree_depth ? f->level[i] : f->tree_depth;
        f->step_x[2 * i] = i;
        f->step_x[2 * i + 1] = i + 1;
        f->step_y[2 * i] = f->step_y[2 * i + 1] = f->level[i];
    }
}

/* Byte classes, coloured as levels 1..5 are. */
static const char *const byte_classes[] = {"letter", "digit", "punctuation", "space", "other"};

static int byte_class(int b)
{
    return g_ascii_isalpha(b) ? 1 : g_ascii_isdigit(b) ? 2 : g_ascii_ispunct(b) ? 3 : g_ascii_isspace(b) ? 4 : 5;
}

void rf_sample_figure_set_bytes(rf_sample_figure *f, const float *ids, int n)
{
    sample_reset(f, SAMPLE_TOKENS);
    f->byte_text = true;
    f->n_tokens = n;
    f->tokens = g_new0(char *, (size_t)n + 1);
    f->level = g_new(int, (size_t)n + 1);
    f->step_x = g_new(double, 2 * (size_t)n + 2);
    f->step_y = g_new(double, 2 * (size_t)n + 2);
    for (int i = 0; i < n; i++) {
        int b = (int)ids[i] - 1;
        f->tokens[i] = b == ' '                  ? g_strdup("␣")
                       : b == '\n'               ? g_strdup("↵")
                       : b > ' ' && b < 0x7f     ? g_strdup_printf("%c", b)
                                                 : g_strdup_printf("\\x%02x", b & 0xff);
        f->level[i] = byte_class(b);
        f->step_x[2 * i] = i;
        f->step_x[2 * i + 1] = i + 1;
        f->step_y[2 * i] = f->step_y[2 * i + 1] = ids[i];
    }
}

int rf_sample_figure_tree_depth(const rf_sample_figure *f)
{
    return f->kind == SAMPLE_TOKENS ? f->tree_depth : 0;
}

/* ---- layout: the text panel above, the level profile below ---- */

typedef struct token_layout {
    rf_rect text;               /* where the tokens flow */
    double advance;             /* of one monospace character */
    double line_h;
    double scale;               /* of the text */
    rf_rect legend;             /* the attribution's colour bar, right of the text (when there is one) */
    bool profile;               /* the level profile is drawn under the text (false: no room) */
    int first;                  /* first token shown (the zoom's left edge) */
    rf_plot depth;
} token_layout;

static token_layout tokens_begin(const rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z)
{
    token_layout l;
    double depth_h = fmax(150, round(body.h * 0.34));
    l.scale = rf_plot_text_scale(cr);
    l.line_h = (LINE_H + (f->attr != NULL ? STRIP_GAP + STRIP_H : 0)) * l.scale;
    /* too short for the profile and three lines of text (or the colour
     * bar): the text alone */
    double wanted = fmax(3 * l.line_h, f->attr != NULL ? LEGEND_ROOM * l.scale : 0);
    l.profile = body.h - depth_h - 40 >= wanted;
    if (!l.profile)
        depth_h = 0;
    l.text = (rf_rect){body.x + 16, body.y + 8, body.w - 32, fmax(l.line_h, body.h - depth_h - 40)};
    cairo_save(cr);
    l.advance = rf_text_width_in(cr, RF_PLOT_MONO, TOKEN_SIZE, true, "0");
    cairo_restore(cr);
    if (f->attr != NULL) {   /* the colour bar and its words take the text's right end */
        double above = rf_map_legend_above(l.scale), below = rf_map_legend_below(l.scale);
        l.text.w = fmax(l.text.w - rf_map_legend_w(l.scale) - 16, 4 * l.advance);
        l.legend = (rf_rect){l.text.x + l.text.w + 16, l.text.y + above, 14 * l.scale,
                             fmin(fmax(l.text.h - above - below, 24 * l.scale), 200 * l.scale)};
    }
    l.first = (int)floor(z->x0 * f->n_tokens);
    l.first = l.first < 0 ? 0 : l.first >= f->n_tokens ? f->n_tokens - 1 : l.first;

    rf_axis x = {.min = z->x0 * f->n_tokens, .max = z->x1 * f->n_tokens, .label = "token", .whole = true};
    rf_axis y = {.min = 0, .max = f->byte_text ? 257 : f->tree_depth + 0.5, .label = f->byte_text ? "id" : "level",
                 .whole = true};
    rf_axis_finish(&x, true);
    rf_axis_finish(&y, true);
    char title[96];
    if (f->byte_text)
        snprintf(title, sizeof title, "Token ids (byte + 1) along the sequence");
    else
        snprintf(title, sizeof title, "Nesting level along the sequence (tree depth %d)", f->tree_depth);
    if (l.profile)
        rf_plot_begin(&l.depth, cr, (rf_rect){body.x, body.y + body.h - depth_h, body.w, depth_h}, &x, &y, title);
    return l;
}

/* Where token i lands in the flow from l->first; false once the text panel
 * is full (for i and every later token). */
typedef struct flow {
    double x, y;
} flow;

static bool flow_place(const rf_sample_figure *f, const token_layout *l, flow *at, int i, rf_rect *box)
{
    double w = (double)g_utf8_strlen(f->tokens[i], -1) * l->advance;
    if (at->x > l->text.x && at->x + w > l->text.x + l->text.w) {
        at->x = l->text.x;
        at->y += l->line_h;
    }
    if (at->y + l->line_h > l->text.y + l->text.h)
        return false;
    *box = (rf_rect){at->x, at->y, w, l->line_h};
    at->x += w + l->advance;
    return true;
}

/* The attribution's strip under a token placed in `box`. */
static rf_rect strip_under(const token_layout *l, rf_rect box)
{
    return (rf_rect){box.x, box.y + (LINE_H + STRIP_GAP) * l->scale, box.w, STRIP_H * l->scale};
}

void sample_tokens_draw(rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z)
{
    token_layout l = tokens_begin(f, cr, body, z);
    flow at = {l.text.x, l.text.y};
    rf_rect box;
    int last = l.first - 1;
    cairo_save(cr);
    for (int i = l.first; i < f->n_tokens && flow_place(f, &l, &at, i, &box); i++) {
        bool op = !f->byte_text && (f->tokens[i][0] == '[' || f->tokens[i][0] == ']');
        rf_set_color(cr, level_color(f->level[i]), 1);
        rf_draw_text_in(cr, RF_PLOT_MONO, box.x, box.y + l.line_h * 0.72, 0, 1, TOKEN_SIZE, op, f->tokens[i]);
        if (f->attr != NULL && i < f->attr_len) {   /* the token's strip under it */
            rf_rect strip = strip_under(&l, box);
            sample_attr_colour(f, cr, i, 1);
            cairo_rectangle(cr, strip.x, strip.y, strip.w, strip.h);
            cairo_fill(cr);
        }
        last = i;
    }
    cairo_restore(cr);
    if (f->attr != NULL)
        rf_map_legend(cr, l.legend, &f->attr_scale);

    char caption[160];
    const char *key = f->byte_text ? "" : " · levels";
    if (last + 1 < f->n_tokens || l.first > 0)
        snprintf(caption, sizeof caption, "%s %d–%d of %d (zoom into the profile to read on)%s",
                 f->byte_text ? "bytes" : "tokens", l.first, last, f->n_tokens, key);
    else
        snprintf(caption, sizeof caption, "%d %s%s", f->n_tokens, f->byte_text ? "bytes" : "tokens", key);
    double y = l.text.y + l.text.h + 8;
    rf_set_color(cr, muted, 1);
    rf_draw_text(cr, l.text.x, y, 0, 0, RF_PLOT_TEXT, false, caption);
    cairo_text_extents_t e;
    cairo_text_extents(cr, caption, &e);
    double x = l.text.x + e.x_advance + 8;
    int keys = f->byte_text ? (int)G_N_ELEMENTS(byte_classes) : f->tree_depth;
    for (int level = 1; level <= keys; level++) {   /* the colour key */
        char number[16];
        if (f->byte_text)
            snprintf(number, sizeof number, "%s", byte_classes[level - 1]);
        else
            snprintf(number, sizeof number, "%d", level);
        rf_set_color(cr, level_color(level), 1);
        rf_draw_text(cr, x, y, 0, 0, RF_PLOT_TEXT, true, number);
        cairo_text_extents(cr, number, &e);
        x += e.x_advance + 6;
    }

    if (!l.profile)
        return;
    /* The profile, with the span the text shows shaded. */
    cairo_save(cr);
    cairo_rectangle(cr, l.depth.frame.x, l.depth.frame.y, l.depth.frame.w, l.depth.frame.h);
    cairo_clip(cr);
    double a = rf_plot_px(&l.depth, l.first), b = rf_plot_px(&l.depth, last + 1);
    cairo_set_source_rgba(cr, 0.0, 0.45, 0.70, 0.10);
    cairo_rectangle(cr, a, l.depth.frame.y, b - a, l.depth.frame.h);
    cairo_fill(cr);
    cairo_restore(cr);
    rf_plot_line(&l.depth, f->step_x, f->step_y, 2 * f->n_tokens, rf_series_color(0), 1.5, 0);
    rf_plot_end(&l.depth);
}

static void token_text(const rf_sample_figure *f, int i, char *text, size_t size)
{
    int id = (int)f->step_y[2 * i];
    if (f->byte_text)
        snprintf(text, size, "token %d: %s · byte 0x%02x · id %d", i, f->tokens[i], (id - 1) & 0xff, id);
    else
        snprintf(text, size, "token %d: %s · level %d of %d", i, f->tokens[i], f->level[i], f->tree_depth);
}

bool sample_tokens_hover(rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, char *text,
                         size_t size)
{
    cairo_t *cr = sample_scratch_context();
    token_layout l = tokens_begin(f, cr, body, z);
    cairo_destroy(cr);
    if (l.profile && rf_plot_contains(&l.depth, x, y)) {
        int i = (int)floor(rf_plot_x_at(&l.depth, x));
        if (i < 0 || i >= f->n_tokens)
            return false;
        token_text(f, i, text, size);
        return true;
    }
    flow at = {l.text.x, l.text.y};
    rf_rect box;
    for (int i = l.first; i < f->n_tokens && flow_place(f, &l, &at, i, &box); i++)
        if (x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h) {
            token_text(f, i, text, size);
            return true;
        }
    return false;
}

bool sample_tokens_strip(const rf_sample_figure *f, rf_rect body, const rf_zoom *z, int i, rf_rect *strip)
{
    if (f->attr == NULL || i >= f->attr_len || i >= f->n_tokens)
        return false;
    cairo_t *cr = sample_scratch_context();
    token_layout l = tokens_begin(f, cr, body, z);
    cairo_destroy(cr);
    flow at = {l.text.x, l.text.y};
    rf_rect box;
    for (int k = l.first; k <= i && flow_place(f, &l, &at, k, &box); k++)
        if (k == i) {
            *strip = strip_under(&l, box);
            return true;
        }
    return false;
}
