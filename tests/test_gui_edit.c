/* Edit and re-run in the Data view of the real application under Xvfb,
 * against `rangefinder predict` on the same model: a tiny ListOps run
 * (tests/trained_view.h) is trained to its end and saved; then
 *   - a typed expression is inspected and the Data view shows its text in
 *     the edit field;
 *   - text inserted into the field's buffer (as typing does) replaces the
 *     input in place (still one inspected input, named by the new text)
 *     and the probability bars then read predict's probabilities for the
 *     edited text, class by class, to the digit shown;
 *   - with the Attribution check button on, the Data view draws the edited
 *     input's gradient × input, position by position
 *     `rangefinder inspect --text EDITED --attribution grad-input`'s;
 *   - the Attention view's maps are then of the edited input (14 tokens);
 *   - an unbalanced edit is refused in one sentence under the field, and the
 *     last good input, its prediction and bars stay;
 *   - editing a data set sample makes an inspected copy ("edited sample 0")
 *     with predict's probabilities, and the data set's sample is unchanged;
 *   - on a Fashion-MNIST model (7 x 7 patches, trained 2 steps): a drag
 *     over test picture #0, emitted on the plot's occlusion gesture between
 *     two points whose pixels the plot's read-out names, adds a copy whose
 *     features are the test's own copy of the sample with those pixels
 *     zeroed (the attribution's baseline), and the bars read `rangefinder
 *     predict`'s probabilities for that array written as .npy; the
 *     prediction line says "was → now"; Clear Occlusion shows test #0 again.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: also writes
 * screenshot-edit.png and screenshot-occlude.png (for docs/) and the
 * window at 1024 x 600 and 1920 x 1080. */
#include <math.h>
#include <string.h>

#include "../ui/figures/data_sample.h"
#include "../ui/inspect_input.h"
#include "../ui/view.h"
#include "cli_output.h"
#include "figure_text.h"
#include "gui_fixtures.h"
#include "trained_view.h"

static const char typed[] = "[MAX 2 9 [MIN 4 7 ] 0 ]";
/* inserted after "[MAX " */
static const char inserted[] = "[MED 1 3 8 ] ";
static const char edited[] = "[MAX [MED 1 3 8 ] 2 9 [MIN 4 7 ] 0 ]";

/* `rangefinder predict`'s probabilities for `input` (option "--text" with a
 * text, or "--" with a file), as the bars print them ("0.1234"); NULL when
 * it failed. */
static GPtrArray *predict(const char *exe, const char *checkpoint, const char *option, const char *input)
{
    const char *argv[] = {exe, "predict", "--checkpoint", checkpoint, option, input, NULL};
    g_autofree char *out = cli_run(argv);
    const char *p = out != NULL ? strstr(out, "\"probabilities\":[") : NULL;
    if (p == NULL)
        return NULL;
    GPtrArray *probs = g_ptr_array_new_with_free_func(g_free);
    for (const char *at = p + strlen("\"probabilities\":["); *at != ']' && *at != '\0';) {
        char *next = NULL;
        double v = g_ascii_strtod(at, &next);
        if (next == at)
            break;
        g_ptr_array_add(probs, g_strdup_printf("%.4f", v));
        at = *next == ',' ? next + 1 : next;
    }
    return probs;
}

/* The numbers the probability bars print ("0.1234", one a class, in order). */
static GPtrArray *bar_values(RfWindow *win)
{
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    g_autoptr(GPtrArray) plots = g_ptr_array_new();
    collect(data, RF_TYPE_PLOT_VIEW, plots);
    RfPlotView *bars = plots->len == 2 ? g_ptr_array_index(plots, 1) : NULL;
    GPtrArray *values = g_ptr_array_new_with_free_func(g_free);
    if (bars == NULL || !gtk_widget_get_visible(GTK_WIDGET(bars)))
        return values;
    g_autoptr(GPtrArray) texts = figure_texts(bars);
    for (guint i = 0; i < texts->len; i++) {
        const char *t = g_ptr_array_index(texts, i);
        if (strlen(t) == 6 && g_ascii_isdigit(t[0]) && t[1] == '.' && strspn(t + 2, "0123456789") == 4)
            g_ptr_array_add(values, g_strdup(t));
    }
    return values;
}

static gboolean same_strings(const GPtrArray *a, const GPtrArray *b)
{
    if (a == NULL || b == NULL || a->len != b->len || a->len == 0)
        return FALSE;
    for (guint i = 0; i < a->len; i++)
        if (strcmp(g_ptr_array_index(a, i), g_ptr_array_index(b, i)) != 0)
            return FALSE;
    return TRUE;
}

