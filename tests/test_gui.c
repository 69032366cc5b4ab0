/* The workbench for real, under Xvfb: the application opens a small ListOps
 * config, trains a few steps with each of full attention, BLRP and TaLK,
 * and every view is rendered offscreen and checked for drawn content (the
 * Attention and Latent views: every cell where the layout puts it); plots
 * export to PNG/SVG/PDF; a checkpoint saves and loads back with its config,
 * step and every tensor bit for bit; an invalid value is explained inline
 * and changes nothing; closing during a run asks first. Without a display
 * `rangefinder gui` says how to train from the command line. (Bad files
 * from outside are in test_gui_files.c, your own inputs through the model
 * in test_gui_inspect.c, the Training figure's ranges and curve controls in
 * test_gui_curves.c, and each later workbench feature has its own small
 * test_gui_*.c.)
 *
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: also write
 * screenshot-<view>.png of the whole window (1600x1000) there.
 */
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "../core/device.h"
#include "../ui/application.h"
#include "../ui/dialogs.h"
#include "../ui/figures/attention_figure.h"
#include "../ui/figures/training_figure.h"
#include "../ui/figures/latent_figure.h"
#include "../ui/figures/talk_figure.h"
#include "../ui/inspect_input.h"
#include "../ui/launch_dialog.h"
#include "../ui/launch_files.h"
#include "../config/config_file.h"
#include "../ui/plot/plot.h"
#include "../ui/view.h"
#include "../ui/window.h"
#include "figure_pixels.h"
#include "gui_fixtures.h"
#include "gui_steps.h"
#include "main_loop.h"
#include "same_tensors.h"
#include "tap.h"
#include "view_drawing.h"
#include "widget_render.h"

/* --- main loop helpers --- */

static gboolean run_running(gpointer s)
{
    return rf_session_get_state(s) == RF_RUN_RUNNING;
}

static gboolean run_paused(gpointer s)
{
    return rf_session_get_state(s) == RF_RUN_PAUSED;
}

static int64_t pause_step;

static gboolean at_pause_step(gpointer s)
{
    return rf_session_get_step(s) == pause_step;
}

/* --- rendering --- */

typedef struct {
    double drawn;    /* fraction of pixels unlike the most common colour */
    guint colours;   /* distinct colours */
} Ink;

static Ink measure_ink(GdkTexture *texture)
{
    Ink ink = {0};
    int w = gdk_texture_get_width(texture), h = gdk_texture_get_height(texture);
    guint32 *pixels = g_new(guint32, (gsize)w * h);
    gdk_texture_download(texture, (guchar *)pixels, (gsize)w * 4);
    g_autoptr(GHashTable) counts = g_hash_table_new(g_direct_hash, g_direct_equal);
    guint most = 0;
    for (gsize i = 0; i < (gsize)w * h; i++) {
        gpointer key = GUINT_TO_POINTER(pixels[i]);
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, key)) + 1;
        g_hash_table_insert(counts, key, GUINT_TO_POINTER(n));
        most = MAX(most, n);
    }
    ink.drawn = 1.0 - (double)most / ((double)w * h);
    ink.colours = g_hash_table_size(counts);
    g_free(pixels);
    return ink;
}

/* Render `page` offscreen, check it drew content, save screenshot-SHOT.png. */
static void check_view_as(RfWindow *win, const char *page, const char *shot)
{
    show_page(win, page);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), page);
    g_autoptr(GdkTexture) texture = view != NULL ? render(view) : NULL;
    if (!tap_ok(texture != NULL, "the %s view renders offscreen", page))
        return;
    /* 2 %: a view's curves and labels at 1600 x 1000 (the Memory view's
     * six thin curves drew 2.9 % there); an empty view's message is < 1 %. */
    Ink ink = measure_ink(texture);
    tap_ok(ink.drawn > 0.02 && ink.colours > 16, "the %s view has drawn content (%.1f %% of %dx%d pixels, %u colours)",
           page, 100.0 * ink.drawn, gdk_texture_get_width(texture), gdk_texture_get_height(texture), ink.colours);
    screenshot(win, shot);
}

static void check_view(RfWindow *win, const char *page)
{
    check_view_as(win, page, page);
}

/* --- where the views put the cells --- */

/* The cells of a rows x cols map (shown in full) whose colour differs from
 * their value's (viridis over [lo, hi], within 3/255 a channel) at the
 * centre of the place the documented layout gives them: row 0 at the top,
 * columns across, in the plot area through (x, y). */
static int cells_off(cairo_surface_t *s, int x, int y, const float *m, int rows, int cols, double lo, double hi,
                     rf_colormap_kind map)
{
    box area = cell_area_of(s, x, y, map == RF_COLORMAP_DIVERGING ? painted : colourful);
    int off = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            box cell = matrix_cell(area, rows, cols, &RF_ZOOM_ALL, r, c);
            rf_rgb want = rf_colormap_of(map, (m[(size_t)r * cols + c] - lo) / (hi - lo));
            int pr, pg, pb;
            pixel(s, (int)((cell.x0 + cell.x1) / 2), (int)((cell.y0 + cell.y1) / 2), &pr, &pg, &pb);
            off += abs(pr - (int)lround(255 * want.r)) > 3 || abs(pg - (int)lround(255 * want.g)) > 3 ||
                   abs(pb - (int)lround(255 * want.b)) > 3;
        }
    return off;
}

