#include "distribution_figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../plot/plot.h"

void rf_distribution_figure_init(rf_distribution_figure *f, const char *name, rf_dist_kind kind)
{
    *f = (rf_distribution_figure){.kind = kind};
    snprintf(f->name, sizeof f->name, "%s", name);
    f->labels = g_ptr_array_new_with_free_func(g_free);
    f->runs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    f->colors = g_array_new(FALSE, FALSE, sizeof(int));
}

void rf_distribution_figure_clear(rf_distribution_figure *f)
{
    g_clear_pointer(&f->labels, g_ptr_array_unref);
    g_clear_pointer(&f->runs, g_ptr_array_unref);
    g_clear_pointer(&f->colors, g_array_unref);
}

guint rf_distribution_figure_add_run(rf_distribution_figure *f, const char *label, const GArray *rows)
{
    return rf_distribution_figure_add_run_colored(f, label, -1, rows);
}

guint rf_distribution_figure_add_run_colored(rf_distribution_figure *f, const char *label, int color,
                                             const GArray *rows)
{
    if (color < 0)
        color = (int)f->runs->len;
    g_array_append_val(f->colors, color);
    GArray *mine = g_array_new(FALSE, FALSE, sizeof(rf_distribution_row));
    for (guint i = 0; i < rows->len; i++) {
        const rf_distribution_row *r = &g_array_index(rows, rf_distribution_row, i);
        if (r->d.kind == f->kind && strcmp(r->d.name, f->name) == 0)
            g_array_append_val(mine, *r);
    }
    g_ptr_array_add(f->labels, g_strdup(label));
    g_ptr_array_add(f->runs, mine);
    return mine->len;
}

bool rf_distribution_figure_at(const rf_distribution_figure *f, guint run, int64_t step, rf_distribution_row *out)
{
    if (run >= f->runs->len)
        return false;
    const GArray *rows = f->runs->pdata[run];
    int64_t best = -1;
    for (guint i = 0; i < rows->len; i++) {
        const rf_distribution_row *r = &g_array_index(rows, rf_distribution_row, i);
        int64_t gap = r->step > step ? r->step - step : step - r->step;
        if (best < 0 || gap < best) {
            best = gap;
            *out = *r;
        }
    }
    return best >= 0;
}

static void axes(const rf_distribution_figure *f, const rf_zoom *zoom, rf_axis *x, rf_axis *y)
{
    *x = (rf_axis){.min = INFINITY, .max = -INFINITY, .label = "step", .whole = true};
    *y = (rf_axis){.min = INFINITY, .max = -INFINITY, .scale = f->log_y ? RF_AXIS_LOG : RF_AXIS_LINEAR};
    for (guint r = 0; r < f->runs->len; r++) {
        const GArray *rows = f->runs->pdata[r];
        for (guint i = 0; i < rows->len; i++) {
            const rf_distribution_row *row = &g_array_index(rows, rf_distribution_row, i);
            rf_axis_include(x, (double)row->step);
            for (int k = 0; k < RF_DIST_QUANTILES; k++)
                rf_axis_include(y, row->d.q[k]);
        }
    }
    rf_axis_finish(x, false);
    rf_axis_finish(y, false);
    *x = rf_axis_zoom(x, zoom->x0, zoom->x1);
    *y = rf_axis_zoom(y, zoom->y0, zoom->y1);
}

/* The band between percentiles lo and hi of a run's rows, filled. */
static void band(rf_plot *p, const GArray *rows, int lo, int hi, rf_rgb color, double alpha)
{
    cairo_t *cr = p->cr;
    cairo_new_path(cr);
    for (guint i = 0; i < rows->len; i++) {
        const rf_distribution_row *r = &g_array_index(rows, rf_distribution_row, i);
        cairo_line_to(cr, rf_plot_px(p, (double)r->step), rf_plot_py(p, r->d.q[hi]));
    }
    for (guint i = rows->len; i-- > 0;) {
        const rf_distribution_row *r = &g_array_index(rows, rf_distribution_row, i);
        cairo_line_to(cr, rf_plot_px(p, (double)r->step), rf_plot_py(p, r->d.q[lo]));
    }
    cairo_close_path(cr);
    rf_set_color(cr, color, alpha);
    cairo_fill(cr);
}

