/* The parallel-coordinates figure (ui/figures/parallel_figure.h), drawn at
 * 1024 x 600 and read back: one named axis per key and one for the metric,
 * categorical ticks labelled, a log axis spacing values by their ratios,
 * one polyline per trial, coloured by its metric (the best yellow, the
 * worst dark), a failed trial grey whatever its metric, and an empty figure refused. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "../ui/figures/parallel_figure.h"
#include "../ui/plot/plot.h"
#include "figure_pixels.h"
#include "tap.h"

#define W 1024
#define H 600

/* One trial's crossing of a vertical line: its rows and its colour. */
typedef struct crossing {
    int y0, y1;
    int r, g, b;
} crossing;

static bool background(cairo_surface_t *s, int x, int y)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    return r > 235 && g > 235 && b > 235;
}

/* The runs of drawn pixels down column x between rows top and bottom. */
static int crossings(cairo_surface_t *s, int x, int top, int bottom, crossing *out, int max)
{
    int n = 0;
    for (int y = top; y < bottom; y++) {
        if (background(s, x, y))
            continue;
        int y0 = y;
        while (y < bottom && !background(s, x, y))
            y++;
        if (n < max) {   /* its colour: the darkest pixel across it, not an antialiased edge */
            out[n] = (crossing){y0, y, 255, 255, 255};
            for (int k = y0; k < y; k++) {
                int r, g, b;
                pixel(s, x, k, &r, &g, &b);
                if (r + g + b < out[n].r + out[n].g + out[n].b)
                    out[n] = (crossing){y0, y, r, g, b};
            }
        }
        n++;
    }
    return n;
}

/* The column in [from, to] that the most lines cross (a dashed line has gaps). */
static int most_crossed(cairo_surface_t *s, int from, int to)
{
    crossing ignored[16];
    int most = -1, at = from;
    for (int x = from; x <= to; x++) {
        int n = crossings(s, x, 60, H - 40, ignored, 16);
        if (n > most) {
            most = n;
            at = x;
        }
    }
    return at;
}

static bool has_text(GPtrArray *texts, const char *want)
{
    for (guint i = 0; i < texts->len; i++)
        if (strcmp(texts->pdata[i], want) == 0)
            return true;
    return false;
}

