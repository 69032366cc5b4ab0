/* The shown sample's text, edited in place (sample_editor.h). */
#include "sample_editor.h"

#include <string.h>

#include "../figures/data_sample.h"

#define EDITOR_KEY "rf-sample-editor"

typedef struct editor {
    RfSession *session;
    rf_edit_attributed attributed;
    GObject *owner;            /* attributed's argument (not held: it holds the editor) */
    GtkWidget *view, *error;
    rf_inspected *in;          /* the inspected input shown (a reference), or NULL */
    int64_t index;             /* else the data set sample shown */
    bool syncing;              /* the text is being set to the shown sample's: not an edit */
    guint debounce;            /* the pending edit's timeout, or 0 */
    GCancellable *running;     /* the edit being featurised, or NULL */
} editor;

static void cancel_edit(editor *e);

static void editor_free(editor *e)
{
    cancel_edit(e);
    g_clear_pointer(&e->in, rf_inspected_release);
    g_clear_object(&e->session);
    g_free(e);
}

static editor *editor_of(GtkWidget *widget)
{
    return g_object_get_data(G_OBJECT(widget), EDITOR_KEY);
}

static char *buffer_text(GtkTextBuffer *buffer)
{
    GtkTextIter start, end;
    gtk_text_buffer_get_bounds(buffer, &start, &end);
    return gtk_text_buffer_get_text(buffer, &start, &end, FALSE);
}

static void say_error(editor *e, const char *message)
{
    gtk_label_set_text(GTK_LABEL(e->error), message != NULL ? message : "");
    gtk_widget_set_visible(e->error, message != NULL);
}

static void edited(GObject *source, GAsyncResult *result, gpointer data)
{
    GtkWidget *widget = data;   /* a reference */
    editor *e = editor_of(widget);
    g_autoptr(GError) error = NULL;
    const rf_inspected *in = rf_session_inspect_finish(RF_SESSION(source), result, &error);
    if (e != NULL && !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
        g_clear_object(&e->running);
        say_error(e, in == NULL ? error->message : NULL);   /* the last good input stays watched */
        if (in != NULL)
            rf_edit_attribute(e->session, in, e->attributed, e->owner);
    }
    g_object_unref(widget);
}

/* The name of an edit: "edited sample 12" for a data set sample (kept by
 * later edits of the copy), the text itself for typed text (as when it
 * was typed in), "edited NAME" for a file's. */
static char *edit_name(const editor *e)
{
    if (e->in == NULL)
        return g_strdup_printf("edited sample %" G_GINT64_FORMAT, e->index);
    if (g_str_has_prefix(e->in->name, "edited "))
        return g_strdup(e->in->name);
    return e->in->path == NULL ? NULL : g_strdup_printf("edited %s", e->in->name);
}

static gboolean start_edit(gpointer data)
{
    GtkWidget *widget = data;
    editor *e = editor_of(widget);
    e->debounce = 0;
    e->running = g_cancellable_new();
    g_autofree char *text = buffer_text(gtk_text_view_get_buffer(GTK_TEXT_VIEW(e->view)));
    g_autofree char *name = edit_name(e);
    rf_session_reinspect_async(e->session, e->in, name, text, e->running, edited, g_object_ref(widget));
    return G_SOURCE_REMOVE;
}

/* The pending edit and the one in flight dropped. */
static void cancel_edit(editor *e)
{
    if (e->debounce != 0)
        g_source_remove(e->debounce);
    e->debounce = 0;
    if (e->running != NULL)
        g_cancellable_cancel(e->running);
    g_clear_object(&e->running);
}

/* A keystroke makes the edit in flight stale at once: its result would
 * show text the field no longer holds. */
static void on_changed(GtkTextBuffer *buffer, gpointer data)
{
    (void)buffer;
    editor *e = editor_of(data);
    if (e->syncing)
        return;
    cancel_edit(e);
    e->debounce = g_timeout_add(RF_SAMPLE_EDIT_DEBOUNCE_MS, start_edit, data);
}

