/* The BLRP latent-state figure (see latent_figure.h). */
#include "latent_figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_panel.h"

#define TITLE_H 28.0
#define BAR_W 86.0
#define STRIP_SHARE 0.34     /* of the height, for the norms strip */
#define LEGEND_W 170.0       /* the strip's legend, right of its plot: never over a curve */

static const char *const pass_name[2] = {"forward", "backward"};

void rf_latent_figure_init(rf_latent_figure *f)
{
    *f = (rf_latent_figure){.segment = 1};
    snprintf(f->message, sizeof f->message, "No latent states yet: start training");
}

static void release(rf_latent_figure *f)
{
    for (int p = 0; p < 2; p++) {
        free(f->states[p]);
        free(f->filled[p]);
        free(f->norms[p]);
        free(f->absmax[p]);
        free(f->grad_norms[p]);
        f->states[p] = NULL;
        f->filled[p] = NULL;
        f->norms[p] = f->absmax[p] = f->grad_norms[p] = NULL;
    }
    f->segments = f->l = f->d = 0;
}

void rf_latent_figure_free(rf_latent_figure *f)
{
    rf_heatmap_clear(&f->heat);
    release(f);
    rf_latent_figure_init(f);
}

void rf_latent_figure_set_message(rf_latent_figure *f, const char *text)
{
    snprintf(f->message, sizeof f->message, "%s", text);
    release(f);
    rf_heatmap_clear(&f->heat);
}

void rf_latent_figure_set_title(rf_latent_figure *f, const char *title)
{
    snprintf(f->title, sizeof f->title, "%s", title != NULL ? title : "");
}

void rf_latent_figure_forget(rf_latent_figure *f)
{
    for (int p = 0; p < 2 && f->segments > 0; p++)
        for (int s = 0; s < f->segments; s++) {
            f->filled[p][s] = false;
            f->norms[p][s] = f->grad_norms[p][s] = NAN;
            f->absmax[p][s] = 0;
        }
}

bool rf_latent_figure_resize(rf_latent_figure *f, int segments, int l, int d)
{
    if (segments == f->segments && l == f->l && d == f->d)
        return true;
    release(f);
    rf_heatmap_clear(&f->heat);
    if (segments < 1 || l < 1 || d < 1)
        return false;
    size_t block = (size_t)l * d;
    for (int p = 0; p < 2; p++) {
        f->states[p] = calloc((size_t)segments * block, sizeof(float));
        f->filled[p] = calloc((size_t)segments, sizeof(bool));
        f->norms[p] = malloc((size_t)segments * sizeof(double));
        f->absmax[p] = malloc((size_t)segments * sizeof(double));
        f->grad_norms[p] = malloc((size_t)segments * sizeof(double));
        if (f->states[p] == NULL || f->filled[p] == NULL || f->norms[p] == NULL || f->absmax[p] == NULL ||
            f->grad_norms[p] == NULL) {
            release(f);
            return false;
        }
    }
    f->segments = segments;
    f->l = l;
    f->d = d;
    rf_latent_figure_forget(f);
    if (f->segment > segments)
        f->segment = segments;
    return true;
}

static double frobenius(const float *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)v[i] * v[i];
    return sqrt(s);
}

static double max_abs(const float *v, size_t n)
{
    float m = 0;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf(v[i]);
        m = a > m ? a : m;    /* NaN compares false: skipped */
    }
    return m;
}

/* The heatmap follows the chosen block; its colour range is symmetric
 * around 0 over every block of the pass, so scrubbing keeps one scale.
 * Each block's max |v| is kept from set_state, so this costs O(segments). */
static void refresh_heat(rf_latent_figure *f)
{
    if (f->segments == 0)
        return;
    size_t block = (size_t)f->l * f->d;
    const float *all = f->states[f->pass];
    double m = 1e-12;
    for (int s = 0; s < f->segments; s++)
        m = fmax(m, f->absmax[f->pass][s]);
    rf_heatmap_set(&f->heat, all + (size_t)(f->segment - 1) * block, f->l, f->d, -m, m);
    f->heat.colormap = RF_COLORMAP_DIVERGING;   /* signed states: white is 0 */
    rf_heatmap_changed(&f->heat);
}

