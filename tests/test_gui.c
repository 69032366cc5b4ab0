/* The workbench for real, under Xvfb: the application opens a small ListOps
 * config, trains a few steps with each of full attention, BLRP and TaLK,
 * and every view is rendered offscreen and checked for drawn content (the
 * Attention and Latent views: every cell where the layout puts it); plots
 * export to PNG/SVG/PDF; a checkpoint saves and loads back with its config,
 * step and every tensor bit for bit; an invalid value is explained inline
 * and changes nothing; closing during a run asks first. Without a display
 * `rangefinder gui` says how to train from the command line. (Bad files
 * from outside are in test_gui_files.c, the Training figure's ranges and
 * curve controls in test_gui_curves.c, and each later workbench feature
 * has its own small test_gui_*.c.)
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
#include "../ui/figures/prediction_figure.h"
#include "../ui/figures/sample_figure.h"
#include "../ui/figures/talk_figure.h"
#include "../datasets/image_table.h"
#include "../ui/inspect_input.h"
#include "../ui/launch_dialog.h"
#include "../ui/launch_files.h"
#include "../config/config_file.h"
#include "../ui/plot/plot.h"
#include "../ui/view.h"
#include "../ui/window.h"
#include "figure_pixels.h"
#include "gui_fixtures.h"
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

static gboolean has_probes(gpointer s)
{
    return rf_session_get_probes(s) != NULL;
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

static void show_page(RfWindow *win, const char *page)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), page);
    /* Views refresh at most ten times a second: give them a few frames. */
    spin_for(0.5);
}

static void screenshot_of(GtkWidget *widget, const char *shot)
{
    const char *dir = g_getenv("RF_SCREENSHOT_DIR");
    if (dir == NULL)
        return;
    g_autoptr(GdkTexture) texture = render(widget);
    g_autofree char *name = g_strdup_printf("screenshot-%s.png", shot);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    tap_ok(texture != NULL && gdk_texture_save_to_png(texture, path), "screenshot %s", path);
}

static void screenshot(RfWindow *win, const char *shot)
{
    screenshot_of(GTK_WIDGET(win), shot);
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

static RfPlotView *plot_of(RfWindow *win, const char *page)
{
    return rf_view_get_plot(gtk_stack_get_child_by_name(rf_window_get_stack(win), page));
}

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
 * queries down, keys across; a sample shorter than the batch's longest has
 * masked key columns but no masked query rows, so a transposed map fails). */
