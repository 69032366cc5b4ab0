/* The Distributions view of the real application under Xvfb: before any
 * run it says what to do; after a tiny ListOps run (tests/trained_view.h)
 * trained to its end, against the run's distributions.csv read here:
 *   - a parameter tensor chosen in the tensor drop-down: the figure holds
 *     the file's rows of it, and its bands at each evaluation are the
 *     file's row (all nine values);
 *   - the drawn bands: between two evaluations, each of the four nested
 *     bands (min-max, 7-93, 16-84, 31-69) paints its layers of the run's
 *     colour where the file's values put it;
 *   - hover at the last evaluation's median reads its step and p50;
 *   - "Taps" lists the probe taps;
 *   - another evaluation appended to the file (by the run's own writer)
 *     appears within seconds, the run finished (no session signal);
 *   - the file moved away: the view says the run has no
 *     distributions.csv; a broken row: the status names the file and line;
 *     a file with no row yet: no evaluation yet;
 *   - a second run: both overlaid, each in its run colour and named.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: also writes
 * screenshot-distributions.png (1600 x 1000, for docs/) and the window at
 * 1024 x 600 and 1920 x 1080. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "../config/distributions_csv.h"
#include "../ui/figures/distribution_figure.h"
#include "../ui/plot/plot.h"
#include "figure_pixels.h"
#include "trained_view.h"

#define BAND_ALPHA 0.16   /* each band's paint over the ones under it (distribution_figure.c) */

/* One row of distributions.csv, parsed here (not by the reader the view uses). */
typedef struct csv_row {
    long long step;
    char name[RF_NAME_LEN], kind[8];
    double q[RF_DIST_QUANTILES], mean;
} csv_row;

static GArray *read_csv(const char *path)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(csv_row));
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return rows;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) != 14)
            continue;
        csv_row r = {.step = g_ascii_strtoll(f[0], NULL, 10)};
        g_strlcpy(r.name, f[1], sizeof r.name);
        g_strlcpy(r.kind, f[2], sizeof r.kind);
        for (int k = 0; k < RF_DIST_QUANTILES; k++)
            r.q[k] = g_ascii_strtod(f[4 + k], NULL);
        r.mean = g_ascii_strtod(f[13], NULL);
        g_array_append_val(rows, r);
    }
    return rows;
}

static GtkWidget *view_of(RfWindow *win)
{
    return gtk_stack_get_child_by_name(rf_window_get_stack(win), "distributions");
}

static gboolean figure_shown(gpointer win)
{
    return rf_distributions_view_figure(view_of(win)) != NULL;
}

static gboolean figure_gone(gpointer win)
{
    return !figure_shown(win);
}

static const char *status_of(RfWindow *win)
{
    return gtk_label_get_text(GTK_LABEL(find_named(view_of(win), "distributions-status")));
}

static bool choose(RfWindow *win, const char *menu_name, const char *item)
{
    GtkDropDown *menu = GTK_DROP_DOWN(find_named(view_of(win), menu_name));
    GListModel *model = gtk_drop_down_get_model(menu);
    for (guint i = 0; i < g_list_model_get_n_items(model); i++)
        if (strcmp(gtk_string_list_get_string(GTK_STRING_LIST(model), i), item) == 0) {
            gtk_drop_down_set_selected(menu, i);
            spin_for(0.2);
            return true;
        }
    return false;
}

static bool same_row(const rf_distribution_row *got, const csv_row *want)
{
    bool same = got->step == want->step;
    for (int k = 0; k < RF_DIST_QUANTILES; k++)
        same = same && fabs(got->d.q[k] - want->q[k]) <= 1e-12 * fmax(1, fabs(want->q[k]));
    if (!same)
        tap_diag("step %lld: the figure has step %lld, min %.9g p50 %.9g max %.9g; the file min %.9g p50 %.9g "
                 "max %.9g", want->step, (long long)got->step, got->d.q[0], got->d.q[4], got->d.q[8], want->q[0],
                 want->q[4], want->q[8]);
    return same;
}

/* The parameter tensor with the widest spread in the file's last rows,
 * and its rows. */
