/* The plot export dialog (export_dialog.h). */
#include "export_dialog.h"

#include "dialogs.h"
#include "settings.h"

static const struct {
    const char *label;
    const char *extension;
} export_formats[] = {
    {"PNG image", ".png"},
    {"SVG drawing", ".svg"},
    {"PDF document", ".pdf"},
};

/* In rf_length_unit's order. */
static const char *const unit_labels[] = {"pixels", "inches", "centimetres", "points", NULL};

typedef struct {
    GtkWindow *dialog;
    GtkWindow *parent;
    GtkDropDown *format, *unit;
    GtkSpinButton *width, *height, *dpi, *font_size;
    rf_length_unit shown_unit;   /* the unit the width and height are in now */
    char *base_name;
    RfExportCallback done;
    gpointer user_data;
    guint chosen_format;
    rf_export_options chosen;
} ExportRequest;

rf_export_options rf_export_options_kept(int width, int height)
{
    rf_export_options o = rf_export_pixels(width, height);
    GSettings *settings = rf_settings();
    if (settings == NULL)
        return o;
    double w = g_settings_get_double(settings, "export-width"), h = g_settings_get_double(settings, "export-height");
    g_autofree char *unit = g_settings_get_string(settings, "export-unit");
    rf_length_unit u;
    if (w > 0 && h > 0 && rf_length_unit_from_name(unit, &u)) {
        o.width = w;
        o.height = h;
        o.unit = u;
    }
    o.dpi = g_settings_get_double(settings, "export-dpi");
    o.font_size = g_settings_get_double(settings, "export-font-size");
    return o;
}

static void keep(const rf_export_options *o)
{
    GSettings *settings = rf_settings();
    if (settings == NULL)
        return;
    g_settings_set_double(settings, "export-width", o->width);
    g_settings_set_double(settings, "export-height", o->height);
    g_settings_set_string(settings, "export-unit", rf_length_unit_name(o->unit));
    g_settings_set_double(settings, "export-dpi", o->dpi);
    g_settings_set_double(settings, "export-font-size", o->font_size);
}

static void export_request_free(ExportRequest *req)
{
    g_free(req->base_name);
    g_free(req);
}

static void export_path_chosen(const char *path, gpointer user_data)
{
    ExportRequest *req = user_data;
    if (path == NULL) {
        req->done(NULL, NULL, req->user_data);
        export_request_free(req);
        return;
    }
    /* The format picked in the dialog decides the extension: a name typed
     * without it, or with another one, gets it. */
    const char *ext = export_formats[req->chosen_format].extension;
    g_autofree char *lower = g_ascii_strdown(path, -1);
    g_autofree char *file = g_str_has_suffix(lower, ext) ? g_strdup(path) : g_strconcat(path, ext, NULL);
    req->done(file, &req->chosen, req->user_data);
    export_request_free(req);
}

/* Cancel, Escape and the window manager's close all end here. */
static gboolean export_close_request(GtkWindow *dialog, gpointer user_data)
{
    (void)dialog;
    ExportRequest *req = user_data;
    req->done(NULL, NULL, req->user_data);
    export_request_free(req);
    return FALSE;
}

static double spin_value(GtkSpinButton *spin)
{
    gtk_spin_button_update(spin);
    return gtk_spin_button_get_value(spin);
}

static void export_accept(GtkButton *button, gpointer user_data)
{
    (void)button;
    ExportRequest *req = user_data;
    req->chosen_format = gtk_drop_down_get_selected(req->format);
    if (req->chosen_format >= G_N_ELEMENTS(export_formats))
        req->chosen_format = 0;
    req->chosen = (rf_export_options){spin_value(req->width), spin_value(req->height), req->shown_unit,
                                      spin_value(req->dpi), spin_value(req->font_size)};
    keep(&req->chosen);
    g_signal_handlers_disconnect_by_func(req->dialog, export_close_request, req);
    gtk_window_destroy(req->dialog);
    g_autofree char *name = g_strconcat(req->base_name, export_formats[req->chosen_format].extension, NULL);
    rf_dialog_choose_path(req->parent, RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN, "Export Plot", "_Export", NULL, NULL, name,
                          export_path_chosen, req);
}

