#include "projector_figure.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>

#define PAD 8.0
/* A point's side in device units: larger where there are few. */
#define POINT_FEW 6.0       /* up to 1,000 points */
#define POINT_MANY 3.5      /* from 5,000 */
#define POINT_ALPHA 0.6
#define HIT 6.0             /* how near a pointer must come to a point */
#define RIGHT ((rf_rgb){0.0, 0.45, 0.70})
#define WRONG ((rf_rgb){0.84, 0.37, 0.0})
#define MAX_LEGEND 12       /* more classes than this: the first ones, then "…" */

struct rf_projector_figure {
    int64_t n;                 /* 0: nothing computed */
    float *coords;             /* n x 2 */
    int *label, *predicted;
    int classes;
    char **names;              /* classes, NULL-terminated */
    double explained[2];
    char *title, *message;
    rf_projector_colouring colouring;
    rf_projector_sample_chosen chosen;
    void *chosen_ctx;
    rf_projector_describe describe;
    void *describe_ctx;
};

rf_projector_figure *rf_projector_figure_new(void)
{
    rf_projector_figure *f = g_new0(rf_projector_figure, 1);
    f->message = g_strdup("Compute the projection to see how the model arranges the samples");
    return f;
}

static void clear(rf_projector_figure *f)
{
    f->n = 0;
    g_clear_pointer(&f->coords, g_free);
    g_clear_pointer(&f->label, g_free);
    g_clear_pointer(&f->predicted, g_free);
    g_clear_pointer(&f->names, g_strfreev);
    g_clear_pointer(&f->title, g_free);
    g_clear_pointer(&f->message, g_free);
}

void rf_projector_figure_free(rf_projector_figure *f)
{
    if (f == NULL)
        return;
    clear(f);
    g_free(f);
}

void rf_projector_figure_on_sample(rf_projector_figure *f, rf_projector_sample_chosen chosen, void *ctx)
{
    f->chosen = chosen;
    f->chosen_ctx = ctx;
}

void rf_projector_figure_on_describe(rf_projector_figure *f, rf_projector_describe describe, void *ctx)
{
    f->describe = describe;
    f->describe_ctx = ctx;
}

void rf_projector_figure_set(rf_projector_figure *f, const float *coords, int64_t n, const int *label,
                             const int *predicted, int classes, const char *const *class_names,
                             const double explained[2], const char *title)
{
    clear(f);
    f->n = n;
    f->coords = g_memdup2(coords, (gsize)n * 2 * sizeof(float));
    f->label = g_memdup2(label, (gsize)n * sizeof(int));
    f->predicted = g_memdup2(predicted, (gsize)n * sizeof(int));
    f->classes = classes;
    f->names = g_new0(char *, (gsize)classes + 1);
    for (int c = 0; c < classes; c++)
        f->names[c] = class_names != NULL && class_names[c] != NULL ? g_strdup(class_names[c]) : g_strdup_printf("%d", c);
    f->explained[0] = explained[0];
    f->explained[1] = explained[1];
    f->title = g_strdup(title);
}

void rf_projector_figure_set_message(rf_projector_figure *f, const char *message)
{
    clear(f);
    f->message = g_strdup(message);
}

void rf_projector_figure_set_colouring(rf_projector_figure *f, rf_projector_colouring colouring)
{
    f->colouring = colouring;
}

rf_projector_colouring rf_projector_figure_colouring(const rf_projector_figure *f)
{
    return f->colouring;
}

static const char *class_name(const rf_projector_figure *f, int c)
{
    return c >= 0 && c < f->classes ? f->names[c] : "?";
}

/* The colour group of sample i: a class, or 0 right / 1 wrong. */
static int group_of(const rf_projector_figure *f, int64_t i)
{
    switch (f->colouring) {
    case RF_PROJECTOR_BY_PREDICTION:
        return f->predicted[i];
    case RF_PROJECTOR_BY_CORRECTNESS:
        return f->predicted[i] == f->label[i] ? 0 : 1;
    default:
        return f->label[i];
    }
}

static int groups(const rf_projector_figure *f)
{
    return f->colouring == RF_PROJECTOR_BY_CORRECTNESS ? 2 : f->classes;
}