static const char *widest_param(const GArray *rows, GArray *mine)
{
    const char *best = NULL;
    double spread = -1;
    for (guint i = 0; i < rows->len; i++) {
        const csv_row *r = &g_array_index(rows, csv_row, i);
        if (strcmp(r->kind, "param") == 0 && r->q[8] - r->q[0] > spread) {
            spread = r->q[8] - r->q[0];
            best = r->name;
        }
    }
    for (guint i = 0; best != NULL && i < rows->len; i++) {
        const csv_row *r = &g_array_index(rows, csv_row, i);
        if (strcmp(r->kind, "param") == 0 && strcmp(r->name, best) == 0)
            g_array_append_val(mine, *r);
    }
    return best;
}

/* Some pixel within one of (x, y) is `layers` band layers of c over white. */
static bool layered_as(cairo_surface_t *s, double x, double y, rf_rgb c, int layers)
{
    double cover = 1 - pow(1 - BAND_ALPHA, layers);
    double want[3] = {255 * (1 - cover * (1 - c.r)), 255 * (1 - cover * (1 - c.g)), 255 * (1 - cover * (1 - c.b))};
    int r = 0, g = 0, b = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            pixel(s, (int)x + dx, (int)y + dy, &r, &g, &b);
            if (fabs(r - want[0]) < 9 && fabs(g - want[1]) < 9 && fabs(b - want[2]) < 9)
                return true;
        }
    tap_diag("at (%.0f, %.0f): %d %d %d, wanted %.0f %.0f %.0f (%d layers)", x, y, r, g, b, want[0], want[1],
             want[2], layers);
    return false;
}

/* Between the last two evaluations (a third of the way), every band wide
 * enough to hold a pixel paints its layer count; how many were looked at. */
static int check_bands(RfPlotView *plot, const rf_distribution_figure *fig, const csv_row *a, const csv_row *b,
                       rf_rgb c, bool *ok)
{
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    double step = (double)a->step + (double)(b->step - a->step) / 3, at[RF_DIST_QUANTILES], px = 0, py[RF_DIST_QUANTILES];
    for (int k = 0; k < RF_DIST_QUANTILES; k++) {
        at[k] = a->q[k] + (b->q[k] - a->q[k]) / 3;
        rf_distribution_figure_place(fig, w, h, &zoom, step, at[k], &px, &py[k]);
    }
    cairo_surface_t *s = draw_plot(plot);
    int looked = 0;
    *ok = true;
    for (int k = 0; k < RF_DIST_QUANTILES / 2; k++) {
        /* below the median: between q[k] and q[k+1], k+1 layers; above it the same mirrored */
        int lo = k, hi = RF_DIST_QUANTILES - 1 - k;
        if (fabs(py[lo] - py[lo + 1]) >= 6) {
            *ok = layered_as(s, px, (py[lo] + py[lo + 1]) / 2, c, k + 1) && *ok;
            looked++;
        }
        if (fabs(py[hi] - py[hi - 1]) >= 6) {
            *ok = layered_as(s, px, (py[hi] + py[hi - 1]) / 2, c, k + 1) && *ok;
            looked++;
        }
    }
    cairo_surface_destroy(s);
    return looked;
}

static void before_any_run(RfWindow *win)
{
    show_page(win, "distributions");
    const rf_figure *f = rf_plot_view_get_figure(plot_of(win, "distributions"));
    char why[256] = "";
    tap_ok(f->empty(f->data, why, sizeof why) && strstr(why, "train a run") != NULL &&
               rf_distributions_view_figure(view_of(win)) == NULL,
           "before any run the view says what to do (%s)", why);
}

static const csv_row *last_of(const GArray *rows, guint from_end)
{
    return &g_array_index(rows, csv_row, rows->len - 1 - from_end);
}

