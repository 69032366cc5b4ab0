/* The Data view: pick a data set, browse its samples by split, see one as
 * what it is (picture, waveform + spectrogram with playback, ListOps
 * expression, a text's bytes, series) in an RfPlotView that zooms, reads
 * out and exports.
 *
 * Choosing a data set switches data.task (and data.path, through a folder
 * chooser for the file-backed tasks: data_set_picker.h) and the session
 * opens it; it answers with "data-changed", or "run-failed" whose message
 * the window shows as a dialog. Samples show only while the loaded data
 * set is the one the config names: loading, failed or not yet opened, the
 * view is empty and its status line says why. Splits the data made shorter
 * than asked are named in a line under the toolbar.
 *
 * Beside the splits, "Inspected" lists the inputs from outside the data set
 * (File → Inspect File…, drops, the text entry or Ctrl+V here), marked as
 * such. Under the sample, the editor of its text (sample_editor.h), then
 * the model's class probabilities as bars. The Attribution check button
 * draws the Attribution view's last result for the shown sample over it
 * (ui/shown_sample.h keeps both), or an edited input's gradient × input. A
 * drag over a picture occludes a rectangle of it (picture_occluder.h);
 * Clear Occlusion or Escape shows the original again. */
#include <math.h>
#include <string.h>

#include "../../datasets/datasets.h"
#include "../data_tasks.h"
#include "../figures/prediction_figure.h"
#include "../inspect_input.h"
#include "../view.h"
#include "data_index_list.h"
#include "data_set_picker.h"
#include "picture_occluder.h"
#include "sample_editor.h"
#include "../figures/attribution_figure.h"
#include "../figures/data_sample.h"
#include "../shown_sample.h"
#include "../drop_down_tooltip.h"

/* The split menu's entry after the three splits. */
#define INSPECTED_ENTRY RF_SPLIT_COUNT
#define BAR_ROW_PX 20
#define BARS_MAX_PX 320
/* The sample's least height: in a short window its text (with an
 * attribution's strips and colour bar) stays readable, and the bars under
 * it scroll. */
#define SAMPLE_MIN_PX 240

#define RF_TYPE_DATA_VIEW (rf_data_view_get_type())
G_DECLARE_FINAL_TYPE(RfDataView, rf_data_view, RF, DATA_VIEW, GtkWidget)

struct _RfDataView {
    GtkWidget parent;
    RfSession *session;
    const rf_dataset *ds;          /* the session's, as last shown; NULL while it is another task's */
    char *failure;                 /* why the data set the config names did not open, or NULL */
    float *scratch;                /* one sample, for labels in the list */
    rf_sample_figure *figure;
    rf_prediction_figure *prediction;

    GtkWidget *picker, *status, *shortfall;
    GtkWidget *split_menu, *count, *list;
    GtkSingleSelection *selection;
    GtkWidget *plot, *media, *bars, *entry, *attribution, *editor, *unocclude;
    bool relabelling;              /* a row is being bound again: the selection stays */
};

G_DEFINE_FINAL_TYPE(RfDataView, rf_data_view, GTK_TYPE_WIDGET)

static rf_split current_split(RfDataView *v)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->split_menu));
    return i < RF_SPLIT_COUNT ? (rf_split)i : RF_SPLIT_TRAIN;
}

/* The inspected input selected in the Inspected list, or NULL. */
static const rf_inspected *current_inspected(RfDataView *v)
{
    if (gtk_drop_down_get_selected(GTK_DROP_DOWN(v->split_menu)) != INSPECTED_ENTRY)
        return NULL;
    return rf_session_get_inspected(v->session, gtk_single_selection_get_selected(v->selection));
}

static gboolean showing_inspected(RfDataView *v)
{
    return gtk_drop_down_get_selected(GTK_DROP_DOWN(v->split_menu)) == INSPECTED_ENTRY;
}

static void set_status(RfDataView *v, const char *text)
{
    gtk_label_set_text(GTK_LABEL(v->status), text);
    gtk_widget_set_tooltip_text(v->status, text);
}

/* ---- the sample shown ---- */

static void stop_playback(RfDataView *v)
{
    GtkMediaStream *old = gtk_media_controls_get_media_stream(GTK_MEDIA_CONTROLS(v->media));
    if (old != NULL)
        gtk_media_stream_pause(old);
    gtk_media_controls_set_media_stream(GTK_MEDIA_CONTROLS(v->media), NULL);
    gtk_widget_set_visible(v->media, FALSE);
}

/* ---- the attribution over it ---- */

