#include "evaluation_figure.h"

#include <math.h>
#include <stdio.h>

#include "../plot/plot.h"
#include "matrix_panel.h"

#define PAD 8.0
#define TITLE_H 26.0
#define MATRIX_SHARE 0.5      /* of the width, for the matrix and its legend */
#define TABLE_ROW 16.0
#define BAR_ROW 17.0
#define MIN_ROW 12.0          /* a bar row below this is not drawn: the rows that fit are, then a note */
#define LABEL_W 84.0          /* a slice group's name */
#define VALUE_W 92.0          /* "100.0% of 1234" after a bar */
#define BAR ((rf_rgb){0.27, 0.51, 0.71})
#define SELECTED ((rf_rgb){0.85, 0.37, 0.01})
#define MAJORITY ((rf_rgb){0.35, 0.35, 0.35})
#define FIRST_TOKEN ((rf_rgb){0.80, 0.47, 0.74})

struct rf_evaluation_figure {
    rf_eval_slices s;         /* classes == 0: nothing measured */
    char *title, *message;
    float *counts;            /* the matrix as floats, for the heatmap */
    char **names;             /* [classes + 1] class names, NULL-terminated */
    rf_heatmap heatmap;
    int sel_label, sel_answer;   /* -1: none */
    rf_evaluation_cell_chosen chosen;
    void *chosen_ctx;
};

rf_evaluation_figure *rf_evaluation_figure_new(void)
{
    rf_evaluation_figure *f = g_new0(rf_evaluation_figure, 1);
    f->sel_label = f->sel_answer = -1;
    f->message = g_strdup("Evaluate the model to see where it is right and wrong");
    return f;
}

static void clear(rf_evaluation_figure *f)
{
    rf_eval_slices_clear(&f->s);
    rf_heatmap_clear(&f->heatmap);
    f->heatmap = (rf_heatmap){0};
    g_clear_pointer(&f->counts, g_free);
    g_clear_pointer(&f->names, g_strfreev);
    g_clear_pointer(&f->title, g_free);
    g_clear_pointer(&f->message, g_free);
    f->sel_label = f->sel_answer = -1;
}

void rf_evaluation_figure_free(rf_evaluation_figure *f)
{
    if (f == NULL)
        return;
    clear(f);
    g_free(f);
}

void rf_evaluation_figure_on_cell(rf_evaluation_figure *f, rf_evaluation_cell_chosen chosen, void *ctx)
{
    f->chosen = chosen;
    f->chosen_ctx = ctx;
}

void rf_evaluation_figure_set(rf_evaluation_figure *f, rf_eval_slices *s, const char *title)
{
    clear(f);
    f->s = *s;
    f->s.rules = NULL;
    *s = (rf_eval_slices){0};
    f->title = g_strdup(title);
    int c = f->s.classes;
    f->counts = g_new(float, (size_t)c * (size_t)c);
    double top = 1;
    for (int i = 0; i < c * c; i++) {
        f->counts[i] = (float)f->s.confusion[i];
        top = fmax(top, f->counts[i]);
    }
    rf_heatmap_set(&f->heatmap, f->counts, c, c, 0, top);
    f->names = g_new0(char *, c + 1);
    char name[64];
    for (int k = 0; k < c; k++) {
        rf_eval_slices_class_name(&f->s, k, name, sizeof name);
        f->names[k] = g_strdup(name);
    }
}

void rf_evaluation_figure_set_message(rf_evaluation_figure *f, const char *message)
{
    clear(f);
    f->message = g_strdup(message);
}

const rf_eval_slices *rf_evaluation_figure_slices(const rf_evaluation_figure *f)
{
    return f->s.classes > 0 ? &f->s : NULL;
}

bool rf_evaluation_figure_selected(const rf_evaluation_figure *f, int *label, int *answer)
{
    *label = f->sel_label;
    *answer = f->sel_answer;
    return f->sel_label >= 0;
}

void rf_evaluation_figure_select(rf_evaluation_figure *f, int label, int answer)
{
    if (f->s.classes == 0 || label < 0 || answer < 0 || label >= f->s.classes || answer >= f->s.classes)
        return;
    f->sel_label = label;
    f->sel_answer = answer;
    if (f->chosen != NULL)
        f->chosen(f->chosen_ctx, label, answer);
}