static void check_live_update(RfWindow *win, const char *path, const char *tensor, const csv_row *last)
{
    g_autoptr(GError) error = NULL;
    rf_distributions_csv *c = rf_distributions_csv_resume(path, last->step, &error);
    rf_distribution d = {.kind = RF_DIST_PARAM, .count = 1, .mean = last->mean + 1};
    g_strlcpy(d.name, tensor, sizeof d.name);
    for (int k = 0; k < RF_DIST_QUANTILES; k++)
        d.q[k] = last->q[k] + 1;
    int64_t step = last->step + 4;
    tap_ok(c != NULL && rf_distributions_csv_write(c, step, &d, 1, &error), "another evaluation is written (%s)",
           error != NULL ? error->message : "");
    if (c != NULL)
        rf_distributions_csv_close(c);
    g_autoptr(GArray) rows = read_csv(path);
    const csv_row *added = last_of(rows, 0);
    gint64 end = g_get_monotonic_time() + 4 * G_USEC_PER_SEC;
    rf_distribution_row got = {0};
    const rf_distribution_figure *fig = NULL;
    while (g_get_monotonic_time() < end && got.step != step) {
        spin_for(0.1);
        fig = rf_distributions_view_figure(view_of(win));
        if (fig == NULL || !rf_distribution_figure_at(fig, 0, step, &got))
            got.step = -1;
    }
    tap_ok(added->step == step && got.step == step && same_row(&got, added),
           "the view follows the file: the evaluation at step %lld appears, its values the file's",
           (long long)step);
}

/* A second run trained: both runs overlaid, named and coloured as the
 * session colours them, each its own colour. */
static void check_two_runs(RfWindow *win)
{
    if (!train_run(win, "second"))
        return;
    spin_for(1.5);
    GPtrArray *runs = rf_session_get_runs(rf_window_get_session(win));
    const rf_distribution_figure *fig = rf_distributions_view_figure(view_of(win));
    bool ok = fig != NULL && runs->len == 2 && fig->runs->len == 2;
    for (guint i = 0; ok && i < 2; i++) {
        const rf_run_data *r = g_ptr_array_index(runs, i);
        ok = strcmp(fig->labels->pdata[i], r->name) == 0 &&
             g_array_index(fig->colors, int, i) == (r->color >= 0 ? r->color : (int)i) &&
             ((const GArray *)fig->runs->pdata[i])->len > 0;
    }
    tap_ok(ok && g_array_index(fig->colors, int, 0) != g_array_index(fig->colors, int, 1),
           "a second run: both overlaid, each named and in its own run colour (%u runs drawn)",
           fig != NULL ? fig->runs->len : 0);
}