static char *listed(const GPtrArray *a)
{
    if (a == NULL)
        return g_strdup("none");
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < a->len; i++)
        g_string_append_printf(s, i > 0 ? " %s" : "%s", (const char *)g_ptr_array_index(a, i));
    return g_string_free(s, FALSE);
}

/* The bars read predict's probabilities for `text`. */
static void check_bars_read_predict(RfWindow *win, const char *exe, const char *checkpoint, const char *text,
                                    const char *what)
{
    g_autoptr(GPtrArray) want = predict(exe, checkpoint, "--text", text);
    g_autoptr(GPtrArray) shown = bar_values(win);
    g_autofree char *w = listed(want), *s = listed(shown);
    tap_ok(same_strings(want, shown), "%s: the bars read predict's probabilities for \"%s\" (shown %s; predict %s)",
           what, text, s, w);
}

/* The same for a file given to predict. */
static void check_bars_read_predict_input(RfWindow *win, const char *exe, const char *checkpoint, const char *path,
                                          const char *what)
{
    g_autoptr(GPtrArray) want = predict(exe, checkpoint, "--", path);
    g_autoptr(GPtrArray) shown = bar_values(win);
    g_autofree char *w = listed(want), *s = listed(shown);
    tap_ok(same_strings(want, shown), "%s: the bars read predict's probabilities for %s (shown %s; predict %s)", what,
           path, s, w);
}

/* The latest snapshot is of the watched input and that input's text is wanted_text. */
static const char *wanted_text;
static gboolean snapshot_of_text(gpointer data)
{
    RfSession *s = data;
    const rf_inspected *in = rf_session_get_probe_inspected(s);
    return in != NULL && in == rf_session_get_watched_inspected(s) && g_strcmp0(in->text, wanted_text) == 0 &&
           rf_session_find_probe(s, "logits") != NULL;
}

static gboolean widget_shown(gpointer widget)
{
    return gtk_widget_get_visible(widget);
}

static GtkTextBuffer *edit_buffer(RfWindow *win)
{
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    return gtk_text_view_get_buffer(GTK_TEXT_VIEW(find_named(data, "data-edit")));
}

static char *buffer_text(GtkTextBuffer *buffer)
{
    GtkTextIter start, end;
    gtk_text_buffer_get_bounds(buffer, &start, &end);
    return gtk_text_buffer_get_text(buffer, &start, &end, FALSE);
}

/* Insert `text` at character `offset` of the field, as typing does. */
static void insert_at(GtkTextBuffer *buffer, int offset, const char *text)
{
    GtkTextIter at;
    gtk_text_buffer_get_iter_at_offset(buffer, &at, offset);
    gtk_text_buffer_insert_interactive(buffer, &at, text, -1, TRUE);
}

/* `rangefinder inspect --attribution grad-input` of `text`: its values, or NULL. */
static GArray *cli_grad_input(const char *exe, const char *checkpoint, const char *text, const char *npy)
{
    const char *argv[] = {exe, "inspect", "--checkpoint", checkpoint, "--text", text, "--attribution", "grad-input",
                          "--out", npy, NULL};
    g_autofree char *out = cli_run(argv);
    return out != NULL ? npy_values(npy) : NULL;
}

static gboolean overlay_of_len(gpointer data)
{
    int len = 0;
    return rf_data_view_attribution(data, &len) != NULL && len == GPOINTER_TO_INT(g_object_get_data(data, "want-len"));
}

/* The overlay drawn over the edited input is the CLI's gradient × input. */
static void check_overlay(RfWindow *win, const char *exe, const char *checkpoint, const char *dir)
{
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    gtk_check_button_set_active(GTK_CHECK_BUTTON(find_named(data, "data-attribution")), TRUE);
    g_autofree char *npy = g_build_filename(dir, "edited.npy", NULL);
    g_autoptr(GArray) want = cli_grad_input(exe, checkpoint, edited, npy);
    g_object_set_data(G_OBJECT(data), "want-len", GINT_TO_POINTER(want != NULL ? (int)want->len : -1));
    gboolean drawn = spin_until(overlay_of_len, data, 30.0);
    int len = 0;
    const float *values = rf_data_view_attribution(data, &len);
    double scale = 0, worst = 0;
    for (guint i = 0; want != NULL && i < want->len; i++)
        scale = fmax(scale, fabs(g_array_index(want, float, i)));
    for (int i = 0; drawn && i < len; i++)
        worst = fmax(worst, fabs(values[i] - g_array_index(want, float, i)));
    tap_ok(drawn && scale > 0 && worst <= 1e-4 * scale,
           "the overlay draws the edited input's gradient × input: %d values, the CLI's within %.2g (largest %.3g)",
           drawn ? len : 0, worst, scale);
}