/* The last attribution of the shown sample over it, while asked for. */
static void show_attribution(RfDataView *v)
{
    rf_split split;
    int64_t index;
    const rf_inspected *in;
    const float *values = NULL;
    int len = 0;
    rf_attr_method method = RF_ATTR_GRAD_INPUT;
    if (gtk_check_button_get_active(GTK_CHECK_BUTTON(v->attribution)) &&
        rf_shown_sample_get(v->session, &split, &index, &in))
        values = rf_shown_attribution_get(v->session, split, index, in, &len, &method);
    rf_map_scale s = rf_attribution_scale(values, len, method);
    rf_sample_figure_set_attribution(v->figure, values, len, &s);
    rf_plot_view_queue_draw(RF_PLOT_VIEW(v->plot));
}

/* An edit's gradient × input is ready: drawn when the overlay is on. */
static void on_edit_attributed(GObject *view)
{
    show_attribution(RF_DATA_VIEW(view));
}

static void on_attribution_toggled(GtkCheckButton *button, gpointer data)
{
    (void)button;
    show_attribution(data);
}

/* ---- what the model says about the sample ---- */

/* The session has one probe request; views mark it as theirs under this key
 * (as ui/views/probe_picker.c does) so a view being hidden clears only its own. */
#define WATCHER_KEY "rf-probe-watcher"

/* Ask the session for the model's logits on the shown sample (while the
 * view is on screen). */
static void watch_prediction(RfDataView *v)
{
    guint pos = gtk_single_selection_get_selected(v->selection);
    if (!gtk_widget_get_mapped(v->plot) || v->ds == NULL || pos == GTK_INVALID_LIST_POSITION)
        return;
    static const char *const names[] = {"logits"};
    g_object_set_data(G_OBJECT(v->session), WATCHER_KEY, v);
    rf_session_watch_inspected(v->session, current_inspected(v));
    rf_session_watch_probes(v->session, names, 1, current_split(v), showing_inspected(v) ? 0 : pos);
}

static void unwatch_prediction(RfDataView *v)
{
    if (g_object_get_data(G_OBJECT(v->session), WATCHER_KEY) != v)
        return;
    g_object_set_data(G_OBJECT(v->session), WATCHER_KEY, NULL);
    rf_session_watch_probes(v->session, NULL, 0, RF_SPLIT_TRAIN, 0);
}

/* The probabilities bars for the latest logits (what the header says in one line). */
static void show_bars(RfDataView *v, const rf_probe_value *logits, const char *title)
{
    int n = (int)logits->shape.dim[0];
    float *probs = g_new(float, n);
    double mx = -INFINITY, sum = 0;
    for (int k = 0; k < n; k++)
        mx = fmax(mx, logits->data[k]);
    for (int k = 0; k < n; k++)
        sum += exp(logits->data[k] - mx);
    for (int k = 0; k < n; k++)
        probs[k] = (float)(exp(logits->data[k] - mx) / sum);
    rf_prediction_figure_set(v->prediction, title, v->ds->class_names, probs, n);
    gtk_widget_set_size_request(v->bars, -1, MIN(BARS_MAX_PX, 40 + BAR_ROW_PX * n));
    gtk_widget_set_visible(v->bars, TRUE);
    rf_plot_view_queue_draw(RF_PLOT_VIEW(v->bars));
    g_free(probs);
}

/* No prediction: the model on screen has not seen the shown sample yet. */
static void clear_prediction(RfDataView *v)
{
    rf_sample_figure_set_prediction(v->figure, NULL);
    gtk_widget_set_visible(v->bars, FALSE);
    rf_plot_view_queue_draw(RF_PLOT_VIEW(v->plot));
}

/* Only the current run's model on the shown data set predicts here: a
 * snapshot of a run on another data set (the task was switched) or of a
 * replaced run clears the prediction. */
