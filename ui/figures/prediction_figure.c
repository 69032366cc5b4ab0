#include "prediction_figure.h"

#include <glib.h>
#include <stdio.h>

#include "../plot/plot.h"

#define TITLE_H 26.0
#define PAD 8.0
#define MAX_ROW 22.0
#define MIN_FONT 6.0
#define NAME_SHARE 0.4   /* of the width, at most, for the name column */
#define VALUE_W 52.0     /* "0.9999" after a bar */
#define BAR ((rf_rgb){0.27, 0.51, 0.71})
#define BAR_BEST ((rf_rgb){0.85, 0.37, 0.01})

struct rf_prediction_figure {
    char *title;
    char **names;   /* [n] */
    float *probs;   /* [n] */
    int n, best;
};

rf_prediction_figure *rf_prediction_figure_new(void)
{
    return g_new0(rf_prediction_figure, 1);
}

static void clear(rf_prediction_figure *f)
{
    g_clear_pointer(&f->title, g_free);
    g_clear_pointer(&f->names, g_strfreev);
    g_clear_pointer(&f->probs, g_free);
    f->n = 0;
}

void rf_prediction_figure_free(rf_prediction_figure *f)
{
    if (f == NULL)
        return;
    clear(f);
    g_free(f);
}

void rf_prediction_figure_set(rf_prediction_figure *f, const char *title, const char *const *names,
                              const float *probs, int n)
{
    clear(f);
    f->title = g_strdup(title);
    f->n = n;
    f->names = g_new0(char *, n + 1);
    f->probs = g_memdup2(probs, (gsize)n * sizeof *probs);
    f->best = 0;
    for (int k = 0; k < n; k++) {
        f->names[k] = names != NULL ? g_strdup(names[k]) : g_strdup_printf("class %d", k);
        if (probs[k] > probs[f->best])
            f->best = k;
    }
}

int rf_prediction_figure_count(const rf_prediction_figure *f)
{
    return f->n;
}

/* Where each row goes and the font that fits every name into its column. */
typedef struct layout {
    double row, font, names_w, bar_x, bar_w, top;
} layout;

static layout lay_out(const rf_prediction_figure *f, cairo_t *cr, double width, double height)
{
    /* The title row, the rows and the value column grow with the text
     * scale; l.font is before it (rf_draw_text applies it), so the drawn
     * size fits the row at any scale. */
    double scale = rf_plot_text_scale(cr);
    layout l = {.top = TITLE_H * scale};
    l.row = MIN(MAX_ROW * scale, (height - l.top - PAD) / MAX(f->n, 1));
    double fitting = MIN(RF_PLOT_TEXT, l.row * 0.8 / scale);
    l.font = fitting;
    double widest = 0;
    for (int k = 0; k < f->n; k++)
        widest = MAX(widest, rf_text_width(cr, l.font, true, f->names[k]));
    double room = width * NAME_SHARE;
    if (widest > room && widest > 0) {   /* shrink the font, never cut a name */
        l.font = MAX(MIN_FONT, l.font * room / widest);
        widest *= l.font / fitting;
    }
    l.names_w = widest + PAD;
    l.bar_x = PAD + l.names_w;
    l.bar_w = MAX(10.0, width - l.bar_x - VALUE_W * scale - PAD);
    return l;
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    (void)zoom;
    rf_prediction_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->n == 0) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->title != NULL ? f->title : "No prediction yet");
        cairo_restore(cr);
        return;
    }
    layout l = lay_out(f, cr, width, height);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    rf_draw_text(cr, PAD, l.top / 2, 0, 0.5, RF_PLOT_TITLE, true, f->title != NULL ? f->title : "");
    for (int k = 0; k < f->n; k++) {
        double y = l.top + k * l.row, mid = y + l.row / 2;
        bool best = k == f->best;
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        rf_draw_text(cr, l.bar_x - PAD / 2, mid, 1, 0.5, l.font, best, f->names[k]);
        cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
        cairo_rectangle(cr, l.bar_x, y + l.row * 0.15, l.bar_w, l.row * 0.7);
        cairo_fill(cr);
        rf_set_color(cr, best ? BAR_BEST : BAR, 1);
        cairo_rectangle(cr, l.bar_x, y + l.row * 0.15, l.bar_w * CLAMP(f->probs[k], 0, 1), l.row * 0.7);
        cairo_fill(cr);
        char value[16];
        snprintf(value, sizeof value, "%.4f", f->probs[k]);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        rf_draw_text(cr, l.bar_x + l.bar_w + PAD / 2, mid, 0, 0.5, l.font, best, value);
    }
    cairo_restore(cr);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    (void)zoom;
    (void)x;
    rf_prediction_figure *f = data;
    if (f->n == 0)
        return false;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(s);
    layout l = lay_out(f, cr, width, height);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    int k = (int)((y - l.top) / l.row);
    if (y < l.top || k >= f->n)
        return false;
    snprintf(text, size, "%s: probability %.4f%s", f->names[k], f->probs[k], k == f->best ? " (predicted)" : "");
    return true;
}

rf_figure rf_prediction_figure_get(rf_prediction_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f};
}