/* The Attention view's maps are of the edited input: query 0 attends over
 * its 14 tokens only (the typed one had 9). */
static void check_maps_follow(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    show_page(win, "attention");
    wanted_tap = "layer0.attn.probs";
    gboolean mapped = spin_until(probes_of_input, s, 30.0);
    const rf_probe_value *p = rf_session_find_probe(s, "layer0.attn.probs");
    const rf_inspected *of = rf_session_get_probe_inspected(s);
    int n = mapped && p != NULL ? (int)p->shape.dim[1] : 0, attended = 0;
    double row0 = 0;
    for (int k = 0; k < n; k++) {
        row0 += p->data[k];
        attended += p->data[k] != 0;
    }
    tap_ok(mapped && of != NULL && g_strcmp0(of->text, edited) == 0 && fabs(row0 - 1) < 1e-4 && attended == 14,
           "the Attention view's maps are of the edited input: query 0 attends over %d tokens", attended);
    show_page(win, "data");
    spin_for(0.3);
}

static void before(RfWindow *win)
{
    (void)win;
}

static void check_edit_inspected(RfWindow *win, const char *exe, const char *checkpoint, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    rf_inspect_input(GTK_WINDOW(win), s, NULL, typed);
    wanted_text = typed;
    gboolean shown = spin_until(snapshot_of_text, s, 30.0);
    spin_for(0.3);
    GtkTextBuffer *buffer = edit_buffer(win);
    g_autofree char *in_field = buffer_text(buffer);
    tap_ok(shown && strcmp(in_field, typed) == 0, "the typed expression is shown in the Data view's edit field "
           "(\"%s\")", in_field);
    check_bars_read_predict(win, exe, checkpoint, typed, "before the edit");

    insert_at(buffer, 5, inserted);
    wanted_text = edited;
    gboolean rerun = spin_until(snapshot_of_text, s, 30.0);
    spin_for(0.3);
    const rf_inspected *in = rf_session_get_watched_inspected(s);
    tap_ok(rerun && rf_session_get_inspected_count(s) == 1 && strcmp(in->name, edited) == 0,
           "the edit replaces the input in place: %u inspected, watched \"%s\"", rf_session_get_inspected_count(s),
           in != NULL ? in->name : "none");
    check_bars_read_predict(win, exe, checkpoint, edited, "after the edit");
    check_overlay(win, exe, checkpoint, dir);
    view_screenshots(win, "edit");
    check_maps_follow(win);

    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    GtkWidget *error = find_named(data, "data-edit-error");
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(buffer, &end);
    gtk_text_buffer_insert_interactive(buffer, &end, " [MIN 3", -1, TRUE);
    gboolean refused = spin_until(widget_shown, error, 10.0);
    spin_for(0.3);
    const char *said = gtk_label_get_text(GTK_LABEL(error));
    tap_ok(refused && g_str_has_prefix(said, "the text '[MAX [MED") && strstr(said, "well-formed") != NULL,
           "an unbalanced edit is refused under the field in the featuriser's sentence (\"%s\")", said);
    in = rf_session_get_watched_inspected(s);
    tap_ok(rf_session_get_inspected_count(s) == 1 && in != NULL && strcmp(in->text, edited) == 0 &&
               snapshot_of_text(s),
           "the last good input stays watched with its prediction (\"%s\")", in != NULL ? in->text : "none");
    check_bars_read_predict(win, exe, checkpoint, edited, "after the refused edit");
}

static gboolean watching_edited_sample(gpointer data)
{
    const rf_inspected *in = rf_session_get_watched_inspected(data);
    return in != NULL && strcmp(in->name, "edited sample 0") == 0;
}

static char *test_sample_text(RfSession *s)
{
    const rf_dataset *ds = rf_session_get_dataset(s);
    float x[64];
    int len = 0, label = 0;
    rf_status st = {0};
    if (ds->seq_len > 64 || !ds->get(ds, RF_SPLIT_TEST, 0, x, &len, &label, &st))
        return NULL;
    return rf_data_sample_text(ds, NULL, x, len);
}