/* The Attention view shows head 0 of layer 0's map (of the probe snapshot,
 * queries down, keys across), cropped to the sample's own positions: the
 * keys past them are masked (probability 0 from every query), and the
 * queries there are padding too. Among the sample's own, no query row is
 * masked, so a transposed map fails. The view asks for the map pooled to
 * the plot (core/probe.h) over the sample's own positions: then the
 * snapshot holds just those, one cell a position, and no key of it is
 * padding. */
static void check_attention_cells(RfWindow *win)
{
    const rf_probe_value *p = rf_session_find_probe(rf_window_get_session(win), "layer0.attn.probs");
    if (!tap_ok(p != NULL && p->shape.ndim == 3, "the attention snapshot holds layer 0's maps"))
        return;
    int n = (int)p->shape.dim[1], valid = 0;
    for (int c = 0; c < n; c++)
        valid = p->data[c] != 0.0f ? c + 1 : valid;   /* query 0's last key with any weight */
    float *block = g_new(float, (size_t)valid * valid), hi = 0;
    for (int r = 0; r < valid; r++)
        for (int c = 0; c < valid; c++) {
            block[r * valid + c] = p->data[(size_t)r * n + c];
            hi = block[r * valid + c] > hi ? block[r * valid + c] : hi;
        }
    RfPlotView *plot = plot_of(win, "attention");
    cairo_surface_t *s = draw_plot(plot);
    int off = cells_off(s, gtk_widget_get_width(GTK_WIDGET(plot)) / 4, gtk_widget_get_height(GTK_WIDGET(plot)) / 2,
                        block, valid, valid, 0, hi, RF_COLORMAP_SEQUENTIAL);
    gboolean cropped = p->pooled ? valid == n && p->window.r0 == 0 && p->window.r1 == n : valid < n;
    tap_ok(valid > 1 && cropped && off == 0,
           "the Attention view puts every cell of head 0's map in its place, the sample's %d positions (%s %d) "
           "(%d of %d differ)", valid, p->pooled ? "asked for alone, of" : "of the batch's", n, off, valid * valid);
    cairo_surface_destroy(s);
    g_free(block);
}

/* The Latent view shows the chosen segment's l x d block (latent rows down,
 * model dimensions across) on a scale symmetric around 0 over the pass. */
static void check_latent_cells(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    RfPlotView *plot = plot_of(win, "latent");
    const rf_latent_figure *f = rf_plot_view_get_figure(plot)->data;
    const char *pass = f->pass == RF_LATENT_FORWARD ? "fwd" : "bwd";
    char name[64];
    g_snprintf(name, sizeof name, "blrp.latent.%s.%d", pass, f->segment);
    const rf_probe_value *shown = rf_session_find_probe(s, name);
    if (!tap_ok(shown != NULL && shown->filled && shown->shape.ndim == 2, "the snapshot holds %s", name))
        return;
    float top = 0;
    const rf_probe_value *p;
    for (int seg = 1; g_snprintf(name, sizeof name, "blrp.latent.%s.%d", pass, seg),
             (p = rf_session_find_probe(s, name)) != NULL; seg++)
        for (int64_t i = 0; p->filled && i < p->shape.dim[0] * p->shape.dim[1]; i++)
            top = fabsf(p->data[i]) > top ? fabsf(p->data[i]) : top;
    int rows = (int)shown->shape.dim[0], cols = (int)shown->shape.dim[1];
    cairo_surface_t *c = draw_plot(plot);
    int off = cells_off(c, gtk_widget_get_width(GTK_WIDGET(plot)) / 4, gtk_widget_get_height(GTK_WIDGET(plot)) / 4,
                        shown->data, rows, cols, -top, top, RF_COLORMAP_DIVERGING);
    tap_ok(off == 0, "the Latent view puts every cell of segment %d's %d x %d %s block in its place (%d differ)",
           f->segment, rows, cols, pass, off);
    cairo_surface_destroy(c);
}

/* --- steps --- */

static gsize file_size(const char *path, char *head, gsize head_size)
{
    g_autofree char *contents = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &contents, &len, NULL))
        return 0;
    memset(head, 0, head_size);
    memcpy(head, contents, MIN(len, head_size - 1));
    return len;
}