static void on_probes_changed(RfSession *s, gpointer data)
{
    RfDataView *v = data;
    rf_split split;
    int64_t sample;
    rf_inspection info;
    guint pos = gtk_single_selection_get_selected(v->selection);
    const rf_probe_value *logits = rf_session_find_probe(s, "logits");
    if (!rf_session_probes_fit_data(s)) {
        clear_prediction(v);
        return;
    }
    if (v->ds == NULL || !rf_session_get_probe_sample(s, &split, &sample, &info) || logits == NULL ||
        logits->shape.dim[0] != v->ds->classes)
        return;
    const rf_inspected *in = rf_session_get_probe_inspected(s);
    if (in != current_inspected(v) || (in == NULL && (split != current_split(v) || sample != (int64_t)pos)))
        return;
    char predicted[160], text[256], title[256];
    rf_data_class_text(v->ds, info.predicted, predicted, sizeof predicted);
    if (in != NULL && in->before != NULL)
        g_snprintf(text, sizeof text, "model: %s → %s · step %" G_GINT64_FORMAT, in->before, predicted,
                   rf_session_get_step(s));
    else if (in != NULL)
        g_snprintf(text, sizeof text, "model: %s · step %" G_GINT64_FORMAT, predicted, rf_session_get_step(s));
    else
        g_snprintf(text, sizeof text, "%s model: %s · loss %.3g · step %" G_GINT64_FORMAT,
                   info.predicted == info.label ? "✓" : "✗", predicted, info.loss, rf_session_get_step(s));
    g_snprintf(title, sizeof title, "Class probabilities at step %" G_GINT64_FORMAT ": %s", rf_session_get_step(s),
               predicted);
    rf_sample_figure_set_prediction(v->figure, text);
    rf_plot_view_queue_draw(RF_PLOT_VIEW(v->plot));
    show_bars(v, logits, title);
}

/* A new run (or a loaded checkpoint) replaces the model that predicted. */
static void show_data(RfDataView *v);

static void on_state_changed(RfSession *s, gpointer data)
{
    RfDataView *v = data;
    if (!rf_session_probes_fit_data(s))
        clear_prediction(v);
    if (v->ds == NULL)
        show_data(v);   /* "Loading …" */
}

static void on_plot_map(GtkWidget *plot, gpointer data)
{
    (void)plot;
    show_attribution(data);   /* computed while another view was on screen */
    watch_prediction(data);
}

static void on_plot_unmap(GtkWidget *plot, gpointer data)
{
    (void)plot;
    unwatch_prediction(data);
}

/* The selected sample in the figure and the editor; its prediction asked
 * for. The bars stay until the new prediction replaces them (show_selected
 * hides them first). */
static void show_sample(RfDataView *v)
{
    stop_playback(v);
    guint pos = gtk_single_selection_get_selected(v->selection);
    const rf_inspected *in = current_inspected(v);
    if (v->ds == NULL || pos == GTK_INVALID_LIST_POSITION)
        rf_shown_sample_set(v->session, RF_SPLIT_TRAIN, -1, NULL);
    else
        rf_shown_sample_set(v->session, current_split(v), in != NULL ? 0 : pos, in);
    if (v->ds == NULL || pos == GTK_INVALID_LIST_POSITION) {
        rf_sample_figure_set_caption(v->figure, NULL, NULL);
        const char *message = "This split has no samples";
        if (v->ds == NULL)
            message = gtk_label_get_text(GTK_LABEL(v->status));   /* why there is no data set */
        else if (showing_inspected(v))
            message = "Nothing inspected yet: File → Inspect File…, drop a file here or type text below";
        rf_sample_figure_set_message(v->figure, message);
    } else {
        const char *audio = in != NULL ? rf_data_sample_show_inspected(v->figure, v->ds, in->name, in->path, in->x,
                                                                       in->len)
                                       : rf_data_sample_show(v->figure, v->ds, current_split(v), pos);
        if (audio != NULL && g_file_test(audio, G_FILE_TEST_IS_REGULAR)) {
            GtkMediaStream *stream = gtk_media_file_new_for_filename(audio);
            gtk_media_controls_set_media_stream(GTK_MEDIA_CONTROLS(v->media), stream);
            g_object_unref(stream);
            gtk_widget_set_visible(v->media, TRUE);
        }
    }
    rf_sample_editor_show(v->editor, pos != GTK_INVALID_LIST_POSITION ? v->ds : NULL, current_split(v), pos, in);
    rf_split from_split;
    int64_t from_index;
    const rf_inspected *from;
    gtk_widget_set_visible(v->unocclude,
                           rf_picture_occluder_origin(v->plot, in, &from_split, &from_index, &from));
    show_attribution(v);
    watch_prediction(v);
}

static void show_selected(RfDataView *v)
{
    gtk_widget_set_visible(v->bars, FALSE);
    show_sample(v);
    rf_plot_view_reset_zoom(RF_PLOT_VIEW(v->plot));
}

static void on_selected(GObject *selection, GParamSpec *pspec, gpointer data)
{
    (void)selection;
    (void)pspec;
    if (((RfDataView *)data)->relabelling)
        return;
    show_selected(data);
}

/* Back from an occluded copy to the picture it was made from (the copy
 * stays in the Inspected list). */
