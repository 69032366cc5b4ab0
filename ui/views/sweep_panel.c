#include "sweep_panel.h"

#include <glib/gstdio.h>
#include <string.h>

#include "../figures/parallel_sweep.h"
#include "../plot/plot.h"

#define PANEL_KEY "rf-sweep-panel"

typedef struct sweep_panel {
    GtkWidget *widget;
    GtkDropDown *choice;
    GtkStringList *names;     /* the sweep folders' names, as listed */
    GPtrArray *dirs;          /* of char *: the sweep folders, in the same order */
    RfPlotView *plot;
    char *shown;              /* the shown sweep's folder, or NULL */
    guint64 csv_stamp;        /* its sweep.csv's mtime and size when read */
    rf_parallel_figure *figure;
    char *problem;            /* why there is no figure, or NULL */
    char *highlight;          /* the highlighted trial's folder name, or NULL */
    gboolean updating;        /* the drop-down changes because the list did */
    GFileMonitor *monitor;    /* on the shown sweep's folder: its table is read as soon as it changes */
    rf_sweep_clicked clicked;
    gpointer clicked_data;
} sweep_panel;

static sweep_panel *panel_of(GtkWidget *w)
{
    return g_object_get_data(G_OBJECT(w), PANEL_KEY);
}

static void stop_watching(sweep_panel *p)
{
    if (p->monitor != NULL)
        g_file_monitor_cancel(p->monitor);
    g_clear_object(&p->monitor);
}

static void panel_free(sweep_panel *p)
{
    stop_watching(p);
    g_ptr_array_unref(p->dirs);
    rf_parallel_figure_free(p->figure);
    g_free(p->shown);
    g_free(p->problem);
    g_free(p->highlight);
    g_free(p);
}

/* ---- the figure, with the panel's clicks ---- */

static bool empty(void *data, char *why, size_t size)
{
    sweep_panel *p = data;
    if (p->figure != NULL) {
        rf_figure inner = rf_parallel_figure_figure(p->figure);
        return inner.empty(inner.data, why, size);
    }
    g_strlcpy(why, p->problem != NULL ? p->problem : "no sweep in the runs folder", size);
    return true;
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    sweep_panel *p = data;
    if (p->figure == NULL) {   /* the sentence saying why, on white */
        char why[512];
        empty(p, why, sizeof why);
        rf_set_color(cr, (rf_rgb){1, 1, 1}, 1);
        cairo_paint(cr);
        rf_set_color(cr, (rf_rgb){0.35, 0.35, 0.35}, 1);
        rf_draw_text(cr, width / 2, height / 2, 0.5, 0.5, RF_PLOT_TEXT, false, why);
        return;
    }
    rf_figure inner = rf_parallel_figure_figure(p->figure);
    inner.draw(inner.data, cr, width, height, zoom);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    sweep_panel *p = data;
    if (p->figure == NULL)
        return false;
    rf_figure inner = rf_parallel_figure_figure(p->figure);
    return inner.hover(inner.data, width, height, zoom, x, y, text, size);
}

static bool click(void *data, double width, double height, const rf_zoom *zoom, double x, double y)
{
    (void)zoom;
    sweep_panel *p = data;
    if (p->figure == NULL)
        return false;
    int at = rf_parallel_figure_trial_at(p->figure, width, height, x, y);
    if (at < 0 || p->clicked == NULL)
        return false;
    g_autofree char *dir = g_build_filename(p->shown, rf_parallel_figure_trial_label(p->figure, (guint)at), NULL);
    p->clicked(dir, p->clicked_data);   /* the view selects the trial, which highlights it */
    return true;
}

/* ---- reading ---- */

static guint64 csv_stamp(const char *sweep_dir)
{
    g_autofree char *csv = g_build_filename(sweep_dir, "sweep.csv", NULL);
    GStatBuf st;
    if (g_stat(csv, &st) != 0)
        return 0;
    return (guint64)st.st_mtime * 1000003u + (guint64)st.st_size;
}

/* Read the shown sweep again when its table changed (or `force`). */
static void reload(sweep_panel *p, gboolean force)
{
    guint64 stamp = p->shown != NULL ? csv_stamp(p->shown) : 0;
    if (!force && stamp == p->csv_stamp)
        return;
    p->csv_stamp = stamp;
    g_clear_pointer(&p->figure, rf_parallel_figure_free);
    g_clear_pointer(&p->problem, g_free);
    if (p->shown != NULL) {
        g_autoptr(GError) error = NULL;
        p->figure = rf_parallel_figure_load_sweep(p->shown, &error);
        if (p->figure == NULL)
            p->problem = g_strdup(error->message);
        else
            rf_parallel_figure_highlight(p->figure, p->highlight);
    }
    rf_plot_view_queue_draw(p->plot);
}

static void on_sweep_changed(GFileMonitor *m, GFile *file, GFile *other, GFileMonitorEvent event, sweep_panel *p)
{
    (void)m;
    (void)file;
    (void)other;
    (void)event;
    reload(p, FALSE);
}

static void show_sweep(sweep_panel *p, const char *dir)
{
    if (g_strcmp0(dir, p->shown) == 0)
        return;
    g_free(p->shown);
    p->shown = g_strdup(dir);
    stop_watching(p);
    if (dir != NULL) {
        g_autoptr(GFile) folder = g_file_new_for_path(dir);
        p->monitor = g_file_monitor_directory(folder, G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);
        if (p->monitor != NULL)
            g_signal_connect(p->monitor, "changed", G_CALLBACK(on_sweep_changed), p);
    }
    g_clear_pointer(&p->highlight, g_free);
    reload(p, TRUE);
}