static rf_rgb group_colour(const rf_projector_figure *f, int g)
{
    if (f->colouring == RF_PROJECTOR_BY_CORRECTNESS)
        return g == 0 ? RIGHT : WRONG;
    return rf_series_color(g);
}

bool rf_projector_figure_point_colour(const rf_projector_figure *f, int64_t sample, rf_rgb *colour)
{
    if (sample < 0 || sample >= f->n)
        return false;
    *colour = group_colour(f, group_of(f, sample));
    return true;
}

/* The panel at width x height: both axes over every point. */
static rf_plot lay_out(const rf_projector_figure *f, cairo_t *cr, double width, double height, const rf_zoom *zoom,
                       char xlabel[32], char ylabel[32])
{
    rf_axis x = {.min = INFINITY, .max = -INFINITY, .label = xlabel};
    rf_axis y = {.min = INFINITY, .max = -INFINITY, .label = ylabel};
    for (int64_t i = 0; i < f->n; i++) {
        rf_axis_include(&x, f->coords[2 * i]);
        rf_axis_include(&y, f->coords[2 * i + 1]);
    }
    rf_axis_finish(&x, false);
    rf_axis_finish(&y, false);
    snprintf(xlabel, 32, "PC1 (%.1f%%)", 100.0 * f->explained[0]);
    snprintf(ylabel, 32, "PC2 (%.1f%%)", 100.0 * f->explained[1]);
    rf_axis shown_x = rf_axis_zoom(&x, zoom->x0, zoom->x1), shown_y = rf_axis_zoom(&y, 1 - zoom->y1, 1 - zoom->y0);
    rf_plot p;
    rf_plot_begin(&p, cr, (rf_rect){PAD, PAD, width - 2 * PAD, height - 2 * PAD}, &shown_x, &shown_y, f->title);
    return p;
}

static void draw_points(const rf_projector_figure *f, rf_plot *p)
{
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_rectangle(cr, p->frame.x, p->frame.y, p->frame.w, p->frame.h);
    cairo_clip(cr);
    double few = fmin(fmax((5000.0 - (double)f->n) / 4000.0, 0), 1);
    double side = (POINT_MANY + few * (POINT_FEW - POINT_MANY)) * rf_plot_text_scale(cr);
    /* One fill per colour: 10,000 rectangles in a path fill at once. */
    for (int g = 0; g < groups(f); g++) {
        bool any = false;
        for (int64_t i = 0; i < f->n; i++) {
            if (group_of(f, i) != g)
                continue;
            double px = rf_plot_px(p, f->coords[2 * i]), py = rf_plot_py(p, f->coords[2 * i + 1]);
            cairo_rectangle(cr, px - side / 2, py - side / 2, side, side);
            any = true;
        }
        if (any) {
            rf_set_color(cr, group_colour(f, g), POINT_ALPHA);
            cairo_fill(cr);
        }
    }
    cairo_restore(cr);
}

/* The legend's corner: the one whose quarter of the frame holds the fewest
 * points shown, so it hides as few as it can. */
static rf_legend_corner emptiest_corner(const rf_projector_figure *f, const rf_plot *p)
{
    static const rf_legend_corner corners[] = {RF_LEGEND_TOP_RIGHT, RF_LEGEND_TOP_LEFT, RF_LEGEND_BOTTOM_RIGHT};
    int64_t count[3] = {0};
    double mid_x = p->frame.x + p->frame.w / 2, mid_y = p->frame.y + p->frame.h / 2;
    for (int64_t i = 0; i < f->n; i++) {
        double px = rf_plot_px(p, f->coords[2 * i]), py = rf_plot_py(p, f->coords[2 * i + 1]);
        if (!rf_plot_contains(p, px, py))
            continue;
        if (px >= mid_x && py < mid_y)
            count[0]++;
        else if (px < mid_x && py < mid_y)
            count[1]++;
        else if (px >= mid_x && py >= mid_y)
            count[2]++;
    }
    int best = 0;
    for (int c = 1; c < 3; c++)
        if (count[c] < count[best])
            best = c;
    return corners[best];
}