static void clear_occlusion(RfDataView *v)
{
    rf_split split;
    int64_t index;
    const rf_inspected *origin;
    if (!rf_picture_occluder_origin(v->plot, current_inspected(v), &split, &index, &origin))
        return;
    if (origin == NULL) {
        rf_data_view_show_sample(GTK_WIDGET(v), split, index);
        return;
    }
    for (guint i = 0; i < rf_session_get_inspected_count(v->session); i++)
        if (rf_session_get_inspected(v->session, i) == origin)
            gtk_single_selection_set_selected(v->selection, i);
}

static void on_unocclude_clicked(GtkButton *button, gpointer data)
{
    (void)button;
    clear_occlusion(data);
}

static void unocclude_action(GtkWidget *widget, const char *action, GVariant *args)
{
    (void)action;
    (void)args;
    clear_occlusion(RF_DATA_VIEW(widget));
}

/* ---- the sample list ---- */

static void row_setup(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
    (void)factory;
    (void)data;
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    GtkWidget *title = gtk_label_new(NULL), *detail = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(title), 0);
    gtk_label_set_xalign(GTK_LABEL(detail), 0);
    gtk_label_set_ellipsize(GTK_LABEL(title), PANGO_ELLIPSIZE_END);
    gtk_label_set_ellipsize(GTK_LABEL(detail), PANGO_ELLIPSIZE_END);
    gtk_widget_add_css_class(title, "heading");
    gtk_widget_add_css_class(detail, "dim-label");
    gtk_widget_set_margin_top(box, 4);
    gtk_widget_set_margin_bottom(box, 4);
    gtk_box_append(GTK_BOX(box), title);
    gtk_box_append(GTK_BOX(box), detail);
    gtk_list_item_set_child(item, box);
}

static void row_bind(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
    (void)factory;
    RfDataView *v = data;
    GtkWidget *box = gtk_list_item_get_child(item);
    GtkWidget *title = gtk_widget_get_first_child(box), *detail = gtk_widget_get_next_sibling(title);
    guint index = rf_index_item_get(RF_INDEX_ITEM(gtk_list_item_get_item(item)));
    if (v->ds == NULL)
        return;
    if (showing_inspected(v)) {
        const rf_inspected *in = rf_session_get_inspected(v->session, index);
        if (in == NULL)
            return;
        g_autofree char *where = in->path != NULL     ? g_strdup_printf("not from the data set · %s", in->path)
                                 : in->before != NULL ? g_strdup("not from the data set · an occluded copy")
                                                      : g_strdup("not from the data set · text");
        gtk_label_set_text(GTK_LABEL(title), in->name);
        gtk_label_set_text(GTK_LABEL(detail), where);
        gtk_widget_set_tooltip_text(box, where);
        return;
    }
    char label[256], text[512] = "", *heading;
    rf_data_sample_label(v->ds, current_split(v), index, v->scratch, label, sizeof label);
    heading = g_strdup_printf("#%u · %s", index, label);
    if (v->ds->describe != NULL)
        v->ds->describe(v->ds, current_split(v), index, text, sizeof text);
    gtk_label_set_text(GTK_LABEL(title), heading);
    gtk_label_set_text(GTK_LABEL(detail), text);
    gtk_widget_set_tooltip_text(box, text);
    g_free(heading);
}

static void fill_list(RfDataView *v)
{
    gboolean inspected = showing_inspected(v);
    guint n = v->ds == NULL ? 0 : inspected ? rf_session_get_inspected_count(v->session)
                                            : (guint)v->ds->size[current_split(v)];
    RfIndexList *model = rf_index_list_new(n);
    gtk_single_selection_set_model(v->selection, G_LIST_MODEL(model));
    g_object_unref(model);
    char *count = g_strdup_printf(inspected ? (n == 1 ? "%u input, not from the data set"
                                                      : "%u inputs, not from the data set")
                                            : (n == 1 ? "%u sample" : "%u samples"), n);
    gtk_label_set_text(GTK_LABEL(v->count), count);
    g_free(count);
    show_selected(v);
}

static void on_split(GObject *menu, GParamSpec *pspec, gpointer data)
{
    (void)menu;
    (void)pspec;
    fill_list(data);
}

/* ---- inspected inputs ---- */

/* Whether the selected inspected input is another than the figure shows
 * (an edit replaced it in the list). */
static gboolean shown_input_replaced(RfDataView *v)
{
    rf_split split;
    int64_t index;
    const rf_inspected *shown;
    return rf_shown_sample_get(v->session, &split, &index, &shown) && shown != current_inspected(v);
}