/* What the bands are, right of the title, smaller where the room is short. */
static void draw_key(rf_plot *p, const char *title)
{
    static const char key[] = "bands: min–max, 7–93, 16–84, 31–69th percentile · line: median";
    double left = p->frame.x + rf_text_width(p->cr, RF_PLOT_TITLE, true, title) + 12,
           right = p->frame.x + p->frame.w, width = rf_text_width(p->cr, RF_PLOT_TEXT, false, key),
           size = RF_PLOT_TEXT;
    if (width > right - left)
        size *= (right - left) / width;
    if (size < 0.6 * RF_PLOT_TEXT)
        return;
    cairo_save(p->cr);
    rf_set_color(p->cr, (rf_rgb){0.40, 0.40, 0.44}, 1);   /* the Training figure's key grey */
    rf_draw_text(p->cr, right, p->outer.y + 4, 1, 0, size, false, key);
    cairo_restore(p->cr);
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    rf_distribution_figure *f = data;
    rf_axis x, y;
    axes(f, zoom, &x, &y);
    g_autofree char *title = g_strdup_printf("%s (%s)", f->name, rf_dist_kind_name(f->kind));
    rf_plot p;
    rf_plot_begin(&p, cr, (rf_rect){0, 0, width, height}, &x, &y, title);
    cairo_save(cr);
    cairo_rectangle(cr, p.frame.x, p.frame.y, p.frame.w, p.frame.h);
    cairo_clip(cr);
    rf_rgb colors[16];
    const char *labels[16];
    int shown = 0;
    for (guint r = 0; r < f->runs->len; r++) {
        const GArray *rows = f->runs->pdata[r];
        rf_rgb c = rf_series_color(g_array_index(f->colors, int, r));
        /* min-max, 7-93, 16-84, 31-69: each inner band adds to the ones under it */
        for (int k = 0; k < RF_DIST_QUANTILES / 2; k++)
            band(&p, rows, k, RF_DIST_QUANTILES - 1 - k, c, 0.16);
        g_autofree double *xs = g_new(double, rows->len + 1), *ys = g_new(double, rows->len + 1);
        for (guint i = 0; i < rows->len; i++) {
            xs[i] = (double)g_array_index(rows, rf_distribution_row, i).step;
            ys[i] = g_array_index(rows, rf_distribution_row, i).d.q[RF_DIST_QUANTILES / 2];
        }
        rf_plot_line(&p, xs, ys, (int)rows->len, c, 1.5, 0);
        if (shown < 16) {
            colors[shown] = c;
            labels[shown++] = f->labels->pdata[r];
        }
    }
    cairo_restore(cr);
    draw_key(&p, title);
    if (shown > 0)   /* one run too: the legend names it */
        rf_plot_legend(&p, labels, colors, shown, RF_LEGEND_TOP_RIGHT);
    rf_plot_end(&p);
}

bool rf_distribution_figure_place(const rf_distribution_figure *f, double width, double height, const rf_zoom *zoom,
                                  double step, double value, double *px, double *py)
{
    rf_axis x, y;
    axes(f, zoom, &x, &y);
    cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(s);
    g_autofree char *title = g_strdup_printf("%s (%s)", f->name, rf_dist_kind_name(f->kind));
    rf_plot p;   /* laid out as draw lays it out */
    rf_plot_begin(&p, cr, (rf_rect){0, 0, width, height}, &x, &y, title);
    *px = rf_plot_px(&p, step);
    *py = rf_plot_py(&p, value);
    bool inside = rf_plot_contains(&p, *px, *py);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return inside;
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double px, double py, char *text,
                  size_t size)
{
    rf_distribution_figure *f = data;
    rf_axis x, y;
    axes(f, zoom, &x, &y);
    cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(s);
    g_autofree char *title = g_strdup_printf("%s (%s)", f->name, rf_dist_kind_name(f->kind));
    rf_plot p;   /* laid out as draw lays it out (its title too), to map the pointer */
    rf_plot_begin(&p, cr, (rf_rect){0, 0, width, height}, &x, &y, title);
    bool inside = rf_plot_contains(&p, px, py);
    double step = rf_plot_x_at(&p, px);
    /* the run whose band at that step lies nearest the pointer (inside it: 0) */
    rf_distribution_row row = {0};
    guint run = 0;
    double nearest = INFINITY;
    for (guint r = 0; inside && r < f->runs->len; r++) {
        rf_distribution_row at;
        if (!rf_distribution_figure_at(f, r, (int64_t)llround(step), &at))
            continue;
        double top = rf_plot_py(&p, at.d.q[RF_DIST_QUANTILES - 1]), bottom = rf_plot_py(&p, at.d.q[0]);
        double gap = py < top ? top - py : py > bottom ? py - bottom : 0;
        if (gap < nearest) {
            nearest = gap;
            run = r;
            row = at;
        }
    }
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    if (!isfinite(nearest))
        return false;
    GString *out = g_string_new(NULL);
    g_string_printf(out, "%s step %lld:", (const char *)f->labels->pdata[run], (long long)row.step);
    static const char *const names[RF_DIST_QUANTILES] = {"min", "p7", "p16", "p31", "p50", "p69", "p84", "p93", "max"};
    for (int k = 0; k < RF_DIST_QUANTILES; k++) {
        char v[32];
        rf_format_number(row.d.q[k], v, sizeof v);
        g_string_append_printf(out, " %s %s", names[k], v);
    }
    snprintf(text, size, "%s", out->str);
    g_string_free(out, TRUE);
    return true;
}

static bool empty(void *data, char *why, size_t size)
{
    rf_distribution_figure *f = data;
    for (guint r = 0; r < f->runs->len; r++)
        if (((GArray *)f->runs->pdata[r])->len > 0)
            return false;
    snprintf(why, size, "no run has %s rows for %s", rf_dist_kind_name(f->kind), f->name);
    return true;
}

rf_figure rf_distribution_figure_figure(rf_distribution_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f, .empty = empty};
}