int main(void)
{
    g_autoptr(rf_parallel_figure) f = rf_parallel_figure_new("val_accuracy", true);
    const char *encoders[] = {"ls", "talk", "linear", NULL};
    rf_parallel_figure_add_axis(f, "model.encoder", RF_PARALLEL_CATEGORY, encoders);
    rf_parallel_figure_add_axis(f, "train.lr", RF_PARALLEL_LOG, NULL);
    /* top to bottom between the two key axes: D, C, B, E, A */
    const char *a[] = {"ls", "1e-4"}, *b[] = {"talk", "3e-4"}, *c[] = {"linear", "1e-3"}, *d[] = {"linear", "3e-3"},
               *e[] = {"ls", "2e-4"};
    rf_parallel_figure_add_trial(f, "trial-001", a, 0.2, RF_PARALLEL_FINISHED);
    rf_parallel_figure_add_trial(f, "trial-002", b, 0.3, RF_PARALLEL_FINISHED);
    rf_parallel_figure_add_trial(f, "trial-003", c, 0.5, RF_PARALLEL_FINISHED);
    rf_parallel_figure_add_trial(f, "trial-004", d, 0.4, RF_PARALLEL_STOPPED);
    rf_parallel_figure_add_trial(f, "trial-005", e, 0.45, RF_PARALLEL_FAILED);   /* failed after evaluations */
    rf_figure fig = rf_parallel_figure_figure(f);

    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    GString *svg = g_string_new(NULL);
    rf_plot_collect_svg_text(cr, svg);
    fig.draw(fig.data, cr, W, H, &RF_ZOOM_ALL);
    cairo_surface_flush(s);
    const char *png = g_getenv("RF_INSPECT_PNG_DIR");
    if (png != NULL) {
        g_autofree char *path = g_build_filename(png, "parallel.png", NULL);
        cairo_surface_write_to_png(s, path);
    }

    /* the words: the axes' names and the categories */
    GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
    for (const char *at = svg->str; (at = strstr(at, "<text")) != NULL;) {
        const char *open = strchr(at, '>'), *close = open != NULL ? strstr(open, "</text>") : NULL;
        if (close == NULL)
            break;
        g_ptr_array_add(texts, g_strndup(open + 1, (gsize)(close - open - 1)));
        at = close;
    }
    tap_ok(rf_parallel_figure_axis_count(f) == 3 && has_text(texts, "model.encoder") && has_text(texts, "train.lr") &&
               has_text(texts, "↑ val_accuracy"),
           "three axes, each named: model.encoder, train.lr and the metric (↑: higher is better)");
    tap_ok(has_text(texts, "ls") && has_text(texts, "talk") && has_text(texts, "linear"),
           "the categorical axis labels its ticks ls, talk, linear");

    double x0 = rf_parallel_figure_axis_x(f, cr, W, H, 0), x1 = rf_parallel_figure_axis_x(f, cr, W, H, 1),
           x2 = rf_parallel_figure_axis_x(f, cr, W, H, 2);
    tap_ok(x0 < x1 && x1 < x2 && x2 < W - 100 && fabs((x1 - x0) - (x2 - x1)) < 1, "the axes evenly spaced (%.0f, %.0f, %.0f)",
           x0, x1, x2);

    /* one crossing per trial down a column between the two key axes */
    crossing cross[16];
    int at_most = most_crossed(s, (int)((x0 + x1) / 2) - 12, (int)((x0 + x1) / 2) + 12);
    int most = crossings(s, at_most, 60, H - 40, cross, 16);
    tap_ok(most == 5, "five polylines cross the space between the key axes, one per trial (%d)", most);
    bool yellow = cross[1].r > 180 && cross[1].g > 180 && cross[1].b < 120;
    bool dark = cross[4].r < 100 && cross[4].b > 60 && cross[4].g < 60;
    int hi = MAX(cross[3].r, MAX(cross[3].g, cross[3].b)), lo = MIN(cross[3].r, MIN(cross[3].g, cross[3].b));
    tap_ok(yellow && dark, "coloured by the metric: the best (0.5) yellow (%d,%d,%d), the worst (0.2) dark (%d,%d,%d)",
           cross[1].r, cross[1].g, cross[1].b, cross[4].r, cross[4].g, cross[4].b);
    tap_ok(most == 5 && hi - lo < 10 && hi > 100 && hi < 220, "the failed trial grey (%d,%d,%d)", cross[3].r, cross[3].g,
           cross[3].b);

    /* the log axis: 1e-4, 3e-4, 1e-3 land by their ratios (3 and 3.3), not their differences;
     * read just left of it, where every trial's line still runs */
    int ys[3], found = 0;
    const int want_rows[3] = {4, 2, 1};   /* A, B, C at the lr axis, bottom to top */
    crossing at_axis[16];
    int n = crossings(s, most_crossed(s, (int)x1 - 16, (int)x1 - 6), 60, H - 40, at_axis, 16);
    if (n == 5)
        for (int i = 0; i < 3; i++)
            ys[found++] = (at_axis[want_rows[i]].y0 + at_axis[want_rows[i]].y1) / 2;
    if (n != 5)
        tap_diag("%d lines cross just left of the train.lr axis", n);
    double ratio = found == 3 ? (double)(ys[1] - ys[2]) / (ys[0] - ys[1]) : NAN;
    tap_ok(found == 3 && fabs(ratio - log(10.0 / 3.0) / log(3.0)) < 0.1,
           "train.lr on a log axis: the gap 3e-4 to 1e-3 over 1e-4 to 3e-4 is %.2f (log: 1.10, linear: 3.5)", ratio);

    /* the trial under a point of its line (what hover names and a click picks), and the highlight */
    int picked[5], right = 0;
    for (int k = 0; k < 5 && most == 5; k++) {
        /* cross[] runs top to bottom: D, C, B, E, A */
        static const int row_of_trial[5] = {4, 2, 1, 0, 3};
        const crossing *at = &cross[row_of_trial[k]];
        picked[k] = rf_parallel_figure_trial_at(f, W, H, at_most, (at->y0 + at->y1) / 2.0);
        right += picked[k] == k;
    }
    tap_ok(right == 5, "a point on each trial's line picks that trial (%d of 5)", right);
    tap_ok(rf_parallel_figure_trial_at(f, W, H, 4, 4) == -1, "a point off every line picks none");
    char named[256] = "";
    fig.hover(fig.data, W, H, &RF_ZOOM_ALL, at_most, (cross[1].y0 + cross[1].y1) / 2.0, named, sizeof named);
    tap_ok(g_str_has_prefix(named, "trial-003: model.encoder=linear, train.lr=1e-3; val_accuracy 0.5"),
           "hovering between the axes names the trial and its values: %s", named);
    rf_parallel_figure_highlight(f, "trial-001");
    cairo_surface_t *lit = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *lit_cr = cairo_create(lit);
    fig.draw(fig.data, lit_cr, W, H, &RF_ZOOM_ALL);
    cairo_surface_flush(lit);
    crossing lit_cross[16];
    int lit_n = crossings(lit, at_most, 60, H - 40, lit_cross, 16);
    int wide = lit_n == 5 ? lit_cross[4].y1 - lit_cross[4].y0 : 0, thin = most == 5 ? cross[4].y1 - cross[4].y0 : 0;
    tap_ok(g_strcmp0(rf_parallel_figure_highlighted(f), "trial-001") == 0 && wide >= thin + 4 && lit_cross[4].r < 40 &&
               lit_cross[4].g < 40 && lit_cross[4].b < 40,
           "the highlighted trial is drawn thick (%d px, %d before) with a dark casing (%d,%d,%d)", wide, thin,
           lit_cross[4].r, lit_cross[4].g, lit_cross[4].b);
    rf_parallel_figure_highlight(f, NULL);
    cairo_destroy(lit_cr);
    cairo_surface_destroy(lit);

    char why[128];
    g_autoptr(rf_parallel_figure) none = rf_parallel_figure_new("val_loss", false);
    rf_figure empty = rf_parallel_figure_figure(none);
    tap_ok(empty.empty(empty.data, why, sizeof why) && strstr(why, "no trials") != NULL,
           "a sweep with no trials is an empty figure: %s", why);

    g_ptr_array_free(texts, TRUE);
    g_string_free(svg, TRUE);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return tap_done();
}