/* A new input lands in the Inspected list, selected; a shorter list (another
 * data set) is shown as it is. */
static void on_inspected_changed(RfSession *s, gpointer data)
{
    RfDataView *v = data;
    guint n = rf_session_get_inspected_count(s);
    GListModel *model = gtk_single_selection_get_model(v->selection);
    guint shown = showing_inspected(v) && model != NULL ? g_list_model_get_n_items(model) : 0;
    const rf_inspected *watched = rf_session_get_watched_inspected(s);
    if (n > 0 && watched == rf_session_get_inspected(s, n - 1) && (!showing_inspected(v) || shown != n)) {
        if (showing_inspected(v))
            fill_list(v);
        else
            gtk_drop_down_set_selected(GTK_DROP_DOWN(v->split_menu), INSPECTED_ENTRY);   /* fills the list */
        gtk_single_selection_set_selected(v->selection, n - 1);
    } else if (showing_inspected(v) && shown != n) {
        fill_list(v);
    } else if (showing_inspected(v) && shown_input_replaced(v)) {
        /* an edit took its place: its row says the new name, and the last
         * prediction stays until the new one (the list's model stores
         * nothing, so the row is bound again by saying it changed) */
        guint pos = gtk_single_selection_get_selected(v->selection);
        v->relabelling = true;
        g_list_model_items_changed(model, pos, 1, 1);
        gtk_single_selection_set_selected(v->selection, pos);
        v->relabelling = false;
        show_sample(v);
    }
}

static void on_entry_activate(GtkEntry *entry, gpointer data)
{
    RfDataView *v = data;
    const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
    if (text[0] == '\0')
        return;
    GtkNative *native = gtk_widget_get_native(GTK_WIDGET(v));
    rf_inspect_input(native != NULL ? GTK_WINDOW(native) : NULL, v->session, NULL, text);
}

/* Ctrl+V over the list (the action data.paste-inspect): the clipboard's
 * text is inspected. */
static void clipboard_text(GObject *source, GAsyncResult *result, gpointer data)
{
    RfDataView *v = data;
    g_autofree char *text = gdk_clipboard_read_text_finish(GDK_CLIPBOARD(source), result, NULL);
    if (text != NULL && text[0] != '\0') {
        gtk_editable_set_text(GTK_EDITABLE(v->entry), text);
        on_entry_activate(GTK_ENTRY(v->entry), v);
    }
    g_object_unref(v);
}

static void paste(GtkWidget *widget, const char *action, GVariant *args)
{
    (void)action;
    (void)args;
    RfDataView *v = RF_DATA_VIEW(widget);
    gdk_clipboard_read_text_async(gtk_widget_get_clipboard(widget), NULL, clipboard_text, g_object_ref(v));
}

/* ---- the data set ---- */

static void describe_dataset(RfDataView *v)
{
    const rf_dataset *ds = v->ds;
    const rf_data_task *t = rf_data_task_find(ds->name);
    GString *s = g_string_new(t != NULL ? t->title : ds->name);
    g_string_append_printf(s, " · %d classes · up to %d positions", ds->classes, ds->seq_len);
    if (ds->grid_h > 0)
        g_string_append_printf(s, " (%d × %d grid)", ds->grid_h, ds->grid_w);
    if (ds->feat_dim > 0)
        g_string_append_printf(s, " of %d features", ds->feat_dim);
    else
        g_string_append_printf(s, " of tokens < %d", ds->vocab);
    g_string_append_printf(s, " · %lld / %lld / %lld samples", (long long)ds->size[RF_SPLIT_TRAIN],
                           (long long)ds->size[RF_SPLIT_VAL], (long long)ds->size[RF_SPLIT_TEST]);
    set_status(v, s->str);
    g_string_free(s, TRUE);
}

/* The loaded data set if it is the one the config names (task and folder):
 * never another task's samples under this one's name. */
static const rf_dataset *named_dataset(RfDataView *v)
{
    const rf_config *now = rf_session_get_config(v->session), *loaded = rf_session_get_data_config(v->session);
    if (loaded == NULL || strcmp(loaded->data.task, now->data.task) != 0 ||
        strcmp(loaded->data.path, now->data.path) != 0)
        return NULL;
    return rf_session_get_dataset(v->session);
}