void rf_latent_figure_set_state(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *state)
{
    if (segment < 1 || segment > f->segments || state == NULL)
        return;
    size_t block = (size_t)f->l * f->d;
    float *dst = f->states[pass] + (size_t)(segment - 1) * block;
    memcpy(dst, state, block * sizeof *dst);
    f->filled[pass][segment - 1] = true;
    f->norms[pass][segment - 1] = frobenius(dst, block);
    f->absmax[pass][segment - 1] = max_abs(dst, block);
    refresh_heat(f);
}

void rf_latent_figure_set_grad(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *grad)
{
    if (segment < 1 || segment > f->segments || grad == NULL)
        return;
    f->grad_norms[pass][segment - 1] = frobenius(grad, (size_t)f->l * f->d);
}

void rf_latent_figure_select(rf_latent_figure *f, int segment, rf_latent_pass pass)
{
    f->segment = segment < 1 ? 1 : segment > f->segments && f->segments > 0 ? f->segments : segment;
    f->pass = pass;
    refresh_heat(f);
}

/* ---- layout ---- */

typedef struct layout {
    rf_matrix_panel heat;
    rf_rect bar, strip, legend;   /* strip: the norms plot; legend: the band right of it */
    rf_axis x, y;            /* the strip's axes */
} layout;

static bool has_any(const rf_latent_figure *f)
{
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < f->segments; s++)
            if (f->filled[p][s] || isfinite(f->grad_norms[p][s]))
                return true;
    return false;
}

static layout lay_out(const rf_latent_figure *f, double width, double height, const rf_zoom *zoom)
{
    layout l = {0};
    double strip_h = fmax(120, STRIP_SHARE * height);
    rf_rect top = {8, TITLE_H, fmax(1, width - BAR_W - 16), fmax(1, height - TITLE_H - strip_h - 8)};
    rf_matrix_panel_layout(&l.heat, top, f->l, f->d, zoom, false);
    l.bar = (rf_rect){width - BAR_W + 4, l.heat.frame.y, 14, l.heat.frame.h};
    l.strip = (rf_rect){0, height - strip_h, fmax(1, width - LEGEND_W), strip_h};
    l.legend = (rf_rect){l.strip.w, l.strip.y, width - l.strip.w, strip_h};
    l.x = (rf_axis){.min = 0.5, .max = f->segments + 0.5, .label = "segment"};
    l.y = (rf_axis){.min = NAN, .max = NAN, .scale = RF_AXIS_LOG, .label = "norm"};
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < f->segments; s++) {
            rf_axis_include(&l.y, f->norms[p][s]);
            rf_axis_include(&l.y, f->grad_norms[p][s]);
        }
    rf_axis_finish(&l.x, true);
    rf_axis_finish(&l.y, false);
    return l;
}