/* ---- layout ---- */

typedef struct layout {
    double scale;
    rf_matrix_panel panel;
    rf_rect legend;
    double right_x, right_w;    /* the table and the bars */
    double table_y, table_row;
    int table_rows;             /* classes shown in the table */
    double heading_y, bars_y, bar_row, bar_x, bar_w, bar_font;
    double names_drop;          /* how far the column names reach under the cells */
    int bar_rows;               /* slice headings and groups */
    int bars_shown;             /* those that fit */
} layout;

static int slice_rows(const rf_eval_slices *s)
{
    int rows = 0;
    for (int k = 0; k < RF_SLICE_KINDS; k++)
        rows += s->slices[k].count > 0 ? s->slices[k].count + 1 : 0;
    return rows;
}

static layout lay_out(const rf_evaluation_figure *f, cairo_t *cr, double width, double height)
{
    layout l = {.scale = rf_plot_text_scale(cr)};
    double title_h = TITLE_H * l.scale;
    int c = f->s.classes;
    /* room under the matrix for its column names, turned upright */
    double widest = 0;   /* becomes the names' drop below the cells */
    for (int k = 0; k < c; k++)
        widest = fmax(widest, rf_text_width(cr, RF_PLOT_TEXT, false, f->names[k]));
    double legend_w = rf_map_legend_w(l.scale) + 18;
    double left_w = width * MATRIX_SHARE;
    /* the matrix panel leaves 40 px under the cells; the names and the caption need more */
    double under = fmax(0, widest + 10 + TABLE_ROW * l.scale - 40);
    rf_rect outer = {0, title_h, fmax(1, left_w - legend_w), fmax(1, height - title_h - under)};
    rf_matrix_panel_layout(&l.panel, outer, c, c, &RF_ZOOM_ALL, true);
    l.names_drop = widest + 4;
    const rf_rect fr = l.panel.frame;
    double above = rf_map_legend_above(l.scale), below = rf_map_legend_below(l.scale);
    l.legend = (rf_rect){fr.x + fr.w + 18, fr.y + above, 14, fmax(1, fr.h - above - below)};

    l.right_x = left_w + PAD;
    l.right_w = fmax(1, width - l.right_x - PAD);
    /* the table takes up to 40% of the height below the title, the bars the rest */
    double avail = height - title_h - PAD;
    l.table_y = title_h;
    l.table_row = TABLE_ROW * l.scale;
    l.table_rows = MIN(c, MAX(0, (int)(avail * 0.4 / l.table_row) - 1));
    /* under the table (and its "more classes" line): the heading, the key, then the bars */
    l.heading_y = l.table_y + (l.table_rows + 2) * l.table_row + PAD;
    l.bars_y = l.heading_y + (f->s.baselines ? 1.5 : 0.5) * l.table_row + 2;
    l.bar_rows = slice_rows(&f->s);
    double room = height - l.bars_y - PAD;
    l.bar_row = fmax(MIN_ROW * l.scale, fmin(BAR_ROW * l.scale, room / MAX(l.bar_rows, 1)));
    l.bars_shown = MIN(l.bar_rows, (int)(room / l.bar_row));
    if (l.bars_shown < l.bar_rows)
        l.bars_shown = MAX(0, l.bars_shown - 1);   /* a row for the note */
    l.bar_font = fmin(RF_PLOT_TEXT, l.bar_row * 0.8 / l.scale);
    l.bar_x = l.right_x + LABEL_W * l.scale;
    l.bar_w = fmax(10, l.right_w - (LABEL_W + VALUE_W) * l.scale);
    return l;
}

/* The slice row under index `row` (a heading has group -1). */
static bool bar_row_at(const rf_eval_slices *s, int row, int *kind, int *group)
{
    for (int k = 0; k < RF_SLICE_KINDS; k++) {
        int n = s->slices[k].count;
        if (n == 0)
            continue;
        if (row <= n) {
            *kind = k;
            *group = row - 1;
            return true;
        }
        row -= n + 1;
    }
    return false;
}

/* ---- drawing ---- */