/* Why the config's data set is not shown: loading, failed, no folder yet. */
static void say_why_empty(RfDataView *v)
{
    const rf_config *cfg = rf_session_get_config(v->session);
    const rf_data_task *t = rf_data_task_find(cfg->data.task);
    const char *title = t != NULL ? t->title : cfg->data.task;
    g_autofree char *text = NULL;
    if (rf_session_data_loading(v->session))
        text = g_strdup_printf("Loading %s…", title);
    else if (v->failure != NULL)
        text = g_strdup_printf("Could not open %s: %s", title, v->failure);
    else if (t != NULL && t->needs_path && cfg->data.path[0] == '\0')
        text = g_strdup_printf("Choose a folder to load %s data", title);
    else
        text = g_strdup_printf("%s is not loaded yet", title);
    set_status(v, text);
}

/* The splits the data made shorter than asked, in a line of their own. */
static void show_shortfall(RfDataView *v)
{
    char text[256];
    gboolean short_ = v->ds != NULL && rf_dataset_shortfall(v->ds, rf_session_get_data_config(v->session), text,
                                                            sizeof text);
    if (short_) {
        g_autofree char *line = g_strdup_printf("Fewer samples than asked: %s", text);
        gtk_label_set_text(GTK_LABEL(v->shortfall), line);
    }
    gtk_widget_set_visible(v->shortfall, short_);
}

static void show_data(RfDataView *v)
{
    const rf_dataset *ds = named_dataset(v);
    if (ds != v->ds || ds == NULL) {
        v->ds = ds;
        g_clear_pointer(&v->scratch, g_free);
        if (ds != NULL)
            v->scratch = g_new0(float, (size_t)ds->seq_len * (ds->feat_dim > 0 ? ds->feat_dim : 1));
        /* another data set forgets the inputs inspected on the last one:
         * show its samples, not an empty Inspected list */
        if (ds != NULL && showing_inspected(v) && rf_session_get_inspected_count(v->session) == 0)
            gtk_drop_down_set_selected(GTK_DROP_DOWN(v->split_menu), RF_SPLIT_TRAIN);
    }
    if (ds != NULL)
        describe_dataset(v);
    else
        say_why_empty(v);
    show_shortfall(v);
    fill_list(v);
}

static void on_data_changed(RfSession *s, gpointer data)
{
    (void)s;
    RfDataView *v = data;
    g_clear_pointer(&v->failure, g_free);
    show_data(v);
}

static void on_run_failed(RfSession *s, const char *message, gpointer data)
{
    RfDataView *v = data;
    if (named_dataset(v) != NULL || rf_session_data_loading(s))
        return;   /* a run failed, not the data set */
    g_free(v->failure);
    v->failure = g_strdup(message);
    show_data(v);
}

static void on_config_changed(RfSession *s, const char *key, gpointer data)
{
    (void)s;
    RfDataView *v = data;
    if (key == NULL || strcmp(key, "data.task") == 0 || strcmp(key, "data.path") == 0) {
        g_clear_pointer(&v->failure, g_free);
        show_data(v);
    }
}

/* ---- what the data set picker tells ---- */

static void on_pick_refused(GObject *view, const char *message)
{
    set_status(RF_DATA_VIEW(view), message);
}

static void on_data_opening(GObject *view)
{
    show_data(RF_DATA_VIEW(view));
}

/* ---- building ---- */

static GtkWidget *build_toolbar(RfDataView *v)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    v->picker = rf_data_set_picker_new();
    v->status = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(v->status), 0);
    gtk_label_set_ellipsize(GTK_LABEL(v->status), PANGO_ELLIPSIZE_END);
    gtk_widget_set_hexpand(v->status, TRUE);
    gtk_widget_add_css_class(v->status, "dim-label");
    gtk_box_append(GTK_BOX(bar), v->picker);
    gtk_box_append(GTK_BOX(bar), v->status);
    v->attribution = gtk_check_button_new_with_mnemonic("_Attribution");
    gtk_widget_set_name(v->attribution, "data-attribution");
    gtk_widget_set_tooltip_text(v->attribution, "Draw the Attribution view's last result for this sample over it "
                                                "(for an edited input, its gradient × input, kept up to date as "
                                                "you type): a strip under each token, a heatmap over the picture "
                                                "or the spectrogram");
    gtk_box_append(GTK_BOX(bar), v->attribution);
    v->unocclude = gtk_button_new_with_mnemonic("Clear _Occlusion");
    gtk_widget_set_name(v->unocclude, "data-clear-occlusion");
    gtk_widget_set_tooltip_text(v->unocclude, "Show the picture without the occluded rectangle again (Escape); "
                                              "the occluded copy stays in the Inspected list");
    gtk_widget_set_visible(v->unocclude, FALSE);
    gtk_box_append(GTK_BOX(bar), v->unocclude);
    g_signal_connect(v->unocclude, "clicked", G_CALLBACK(on_unocclude_clicked), v);
    g_signal_connect(v->attribution, "toggled", G_CALLBACK(on_attribution_toggled), v);
    return bar;
}