static void check_edit_sample(RfWindow *win, const char *exe, const char *checkpoint)
{
    RfSession *s = rf_window_get_session(win);
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    rf_data_view_show_sample(data, RF_SPLIT_TEST, 0);
    spin_for(0.3);
    g_autofree char *before_edit = test_sample_text(s);
    GtkTextBuffer *buffer = edit_buffer(win);
    g_autofree char *in_field = buffer_text(buffer);
    tap_ok(before_edit != NULL && strcmp(in_field, before_edit) == 0,
           "a data set sample's expression is shown in the edit field (\"%s\")", in_field);
    /* one more digit before the outermost "]" */
    insert_at(buffer, (int)g_utf8_strlen(in_field, -1) - 1, "5 ");
    g_autofree char *text = buffer_text(buffer);
    gboolean copied = spin_until(watching_edited_sample, s, 30.0);
    wanted_text = text;
    gboolean rerun = copied && spin_until(snapshot_of_text, s, 30.0);
    spin_for(0.3);
    guint selected, split;
    data_view_selection(win, &selected, &split);
    tap_ok(rerun && rf_session_get_inspected_count(s) == 2 && split == RF_SPLIT_COUNT && selected == 1,
           "editing test sample #0 makes an inspected copy, \"edited sample 0\", shown in the Inspected list "
           "(%u inspected; split %u, row %u)", rf_session_get_inspected_count(s), split, selected);
    check_bars_read_predict(win, exe, checkpoint, text, "the edited copy");
    g_autofree char *after_edit = test_sample_text(s);
    tap_ok(g_strcmp0(before_edit, after_edit) == 0, "the data set's sample is unchanged");
}

/* --- occluding a picture --- */

static gboolean dataset_is_fashion(gpointer s)
{
    return dataset_is(s, "fashion_mnist");
}

/* x (rows x cols floats) as a float32 .npy. */
static gboolean write_npy(const char *path, const float *x, int rows, int cols)
{
    g_autofree char *dict = g_strdup_printf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows,
                                            cols);
    size_t header = 10 + strlen(dict) + 1, pad = (64 - header % 64) % 64;
    GString *out = g_string_new_len("\x93NUMPY\x01\x00", 8);
    guint16 hlen = GUINT16_TO_LE((guint16)(strlen(dict) + pad + 1));
    g_string_append_len(out, (const char *)&hlen, 2);
    g_string_append(out, dict);
    for (size_t i = 0; i < pad; i++)
        g_string_append_c(out, ' ');
    g_string_append_c(out, '\n');
    g_string_append_len(out, (const char *)x, (gssize)((size_t)rows * cols * sizeof *x));
    gboolean ok = g_file_set_contents(path, out->str, (gssize)out->len, NULL);
    g_string_free(out, TRUE);
    return ok;
}

/* The pixel the plot's read-out names at widget point (x, y) ("row 12, col 3: ..."). */
static gboolean readout_pixel(RfPlotView *plot, double x, double y, int *row, int *col)
{
    const rf_figure *f = rf_plot_view_get_figure(plot);
    rf_zoom z = rf_plot_view_get_zoom(plot);
    char text[256] = "";
    return f->hover(f->data, gtk_widget_get_width(GTK_WIDGET(plot)), gtk_widget_get_height(GTK_WIDGET(plot)), &z, x,
                    y, text, sizeof text) &&
           sscanf(text, "row %d, col %d", row, col) == 2;
}

static GtkEventController *named_controller(GtkWidget *widget, const char *name)
{
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(widget);
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GtkEventController) c = g_list_model_get_item(controllers, i);
        if (g_strcmp0(gtk_event_controller_get_name(c), name) == 0)
            return c;   /* the widget holds it */
    }
    return NULL;
}

static gboolean watching_occluded(gpointer data)
{
    const rf_inspected *in = rf_session_get_watched_inspected(data);
    return in != NULL && strstr(in->name, "occluded") != NULL;
}

static gboolean shows_prediction(gpointer fig)
{
    return rf_sample_figure_get_prediction(fig) != NULL;
}