static void draw_counts(const rf_evaluation_figure *f, cairo_t *cr, const layout *l)
{
    int c = f->s.classes;
    const rf_rect fr = l->panel.frame;
    double pitch = fr.w / c;
    double font = fmin(RF_PLOT_TEXT, pitch * 0.45 / l->scale);
    if (font < 6)
        return;   /* too small to read: hover reads the counts */
    double top = f->heatmap.vmax;
    char text[32];
    for (int i = 0; i < c; i++)
        for (int k = 0; k < c; k++) {
            int64_t n = f->s.confusion[(size_t)i * c + k];
            snprintf(text, sizeof text, "%lld", (long long)n);
            double t = top > 0 ? n / top : 0;
            rf_set_color(cr, t < 0.6 ? (rf_rgb){1, 1, 1} : (rf_rgb){0.1, 0.1, 0.1}, 1);
            rf_draw_text(cr, fr.x + (k + 0.5) * pitch, fr.y + (i + 0.5) * pitch, 0.5, 0.5, font, false, text);
        }
}

static void draw_matrix(rf_evaluation_figure *f, cairo_t *cr, const layout *l)
{
    rf_matrix_panel_draw_named(&l->panel, cr, &f->heatmap, NULL, "label", "model's answer",
                               (const char *const *)f->names, f->s.classes);
    if (f->sel_label >= 0) {
        const rf_rect fr = l->panel.frame;   /* the selected cell, outlined */
        double pitch = fr.w / f->s.classes;
        rf_set_color(cr, SELECTED, 1);
        cairo_set_line_width(cr, 2.5);
        cairo_rectangle(cr, fr.x + f->sel_answer * pitch + 1, fr.y + f->sel_label * pitch + 1, pitch - 2,
                        pitch - 2);
        cairo_stroke(cr);
    }
    const rf_rect fr = l->panel.frame;
    if (fr.w / f->s.classes >= RF_MATRIX_NAME_PITCH) {   /* named cells: say what rows and columns are */
        rf_set_color(cr, (rf_rgb){0.4, 0.4, 0.44}, 1);
        rf_draw_text(cr, fr.x + fr.w / 2, fr.y + fr.h + l->names_drop + 6, 0.5, 0, RF_PLOT_TEXT, false,
                     "rows: the label · columns: the model's answer");
    }
    rf_map_scale scale = {.vmin = 0, .vmax = f->heatmap.vmax, .kind = RF_COLORMAP_SEQUENTIAL,
                          .quantity = "samples"};
    rf_map_legend(cr, l->legend, &scale);
}

static void draw_table(const rf_evaluation_figure *f, cairo_t *cr, const layout *l)
{
    static const char *const heads[] = {"class", "samples", "precision", "recall", "F1"};
    double col[5], x = l->right_x;
    double name_w = fmin(l->right_w * 0.36, 120 * l->scale), w = (l->right_w - name_w) / 4;
    for (int i = 0; i < 5; i++)
        col[i] = i == 0 ? x : x + name_w + i * w;   /* the name's left edge, the numbers' right edges */
    double y = l->table_y + l->table_row / 2;
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    for (int i = 0; i < 5; i++)
        rf_draw_text(cr, col[i], y, i == 0 ? 0 : 1, 0.5, RF_PLOT_TEXT, true, heads[i]);
    int c = f->s.classes;
    char text[64];
    for (int k = 0; k < l->table_rows; k++) {
        y += l->table_row;
        int64_t labelled = 0;
        for (int i = 0; i < c; i++)
            labelled += f->s.confusion[(size_t)k * c + i];
        rf_draw_text(cr, col[0], y, 0, 0.5, RF_PLOT_TEXT, false, f->names[k]);
        snprintf(text, sizeof text, "%lld", (long long)labelled);
        rf_draw_text(cr, col[1], y, 1, 0.5, RF_PLOT_TEXT, false, text);
        const double v[3] = {f->s.precision[k], f->s.recall[k], f->s.f1[k]};
        for (int i = 0; i < 3; i++) {
            snprintf(text, sizeof text, "%.3f", v[i]);
            rf_draw_text(cr, col[2 + i], y, 1, 0.5, RF_PLOT_TEXT, false, text);
        }
    }
    if (l->table_rows < c) {
        snprintf(text, sizeof text, "… %d more classes (CSV export)", c - l->table_rows);
        rf_set_color(cr, (rf_rgb){0.4, 0.4, 0.44}, 1);
        rf_draw_text(cr, col[0], y + l->table_row, 0, 0.5, RF_PLOT_TEXT, false, text);
    }
}