static GtkWidget *build_browser(RfDataView *v)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6), *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    const char *const splits[] = {"Train", "Validation", "Test", "Inspected", NULL};
    v->split_menu = gtk_drop_down_new_from_strings(splits);
    gtk_widget_set_tooltip_text(v->split_menu, "Which split's samples to list, or the inputs you inspected "
                                               "(File → Inspect File…, a drop, the text below)");
    rf_drop_down_tooltip_when_closed(v->split_menu);
    v->count = gtk_label_new(NULL);
    gtk_widget_add_css_class(v->count, "dim-label");
    gtk_box_append(GTK_BOX(row), v->split_menu);
    gtk_box_append(GTK_BOX(row), v->count);

    v->selection = gtk_single_selection_new(NULL);
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(row_setup), v);
    g_signal_connect(factory, "bind", G_CALLBACK(row_bind), v);
    v->list = gtk_list_view_new(GTK_SELECTION_MODEL(v->selection), factory);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), v->list);
    gtk_widget_set_vexpand(scroller, TRUE);
    gtk_widget_set_size_request(box, 280, -1);
    v->entry = gtk_entry_new();
    gtk_entry_set_placeholder_text(GTK_ENTRY(v->entry), "Inspect text: a ListOps expression, a TSV line…");
    gtk_widget_set_tooltip_text(v->entry, "Enter inspects this text through the model, featurised as the data "
                                          "set's samples are (Ctrl+V over the list pastes and inspects)");
    gtk_box_append(GTK_BOX(box), row);
    gtk_box_append(GTK_BOX(box), scroller);
    gtk_box_append(GTK_BOX(box), v->entry);
    g_signal_connect(v->entry, "activate", G_CALLBACK(on_entry_activate), v);
    g_signal_connect(v->split_menu, "notify::selected", G_CALLBACK(on_split), v);
    g_signal_connect(v->selection, "notify::selected", G_CALLBACK(on_selected), v);
    return box;
}

static void rf_data_view_init(RfDataView *v)
{
    GtkLayoutManager *layout = gtk_box_layout_new(GTK_ORIENTATION_VERTICAL);
    gtk_box_layout_set_spacing(GTK_BOX_LAYOUT(layout), 12);
    gtk_widget_set_layout_manager(GTK_WIDGET(v), layout);
    gtk_widget_set_margin_start(GTK_WIDGET(v), 12);
    gtk_widget_set_margin_end(GTK_WIDGET(v), 12);
    gtk_widget_set_margin_top(GTK_WIDGET(v), 12);
    gtk_widget_set_margin_bottom(GTK_WIDGET(v), 12);

    v->editor = rf_sample_editor_new();
    v->figure = rf_sample_figure_new();
    rf_sample_figure_set_message(v->figure, "Choose a data set to browse its samples");
    rf_figure figure = rf_sample_figure_get(v->figure);
    v->plot = rf_plot_view_new(&figure, TRUE);
    gtk_widget_set_hexpand(v->plot, TRUE);
    gtk_widget_set_vexpand(v->plot, TRUE);
    gtk_widget_set_size_request(v->plot, -1, SAMPLE_MIN_PX);
    v->media = gtk_media_controls_new(NULL);
    gtk_widget_set_visible(v->media, FALSE);
    v->prediction = rf_prediction_figure_new();
    rf_figure bars = rf_prediction_figure_get(v->prediction);
    v->bars = rf_plot_view_new(&bars, FALSE);
    gtk_widget_set_visible(v->bars, FALSE);
    GtkWidget *sample = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_box_append(GTK_BOX(sample), v->plot);
    gtk_box_append(GTK_BOX(sample), v->media);
    gtk_box_append(GTK_BOX(sample), v->editor);
    gtk_box_append(GTK_BOX(sample), v->bars);

    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
    gtk_paned_set_start_child(GTK_PANED(paned), build_browser(v));
    /* in a short window the sample and its prediction bars scroll */
    GtkWidget *sample_scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(sample_scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(sample_scroller), sample);
    gtk_paned_set_end_child(GTK_PANED(paned), sample_scroller);
    gtk_paned_set_resize_start_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_position(GTK_PANED(paned), 340);
    gtk_widget_set_vexpand(paned, TRUE);

    v->shortfall = gtk_label_new(NULL);
    gtk_widget_set_name(v->shortfall, "data-shortfall");
    gtk_label_set_xalign(GTK_LABEL(v->shortfall), 0);
    gtk_label_set_wrap(GTK_LABEL(v->shortfall), TRUE);
    gtk_widget_add_css_class(v->shortfall, "warning");
    gtk_widget_set_visible(v->shortfall, FALSE);

    gtk_widget_set_parent(rf_view_scroll_sideways(build_toolbar(v)), GTK_WIDGET(v));
    gtk_widget_set_parent(v->shortfall, GTK_WIDGET(v));
    gtk_widget_set_parent(paned, GTK_WIDGET(v));
}