static void occlude_picture(RfWindow *win, const char *exe, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    const rf_dataset *ds = rf_session_get_dataset(s);
    g_autofree char *checkpoint = g_build_filename(dir, "fashion.safetensors", NULL);
    g_autoptr(GError) error = NULL;
    tap_ok(rf_session_save_checkpoint(s, checkpoint, &error), "the Fashion-MNIST model is saved for the CLI");
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    show_page(win, "data");
    rf_data_view_show_sample(data, RF_SPLIT_TEST, 0);
    RfPlotView *plot = RF_PLOT_VIEW(find_named(data, "data-sample"));
    const rf_sample_figure *fig = rf_plot_view_get_figure(plot)->data;
    spin_until(shows_prediction, (gpointer)fig, 30.0);
    spin_for(0.3);
    g_autofree char *before = g_strdup(rf_sample_figure_get_prediction(fig));

    double w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    double x0 = w * 0.45, y0 = h * 0.45, dx = w * 0.08, dy = h * 0.12;
    int r0 = -1, c0 = -1, r1 = -1, c1 = -1;
    gboolean on_picture = readout_pixel(plot, x0, y0, &r0, &c0) && readout_pixel(plot, x0 + dx, y0 + dy, &r1, &c1);
    tap_ok(on_picture && r1 > r0 && c1 > c0, "both ends of the drag are on the picture: (%d, %d) to (%d, %d)", r0, c0,
           r1, c1);
    GtkEventController *drag = named_controller(GTK_WIDGET(plot), "occlude");
    if (!tap_ok(drag != NULL && on_picture, "the plot has the occlusion drag"))
        return;
    g_signal_emit_by_name(drag, "drag-begin", x0, y0);
    g_signal_emit_by_name(drag, "drag-update", dx, dy);
    g_signal_emit_by_name(drag, "drag-end", dx, dy);
    gboolean copied = spin_until(watching_occluded, s, 10.0);
    wanted_tap = "logits";
    gboolean predicted = copied && spin_until(probes_of_input, s, 30.0);
    spin_for(0.3);

    /* the test's own occlusion: 7 x 7 gray patches, pixel (r, c) at feature (r % 7) * 7 + c % 7 of token (r / 7) * 4 + c / 7 */
    float *x = g_new0(float, (size_t)ds->seq_len * ds->feat_dim);
    int len = 0, label = 0;
    rf_status st = {0};
    ds->get(ds, RF_SPLIT_TEST, 0, x, &len, &label, &st);
    for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++)
            x[(size_t)((r / 7) * 4 + c / 7) * ds->feat_dim + (r % 7) * 7 + c % 7] = 0.0f;
    const rf_inspected *in = rf_session_get_watched_inspected(s);
    tap_ok(predicted && in->len == len && memcmp(in->x, x, sizeof(float) * (size_t)len * ds->feat_dim) == 0,
           "the copy \"%s\" is test #0 with rows %d-%d x columns %d-%d zeroed", in != NULL ? in->name : "none", r0, r1,
           c0, c1);
    g_autofree char *npy = g_build_filename(dir, "occluded.npy", NULL);
    tap_ok(write_npy(npy, x, len, ds->feat_dim), "the test's occluded picture is written as %s", npy);
    check_bars_read_predict_input(win, exe, checkpoint, npy, "the occluded picture");
    const char *now = rf_sample_figure_get_prediction(fig);
    tap_ok(now != NULL && strstr(now, "→") != NULL, "the prediction line says was → now (\"%s\"; before: \"%s\")",
           now != NULL ? now : "none", before);
    view_screenshots(win, "occlude");
    GtkWidget *clear = find_named(data, "data-clear-occlusion");
    tap_ok(gtk_widget_get_visible(clear), "Clear Occlusion is offered for the occluded copy");
    g_signal_emit_by_name(clear, "clicked");
    spin_for(0.3);
    guint selected, split;
    data_view_selection(win, &selected, &split);
    tap_ok(selected == 0 && split == RF_SPLIT_TEST && !gtk_widget_get_visible(clear),
           "Clear Occlusion shows test #0 again (split %u, row %u)", split, selected);
    g_free(x);
}

static void check_occlusion(RfWindow *win, const char *exe, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    const char *keys[][2] = {{"data.task", "fashion_mnist"}, {"data.path", ""},        {"data.patch", "7"},
                             {"data.train_size", "64"},      {"data.val_size", "16"}, {"data.test_size", "16"},
                             {"train.steps", "2"}};
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
        set_key(s, keys[i][0], keys[i][1]);
    rf_window_reload_data(win);
    if (!spin_until(dataset_is_fashion, s, 120.0)) {
        tap_skip("occluding a Fashion-MNIST picture", "Fashion-MNIST does not open here: %s",
                 rf_dialog_last_error_detail());
        close_all_dialogs(win);
        return;
    }
    if (train_to_the_end(win, "Fashion-MNIST"))
        occlude_picture(win, exe, dir);
}

static void check(RfWindow *win, const char *exe, const char *dir)
{
    g_autofree char *checkpoint = save_model_for_cli(win, dir);
    check_edit_inspected(win, exe, checkpoint, dir);
    check_edit_sample(win, exe, checkpoint);
    check_occlusion(win, exe, dir);
}

int main(int argc, char **argv)
{
    return trained_view_main(argc, argv, "editing an inspected input", before, check);
}