/* A baseline's mark on a bar: a short upright line at its accuracy. */
static void draw_mark(const layout *l, cairo_t *cr, double value, rf_rgb color, double top)
{
    double x = round(l->bar_x + l->bar_w * CLAMP(value, 0, 1)) + 0.5;
    rf_set_color(cr, color, 1);
    cairo_set_line_width(cr, 2);
    cairo_move_to(cr, x, top + l->bar_row * 0.02);
    cairo_line_to(cr, x, top + l->bar_row * 0.98);
    cairo_stroke(cr);
}

static void draw_slices(const rf_evaluation_figure *f, cairo_t *cr, const layout *l)
{
    double y = l->heading_y;
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, l->right_x, y, 0, 0.5, RF_PLOT_TITLE, true,
                 f->s.baselines ? "Accuracy by slice (marks: without the model)" : "Accuracy by slice");
    char text[96];
    if (f->s.baselines) {
        /* the key, on its own line: what the marks are, and their scores on the whole split */
        double x = l->right_x, n = (double)MAX(f->s.samples, 1);
        y += l->table_row;
        const struct { const char *what; double v; rf_rgb c; } keys[] = {
            {"majority class", f->s.right_majority / n, MAJORITY},
            {"first token's class", f->s.right_first / n, FIRST_TOKEN},
        };
        for (int i = 0; i < 2; i++) {
            snprintf(text, sizeof text, "%s (all: %.1f%%)", keys[i].what, 100 * keys[i].v);
            rf_set_color(cr, keys[i].c, 1);
            cairo_set_line_width(cr, 2);
            cairo_move_to(cr, x + 4.5, y - 6);
            cairo_line_to(cr, x + 4.5, y + 6);
            cairo_stroke(cr);
            rf_draw_text(cr, x + 10, y, 0, 0.5, RF_PLOT_TEXT, false, text);
            x += 10 + rf_text_width(cr, RF_PLOT_TEXT, false, text) + 14;
        }
    }
    if (l->bars_shown < l->bar_rows) {
        snprintf(text, sizeof text, "… %d more rows (in the CSV export)", l->bar_rows - l->bars_shown);
        rf_set_color(cr, (rf_rgb){0.4, 0.4, 0.44}, 1);
        rf_draw_text(cr, l->right_x, l->bars_y + (l->bars_shown + 0.5) * l->bar_row, 0, 0.5, l->bar_font, false,
                     text);
    }
    for (int row = 0; row < l->bars_shown; row++) {
        int kind, group;
        if (!bar_row_at(&f->s, row, &kind, &group))
            break;
        double top = l->bars_y + row * l->bar_row, mid = top + l->bar_row / 2;
        if (group < 0) {
            rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
            snprintf(text, sizeof text, "by %s", rf_slice_kind_name(kind));
            rf_draw_text(cr, l->right_x, mid, 0, 0.5, l->bar_font, true, text);
            continue;
        }
        const rf_slice_group *g = &f->s.slices[kind].groups[group];
        double acc = g->samples > 0 ? (double)g->right / (double)g->samples : 0;
        rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
        rf_draw_text(cr, l->bar_x - 6, mid, 1, 0.5, l->bar_font, false, g->name);
        cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
        cairo_rectangle(cr, l->bar_x, top + l->bar_row * 0.15, l->bar_w, l->bar_row * 0.7);
        cairo_fill(cr);
        rf_set_color(cr, BAR, 1);
        cairo_rectangle(cr, l->bar_x, top + l->bar_row * 0.15, l->bar_w * acc, l->bar_row * 0.7);
        cairo_fill(cr);
        if (f->s.baselines) {
            double n = (double)MAX(g->samples, 1);
            draw_mark(l, cr, g->right_majority / n, MAJORITY, top);
            draw_mark(l, cr, g->right_first / n, FIRST_TOKEN, top);
        }
        snprintf(text, sizeof text, "%.1f%% of %lld", 100 * acc, (long long)g->samples);
        rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
        rf_draw_text(cr, l->bar_x + l->bar_w + 6, mid, 0, 0.5, l->bar_font, false, text);
    }
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    (void)zoom;
    rf_evaluation_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->s.classes == 0) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->message != NULL ? f->message : "");
        cairo_restore(cr);
        return;
    }
    layout l = lay_out(f, cr, width, height);
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, PAD, TITLE_H * l.scale / 2, 0, 0.5, RF_PLOT_TITLE, true, f->title != NULL ? f->title : "");
    draw_matrix(f, cr, &l);
    draw_table(f, cr, &l);
    draw_slices(f, cr, &l);
    draw_counts(f, cr, &l);   /* last, in reading order (see the header) */
    cairo_restore(cr);
}