static void check_exports(RfWindow *win, const char *dir)
{
    static const struct {
        const char *ext, *magic;
    } formats[] = {{"png", "\x89PNG\r\n"}, {"svg", "<svg"}, {"pdf", "%PDF-"}};
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        g_autofree char *name = g_strdup_printf("training.%s", formats[i].ext);
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autoptr(GError) error = NULL;
        gboolean ok = rf_window_export_plot(win, "training", path, 800, 500, &error);
        tap_ok(ok, "export the training plot to %s%s%s", name, error ? ": " : "", error ? error->message : "");
        char head[512];
        gsize size = file_size(path, head, sizeof head);
        gboolean magic = strcmp(formats[i].ext, "svg") == 0 ? strstr(head, formats[i].magic) != NULL
                                                             : memcmp(head, formats[i].magic, strlen(formats[i].magic)) == 0;
        tap_ok(magic && size > 2000, "%s starts like a %s file and has content (%zu bytes)", name, formats[i].ext,
               (size_t)size);
        if (strcmp(formats[i].ext, "png") == 0) {
            const guchar *u = (const guchar *)head;
            guint32 w = (guint32)u[16] << 24 | u[17] << 16 | u[18] << 8 | u[19];
            guint32 h = (guint32)u[20] << 24 | u[21] << 16 | u[22] << 8 | u[23];
            tap_ok(w == 800 && h == 500, "the PNG is 800x500 (got %ux%u)", w, h);
        }
    }
    g_autofree char *bad = g_build_filename(dir, "training.bmp", NULL);
    g_autoptr(GError) error = NULL;
    gboolean refused = !rf_window_export_plot(win, "training", bad, 800, 500, &error);
    tap_ok(refused && error != NULL && !g_file_test(bad, G_FILE_TEST_EXISTS),
           "an unknown format is refused with a message (%s)", error ? error->message : "none");
}

static void type_into(GtkWidget *spin, const char *text)
{
    gtk_editable_set_text(GTK_EDITABLE(spin), text);
    gtk_spin_button_update(GTK_SPIN_BUTTON(spin));
}

static char *save_checkpoint(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    char *path = g_build_filename(dir, "run.safetensors", NULL);
    g_autoptr(GError) error = NULL;
    GAction *save = g_action_map_lookup_action(G_ACTION_MAP(win), "save-checkpoint");
    tap_ok(g_action_get_enabled(save), "Save checkpoint is enabled after a finished run");
    gboolean saved = rf_session_save_checkpoint(s, path, &error);
    tap_ok(saved && g_file_test(path, G_FILE_TEST_IS_REGULAR), "save a checkpoint%s%s", error ? ": " : "",
           error ? error->message : "");
    return path;
}

/* The checkpoint holds a TaLK run of 6 steps at dim 32. */
static void load_checkpoint(RfWindow *win, const char *dir, const char *path)
{
    RfSession *s = rf_window_get_session(win);
    g_autoptr(GError) error = NULL;
    set_key(s, "model.dim", "48");
    set_key(s, "model.encoder", "ls");
    GAction *on_data = g_action_map_lookup_action(G_ACTION_MAP(win), "open-checkpoint-on-data");
    tap_ok(on_data != NULL && g_action_get_enabled(on_data),
           "File has Open Checkpoint on the Current Data, enabled when no run is busy");
    gboolean loaded = rf_session_load_checkpoint(s, path, &error);
    tap_ok(loaded, "load the checkpoint back%s%s", error ? ": " : "", error ? error->message : "");
    spin_for(0.5);   /* the worker's own word on the state arrives at the next drain */
    const rf_config *cfg = rf_session_get_config(s);
    tap_ok(cfg->model.dim == 32 && strcmp(cfg->model.encoder, "talk") == 0,
           "the checkpoint restores the config (dim %d, encoder %s)", cfg->model.dim, cfg->model.encoder);
    RfRunState state = rf_session_get_state(s);
    tap_ok(rf_session_get_step(s) == 6 && (state == RF_RUN_PAUSED || state == RF_RUN_FINISHED),
           "the run stands at the checkpoint's step (%" G_GINT64_FORMAT ", state %d)", rf_session_get_step(s),
           (int)state);
    GtkSpinButton *dim = GTK_SPIN_BUTTON(rf_config_panel_get_editor(rf_window_get_config_panel(win), "model.dim"));
    tap_ok(gtk_spin_button_get_value_as_int(dim) == 32, "the sidebar shows the restored dim");
    /* The loaded model, saved again, gives back every tensor of the file. */
    g_autofree char *again = g_build_filename(dir, "reloaded.safetensors", NULL);
    char why[256] = "";
    int params = 0, moments = 0;
    gboolean same = rf_session_save_checkpoint(s, again, &error) && same_tensors(path, again, &params, &moments, why,
                                                                                 sizeof why);
    const char *problem = error != NULL ? error->message : why;
    tap_ok(same && params > 0 && moments == 2 * params,
           "the loaded model holds the saved weights bit for bit (%d parameters, %d optimizer moments%s%s)", params,
           moments, problem[0] ? ": " : "", problem);
    g_clear_error(&error);

    /* More steps let Train resume the loaded run; Pause stops it between
     * steps and Step then trains exactly one. */
    set_key(s, "train.steps", "100000");
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_running, s, 30.0), "Train resumes the loaded run");
    g_action_group_activate_action(G_ACTION_GROUP(win), "pause", NULL);
    gboolean paused = spin_until(run_paused, s, 60.0);
    int64_t at = rf_session_get_step(s);
    tap_ok(paused && at > 6, "Pause pauses it between steps (step %" G_GINT64_FORMAT ")", at);
    pause_step = at + 1;
    GAction *step = g_action_map_lookup_action(G_ACTION_MAP(win), "step");
    tap_ok(g_action_get_enabled(step), "Step is enabled while paused");
    g_action_activate(step, NULL);
    gboolean stepped = spin_until(at_pause_step, s, 60.0) && spin_until(run_paused, s, 10.0);
    tap_ok(stepped, "Step trains one step and pauses again (step %" G_GINT64_FORMAT ", state %d)",
           rf_session_get_step(s), (int)rf_session_get_state(s));

    /* An architecture change during a run offers to restart it. */
    RfConfigPanel *panel = rf_window_get_config_panel(win);
    type_into(rf_config_panel_get_editor(panel, "model.layers"), "3");
    tap_ok(rf_window_restart_offered(win), "changing the layers of a paused run offers a restart");

    g_autofree char *corrupt = g_build_filename(dir, "corrupt.safetensors", NULL);
    g_file_set_contents(corrupt, "not a checkpoint", -1, NULL);
    g_clear_error(&error);
    gboolean refused = !rf_session_load_checkpoint(s, corrupt, &error);
    tap_ok(refused && error != NULL && strstr(error->message, corrupt) != NULL,
           "a corrupt checkpoint fails with a message naming it (%s)", error ? error->message : "none");
}