static void check_attention_cells(RfWindow *win)
{
    const rf_probe_value *p = rf_session_find_probe(rf_window_get_session(win), "layer0.attn.probs");
    if (!tap_ok(p != NULL && p->shape.ndim == 3, "the attention snapshot holds layer 0's maps"))
        return;
    int n = (int)p->shape.dim[1];
    float hi = 0;
    for (int i = 0; i < n * n; i++)
        hi = p->data[i] > hi ? p->data[i] : hi;
    RfPlotView *plot = plot_of(win, "attention");
    cairo_surface_t *s = draw_plot(plot);
    int off = cells_off(s, gtk_widget_get_width(GTK_WIDGET(plot)) / 4, gtk_widget_get_height(GTK_WIDGET(plot)) / 2,
                        p->data, n, n, 0, hi, RF_COLORMAP_SEQUENTIAL);
    tap_ok(off == 0, "the Attention view puts every cell of head 0's %d x %d map in its place (%d of %d differ)", n,
           n, off, n * n);
    cairo_surface_destroy(s);
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

static gboolean train_to_the_end(RfWindow *win, const char *what)
{
    RfSession *s = rf_window_get_session(win);
    GAction *train = g_action_map_lookup_action(G_ACTION_MAP(win), "train");
    tap_ok(g_action_get_enabled(train), "win.train is enabled before the %s run", what);
    g_action_activate(train, NULL);
    gboolean settled = spin_until(run_settled, s, 300.0);
    if (!tap_ok(settled && rf_session_get_state(s) == RF_RUN_FINISHED, "the %s run finishes (%s)", what,
                rf_session_get_error(s) != NULL ? rf_session_get_error(s) : "no error"))
        return FALSE;
    tap_ok(rf_session_get_step(s) == rf_session_get_config(s)->train.steps, "the %s run reached step %d", what,
           rf_session_get_config(s)->train.steps);
    spin_until(has_probes, s, 20.0);
    spin_for(0.5);
    return TRUE;
}

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

/* A full-attention map of a million cells is prepared in a worker thread:
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
    map_wait wait = {s, plot, (int64_t)1 << 20};
    tap_ok(spin_until(map_current, &wait, 60.0), "the 1024 x 1024 map of the latest snapshot is prepared");
    const rf_attention_figure *f = rf_plot_view_get_figure(plot)->data;
    const rf_probe_value *p = rf_session_find_probe(s, "layer0.attn.probs");
    gboolean same = p != NULL && p->shape.ndim == 3 && f->layout == RF_ATTENTION_MATRIX && f->map == p->data &&
                    f->rows == p->shape.dim[1] && f->cols == p->shape.dim[2] && f->rows * f->cols >= 1 << 20;
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
    /* back to the small config */
    static const char *const restore[][2] = {
        {"data.task", "listops"}, {"data.min_len", "16"}, {"data.max_len", "64"}, {"data.batch", "16"},
        {"model.layers", "2"},    {"train.steps", "6"},   {"train.eval_every", "3"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(restore); i++)
        set_key(s, restore[i][0], restore[i][1]);
    spin_until(data_loaded, s, 120.0);
}

/* --- your own input through the model (issue 17 item 1) --- */

static gboolean inspected_count_is(gpointer data)
{
    return rf_session_get_inspected_count(data) >= 1;
}

/* The latest snapshot is of the first inspected input and holds `tap`. */
static const char *wanted_tap;
static gboolean probes_of_input(gpointer data)
{
    RfSession *s = data;
    return rf_session_get_probe_inspected(s) != NULL &&
           rf_session_get_probe_inspected(s) == rf_session_get_inspected(s, 0) &&
           rf_session_find_probe(s, wanted_tap) != NULL;
}

/* The watched input is the one named wanted_name. */
static const char *wanted_name;
static gboolean watching_named(gpointer data)
{
    const rf_inspected *in = rf_session_get_watched_inspected(data);
    return in != NULL && strcmp(in->name, wanted_name) == 0;
}

/* Pixels of the predicted class's bar colour (217, 94, 3) in a drawing. */
static int best_bar_pixels(cairo_surface_t *s)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), n = 0;
    int stride = cairo_image_surface_get_stride(s);
    const guint8 *d = cairo_image_surface_get_data(s);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            guint32 px = *(const guint32 *)(d + y * stride + x * 4);
            n += abs((int)((px >> 16) & 0xff) - 217) <= 2 && abs((int)((px >> 8) & 0xff) - 94) <= 2 &&
                 abs((int)(px & 0xff) - 3) <= 2;
        }
    return n;
}

/* A ListOps expression typed in: it lands in the Data view's Inspected list
 * with the model's class probabilities drawn, and the Attention view shows
 * its maps (9 tokens, where every sample of this data set has more than
 * 16); inputs the model cannot take end in an error dialog naming them and
 * change nothing. Needs a trained full-attention model. */
