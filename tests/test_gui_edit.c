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
 *   - an unbalanced edit is refused in one sentence under the field, and the
 *     last good input, its prediction and bars stay;
 *   - editing a data set sample makes an inspected copy ("edited sample 0")
 *     with predict's probabilities, and the data set's sample is unchanged.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: also writes
 * screenshot-edit.png (for docs/) and the window at 1024 x 600 and
 * 1920 x 1080. */
#include <math.h>
#include <string.h>

#include "../datasets/npy_read.h"

#include "../ui/figures/data_sample.h"
#include "../ui/inspect_input.h"
#include "../ui/view.h"
#include "figure_text.h"
#include "trained_view.h"

static const char typed[] = "[MAX 2 9 [MIN 4 7 ] 0 ]";
/* inserted after "[MAX " */
static const char inserted[] = "[MED 1 3 8 ] ";
static const char edited[] = "[MAX [MED 1 3 8 ] 2 9 [MIN 4 7 ] 0 ]";

/* `rangefinder predict --text`'s probabilities for `text`, as the bars
 * print them ("0.1234"); NULL when it failed. */
static GPtrArray *predict_text(const char *exe, const char *checkpoint, const char *text)
{
    const char *argv[] = {exe, "predict", "--checkpoint", checkpoint, "--text", text, NULL};
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
        tap_diag("predict failed: %s", err != NULL ? err : "");
        return NULL;
    }
    const char *p = strstr(out, "\"probabilities\":[");
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
    g_autoptr(GPtrArray) want = predict_text(exe, checkpoint, text);
    g_autoptr(GPtrArray) shown = bar_values(win);
    g_autofree char *w = listed(want), *s = listed(shown);
    tap_ok(same_strings(want, shown), "%s: the bars read predict's probabilities for \"%s\" (shown %s; predict %s)",
           what, text, s, w);
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
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
        tap_diag("inspect failed: %s", err != NULL ? err : "");
        return NULL;
    }
    rf_npy_array a;
    rf_status st = {0};
    if (!rf_npy_open(npy, &a, &st)) {
        tap_diag("%s", st.msg);
        return NULL;
    }
    GArray *values = g_array_new(FALSE, FALSE, sizeof(float));
    for (int64_t i = 0; i < a.count; i++) {
        float v = (float)rf_npy_value(&a, i);
        g_array_append_val(values, v);
    }
    rf_npy_close(&a);
    return values;
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

static void check(RfWindow *win, const char *exe, const char *dir)
{
    g_autofree char *checkpoint = save_model_for_cli(win, dir);
    check_edit_inspected(win, exe, checkpoint, dir);
    check_edit_sample(win, exe, checkpoint);
}

int main(int argc, char **argv)
{
    return trained_view_main(argc, argv, "editing an inspected input", before, check);
}