static void draw_legend(const rf_projector_figure *f, rf_plot *p)
{
    int n = MIN(groups(f), MAX_LEGEND);
    const char *labels[MAX_LEGEND + 1];
    rf_rgb colours[MAX_LEGEND + 1];
    for (int g = 0; g < n; g++) {
        labels[g] = f->colouring == RF_PROJECTOR_BY_CORRECTNESS ? (g == 0 ? "right" : "wrong") : f->names[g];
        colours[g] = group_colour(f, g);
    }
    if (groups(f) > n) {
        labels[n] = "…";
        colours[n] = (rf_rgb){0.5, 0.5, 0.5};
        n++;
    }
    rf_plot_legend(p, labels, colours, n, emptiest_corner(f, p));
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    rf_projector_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->n == 0) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->message != NULL ? f->message : "");
        cairo_restore(cr);
        return;
    }
    char xlabel[32], ylabel[32];
    rf_plot p = lay_out(f, cr, width, height, zoom, xlabel, ylabel);
    draw_points(f, &p);
    rf_plot_end(&p);
    draw_legend(f, &p);
    cairo_restore(cr);
}

/* The panel as draw lays it out, on a scratch context. */
static rf_plot measured_plot(const rf_projector_figure *f, double width, double height, const rf_zoom *zoom,
                             cairo_surface_t **s, cairo_t **cr, char xlabel[32], char ylabel[32])
{
    *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    *cr = cairo_create(*s);
    return lay_out(f, *cr, width, height, zoom, xlabel, ylabel);
}

int64_t rf_projector_figure_point_at(rf_projector_figure *f, double width, double height, const rf_zoom *zoom,
                                     double x, double y)
{
    if (f->n == 0)
        return -1;
    cairo_surface_t *s;
    cairo_t *cr;
    char xlabel[32], ylabel[32];
    rf_plot p = measured_plot(f, width, height, zoom, &s, &cr, xlabel, ylabel);
    int64_t best = -1;
    double best_d = HIT * HIT;
    if (rf_plot_contains(&p, x, y))
        for (int64_t i = 0; i < f->n; i++) {
            double dx = rf_plot_px(&p, f->coords[2 * i]) - x, dy = rf_plot_py(&p, f->coords[2 * i + 1]) - y;
            if (dx * dx + dy * dy <= best_d) {
                best_d = dx * dx + dy * dy;
                best = i;
            }
        }
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return best;
}

bool rf_projector_figure_point_centre(rf_projector_figure *f, double width, double height, const rf_zoom *zoom,
                                      int64_t sample, double *x, double *y)
{
    if (sample < 0 || sample >= f->n)
        return false;
    cairo_surface_t *s;
    cairo_t *cr;
    char xlabel[32], ylabel[32];
    rf_plot p = measured_plot(f, width, height, zoom, &s, &cr, xlabel, ylabel);
    *x = rf_plot_px(&p, f->coords[2 * sample]);
    *y = rf_plot_py(&p, f->coords[2 * sample + 1]);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return true;
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    rf_projector_figure *f = data;
    int64_t i = rf_projector_figure_point_at(f, width, height, zoom, x, y);
    if (i < 0)
        return false;
    char about[256] = "";
    if (f->describe != NULL)
        f->describe(f->describe_ctx, i, about, sizeof about);
    snprintf(text, size, "sample %lld: label %s, answered %s%s%s", (long long)i, class_name(f, f->label[i]),
             class_name(f, f->predicted[i]), about[0] != '\0' ? ": " : "", about);
    return true;
}

static bool click(void *data, double width, double height, const rf_zoom *zoom, double x, double y)
{
    rf_projector_figure *f = data;
    int64_t i = rf_projector_figure_point_at(f, width, height, zoom, x, y);
    if (i >= 0 && f->chosen != NULL)
        f->chosen(f->chosen_ctx, i);
    return false;
}

static bool empty(void *data, char *why, size_t size)
{
    rf_projector_figure *f = data;
    if (f->n > 0)
        return false;
    g_strlcpy(why, f->message != NULL ? f->message : "Nothing computed yet", size);
    return true;
}

rf_figure rf_projector_figure_get(rf_projector_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .click = click, .empty = empty, .data = f};
}