static void check_inspect_input(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    show_page(win, "training");
    rf_inspect_input(GTK_WINDOW(win), s, NULL, "[MAX 2 9 [MIN 4 7 ] 0 ]");
    gboolean added = spin_until(inspected_count_is, s, 30.0);
    const rf_inspected *in = rf_session_get_inspected(s, 0);
    tap_ok(added && in->len == 9 && strcmp(in->name, "[MAX 2 9 [MIN 4 7 ] 0 ]") == 0,
           "an outside ListOps expression is featurised (9 tokens) and listed");
    if (!added)
        return;
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    tap_ok(gtk_stack_get_visible_child(rf_window_get_stack(win)) == data, "the Data view comes up to show it");
    g_autoptr(GPtrArray) menus = g_ptr_array_new();
    collect(data, GTK_TYPE_DROP_DOWN, menus);
    gboolean listed = FALSE;
    for (guint i = 0; i < menus->len; i++) {
        GtkDropDown *d = g_ptr_array_index(menus, i);
        GObject *item = gtk_drop_down_get_selected_item(d);
        listed |= GTK_IS_STRING_OBJECT(item) && strcmp(gtk_string_object_get_string(GTK_STRING_OBJECT(item)),
                                                       "Inspected") == 0;
    }
    tap_ok(listed, "the Data view lists it under Inspected, beside the splits");
    wanted_tap = "logits";
    gboolean predicted = spin_until(probes_of_input, s, 30.0);
    spin_for(0.5);
    g_autoptr(GPtrArray) plots = g_ptr_array_new();
    collect(data, RF_TYPE_PLOT_VIEW, plots);
    RfPlotView *bars = plots->len == 2 ? g_ptr_array_index(plots, 1) : NULL;
    int count = bars != NULL ? rf_prediction_figure_count(rf_plot_view_get_figure(bars)->data) : 0;
    int orange = 0;
    if (bars != NULL && gtk_widget_get_visible(GTK_WIDGET(bars))) {
        cairo_surface_t *drawn = draw_plot(bars);
        orange = best_bar_pixels(drawn);
        cairo_surface_destroy(drawn);
    }
    tap_ok(predicted && count == 10 && orange > 20,
           "the model's prediction for it: 10 class probabilities drawn as bars (%d pixels of the predicted bar)",
           orange);
    screenshot(win, "inspect");

    show_page(win, "attention");
    wanted_tap = "layer0.attn.probs";
    gboolean mapped = spin_until(probes_of_input, s, 30.0);
    const rf_probe_value *p = rf_session_find_probe(s, "layer0.attn.probs");
    double outside = 0, row0 = 0;
    int n = p != NULL ? (int)p->shape.dim[1] : 0;
    for (int k = 0; mapped && k < n; k++) {
        row0 += p->data[k];
        if (k >= 9)
            outside += fabs(p->data[k]);
    }
    tap_ok(mapped && fabs(row0 - 1) < 1e-4 && outside == 0,
           "the Attention view's probes are of the inspected input: query 0 attends over its 9 tokens only");
    spin_for(0.3);
    const rf_attention_figure *fig = rf_plot_view_get_figure(plot_of(win, "attention"))->data;
    tap_ok(strstr(fig->title, "inspected (not from the data set): [MAX 2 9") != NULL, "the Attention view's title names it (\"%s\")",
           fig->title);

    g_autofree char *pictures = make_folder(dir, "inspect-pictures");
    write_pngs(pictures, 1, 90);
    g_autofree char *png = g_build_filename(pictures, "0.png", NULL);
    const struct {
        const char *path, *text, *why;
    } refused[] = {
        {NULL, "[MAX 2 foo ]", "unknown ListOps token 'foo'"},
        {png, NULL, "0.png is an image (png), but this listops model takes text"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
        rf_inspect_input(GTK_WINDOW(win), s, refused[i].path, refused[i].text);
        gboolean shown = spin_until(error_shown, (gpointer)refused[i].why, 30.0);
        tap_ok(shown && rf_session_get_inspected_count(s) == 1 &&
                   rf_session_get_watched_inspected(s) == rf_session_get_inspected(s, 0),
               "a refused input (%s) gives an error dialog with its sentence and changes nothing (%s)",
               refused[i].why, shown ? rf_dialog_last_error_detail() : "no dialog");
        close_all_dialogs(win);
    }
    /* what a drop on the window hands over: a list of files (a local text file, a remote one) */
    g_autofree char *expr = g_build_filename(dir, "expression.txt", NULL);
    g_file_set_contents(expr, "( [SM 1 2 [MAX 3 4 ] ] )\n", -1, NULL);
    GSList *files = g_slist_prepend(g_slist_prepend(NULL, g_file_new_for_uri("https://example.org/x.png")),
                                    g_file_new_for_path(expr));
    rf_inspect_files(GTK_WINDOW(win), s, files);
    g_slist_free_full(files, g_object_unref);
    gboolean remote = spin_until(error_shown, "not a local file", 10.0);
    close_all_dialogs(win);
    wanted_name = "expression.txt";
    tap_ok(spin_until(watching_named, s, 30.0) && rf_session_get_inspected_count(s) == 2 && remote,
           "dropped files: a text file is inspected, a remote one refused by name");

    /* Ctrl+V in the Data view inspects the clipboard's text */
    gdk_clipboard_set_text(gtk_widget_get_clipboard(data), "[SM 3 4 ]");
    gtk_widget_activate_action(data, "data.paste-inspect", NULL);
    wanted_name = "[SM 3 4 ]";
    tap_ok(spin_until(watching_named, s, 30.0) && rf_session_get_inspected_count(s) == 3,
           "Ctrl+V in the Data view inspects the clipboard's ListOps expression");

    /* a NumPy array of token ids dropped: the first expression's tokens */
    const rf_inspected *first = rf_session_get_inspected(s, 0);
    guint8 tokens[64];
    for (int i = 0; i < first->len && i < 64; i++)
        tokens[i] = (guint8)first->x[i];
    g_autofree char *shape = g_strdup_printf("(%d,)", first->len);
    write_npy_u1(dir, "tokens.npy", shape, tokens, (gsize)first->len);
    g_autofree char *npy = g_build_filename(dir, "tokens.npy", NULL);
    files = g_slist_prepend(NULL, g_file_new_for_path(npy));
    rf_inspect_files(GTK_WINDOW(win), s, files);
    g_slist_free_full(files, g_object_unref);
    wanted_name = "tokens.npy";
    gboolean arrived = spin_until(watching_named, s, 30.0);
    const rf_inspected *ids = rf_session_get_watched_inspected(s);
    tap_ok(arrived && ids->len == first->len && memcmp(ids->x, first->x, sizeof(float) * (size_t)ids->len) == 0,
           "a dropped .npy of token ids is inspected as those tokens (%d)", arrived ? ids->len : 0);
    rf_session_watch_inspected(s, NULL);
}

/* --- the Data view's prediction: the current model's, on the shown sample of the shown data set --- */

static gboolean dataset_is_random(gpointer s)
{
    return dataset_is(s, "random");
}

static gboolean dataset_is_listops(gpointer s)
{
    return dataset_is(s, "listops");
}

static guint probes_seen;

/* A snapshot of a test sample arrived since probes_seen was reset. */
static gboolean test_sample_seen(gpointer s)
{
    rf_split split;
    int64_t sample;
    rf_inspection info;
    return probes_seen > 0 && rf_session_get_probe_sample(s, &split, &sample, &info) && split == RF_SPLIT_TEST &&
           rf_session_get_probe_inspected(s) == NULL;
}

/* The Data view's class probability bars are shown. */
static gboolean bars_visible(GtkWidget *data)
{
    g_autoptr(GPtrArray) plots = g_ptr_array_new();
    collect(data, RF_TYPE_PLOT_VIEW, plots);
    return plots->len == 2 && gtk_widget_get_visible(g_ptr_array_index(plots, 1));
}

/* The drop-down under `root` that offers `entry`, and the entry's index. */
static GtkDropDown *drop_down_offering(GtkWidget *root, const char *entry, guint *index)
{
    g_autoptr(GPtrArray) menus = g_ptr_array_new();
    collect(root, GTK_TYPE_DROP_DOWN, menus);
    for (guint i = 0; i < menus->len; i++) {
        GListModel *m = gtk_drop_down_get_model(g_ptr_array_index(menus, i));
        for (guint k = 0; GTK_IS_STRING_LIST(m) && k < g_list_model_get_n_items(m); k++)
            if (strcmp(gtk_string_list_get_string(GTK_STRING_LIST(m), k), entry) == 0) {
                *index = k;
                return g_ptr_array_index(menus, i);
            }
    }
    return NULL;
}

static void count_probes(RfSession *s, gpointer data)
{
    (void)s;
    (void)data;
    probes_seen++;
}

static gboolean prediction_shown(gpointer fig)
{
    return rf_sample_figure_get_prediction(fig) != NULL;
}

/* Select the split's sample shown by the Data view as `split` (Train,
 * Validation, Test, Inspected). */
static void show_split(GtkWidget *data, const char *split)
{
    guint index = 0;
    GtkDropDown *menu = drop_down_offering(data, split, &index);
    if (menu != NULL)
        gtk_drop_down_set_selected(menu, index);
    spin_for(0.3);
}

/* The shown sample's prediction line says what the snapshot's logits say
 * of the shown sample: ✓ exactly when the largest logit is its label's,
 * and the loss is -log softmax(logits)[label]. */
static void check_prediction_text(RfWindow *win, const rf_sample_figure *fig, const char *what)
{
    RfSession *s = rf_window_get_session(win);
    const rf_dataset *ds = rf_session_get_dataset(s);
    rf_split split;
    int64_t sample;
    rf_inspection info;
    const rf_probe_value *logits = rf_session_find_probe(s, "logits");
    const char *text = rf_sample_figure_get_prediction(fig);
    if (!tap_ok(text != NULL && logits != NULL && rf_session_get_probe_sample(s, &split, &sample, &info),
                "%s: the Data view shows the model's prediction", what))
        return;
    float *x = g_new0(float, (size_t)ds->seq_len * MAX(1, ds->feat_dim));
    int len = 0, label = -1;
    rf_status st = {0};
    ds->get(ds, split, sample, x, &len, &label, &st);
    g_free(x);
    int n = (int)logits->shape.dim[0], best = 0;
    double mx = logits->data[0], sum = 0;
    for (int k = 1; k < n; k++)
        if (logits->data[k] > mx) {
            mx = logits->data[k];
            best = k;
        }
    for (int k = 0; k < n; k++)
        sum += exp(logits->data[k] - mx);
    double loss = log(sum) - (logits->data[label] - mx);
    const char *at = strstr(text, "loss ");
    double shown = at != NULL ? g_ascii_strtod(at + 5, NULL) : NAN;
    tap_ok(g_str_has_prefix(text, best == label ? "✓" : "✗") && fabs(shown - loss) <= 5e-3 * fabs(loss) + 1e-3,
           "%s: the mark compares the prediction (class %d) with the shown sample's label (%d) and the loss is "
           "its own (%.4g; \"%s\")", what, best, label, loss, text);
}

/* Switching the Data view to another data set (random tokens: also ten
 * classes) while the ListOps model is the current one shows no prediction,
 * however many snapshots the ListOps run sends; switching back to ListOps
 * (opened anew, with the run's data keys) brings it back. */
static void check_prediction_follows_data(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    rf_session_watch_inspected(s, NULL);
    show_page(win, "data");
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    show_split(data, "Test");
    const rf_sample_figure *fig = rf_plot_view_get_figure(plot_of(win, "data"))->data;
    spin_until(prediction_shown, (gpointer)fig, 30.0);
    check_prediction_text(win, fig, "ListOps sample, ListOps model");

    guint random_index = 0, listops_index = 0;
    GtkDropDown *tasks = drop_down_offering(data, "Random tokens", &random_index);
    drop_down_offering(data, "ListOps (generated)", &listops_index);
    if (!tap_ok(tasks != NULL, "the Data view offers Random tokens"))
        return;
    gulong handler = g_signal_connect(s, "probes-changed", G_CALLBACK(count_probes), NULL);
    gtk_drop_down_set_selected(tasks, random_index);
    gboolean opened = spin_until(dataset_is_random, s, 60.0);
    /* the model is asked again, for a sample of the random data's splits */
    probes_seen = 0;
    show_split(data, "Validation");
    show_split(data, "Test");
    gboolean snapshots = spin_until(test_sample_seen, s, 30.0);
    spin_for(0.5);
    tap_ok(opened && snapshots && rf_sample_figure_get_prediction(fig) == NULL && !bars_visible(data),
           "after switching the data set to random tokens, the ListOps model's snapshots (%u) show no prediction "
           "(\"%s\")", probes_seen, rf_sample_figure_get_prediction(fig) != NULL ? rf_sample_figure_get_prediction(fig)
                                                                             : "none");
    gtk_drop_down_set_selected(tasks, listops_index);
    opened = spin_until(dataset_is_listops, s, 60.0);
    show_split(data, "Test");
    gboolean back = opened && spin_until(prediction_shown, (gpointer)fig, 30.0);
    g_signal_handler_disconnect(s, handler);
    if (tap_ok(back, "switching back to ListOps brings the model's prediction back"))
        check_prediction_text(win, fig, "ListOps again");
    /* A new run's model has not seen the sample: the last run's prediction
     * goes as the run starts, before any snapshot of the new model. */
    g_action_activate(g_action_map_lookup_action(G_ACTION_MAP(win), "train"), NULL);
    tap_ok(back && rf_sample_figure_get_prediction(fig) == NULL && !bars_visible(data),
           "starting a new run clears the last run's prediction at once");
    spin_until(run_settled, s, 300.0);
}

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

static gboolean dataset_is_audio(gpointer s)
{
    return dataset_is(s, "audio_folder");
}

static gboolean dataset_is_fashion(gpointer s)
{
    return dataset_is(s, "fashion_mnist");
}

/* A test sample of the trained Fashion-MNIST model, written as PNG. */
static void inspect_picture(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    const rf_dataset *ds = rf_session_get_dataset(s);
    int h, w, c;
    const uint8_t *pixels = rf_image_pixels(ds, RF_SPLIT_TEST, 0, &h, &w, &c);
    g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            memset(gdk_pixbuf_get_pixels(pb) + y * gdk_pixbuf_get_rowstride(pb) + x * 3, pixels[y * w + x], 3);
    g_autofree char *png = g_build_filename(dir, "test-sample-0.png", NULL);
    gdk_pixbuf_save(pb, png, "png", NULL, NULL);
    rf_inspect_input(GTK_WINDOW(win), s, png, NULL);
    wanted_name = "test-sample-0.png";
    gboolean added = spin_until(watching_named, s, 30.0);
    const rf_inspected *in = rf_session_get_watched_inspected(s);
    float *x = g_new0(float, (size_t)ds->seq_len * ds->feat_dim);
    int len = 0, label = 0;
    rf_status st = {0};
    ds->get(ds, RF_SPLIT_TEST, 0, x, &len, &label, &st);
    tap_ok(added && in->len == len && memcmp(in->x, x, sizeof(float) * (size_t)len * ds->feat_dim) == 0,
           "a test image written as PNG is featurised as its sample (16 patches of 7 x 7)");
    g_free(x);
    wanted_tap = "logits";
    gboolean predicted = spin_until(probes_of_input, s, 30.0);
    spin_for(0.5);
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    g_autoptr(GPtrArray) plots = g_ptr_array_new();
    collect(data, RF_TYPE_PLOT_VIEW, plots);
    RfPlotView *bars = plots->len == 2 ? g_ptr_array_index(plots, 1) : NULL;
    int orange = 0;
    if (bars != NULL) {
        cairo_surface_t *drawn = draw_plot(bars);
        orange = best_bar_pixels(drawn);
        cairo_surface_destroy(drawn);
    }
    tap_ok(predicted && orange > 20, "its prediction is drawn over the ten Fashion-MNIST classes");
    screenshot(win, "inspect-image");
    show_page(win, "attention");
    wanted_tap = "layer0.attn.probs";
    tap_ok(spin_until(probes_of_input, s, 30.0), "the Attention view's probes are of the inspected picture");
    rf_inspect_input(GTK_WINDOW(win), s, NULL, "[MAX 1 2 ]");
    gboolean refused = spin_until(error_shown, "is text, but this fashion_mnist model takes an image file", 30.0);
    tap_ok(refused && rf_session_get_inspected_count(s) == 1, "text for the image model is refused by the dialog (%s)",
           refused ? rf_dialog_last_error_detail() : "none");
    close_all_dialogs(win);
    rf_session_watch_inspected(s, NULL);
}

/* An audio model trained on a folder of tones: one of its clips dropped on
 * the window is featurised as the model's input and classified. */
static void check_inspect_audio(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *root = write_audio_folder(s, dir);
    rf_window_open_data_path(win, root);
    gboolean opened = spin_until(dataset_is_audio, s, 60.0);
    if (!tap_ok(opened, "the audio folder opens") || !train_to_the_end(win, "an audio model"))
        return;
    g_autofree char *clip = g_build_filename(root, "high", "1.wav", NULL);
    GSList *files = g_slist_prepend(NULL, g_file_new_for_path(clip));
    rf_inspect_files(GTK_WINDOW(win), s, files);
    g_slist_free_full(files, g_object_unref);
    wanted_name = "1.wav";
    gboolean added = spin_until(watching_named, s, 30.0);
    const rf_inspected *in = rf_session_get_watched_inspected(s);
    tap_ok(added && in->feat_dim == 16 && in->len > 0,
           "a WAV dropped on the window is featurised as the audio model's input (%d frames of 16 mel bins)",
           added ? in->len : 0);
    wanted_tap = "logits";
    tap_ok(spin_until(probes_of_input, s, 30.0), "and classified: the model's probes are of the dropped clip");
    rf_session_watch_inspected(s, NULL);
}

/* A picture through a Fashion-MNIST model: a test sample written as PNG is
 * featurised to that sample, predicted with the ten class names drawn
 * whole, and its attention shown; text is refused. */
static void check_inspect_image(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    const char *keys[][2] = {{"data.task", "fashion_mnist"}, {"data.path", ""},         {"data.patch", "7"},
                             {"data.train_size", "64"},      {"data.val_size", "16"},  {"data.test_size", "16"},
                             {"model.encoder", "full"},      {"train.steps", "2"}};
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
        set_key(s, keys[i][0], keys[i][1]);
    rf_window_reload_data(win);
    gboolean opened = spin_until(dataset_is_fashion, s, 120.0);
    if (opened && train_to_the_end(win, "Fashion-MNIST"))
        inspect_picture(win, dir);
    else if (!opened)
        tap_skip("an image inspected through a Fashion-MNIST model", "Fashion-MNIST does not open here: %s",
                 rf_dialog_last_error_detail());
    close_all_dialogs(win);
    set_key(s, "data.patch", "0");
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
    /* The screenshots' size, 1600x1000, inside the window's frame. */
    gtk_window_set_default_size(GTK_WINDOW(win), 1600, 1000);
    spin_for(0.3);
    gtk_window_set_default_size(GTK_WINDOW(win), 3200 - gtk_widget_get_width(GTK_WIDGET(win)),
                                2000 - gtk_widget_get_height(GTK_WIDGET(win)));
    gtk_stack_set_transition_type(rf_window_get_stack(win), GTK_STACK_TRANSITION_TYPE_NONE);
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
        check_inspect_input(win, dir);
        check_prediction_follows_data(win);
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
    check_inspect_image(win, dir);
    check_inspect_audio(win, dir);
    load_checkpoint(win, dir, checkpoint);
    check_inspect_while_paused(win);
    check_close_during_run(win);

    g_application_quit(G_APPLICATION(app));
    g_object_unref(app);
    remove_tree(dir);
    return tap_done();
}