static void rf_data_view_dispose(GObject *object)
{
    RfDataView *v = RF_DATA_VIEW(object);
    if (v->media != NULL)
        stop_playback(v);
    if (v->session != NULL) {
        unwatch_prediction(v);
        g_signal_handlers_disconnect_by_data(v->session, v);
        g_clear_object(&v->session);
    }
    for (GtkWidget *child; (child = gtk_widget_get_first_child(GTK_WIDGET(v))) != NULL;)
        gtk_widget_unparent(child);
    v->media = NULL;
    G_OBJECT_CLASS(rf_data_view_parent_class)->dispose(object);
}

static void rf_data_view_finalize(GObject *object)
{
    RfDataView *v = RF_DATA_VIEW(object);
    rf_sample_figure_free(v->figure);
    rf_prediction_figure_free(v->prediction);
    g_free(v->scratch);
    g_free(v->failure);
    G_OBJECT_CLASS(rf_data_view_parent_class)->finalize(object);
}

static void rf_data_view_class_init(RfDataViewClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = rf_data_view_dispose;
    G_OBJECT_CLASS(klass)->finalize = rf_data_view_finalize;
    gtk_widget_class_install_action(GTK_WIDGET_CLASS(klass), "data.paste-inspect", NULL, paste);
    gtk_widget_class_add_binding_action(GTK_WIDGET_CLASS(klass), GDK_KEY_v, GDK_CONTROL_MASK, "data.paste-inspect",
                                        NULL);
    gtk_widget_class_install_action(GTK_WIDGET_CLASS(klass), "data.clear-occlusion", NULL, unocclude_action);
    gtk_widget_class_add_binding_action(GTK_WIDGET_CLASS(klass), GDK_KEY_Escape, 0, "data.clear-occlusion", NULL);
}

void rf_data_view_show_sample(GtkWidget *data_view, rf_split split, int64_t index)
{
    RfDataView *v = RF_DATA_VIEW(data_view);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(v->split_menu), split);   /* refills the list when it changes */
    if (index < 0 || index >= (int64_t)g_list_model_get_n_items(G_LIST_MODEL(v->selection)))
        return;
    gtk_single_selection_set_selected(v->selection, (guint)index);
    gtk_widget_activate_action(v->list, "list.scroll-to-item", "u", (guint)index);
}

const float *rf_data_view_attribution(GtkWidget *data_view, int *len)
{
    return rf_sample_figure_get_attribution(RF_DATA_VIEW(data_view)->figure, len);
}

GtkWidget *rf_data_view_new(RfSession *s)
{
    RfDataView *v = g_object_new(RF_TYPE_DATA_VIEW, NULL);
    v->session = g_object_ref(s);
    rf_sample_editor_attach(v->editor, s, on_edit_attributed, G_OBJECT(v));
    rf_picture_occluder_attach(v->plot, v->figure, s);
    rf_data_set_picker_attach(v->picker, s, on_pick_refused, on_data_opening, G_OBJECT(v));
    g_signal_connect(s, "data-changed", G_CALLBACK(on_data_changed), v);
    g_signal_connect(s, "run-failed", G_CALLBACK(on_run_failed), v);
    g_signal_connect(s, "config-changed", G_CALLBACK(on_config_changed), v);
    g_signal_connect(s, "probes-changed", G_CALLBACK(on_probes_changed), v);
    g_signal_connect(s, "state-changed", G_CALLBACK(on_state_changed), v);
    g_signal_connect(s, "inspected-changed", G_CALLBACK(on_inspected_changed), v);
    g_signal_connect(v->plot, "map", G_CALLBACK(on_plot_map), v);
    g_signal_connect(v->plot, "unmap", G_CALLBACK(on_plot_unmap), v);
    rf_view_set_plot(GTK_WIDGET(v), RF_PLOT_VIEW(v->plot));
    show_data(v);
    return GTK_WIDGET(v);
}