static void check_invalid_values(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    RfConfigPanel *panel = rf_window_get_config_panel(win);
    GtkWidget *dim = rf_config_panel_get_editor(panel, "model.dim");
    tap_ok(GTK_IS_SPIN_BUTTON(dim), "model.dim is edited with a spin button");
    int before = rf_session_get_config(s)->model.dim;

    type_into(dim, "0");
    const char *message = rf_config_panel_get_message(panel, "model.dim");
    tap_ok(message[0] != '\0' && rf_session_get_config(s)->model.dim == before,
           "dim 0 is explained inline and changes nothing (\"%s\")", message);
    tap_ok(gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(dim)) == before, "the spin button keeps %d", before);

    type_into(dim, "lots");
    tap_ok(rf_config_panel_get_message(panel, "model.dim")[0] != '\0' && rf_session_get_config(s)->model.dim == before,
           "text that is no number is explained inline (\"%s\")", rf_config_panel_get_message(panel, "model.dim"));

    /* heads must divide dim: the session refuses it or the planner explains it. */
    GtkWidget *heads = rf_config_panel_get_editor(panel, "model.heads");
    type_into(heads, "6");
    const char *heads_message = rf_config_panel_get_message(panel, "model.heads");
    const char *summary = rf_config_panel_get_summary(panel);
    tap_ok(strstr(heads_message, "heads") != NULL || strstr(summary, "heads") != NULL,
           "6 heads for dim %d is explained (\"%s\" / \"%s\")", before, heads_message, summary);
    type_into(heads, "4");
    tap_ok(rf_session_get_config(s)->model.heads == 4 && rf_config_panel_get_message(panel, "model.heads")[0] == '\0' &&
               strstr(rf_config_panel_get_summary(panel), "params") != NULL,
           "a valid value clears the message; the planner line is back (\"%s\")", rf_config_panel_get_summary(panel));

    type_into(dim, "64");
    tap_ok(rf_session_get_config(s)->model.dim == 64 && rf_config_panel_get_message(panel, "model.dim")[0] == '\0',
           "a valid dim applies and clears the message");
    type_into(dim, "32");

    /* Mechanism keys follow the encoder. */
    GtkWidget *segment = rf_config_panel_get_editor(panel, "model.segment");
    GtkWidget *row = gtk_widget_get_parent(gtk_widget_get_parent(segment));
    set_key(s, "model.encoder", "full");
    gboolean hidden_for_full = !gtk_widget_get_visible(row);
    set_key(s, "model.encoder", "blrp");
    tap_ok(hidden_for_full && gtk_widget_get_visible(row), "BLRP's segment field shows only for BLRP");
}

static GtkWindow *find_toplevel(const char *title)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (g_strcmp0(gtk_window_get_title(w), title) == 0)
            return w;
    }
    return NULL;
}

/* Launch on a Cluster…: the launch text for the session's config, a rank
 * count that does not divide data.batch refused on the spot, and Copy
 * writing the config the job reads, which loads back as the same config. */