/* A scratch context to measure text for hover and clicks. */
static layout measured_layout(const rf_evaluation_figure *f, double width, double height)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(s);
    layout l = lay_out(f, cr, width, height);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return l;
}

static bool cell_at(const rf_evaluation_figure *f, const layout *l, double x, double y, int *label, int *answer)
{
    return rf_matrix_panel_cell_at(&l->panel, &f->heatmap, x, y, label, answer);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    (void)zoom;
    rf_evaluation_figure *f = data;
    if (f->s.classes == 0)
        return false;
    layout l = measured_layout(f, width, height);
    int label, answer;
    if (cell_at(f, &l, x, y, &label, &answer)) {
        int64_t n = f->s.confusion[(size_t)label * f->s.classes + answer];
        snprintf(text, size, "label %s, answered %s: %lld %s (click to list them)", f->names[label], f->names[answer],
                 (long long)n, n == 1 ? "sample" : "samples");
        return true;
    }
    int row = (int)floor((y - l.bars_y) / l.bar_row), kind, group;
    if (x >= l.right_x && y >= l.bars_y && row < l.bars_shown && bar_row_at(&f->s, row, &kind, &group) &&
        group >= 0) {
        const rf_slice_group *g = &f->s.slices[kind].groups[group];
        double n = (double)MAX(g->samples, 1);
        int used = snprintf(text, size, "%s %s: %lld of %lld right (%.1f%%)", rf_slice_kind_name(kind), g->name,
                            (long long)g->right, (long long)g->samples, 100.0 * (double)g->right / n);
        if (f->s.baselines && used > 0 && (size_t)used < size)
            snprintf(text + used, size - (size_t)used, "; without the model %.1f%% (majority class), %.1f%% (first "
                     "token's class)", 100.0 * (double)g->right_majority / n, 100.0 * (double)g->right_first / n);
        return true;
    }
    int k = (int)floor((y - l.table_y) / l.table_row) - 1;
    if (x >= l.right_x && k >= 0 && k < l.table_rows) {
        snprintf(text, size, "class %s: precision %.3f, recall %.3f, F1 %.3f", f->names[k], f->s.precision[k],
                 f->s.recall[k], f->s.f1[k]);
        return true;
    }
    return false;
}

static bool click(void *data, double width, double height, const rf_zoom *zoom, double x, double y)
{
    (void)zoom;
    rf_evaluation_figure *f = data;
    if (f->s.classes == 0)
        return false;
    layout l = measured_layout(f, width, height);
    int label, answer;
    if (!cell_at(f, &l, x, y, &label, &answer))
        return false;
    rf_evaluation_figure_select(f, label, answer);
    return true;
}

static bool empty(void *data, char *why, size_t size)
{
    rf_evaluation_figure *f = data;
    if (f->s.classes > 0)
        return false;
    g_strlcpy(why, f->message != NULL ? f->message : "Nothing evaluated yet", size);
    return true;
}

bool rf_evaluation_figure_cell_centre(rf_evaluation_figure *f, double width, double height, int label, int answer,
                                      double *x, double *y)
{
    if (f->s.classes == 0)
        return false;
    layout l = measured_layout(f, width, height);
    *x = rf_matrix_panel_x(&l.panel, answer + 0.5);
    *y = rf_matrix_panel_y(&l.panel, label + 0.5);
    return true;
}

rf_figure rf_evaluation_figure_get(rf_evaluation_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .click = click, .empty = empty, .data = f};
}