static void on_chosen(GtkDropDown *d, GParamSpec *spec, sweep_panel *p)
{
    (void)spec;
    guint i = gtk_drop_down_get_selected(d);
    if (!p->updating && i < p->dirs->len)
        show_sweep(p, g_ptr_array_index(p->dirs, i));
}

void rf_sweep_panel_update(GtkWidget *panel, GPtrArray *sweep_dirs)
{
    sweep_panel *p = panel_of(panel);
    gboolean same = sweep_dirs->len == p->dirs->len;
    for (guint i = 0; same && i < sweep_dirs->len; i++)
        same = strcmp(g_ptr_array_index(sweep_dirs, i), g_ptr_array_index(p->dirs, i)) == 0;
    if (!same) {
        guint keep = GTK_INVALID_LIST_POSITION;
        g_ptr_array_set_size(p->dirs, 0);
        g_auto(GStrv) names = g_new0(char *, sweep_dirs->len + 1);
        for (guint i = 0; i < sweep_dirs->len; i++) {
            const char *dir = g_ptr_array_index(sweep_dirs, i);
            g_ptr_array_add(p->dirs, g_strdup(dir));
            names[i] = g_path_get_basename(dir);
            if (g_strcmp0(dir, p->shown) == 0)
                keep = i;
        }
        p->updating = TRUE;
        gtk_string_list_splice(p->names, 0, g_list_model_get_n_items(G_LIST_MODEL(p->names)),
                               (const char *const *)names);
        if (keep == GTK_INVALID_LIST_POSITION && sweep_dirs->len > 0)
            keep = 0;
        gtk_drop_down_set_selected(p->choice, keep);
        p->updating = FALSE;
        show_sweep(p, keep != GTK_INVALID_LIST_POSITION ? g_ptr_array_index(p->dirs, keep) : NULL);
    }
    reload(p, FALSE);
}

void rf_sweep_panel_highlight(GtkWidget *panel, const char *sweep_dir, const char *trial)
{
    sweep_panel *p = panel_of(panel);
    if (sweep_dir != NULL)
        for (guint i = 0; i < p->dirs->len; i++)
            if (strcmp(g_ptr_array_index(p->dirs, i), sweep_dir) == 0 && g_strcmp0(p->shown, sweep_dir) != 0) {
                gtk_drop_down_set_selected(p->choice, i);   /* shows it */
                break;
            }
    const char *want = sweep_dir != NULL && g_strcmp0(sweep_dir, p->shown) == 0 ? trial : NULL;
    if (g_strcmp0(want, p->highlight) == 0)
        return;
    g_free(p->highlight);
    p->highlight = g_strdup(want);
    if (p->figure != NULL)
        rf_parallel_figure_highlight(p->figure, p->highlight);
    rf_plot_view_queue_draw(p->plot);
}

const char *rf_sweep_panel_sweep(GtkWidget *panel)
{
    return panel_of(panel)->shown;
}

rf_parallel_figure *rf_sweep_panel_figure(GtkWidget *panel)
{
    return panel_of(panel)->figure;
}

RfPlotView *rf_sweep_panel_plot(GtkWidget *panel)
{
    return panel_of(panel)->plot;
}

GtkWidget *rf_sweep_panel_new(rf_sweep_clicked clicked, gpointer data)
{
    sweep_panel *p = g_new0(sweep_panel, 1);
    p->clicked = clicked;
    p->clicked_data = data;
    p->dirs = g_ptr_array_new_with_free_func(g_free);
    p->widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_widget_set_name(p->widget, "sweep-panel");
    g_object_set_data_full(G_OBJECT(p->widget), PANEL_KEY, p, (GDestroyNotify)panel_free);

    p->names = gtk_string_list_new(NULL);
    p->choice = GTK_DROP_DOWN(gtk_drop_down_new(G_LIST_MODEL(p->names), NULL));
    gtk_widget_set_name(GTK_WIDGET(p->choice), "sweep-choice");
    gtk_widget_set_tooltip_text(GTK_WIDGET(p->choice), "The sweep folder to draw");
    g_signal_connect(p->choice, "notify::selected", G_CALLBACK(on_chosen), p);
    GtkWidget *label = gtk_label_new_with_mnemonic("S_weep");
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), GTK_WIDGET(p->choice));
    GtkWidget *hint = gtk_label_new("Click a line to select its trial; File → Export Plot… writes the figure");
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_label_set_ellipsize(GTK_LABEL(hint), PANGO_ELLIPSIZE_END);
    gtk_label_set_xalign(GTK_LABEL(hint), 0.0f);
    gtk_widget_set_hexpand(hint, TRUE);
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_margin_start(bar, 12);
    gtk_widget_set_margin_end(bar, 12);
    gtk_widget_set_margin_top(bar, 6);
    gtk_widget_set_margin_bottom(bar, 6);
    gtk_box_append(GTK_BOX(bar), label);
    gtk_box_append(GTK_BOX(bar), GTK_WIDGET(p->choice));
    gtk_box_append(GTK_BOX(bar), hint);

    rf_figure f = {.draw = draw, .hover = hover, .click = click, .empty = empty, .data = p};
    p->plot = RF_PLOT_VIEW(rf_plot_view_new(&f, FALSE));
    gtk_widget_set_name(GTK_WIDGET(p->plot), "sweep-plot");
    gtk_widget_set_vexpand(GTK_WIDGET(p->plot), TRUE);
    gtk_widget_set_size_request(GTK_WIDGET(p->plot), -1, 160);
    gtk_box_append(GTK_BOX(p->widget), bar);
    gtk_box_append(GTK_BOX(p->widget), GTK_WIDGET(p->plot));
    return p->widget;
}