static void check_launch_dialog(RfWindow *win, const char *dir)
{
    g_action_group_activate_action(G_ACTION_GROUP(win), "launch-cluster", NULL);
    spin_for(0.2);
    GtkWindow *d = find_toplevel("Launch on a Cluster");
    if (!tap_ok(d != NULL, "Launch on a Cluster opens its dialog"))
        return;
    g_autofree char *out = g_build_filename(dir, "cluster-run", NULL);
    const rf_config *cfg = rf_session_get_config(rf_window_get_session(win));
    rf_launch_dialog_set(d, RF_LAUNCH_MPIRUN, 2, out);
    const char *text = rf_launch_dialog_text(d);
    g_autofree char *line = g_strstrip(g_strdup(text != NULL ? text : ""));   /* one TAP line */
    tap_ok(text != NULL && g_str_has_prefix(text, "mpirun -np 2 ") && strstr(text, out) != NULL,
           "it shows the mpirun line into the chosen run folder (\"%s\")", line);
    rf_launch_dialog_set(d, RF_LAUNCH_SLURM, 4, out);
    text = rf_launch_dialog_text(d);
    tap_ok(text != NULL && strstr(text, "#SBATCH --ntasks=4") != NULL, "and the sbatch script for 4 ranks");
    int odd = cfg->data.batch + 1;   /* never divides data.batch (> 1) */
    rf_launch_dialog_set(d, RF_LAUNCH_MPIRUN, odd, out);
    tap_ok(rf_launch_dialog_text(d) == NULL && strstr(rf_launch_dialog_status(d), "data.batch") != NULL,
           "%d ranks are refused, naming data.batch (\"%s\")", odd, rf_launch_dialog_status(d));
    rf_launch_dialog_set(d, RF_LAUNCH_MPIRUN, 2, out);
    g_autofree char *ini = rf_launch_config_path(out);
    rf_config back;
    g_autoptr(GError) error = NULL;
    tap_ok(rf_launch_dialog_copy(d) && rf_config_load_ini(ini, NULL, &back, &error) &&
               back.data.batch == cfg->data.batch && strcmp(back.model.encoder, cfg->model.encoder) == 0,
           "Copy writes the session's config where the job reads it (%s)", ini);
    spin_for(0.3);   /* laid out before it is drawn */
    screenshot_of(GTK_WIDGET(d), "launch");
    gtk_window_destroy(d);
    spin_for(0.1);
}

/* The menu's dialogs open without blocking and go away again. */
static void check_menu_dialogs(RfApplication *app, RfWindow *win)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "training");
    g_action_group_activate_action(G_ACTION_GROUP(win), "export-plot", NULL);
    spin_for(0.2);
    GtkWindow *export = find_toplevel("Export Plot");
    tap_ok(export != NULL, "Export plot opens its dialog");
    if (export != NULL)
        gtk_window_close(export);
    spin_for(0.2);
    tap_ok(find_toplevel("Export Plot") == NULL, "the export dialog cancels");

    g_action_group_activate_action(G_ACTION_GROUP(win), "open-data", NULL);
    spin_for(0.2);
    const char *detail = rf_dialog_last_error_detail();
    tap_ok(detail != NULL && strstr(detail, "generated") != NULL,
           "Open data on ListOps explains there is nothing to open (\"%s\")", detail ? detail : "");
    close_all_dialogs(win);

    g_action_group_activate_action(G_ACTION_GROUP(app), "shortcuts", NULL);
    spin_for(0.2);
    GtkWindow *shortcuts = NULL;
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (GTK_IS_SHORTCUTS_WINDOW(w))
            shortcuts = w;
    }
    tap_ok(shortcuts != NULL, "Keyboard shortcuts opens the shortcuts window");
    if (shortcuts != NULL)
        gtk_window_destroy(shortcuts);
}

static GtkDialog *find_question(RfWindow *win)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (w != GTK_WINDOW(win) && GTK_IS_MESSAGE_DIALOG(w))
            return GTK_DIALOG(w);
    }
    return NULL;
}

static gboolean is_null(gpointer data)
{
    return *(gpointer *)data == NULL;
}

/* The attention view has prepared the map of the session's current
 * layer0.attn.probs snapshot (a late snapshot of a finished run may still
 * land after the run ends, and starts a new preparation). */
typedef struct {
    RfSession *session;
    RfPlotView *plot;
    int64_t cells;   /* the snapshot is this run's: a map of at least this many cells */
} map_wait;

static gboolean map_current(gpointer data)
{
    const map_wait *w = data;
    const rf_probe_value *p = rf_session_find_probe(w->session, "layer0.attn.probs");
    const rf_attention_figure *f = rf_plot_view_get_figure(w->plot)->data;
    return !rf_plot_view_get_pending(w->plot) && p != NULL && p->shape.ndim == 3 &&
           p->shape.dim[1] * p->shape.dim[2] >= w->cells && f->map == p->data;
}

/* A full-attention map of 1,024 tokens, asked for pooled to the plot (a
 * quarter of a million cells or more), is prepared in a worker thread:
 * the figure ends up showing the snapshot's head 0 (borrowed, not copied)
 * with its exact colour range, and draws it. */