static void check_distributions(RfWindow *win, const char *rangefinder, const char *dir)
{
    (void)rangefinder;
    (void)dir;
    RfSession *s = rf_window_get_session(win);
    const rf_run_data *run = rf_session_get_current_run(s);
    g_autofree char *path = g_build_filename(run->dir, "distributions.csv", NULL);
    g_autoptr(GArray) rows = read_csv(path);
    g_autoptr(GArray) mine = g_array_new(FALSE, FALSE, sizeof(csv_row));
    const char *tensor = widest_param(rows, mine);
    if (!tap_ok(tensor != NULL && mine->len >= 2, "the run wrote %u rows of distributions.csv, %u evaluations of %s",
                rows->len, mine->len, tensor != NULL ? tensor : "no parameter"))
        return;

    show_page(win, "distributions");
    tap_ok(spin_until(figure_shown, win, 5.0), "after the run the view draws its distributions (%s)",
           status_of(win));
    tap_ok(choose(win, "distributions-tensor", tensor), "the tensor drop-down lists %s", tensor);
    const rf_distribution_figure *fig = rf_distributions_view_figure(view_of(win));
    tap_ok(fig != NULL && strcmp(fig->name, tensor) == 0 && fig->kind == RF_DIST_PARAM && fig->runs->len == 1,
           "the figure shows parameter %s of the one run", tensor);
    bool same = fig != NULL && ((const GArray *)fig->runs->pdata[0])->len == mine->len;
    for (guint i = 0; same && i < mine->len; i++) {
        rf_distribution_row got;
        const csv_row *want = &g_array_index(mine, csv_row, i);
        same = rf_distribution_figure_at(fig, 0, want->step, &got) && same_row(&got, want);
    }
    tap_ok(same, "its bands are the file's %u rows of the tensor, at each evaluation", mine->len);

    RfPlotView *plot = plot_of(win, "distributions");
    rf_rgb colour = rf_series_color(run->color >= 0 ? run->color : 0);
    bool ok = false;
    int looked = fig != NULL ? check_bands(plot, fig, last_of(mine, 1), last_of(mine, 0), colour, &ok) : 0;
    tap_ok(ok && looked >= 2, "the bands are painted in the run's colour, layered as nested (%d bands looked at)",
           looked);

    const csv_row *last = last_of(mine, 0);
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    double px = 0, py = 0;
    if (fig != NULL)
        rf_distribution_figure_place(fig, w, h, &zoom, (double)last->step, last->q[4], &px, &py);
    char text[512] = "", p50[32], want_step[48];
    const rf_figure *f = rf_plot_view_get_figure(plot);
    bool read = f->hover(f->data, w, h, &zoom, px - 2, py, text, sizeof text);
    rf_format_number(last->q[4], p50, sizeof p50);
    g_autofree char *want_p50 = g_strdup_printf(" p50 %s ", p50);
    g_snprintf(want_step, sizeof want_step, "step %lld:", last->step);
    tap_ok(read && strstr(text, want_step) != NULL && strstr(text, want_p50) != NULL,
           "hover at the last evaluation's median reads its step and p50 (%s)", text);

    const csv_row *first_tap = NULL;
    for (guint i = 0; i < rows->len && first_tap == NULL; i++)
        if (strcmp(g_array_index(rows, csv_row, i).kind, "tap") == 0)
            first_tap = &g_array_index(rows, csv_row, i);
    choose(win, "distributions-kind", "Taps");
    fig = rf_distributions_view_figure(view_of(win));
    tap_ok(first_tap != NULL && fig != NULL && fig->kind == RF_DIST_TAP && strcmp(fig->name, first_tap->name) == 0,
           "Taps shows the probe taps, first %s (%s)", first_tap != NULL ? first_tap->name : "none",
           fig != NULL ? fig->name : "no figure");
    choose(win, "distributions-kind", "Parameters");
    choose(win, "distributions-tensor", tensor);

    view_screenshots(win, "distributions");
    check_live_update(win, path, tensor, last);

    g_autofree char *moved = g_strconcat(path, ".away", NULL);
    const char *why_text = NULL;
    char why[256] = "";
    if (g_rename(path, moved) == 0) {
        spin_until(figure_gone, win, 4.0);
        why_text = f->empty(f->data, why, sizeof why) ? why : "";
    }
    tap_ok(why_text != NULL && strstr(why_text, "no distributions.csv") != NULL,
           "a run without the file: the view says so (%s)", why_text != NULL ? why_text : "not moved");
    g_autofree char *broken = NULL;
    g_autofree char *text_before = NULL;
    g_file_get_contents(moved, &text_before, NULL, NULL);
    broken = g_strconcat(text_before != NULL ? text_before : "", "12,x,param,1,2\n", NULL);
    g_file_set_contents(path, broken, -1, NULL);
    int line = 0;
    for (const char *c = broken; *c != '\0'; c++)
        line += *c == '\n';
    g_autofree char *where = g_strdup_printf("%s:%d:", path, line);
    spin_for(2.0);
    char said[512] = "";
    tap_ok(strstr(status_of(win), where) != NULL && figure_gone(win) && f->empty(f->data, said, sizeof said) &&
               strstr(said, where) != NULL,
           "a broken row: the status and the figure name the file and its line (%s)", status_of(win));
    g_file_set_contents(path, "step,name,kind,count,min,p7,p16,p31,p50,p69,p84,p93,max,mean\n", -1, NULL);
    spin_for(1.5);
    tap_ok(figure_gone(win) && f->empty(f->data, said, sizeof said) && strstr(said, "No evaluation yet") != NULL,
           "a run with no evaluation yet: the view says so (%s)", said);
    g_rename(moved, path);
    check_two_runs(win);
}

int main(int argc, char **argv)
{
    return trained_view_main(argc, argv, "the Distributions view", before_any_run, check_distributions);
}