GtkWidget *rf_sample_editor_new(void)
{
    editor *e = g_new0(editor, 1);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    GtkWidget *label = gtk_label_new_with_mnemonic("_Edit the input: the prediction follows as you type");
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "dim-label");
    e->view = gtk_text_view_new();
    gtk_widget_set_name(e->view, "data-edit");
    gtk_text_view_set_monospace(GTK_TEXT_VIEW(e->view), TRUE);
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(e->view), GTK_WRAP_WORD_CHAR);
    gtk_text_view_set_left_margin(GTK_TEXT_VIEW(e->view), 6);
    gtk_text_view_set_top_margin(GTK_TEXT_VIEW(e->view), 4);
    gtk_text_view_set_bottom_margin(GTK_TEXT_VIEW(e->view), 4);
    gtk_widget_set_tooltip_text(e->view, "Edit the shown input: the model re-reads it as you type. A data set "
                                         "sample is copied to the Inspected list first; the data set is not "
                                         "changed");
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), e->view);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_min_content_height(GTK_SCROLLED_WINDOW(scroller), 56);
    gtk_scrolled_window_set_max_content_height(GTK_SCROLLED_WINDOW(scroller), 120);
    gtk_scrolled_window_set_propagate_natural_height(GTK_SCROLLED_WINDOW(scroller), TRUE);
    gtk_scrolled_window_set_has_frame(GTK_SCROLLED_WINDOW(scroller), TRUE);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), e->view);
    e->error = gtk_label_new(NULL);
    gtk_widget_set_name(e->error, "data-edit-error");
    gtk_label_set_xalign(GTK_LABEL(e->error), 0);
    gtk_label_set_wrap(GTK_LABEL(e->error), TRUE);
    gtk_widget_add_css_class(e->error, "error");
    gtk_widget_set_visible(e->error, FALSE);
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), scroller);
    gtk_box_append(GTK_BOX(box), e->error);
    gtk_widget_set_visible(box, FALSE);
    g_object_set_data_full(G_OBJECT(box), EDITOR_KEY, e, (GDestroyNotify)editor_free);
    g_signal_connect(gtk_text_view_get_buffer(GTK_TEXT_VIEW(e->view)), "changed", G_CALLBACK(on_changed), box);
    return box;
}

void rf_sample_editor_attach(GtkWidget *widget, RfSession *s, rf_edit_attributed attributed, GObject *owner)
{
    editor *e = editor_of(widget);
    g_set_object(&e->session, s);
    e->attributed = attributed;
    e->owner = owner;
}

/* The shown sample's text: the input's own, or what featurises to its tokens. */
static char *sample_text(const rf_dataset *ds, rf_split split, int64_t index, const rf_inspected *in)
{
    if (in != NULL)
        return rf_data_sample_text(ds, in->text, in->x, in->len);
    int len = 0, label = 0;
    float *x = g_new0(float, (size_t)ds->seq_len * (size_t)MAX(1, ds->feat_dim));
    rf_status st = {0};
    char *text = ds->get(ds, split, index, x, &len, &label, &st) ? rf_data_sample_text(ds, NULL, x, len) : NULL;
    g_free(x);
    return text;
}

void rf_sample_editor_show(GtkWidget *widget, const rf_dataset *ds, rf_split split, int64_t index,
                           const rf_inspected *in)
{
    editor *e = editor_of(widget);
    g_autofree char *text = ds != NULL && (in != NULL || index >= 0) ? sample_text(ds, split, index, in) : NULL;
    g_clear_pointer(&e->in, rf_inspected_release);
    e->in = in != NULL ? rf_inspected_acquire((rf_inspected *)in) : NULL;
    e->index = index;
    gtk_widget_set_visible(widget, text != NULL);
    if (text == NULL) {
        cancel_edit(e);   /* nothing to edit: a pending edit would go to the wrong sample */
        return;
    }
    GtkTextBuffer *buffer = gtk_text_view_get_buffer(GTK_TEXT_VIEW(e->view));
    g_autofree char *now = buffer_text(buffer);
    if (strcmp(now, text) == 0)
        return;   /* the input this field's own edit made: keep the cursor */
    cancel_edit(e);   /* another sample: what was typed for the last one is dropped */
    e->syncing = true;
    gtk_text_buffer_set_text(buffer, text, -1);
    e->syncing = false;
    say_error(e, NULL);
}