static void check_large_attention_map(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    static const char *const keys[][2] = {
        {"data.task", "random"}, {"data.max_len", "1024"}, {"data.min_len", "1024"}, {"data.batch", "2"},
        {"model.encoder", "full"}, {"model.layers", "1"}, {"train.steps", "2"}, {"train.eval_every", "0"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
        set_key(s, keys[i][0], keys[i][1]);
    tap_ok(spin_until(data_loaded, s, 120.0), "the N = 1024 random data loads");
    show_page(win, "attention");
    if (!train_to_the_end(win, "N = 1024 full attention"))
        return;
    RfPlotView *plot = rf_view_get_plot(gtk_stack_get_child_by_name(rf_window_get_stack(win), "attention"));
    /* until the N = 1024 run's snapshot arrives, the session may still hold
     * the previous run's 64 x 64 one */
    map_wait wait = {s, plot, (int64_t)1 << 18};
    tap_ok(spin_until(map_current, &wait, 60.0), "the map of 1024 tokens of the latest snapshot is prepared");
    const rf_attention_figure *f = rf_plot_view_get_figure(plot)->data;
    const rf_probe_value *p = rf_session_find_probe(s, "layer0.attn.probs");
    gboolean same = p != NULL && p->shape.ndim == 3 && f->layout == RF_ATTENTION_MATRIX && f->map == p->data &&
                    f->rows == p->shape.dim[1] && f->cols == p->shape.dim[2] && f->rows * f->cols >= 1 << 18;
    if (tap_ok(same, "the figure shows head 0 of the snapshot's %d x %d map", f->rows, f->cols)) {
        float top = 0;
        for (size_t i = 0; i < (size_t)f->rows * f->cols; i++)
            top = p->data[i] > top ? p->data[i] : top;
        tap_ok(f->heat.vmin == 0 && f->heat.vmax == top, "its colour range is [0, the largest weight %g] (got [%g, %g])",
               top, f->heat.vmin, f->heat.vmax);
    }
    /* Two refreshes in a row: the first job is superseded (cancelled,
     * dropped when it reports), the second one's map is shown. */
    g_signal_emit_by_name(s, "probes-changed");
    gboolean pending_first = rf_plot_view_get_pending(plot);
    g_signal_emit_by_name(s, "probes-changed");
    /* A late snapshot of the finished run may land while the loop spins:
     * look the probe up again after each spin (the old one is freed). */
    gboolean ready = spin_until(map_current, &wait, 30.0);
    p = rf_session_find_probe(s, "layer0.attn.probs");
    tap_ok(pending_first && ready && p != NULL && f->map == p->data && f->heat.vmax > 0,
           "a refresh that supersedes one in flight ends with the map shown");
    /* The superseded job reports within this wait; a stale map left by it
     * would stay (nothing would prepare the current one again). A late
     * snapshot may start a new job meanwhile (ASan under load did), so the
     * check waits for the view to settle rather than asking at one instant. */
    spin_for(0.3);
    tap_ok(spin_until(map_current, &wait, 30.0),
           "the superseded job's report changes nothing: the view settles on the session's latest map");
    check_view_as(win, "attention", "attention-1024");
    /* back to the small config: its lengths first, which ListOps checks */
    static const char *const restore[][2] = {
        {"data.max_len", "64"}, {"data.min_len", "16"}, {"data.task", "listops"}, {"data.batch", "16"},
        {"model.layers", "2"},    {"train.steps", "6"},   {"train.eval_every", "3"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(restore); i++)
        set_key(s, restore[i][0], restore[i][1]);
    spin_until(data_loaded, s, 120.0);
}

/* --- your own input through the model (issue 17 item 1) --- */

/* BLRP's latent states of a typed expression (no gradients: it has no label). */
static void check_inspect_latent(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    show_page(win, "latent");
    rf_inspect_input(GTK_WINDOW(win), s, NULL, "[MIN 5 6 [MAX 7 8 ] ]");
    wanted_name = "[MIN 5 6 [MAX 7 8 ] ]";
    gboolean added = spin_until(watching_named, s, 30.0);
    show_page(win, "latent");
    wanted_tap = "blrp.latent.fwd.1";
    gboolean shown = added && spin_until(probes_of_input, s, 30.0);
    spin_for(0.5);
    const rf_latent_figure *fig = rf_plot_view_get_figure(plot_of(win, "latent"))->data;
    tap_ok(shown && rf_session_find_probe(s, "blrp.latent.fwd.1.grad") == NULL &&
               strstr(fig->title, "inspected (not from the data set): [MIN 5 6") != NULL,
           "the Latent view shows an inspected expression's latent states, without gradients (\"%s\")", fig->title);
    rf_session_watch_inspected(s, NULL);
}

/* --- what is running vs what is edited --- */

/* The header and the status line describe the run on screen, and edits
 * waiting for the next run are marked as such: picking TaLK after a BLRP
 * run keeps "BLRP" in the status line, and opening another config (9
 * steps) leaves "step 6 / 6" of the run marked as the last run's, not
 * "step 6 / 9". Seen before: the status read "ListOps · TaLK" for the BLRP
 * run, and the counter mixed the old run's step with the new total.
 * Needs a finished BLRP run; leaves model.encoder = talk. */
static void check_run_vs_edits(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    const char *blrp = rf_choice_label("model.encoder", "blrp"), *talk = rf_choice_label("model.encoder", "talk");
    set_key(s, "model.encoder", "talk");
    spin_for(0.2);
    const char *status = rf_window_get_status_text(win);
    g_autofree char *run_part = g_strdup_printf("· %s · next run: model.encoder = talk", blrp);
    tap_ok(strstr(status, run_part) != NULL && strstr(status, talk) == NULL,
           "after picking TaLK, the status line still names the BLRP run and marks TaLK as the next run's (\"%s\")",
           status);
    tap_ok(strcmp(rf_window_get_step_text(win), "last run: step 6 / 6") == 0,
           "the finished run's counter is marked as the last run's (\"%s\")", rf_window_get_step_text(win));
    g_autofree char *other = g_build_filename(dir, "other.ini", NULL);
    g_autofree char *text = g_strdup_printf("%s\nsteps = 9\n[model]\nencoder = talk\n", small_config);
    g_file_set_contents(other, text, -1, NULL);
    g_autoptr(GError) error = NULL;
    gboolean opened = rf_session_load_config_file(s, other, &error);
    spin_for(0.2);
    tap_ok(opened && strcmp(rf_window_get_step_text(win), "last run: step 6 / 6") == 0 &&
               strstr(rf_window_get_status_text(win), "next run: model.encoder = talk and 1 more key") != NULL,
           "after opening a config of 9 steps the header keeps the last run's 6 / 6, marked, and the status names "
           "the pending edits (\"%s\"; \"%s\")", rf_window_get_step_text(win), rf_window_get_status_text(win));
    set_key(s, "train.steps", "6");
}

/* While the loaded run is paused: a typed expression's TaLK windows. */
static void check_inspect_while_paused(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    if (!tap_ok(rf_session_get_state(s) == RF_RUN_PAUSED, "a TaLK run is paused for inspection"))
        return;
    show_page(win, "talk");
    rf_inspect_input(GTK_WINDOW(win), s, NULL, "[MED 1 2 3 ]");
    wanted_name = "[MED 1 2 3 ]";
    gboolean added = spin_until(watching_named, s, 30.0);
    show_page(win, "talk");
    wanted_tap = "layer0.talk.bounds";
    gboolean shown = added && spin_until(probes_of_input, s, 30.0);
    spin_for(0.5);
    const rf_talk_figure *fig = rf_plot_view_get_figure(plot_of(win, "talk"))->data;
    tap_ok(shown && rf_session_get_state(s) == RF_RUN_PAUSED && strstr(fig->title, "inspected (not from the data set): [MED 1 2 3 ]") != NULL,
           "while the run is paused, the TaLK view shows an inspected expression's windows (\"%s\")", fig->title);
    rf_session_watch_inspected(s, NULL);
}

static void check_close_during_run(RfWindow *win)
{
    RfSession *s = g_object_ref(rf_window_get_session(win));
    if (!tap_ok(rf_session_get_state(s) == RF_RUN_PAUSED, "a run is paused (from the checkpoint)")) {
        g_object_unref(s);
        return;
    }
    gpointer alive = win;
    g_object_add_weak_pointer(G_OBJECT(win), &alive);
    gtk_window_close(GTK_WINDOW(win));
    spin_for(0.2);
    GtkDialog *question = find_question(win);
    tap_ok(alive != NULL && question != NULL, "closing during a run asks before closing");
    if (question != NULL)
        gtk_dialog_response(question, GTK_RESPONSE_CANCEL);
    spin_for(0.2);
    if (!tap_ok(alive != NULL, "Cancel keeps the window")) {
        g_object_unref(s);
        return;
    }
    gtk_window_close(GTK_WINDOW(win));
    spin_for(0.2);
    question = find_question(win);
    if (question != NULL)
        gtk_dialog_response(question, GTK_RESPONSE_REJECT);
    tap_ok(spin_until(is_null, &alive, 30.0), "Close without saving closes the window");
    RfRunState st = rf_session_get_state(s);
    tap_ok(st != RF_RUN_RUNNING && st != RF_RUN_PAUSED, "the worker has stopped (state %d)", (int)st);
    if (alive != NULL)
        g_object_remove_weak_pointer(G_OBJECT(alive), &alive);
    g_object_unref(s);
}

static void check_no_display(const char *exe)
{
    if (exe == NULL) {
        tap_skip("without a display, rangefinder gui says how to train", "no rangefinder executable given");
        return;
    }
    g_auto(GStrv) env = g_get_environ();
    env = g_environ_unsetenv(env, "DISPLAY");
    env = g_environ_unsetenv(env, "WAYLAND_DISPLAY");
    const char *argv[] = {exe, "gui", NULL};
    g_autofree char *err = NULL;
    int status = 0;
    gboolean ran = g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status, NULL);
    tap_ok(ran && !g_spawn_check_wait_status(status, NULL) && err != NULL && strstr(err, "rangefinder train") != NULL,
           "without a display, rangefinder gui says how to train from the command line (rangefinder with no "
           "arguments trains: tests/test_cli.sh)");
}

/* --- the Run section's devices --- */

/* A stand-in GPU in core's device table (listing needs no executor), so
 * the list is seen with a GPU on a machine without one. */
static bool stand_in_count(int *n, rf_status *st)
{
    (void)st;
    *n = 1;
    return true;
}

static bool stand_in_describe(int i, char *name, size_t size, size_t *memory_bytes, rf_status *st)
{
    (void)i;
    (void)st;
    g_snprintf(name, size, "Stand-in GPU");
    *memory_bytes = (size_t)80 << 30;
    return true;
}

static const rf_device_backend stand_in_gpu = {RF_DEVICE_CUDA, "cuda", stand_in_count, stand_in_describe, NULL, NULL};

static char *item_text(GtkDropDown *d, guint i)
{
    GListModel *m = gtk_drop_down_get_model(d);
    return i < g_list_model_get_n_items(m) ? g_strdup(gtk_string_list_get_string(GTK_STRING_LIST(m), i))
                                            : g_strdup("(none)");
}

static void check_device_list(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    GtkWidget *editor = rf_config_panel_get_editor(rf_window_get_config_panel(win), "train.device");
    if (!tap_ok(GTK_IS_DROP_DOWN(editor), "train.device is chosen from a list of the devices found"))
        return;
    GtkDropDown *d = GTK_DROP_DOWN(editor);
    g_autofree char *cpu = item_text(d, 0), *gpu = item_text(d, 1);
    tap_ok(g_list_model_get_n_items(gtk_drop_down_get_model(d)) == 2 && g_str_has_prefix(cpu, "CPU (") &&
               strcmp(gpu, "cuda:0 · Stand-in GPU, 80.0 GiB") == 0 && gtk_drop_down_get_selected(d) == 0,
           "the list is the CPU and each GPU with its name and memory, the CPU chosen (\"%s\", \"%s\")", cpu, gpu);
    gtk_drop_down_set_selected(d, 1);
    gboolean to_gpu = strcmp(rf_session_get_config(s)->train.device, "cuda:0") == 0;
    gtk_drop_down_set_selected(d, 0);
    tap_ok(to_gpu && strcmp(rf_session_get_config(s)->train.device, "cpu") == 0,
           "choosing the GPU sets train.device = cuda:0, choosing the CPU sets it back");
    set_key(s, "train.device", "cuda:3");
    g_autofree char *absent = item_text(d, 2);
    tap_ok(gtk_drop_down_get_selected(d) == 2 && strcmp(absent, "cuda:3 (not on this machine)") == 0,
           "a config's device this machine lacks is shown as such (\"%s\")", absent);
    set_key(s, "train.device", "cpu");
}

static void remove_tree(const char *path)
{
    g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
        g_autofree char *child = g_build_filename(path, name, NULL);
        remove_tree(child);
    }
    g_remove(path);
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    gtk_disable_setlocale();
    check_no_display(argc > 1 ? argv[1] : NULL);
    if (!tap_ok(gtk_init_check(), "GTK opens the display"))
        return tap_done();

    g_autofree char *dir = g_dir_make_tmp("rf-gui-XXXXXX", NULL);
    g_autofree char *config = g_build_filename(dir, "small.ini", NULL);
    g_file_set_contents(config, small_config, -1, NULL);

    rf_device_register(&stand_in_gpu);
    RfApplication *app = rf_application_new(config);
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    rf_application_set_runs_dir(app, runs);   /* not the user's runs folder */
    /* Tests may run beside a workbench the user has open: stay out of its way. */
    g_application_set_flags(G_APPLICATION(app), G_APPLICATION_NON_UNIQUE);
    g_autoptr(GError) error = NULL;
    tap_ok(g_application_register(G_APPLICATION(app), NULL, &error), "the application registers");
    g_application_activate(G_APPLICATION(app));
    RfWindow *win = RF_WINDOW(gtk_application_get_active_window(GTK_APPLICATION(app)));
    if (!tap_ok(win != NULL, "activation opens the main window"))
        return tap_done();
    size_for_screenshots(win);
    RfSession *s = rf_window_get_session(win);

    tap_ok(rf_session_get_config(s)->model.dim == 32, "the window starts from the given config");
    tap_ok(spin_until(data_loaded, s, 120.0), "the data loads");

    /* Full attention: curves, attention maps, memory, the data. */
    show_page(win, "attention");
    if (train_to_the_end(win, "full attention")) {
        tap_ok(strstr(rf_window_get_status_text(win), "loss") != NULL, "the status line reports the loss (\"%s\")",
               rf_window_get_status_text(win));
        check_view(win, "training");
        check_view(win, "attention");
        check_attention_cells(win);
        check_view(win, "memory");
        check_view(win, "data");
        check_exports(win, dir);
        check_menu_dialogs(app, win);
        check_launch_dialog(win, dir);
    }
    check_large_attention_map(win);
    check_invalid_values(win);   /* leaves model.encoder = blrp */
    check_device_list(win);

    /* BLRP for the latent states, TaLK for its window bounds. */
    show_page(win, "latent");
    if (train_to_the_end(win, "BLRP")) {
        check_view(win, "latent");
        check_latent_cells(win);
        check_inspect_latent(win);
        check_run_vs_edits(win, dir);
    }
    set_key(s, "model.encoder", "talk");
    show_page(win, "talk");
    if (train_to_the_end(win, "TaLK")) {
        const char *status = rf_window_get_status_text(win);
        tap_ok(strstr(status, rf_choice_label("model.encoder", "talk")) != NULL && strstr(status, "next run") == NULL,
               "once the TaLK run starts, the status line names it and nothing is pending (\"%s\")", status);
        check_view(win, "talk");
    }
    check_view(win, "compare");

    g_autofree char *checkpoint = save_checkpoint(win, dir);
    load_checkpoint(win, dir, checkpoint);
    check_inspect_while_paused(win);
    check_close_during_run(win);

    g_application_quit(G_APPLICATION(app));
    g_object_unref(app);
    remove_tree(dir);
    return tap_done();
}