/* Whole pixels and points; inches and centimetres to two decimals. */
static void show_unit(ExportRequest *req, rf_length_unit unit)
{
    bool whole = unit == RF_LENGTH_PX || unit == RF_LENGTH_PT;
    GtkSpinButton *spins[2] = {req->width, req->height};
    for (int i = 0; i < 2; i++) {
        gtk_spin_button_set_digits(spins[i], whole ? 0 : 2);
        gtk_spin_button_set_increments(spins[i], whole ? 10 : 0.1, whole ? 100 : 1);
    }
}

/* A new unit keeps the size: the numbers are converted (pixels at the dpi). */
static void export_unit_changed(GtkDropDown *unit, GParamSpec *pspec, gpointer user_data)
{
    (void)pspec;
    ExportRequest *req = user_data;
    guint to = gtk_drop_down_get_selected(unit);
    if (to > RF_LENGTH_PT || to == req->shown_unit)
        return;
    rf_export_options from = {spin_value(req->width), spin_value(req->height), req->shown_unit, spin_value(req->dpi),
                               RF_EXPORT_FONT_SIZE};
    double points_w, points_h, per_unit[] = {72.0 / from.dpi, 72.0, 72.0 / 2.54, 1.0};
    rf_export_points(&from, &points_w, &points_h);
    req->shown_unit = (rf_length_unit)to;
    show_unit(req, req->shown_unit);
    gtk_spin_button_set_value(req->width, points_w / per_unit[to]);
    gtk_spin_button_set_value(req->height, points_h / per_unit[to]);
}

static GtkWidget *grid_label(const char *text, GtkWidget *mnemonic_widget)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(label), 1.0f);
    gtk_widget_add_css_class(label, "dim-label");
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), mnemonic_widget);
    return label;
}

static GtkWidget *unit_label(const char *text)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0.0f);
    gtk_widget_add_css_class(label, "dim-label");
    return label;
}

static GtkSpinButton *spin(const char *name, double min, double max, double step, int digits, double value)
{
    GtkSpinButton *s = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(min, max, step));
    gtk_spin_button_set_digits(s, (guint)digits);
    gtk_spin_button_set_value(s, value);
    gtk_widget_set_name(GTK_WIDGET(s), name);
    return s;
}