static void draw_strip(const rf_latent_figure *f, cairo_t *cr, const layout *l)
{
    rf_plot p;
    rf_plot_begin(&p, cr, l->strip, &l->x, &l->y, "Per-segment norms (gradients from the last inspection pass)");
    double *xs = malloc((size_t)f->segments * sizeof *xs);
    if (xs != NULL) {
        for (int s = 0; s < f->segments; s++)
            xs[s] = s + 1;
        const char *labels[4] = {"‖L‖ forward", "‖L‖ backward", "‖∇L‖ forward", "‖∇L‖ backward"};
        rf_rgb colors[4] = {rf_series_color(0), rf_series_color(1), rf_series_color(2), rf_series_color(3)};
        const char *shown[5];
        rf_rgb shown_colors[5];
        int n = 0;
        for (int k = 0; k < 4; k++) {
            const double *v = k < 2 ? f->norms[k] : f->grad_norms[k - 2];
            bool any = false;
            for (int s = 0; s < f->segments && !any; s++)
                any = isfinite(v[s]);
            if (!any)
                continue;
            rf_plot_line(&p, xs, v, f->segments, colors[k], 2, k < 2 ? 0 : 4);
            rf_plot_points(&p, xs, v, f->segments, colors[k], 2.5);
            shown[n] = labels[k];
            shown_colors[n++] = colors[k];
        }
        /* The chosen segment's marker is named in the legend, not beside the line. */
        char label[48];
        snprintf(label, sizeof label, "segment %d", f->segment);
        rf_rgb marker = {0.85, 0.2, 0.1};
        rf_plot_vline(&p, f->segment, marker, NULL);
        shown[n] = label;
        shown_colors[n++] = marker;
        rf_plot band = p;
        band.frame = (rf_rect){l->legend.x, p.frame.y, l->legend.w, p.frame.h};
        rf_plot_legend(&band, shown, shown_colors, n, RF_LEGEND_TOP_LEFT);
        free(xs);
    }
    rf_plot_end(&p);
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    rf_latent_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->segments == 0 || !has_any(f)) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->message);
        cairo_restore(cr);
        return;
    }
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, 12, 6, 0, 0, RF_PLOT_TITLE, true, f->title);
    layout l = lay_out(f, width, height, zoom);
    char title[96];
    if (f->filled[f->pass][f->segment - 1]) {
        snprintf(title, sizeof title, "Latent block of segment %d, %s pass", f->segment, pass_name[f->pass]);
        rf_matrix_panel_draw(&l.heat, cr, &f->heat, title, "latent row", "model dimension", 0, 0);
        rf_colorbar_of(cr, l.bar, f->heat.vmin, f->heat.vmax, "value", RF_COLORMAP_DIVERGING);
    } else {
        snprintf(title, sizeof title, "The %s pass has no latent state for segment %d", pass_name[f->pass],
                 f->segment);
        rf_draw_message(cr, l.heat.frame, title);
    }
    draw_strip(f, cr, &l);
    cairo_restore(cr);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    rf_latent_figure *f = data;
    if (f->segments == 0 || !has_any(f))
        return false;
    layout l = lay_out(f, width, height, zoom);
    int row, col;
    if (f->filled[f->pass][f->segment - 1] && rf_matrix_panel_cell_at(&l.heat, &f->heat, x, y, &row, &col)) {
        float v = f->heat.data[(size_t)row * f->d + col];
        snprintf(text, size, "segment %d %s, latent row %d, dimension %d: %.4g", f->segment, pass_name[f->pass],
                 row, col, v);
        return true;
    }
    if (y < l.strip.y || y > l.strip.y + l.strip.h)
        return false;
    rf_plot p = {.outer = l.strip, .x = l.x, .y = l.y};
    /* rf_plot_begin computes the frame; hover needs it without drawing. */
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(scratch);
    rf_plot_begin(&p, cr, l.strip, &l.x, &l.y, "Per-segment norms (gradients from the last inspection pass)");
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    if (!rf_plot_contains(&p, x, y))
        return false;
    int s = (int)lround(rf_plot_x_at(&p, x));
    if (s < 1 || s > f->segments)
        return false;
    char v[4][24];
    const double *src[4] = {f->norms[0], f->norms[1], f->grad_norms[0], f->grad_norms[1]};
    for (int k = 0; k < 4; k++)
        if (isfinite(src[k][s - 1]))
            snprintf(v[k], sizeof v[k], "%.4g", src[k][s - 1]);
        else
            snprintf(v[k], sizeof v[k], "–");
    snprintf(text, size, "segment %d: ‖L‖ forward %s, backward %s · ‖∇L‖ forward %s, backward %s", s, v[0], v[1], v[2], v[3]);
    return true;
}

rf_figure rf_latent_figure_get(rf_latent_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f};
}
