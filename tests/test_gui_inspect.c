/* Your own inputs through the workbench's model (issue 17 item 1), under
 * Xvfb: a typed ListOps expression lands in the Data view with its class
 * probabilities and attention maps, and inputs the model cannot take are
 * refused in a dialog; the Data view's prediction follows the shown sample
 * and split; a picture goes through a Fashion-MNIST model and a WAV clip
 * through an audio model. (Split out of test_gui.c; BLRP's latent states of
 * an input and inspection while paused stay there, beside the runs they
 * need.)
 *
 * RF_SCREENSHOT_DIR set: also write screenshot-inspect.png and
 * screenshot-inspect-image.png of the whole window there.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "../datasets/image_table.h"
#include "../ui/dialogs.h"
#include "../ui/figures/attention_figure.h"
#include "../ui/figures/prediction_figure.h"
#include "../ui/figures/sample_figure.h"
#include "../ui/inspect_input.h"
#include "../ui/plot/plot.h"
#include "figure_pixels.h"
#include "gui_fixtures.h"
#include "gui_steps.h"
#include "view_drawing.h"
#include "workbench_app.h"

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
    int cls = fig->n_names - 9;   /* the model's CLS, when it has one */
    tap_ok((cls == 0 || cls == 1) && fig->rows == fig->n_names && fig->cols == fig->n_names &&
               strcmp(fig->names[cls], "[MAX") == 0 && strcmp(fig->names[fig->n_names - 1], "]") == 0,
           "the map is the input's own %d positions of the batch's %d, named by its tokens (%d x %d shown)",
           fig->n_names, n, fig->rows, fig->cols);

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

int main(int argc, char **argv)
{
    (void)argc;
    application_kernels(argv);
    g_autofree char *dir = g_dir_make_tmp("rf-gui-inspect-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    size_for_screenshots(win);
    show_page(win, "attention");
    if (train_to_the_end(win, "full attention")) {
        check_inspect_input(win, dir);
        check_prediction_follows_data(win);
    }
    check_inspect_image(win, dir);
    check_inspect_audio(win, dir);
    close_workbench(win, app);
    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
    tap_ok(system(rm) == 0, "the test folder is removed");
    return tap_done();
}