void rf_dialog_export_plot(GtkWindow *parent, const char *base_name, int width, int height, RfExportCallback done,
                           gpointer user_data)
{
    ExportRequest *req = g_new0(ExportRequest, 1);
    req->parent = parent;
    req->base_name = g_strdup(base_name);
    req->done = done;
    req->user_data = user_data;
    rf_export_options kept = rf_export_options_kept(width, height);

    GtkWindow *dialog = GTK_WINDOW(gtk_window_new());
    req->dialog = dialog;
    gtk_window_set_title(dialog, "Export Plot");
    gtk_window_set_transient_for(dialog, parent);
    gtk_window_set_modal(dialog, TRUE);
    gtk_window_set_destroy_with_parent(dialog, TRUE);
    gtk_window_set_resizable(dialog, FALSE);

    GtkWidget *header = gtk_header_bar_new();
    gtk_header_bar_set_show_title_buttons(GTK_HEADER_BAR(header), FALSE);
    GtkWidget *cancel = gtk_button_new_with_mnemonic("_Cancel");
    GtkWidget *accept = gtk_button_new_with_mnemonic("_Export…");
    gtk_widget_add_css_class(accept, "suggested-action");
    gtk_widget_set_name(accept, "export-accept");
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), cancel);
    gtk_header_bar_pack_end(GTK_HEADER_BAR(header), accept);
    gtk_window_set_titlebar(dialog, header);
    gtk_window_set_default_widget(dialog, accept);

    const char *format_labels[G_N_ELEMENTS(export_formats) + 1];
    for (size_t i = 0; i < G_N_ELEMENTS(export_formats); i++)
        format_labels[i] = export_formats[i].label;
    format_labels[G_N_ELEMENTS(export_formats)] = NULL;
    req->format = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(format_labels));
    gtk_widget_set_name(GTK_WIDGET(req->format), "export-format");
    /* The spin buttons take any size; the export says when one is too
     * small or too large at the dpi. */
    req->width = spin("export-width", 0.1, RF_EXPORT_SIDE_MAX, 10, 0, kept.width);
    req->height = spin("export-height", 0.1, RF_EXPORT_SIDE_MAX, 10, 0, kept.height);
    req->dpi = spin("export-dpi", RF_EXPORT_DPI_MIN, RF_EXPORT_DPI_MAX, 1, 0, kept.dpi);
    req->font_size = spin("export-font-size", RF_EXPORT_FONT_MIN, RF_EXPORT_FONT_MAX, 0.5, 2, kept.font_size);
    req->unit = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(unit_labels));
    gtk_widget_set_name(GTK_WIDGET(req->unit), "export-unit");
    gtk_widget_set_valign(GTK_WIDGET(req->unit), GTK_ALIGN_CENTER);
    req->shown_unit = kept.unit;
    gtk_drop_down_set_selected(req->unit, kept.unit);
    show_unit(req, kept.unit);
    gtk_spin_button_set_value(req->width, kept.width);   /* again, at the unit's digits */
    gtk_spin_button_set_value(req->height, kept.height);
    gtk_widget_set_tooltip_text(GTK_WIDGET(req->dpi),
                                "Pixels per inch: a PNG's pixels, and the size of a pixel in an SVG or PDF");
    gtk_widget_set_tooltip_text(GTK_WIDGET(req->font_size),
                                "The tick labels' size; titles and legends follow in proportion");

    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 12);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
    gtk_widget_set_margin_start(grid, 24);
    gtk_widget_set_margin_end(grid, 24);
    gtk_widget_set_margin_top(grid, 24);
    gtk_widget_set_margin_bottom(grid, 24);
    GtkGrid *g = GTK_GRID(grid);
    gtk_grid_attach(g, grid_label("_Format", GTK_WIDGET(req->format)), 0, 0, 1, 1);
    gtk_grid_attach(g, GTK_WIDGET(req->format), 1, 0, 2, 1);
    gtk_grid_attach(g, grid_label("_Width", GTK_WIDGET(req->width)), 0, 1, 1, 1);
    gtk_grid_attach(g, GTK_WIDGET(req->width), 1, 1, 1, 1);
    gtk_grid_attach(g, GTK_WIDGET(req->unit), 2, 1, 1, 2);
    gtk_grid_attach(g, grid_label("_Height", GTK_WIDGET(req->height)), 0, 2, 1, 1);
    gtk_grid_attach(g, GTK_WIDGET(req->height), 1, 2, 1, 1);
    gtk_grid_attach(g, grid_label("_Resolution", GTK_WIDGET(req->dpi)), 0, 3, 1, 1);
    gtk_grid_attach(g, GTK_WIDGET(req->dpi), 1, 3, 1, 1);
    gtk_grid_attach(g, unit_label("dpi"), 2, 3, 1, 1);
    gtk_grid_attach(g, grid_label("F_ont size", GTK_WIDGET(req->font_size)), 0, 4, 1, 1);
    gtk_grid_attach(g, GTK_WIDGET(req->font_size), 1, 4, 1, 1);
    gtk_grid_attach(g, unit_label("pt"), 2, 4, 1, 1);
    gtk_window_set_child(dialog, grid);

    g_signal_connect(req->unit, "notify::selected", G_CALLBACK(export_unit_changed), req);
    g_signal_connect_swapped(cancel, "clicked", G_CALLBACK(gtk_window_close), dialog);
    g_signal_connect(dialog, "close-request", G_CALLBACK(export_close_request), req);
    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(keys),
                                         gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"),
                                                          gtk_named_action_new("window.close")));
    gtk_widget_add_controller(GTK_WIDGET(dialog), keys);
    g_signal_connect(accept, "clicked", G_CALLBACK(export_accept), req);
    gtk_window_present(dialog);
}
