/* The Runs view: every run folder of the runs folder (the workbench's own
 * runs and those `rangefinder train --runs` wrote) in a sortable list:
 * name, encoder, data set, status, steps, best validation and test
 * accuracy, training time, tags, and a column for each config key whose
 * value differs between the runs. The selected runs can be renamed,
 * tagged and moved to the trash; the check column picks the runs the
 * Training view draws beside the session's, and TensorBoard → Open
 * TensorBoard Run… adds a folder of TensorBoard event files to them.
 *
 * The list follows the folder: it is read when the view is made (its rows
 * are built when it is first shown), when a
 * folder appears or goes (a GFileMonitor), when a run of the session
 * starts or ends, every few seconds while the view is on screen (so a CLI
 * run's steps move on), and on Reload. A refresh rereads only the folders
 * whose files changed (ui/runs_table.h).
 *
 * A sweep folder (`rangefinder sweep`'s) lists its trials, named
 * "SWEEP/trial-NNN", as runs like any other; the Sweep toggle shows its
 * parallel coordinates below the list (ui/views/sweep_panel.h), linked to
 * it: a click on a line selects the trial's row and draws it in the
 * Training view, and the selected trial's line is highlighted. */
#include <string.h>

#include "../../config/run_folder.h"
#include "../dialogs.h"
#include "../runs_table.h"
#include "../view.h"
#include "run_row.h"
#include "sweep_panel.h"

#define VIEW_KEY "rf-runs-view"
/* While on screen, look for changes in the run folders this often. */
#define POLL_SECONDS 5
/* Folder events come in bursts (a run folder's three files): wait them out. */
#define SETTLE_MS 300

/* The columns every list has (ui/runs_table.h's names), and their titles. */
static const char *const fixed_columns[] = {"name", "encoder", "data", "status", "steps",
                                            "best_val", "test", "duration", "from", "tags"};
static const char *const fixed_titles[] = {"Name", "Encoder", "Data set", "Status", "Steps",
                                           "Best val", "Test", "Time", "From", "Tags"};

typedef struct runs_view {
    GtkWidget *widget;
    RfSession *session;
    rf_runs_table *table;
    GListStore *store;              /* of RfRunRow */
    GtkColumnView *list;
    GtkSelectionModel *selection;   /* over the sorted rows */
    GPtrArray *key_columns;         /* of GtkColumnViewColumn: the differing config keys */
    GHashTable *widths;             /* column -> its width in characters */
    char **keys;
    gboolean stale;                 /* the rows are not those of the table (built only while on screen) */
    GtkLabel *summary, *warnings;
    GtkWidget *sweep_toggle, *sweep_panel;
    GtkWidget *rename_entry, *tags_entry;
    GSimpleActionGroup *actions;
    GFileMonitor *monitor;
    guint settle_source, poll_source;
} runs_view;

/* The widget goes: nothing may refresh it any more. */
static void on_destroy(GtkWidget *widget, runs_view *v)
{
    (void)widget;
    g_clear_handle_id(&v->settle_source, g_source_remove);
    g_clear_handle_id(&v->poll_source, g_source_remove);
    if (v->monitor != NULL)
        g_file_monitor_cancel(v->monitor);
    g_clear_object(&v->monitor);
}

static void runs_view_free(runs_view *v)
{
    g_clear_object(&v->actions);
    g_clear_pointer(&v->key_columns, g_ptr_array_unref);
    g_clear_pointer(&v->widths, g_hash_table_unref);
    g_strfreev(v->keys);
    rf_runs_table_free(v->table);
    g_free(v);
}

static rf_run_entry *entry_of(gpointer item)
{
    return rf_run_row_get_entry(RF_RUN_ROW(item));
}

/* The session's run whose folder is `dir`, or NULL. */
static rf_run_data *session_run(RfSession *s, const char *dir)
{
    GPtrArray *runs = rf_session_get_runs(s);
    for (guint i = 0; i < runs->len; i++) {
        rf_run_data *r = g_ptr_array_index(runs, i);
        if (g_strcmp0(r->dir, dir) == 0)
            return r;
    }
    return NULL;
}

static gboolean is_overlay(RfSession *s, const char *dir)
{
    GPtrArray *overlays = rf_session_get_overlays(s);
    for (guint i = 0; i < overlays->len; i++)
        if (g_strcmp0(((rf_run_data *)g_ptr_array_index(overlays, i))->dir, dir) == 0)
            return TRUE;
    return FALSE;
}

/* ---- cells ---- */

/* GtkInscription, not GtkLabel: GTK makes cells for up to 200 rows, and an
 * inscription is sized from a character count instead of measuring its
 * text; each column's count is its longest text, so none is cut. */
typedef struct column_info {
    runs_view *v;
    char *column;
} column_info;

static void column_info_free(gpointer data, GClosure *closure)
{
    (void)closure;
    column_info *c = data;
    g_free(c->column);
    g_free(c);
}

static void setup_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer numeric)
{
    (void)f;
    GtkWidget *cell = gtk_inscription_new(NULL);
    gtk_inscription_set_xalign(GTK_INSCRIPTION(cell), numeric != NULL ? 1.0f : 0.0f);
    gtk_inscription_set_text_overflow(GTK_INSCRIPTION(cell), GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
    gtk_list_item_set_child(item, cell);
}

static void bind_cell(GtkSignalListItemFactory *f, GtkListItem *item, column_info *c)
{
    (void)f;
    const rf_run_entry *e = entry_of(gtk_list_item_get_item(item));
    g_autofree char *text = rf_run_entry_cell(e, c->column);
    GtkInscription *cell = GTK_INSCRIPTION(gtk_list_item_get_child(item));
    guint chars = GPOINTER_TO_UINT(g_hash_table_lookup(c->v->widths, c->column));
    gtk_inscription_set_min_chars(cell, chars);
    gtk_inscription_set_nat_chars(cell, chars);
    gtk_inscription_set_text(cell, text);
    /* where the run lives */
    gtk_widget_set_tooltip_text(GTK_WIDGET(cell), strcmp(c->column, "name") == 0 ? e->dir : NULL);
}

static int compare_rows(gconstpointer a, gconstpointer b, gpointer column)
{
    return rf_run_entry_compare(entry_of((gpointer)a), entry_of((gpointer)b), column);
}

static GtkColumnViewColumn *text_column(runs_view *v, const char *title, const char *column, gboolean numeric)
{
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    column_info *info = g_new0(column_info, 1);
    info->v = v;
    info->column = g_strdup(column);
    g_signal_connect(factory, "setup", G_CALLBACK(setup_cell), numeric ? factory : NULL);
    g_signal_connect_data(factory, "bind", G_CALLBACK(bind_cell), info, column_info_free, 0);
    GtkColumnViewColumn *c = gtk_column_view_column_new(title, factory);
    GtkSorter *sorter = GTK_SORTER(gtk_custom_sorter_new(compare_rows, g_strdup(column), g_free));
    gtk_column_view_column_set_sorter(c, sorter);
    g_object_unref(sorter);
    gtk_column_view_column_set_resizable(c, TRUE);
    return c;
}

/* Each column's longest text, in characters (a little more: the average
 * character is narrower than some). */
static void measure_columns(runs_view *v, const char *const *columns, guint n)
{
    for (guint k = 0; k < n; k++) {
        guint longest = 4;
        for (guint i = 0; i < v->table->entries->len; i++) {
            g_autofree char *text = rf_run_entry_cell(g_ptr_array_index(v->table->entries, i), columns[k]);
            longest = MAX(longest, (guint)g_utf8_strlen(text, -1));
        }
        g_hash_table_insert(v->widths, g_strdup(columns[k]), GUINT_TO_POINTER(longest + 2));
    }
}

/* ---- the overlay check ---- */

static void on_overlay_toggled(GtkCheckButton *check, GtkListItem *item)
{
    runs_view *v = g_object_get_data(G_OBJECT(check), VIEW_KEY);
    gpointer row = gtk_list_item_get_item(item);
    if (v == NULL || row == NULL || g_object_get_data(G_OBJECT(check), "rf-binding") != NULL)
        return;
    const rf_run_entry *e = entry_of(row);
    if (!gtk_check_button_get_active(check)) {
        rf_session_remove_overlay(v->session, e->dir);
        return;
    }
    g_autoptr(GError) error = NULL;
    if (!rf_session_add_overlay(v->session, e->dir, &error)) {
        gtk_check_button_set_active(check, FALSE);
        rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(v->widget)), "Could not draw this run", error->message);
    }
}

static void setup_check(GtkSignalListItemFactory *f, GtkListItem *item, runs_view *v)
{
    (void)f;
    GtkWidget *check = gtk_check_button_new();
    gtk_widget_set_halign(check, GTK_ALIGN_CENTER);
    g_object_set_data(G_OBJECT(check), VIEW_KEY, v);
    g_signal_connect(check, "toggled", G_CALLBACK(on_overlay_toggled), item);
    gtk_list_item_set_child(item, check);
}

static void bind_check(GtkSignalListItemFactory *f, GtkListItem *item, runs_view *v)
{
    (void)f;
    const rf_run_entry *e = entry_of(gtk_list_item_get_item(item));
    GtkWidget *check = gtk_list_item_get_child(item);
    gboolean own = session_run(v->session, e->dir) != NULL;
    g_object_set_data(G_OBJECT(check), "rf-binding", GINT_TO_POINTER(1));
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), own || is_overlay(v->session, e->dir));
    g_object_set_data(G_OBJECT(check), "rf-binding", NULL);
    gtk_widget_set_sensitive(check, !own);
    gtk_widget_set_tooltip_text(check, own ? "A run of this session: the Training view always draws it"
                                           : "Draw this run in the Training view");
}

static GtkColumnViewColumn *check_column(runs_view *v)
{
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(setup_check), v);
    g_signal_connect(factory, "bind", G_CALLBACK(bind_check), v);
    return gtk_column_view_column_new("Draw", factory);
}

/* ---- reading the folder ---- */

/* The selected rows' entries (references). */
static GPtrArray *selected_entries(runs_view *v)
{
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)rf_run_entry_unref);
    GListModel *model = G_LIST_MODEL(v->selection);
    g_autoptr(GtkBitset) set = gtk_selection_model_get_selection(v->selection);
    GtkBitsetIter it;
    guint i;
    for (gboolean ok = gtk_bitset_iter_init_first(&it, set, &i); ok; ok = gtk_bitset_iter_next(&it, &i)) {
        g_autoptr(GObject) row = g_list_model_get_item(model, i);
        g_ptr_array_add(out, rf_run_entry_ref(entry_of(row)));
    }
    return out;
}

static GHashTable *selected_dirs(runs_view *v)
{
    GHashTable *dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GPtrArray) picked = selected_entries(v);
    for (guint i = 0; i < picked->len; i++)
        g_hash_table_add(dirs, g_strdup(((rf_run_entry *)g_ptr_array_index(picked, i))->dir));
    return dirs;
}

static void update_key_columns(runs_view *v, char **keys)
{
    if (v->keys != NULL && g_strv_equal((const char *const *)keys, (const char *const *)v->keys))
        return;
    for (guint i = 0; i < v->key_columns->len; i++)
        gtk_column_view_remove_column(v->list, g_ptr_array_index(v->key_columns, i));
    g_ptr_array_set_size(v->key_columns, 0);
    for (guint i = 0; keys[i] != NULL; i++) {
        GtkColumnViewColumn *c = text_column(v, keys[i], keys[i], FALSE);
        gtk_column_view_append_column(v->list, c);
        g_ptr_array_add(v->key_columns, c);
    }
    g_strfreev(v->keys);
    v->keys = g_strdupv(keys);
}

static void update_summary(runs_view *v)
{
    guint n = v->table->entries->len, left_out = v->table->warnings->len;
    g_autofree char *text = g_strdup_printf("%u run%s in %s", n, n == 1 ? "" : "s", v->table->root);
    guint sweeps = v->table->sweeps->len, trials = 0;
    for (guint i = 0; i < n; i++)
        trials += ((const rf_run_entry *)g_ptr_array_index(v->table->entries, i))->sweep[0] != '\0';
    if (sweeps > 0) {
        g_autofree char *with = g_strdup_printf("%s · %u trial%s of %u sweep%s", text, trials, trials == 1 ? "" : "s",
                                                sweeps, sweeps == 1 ? "" : "s");
        g_free(text);
        text = g_steal_pointer(&with);
    }
    if (left_out > 0) {
        g_autofree char *with = g_strdup_printf("%s · %u folder%s left out", text, left_out, left_out == 1 ? "" : "s");
        g_free(text);
        text = g_steal_pointer(&with);
    }
    gtk_label_set_text(v->summary, text);
    g_autoptr(GString) lines = g_string_new(NULL);
    for (guint i = 0; i < left_out; i++)
        g_string_append_printf(lines, "%s%s", i > 0 ? "\n" : "", (char *)g_ptr_array_index(v->table->warnings, i));
    gtk_label_set_text(v->warnings, lines->str);
    gtk_widget_set_visible(GTK_WIDGET(v->warnings), left_out > 0);
}

/* The rows of the runs that changed, in place when the same folders are
 * listed (GTK makes a row's widgets again only for those), else all of
 * them anew; the selection is kept. */
static void rebuild_rows(runs_view *v)
{
    g_autoptr(GHashTable) selected = selected_dirs(v);
    GPtrArray *entries = v->table->entries;
    GListModel *store = G_LIST_MODEL(v->store);
    guint n_old = g_list_model_get_n_items(store);
    gboolean same_folders = n_old == entries->len;
    for (guint i = 0; i < n_old && same_folders; i++) {
        g_autoptr(RfRunRow) row = g_list_model_get_item(store, i);
        same_folders = strcmp(rf_run_row_get_entry(row)->dir, ((rf_run_entry *)g_ptr_array_index(entries, i))->dir) == 0;
    }
    for (guint i = 0; i < entries->len && same_folders; i++) {
        g_autoptr(RfRunRow) row = g_list_model_get_item(store, i);
        if (!rf_run_row_shows(row, g_ptr_array_index(entries, i))) {
            g_autoptr(RfRunRow) fresh = rf_run_row_new(g_ptr_array_index(entries, i));
            g_list_store_splice(v->store, i, 1, (gpointer *)&fresh, 1);
        }
    }
    if (!same_folders) {
        g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);
        for (guint i = 0; i < entries->len; i++)
            g_ptr_array_add(rows, rf_run_row_new(g_ptr_array_index(entries, i)));
        g_list_store_splice(v->store, 0, n_old, rows->pdata, rows->len);
    }
    GListModel *model = G_LIST_MODEL(v->selection);
    for (guint i = 0, n = g_list_model_get_n_items(model); i < n; i++) {
        g_autoptr(GObject) row = g_list_model_get_item(model, i);
        if (g_hash_table_contains(selected, entry_of(row)->dir))
            gtk_selection_model_select_item(v->selection, i, FALSE);
    }
}

static void update_live(runs_view *v)
{
    static const rf_run_status of_state[] = {
        [RF_RUN_IDLE] = RF_RUN_STATUS_STOPPED,     [RF_RUN_LOADING] = RF_RUN_STATUS_RUNNING,
        [RF_RUN_RUNNING] = RF_RUN_STATUS_RUNNING,  [RF_RUN_PAUSED] = RF_RUN_STATUS_RUNNING,
        [RF_RUN_FINISHED] = RF_RUN_STATUS_FINISHED, [RF_RUN_STOPPED] = RF_RUN_STATUS_STOPPED,
        [RF_RUN_FAILED] = RF_RUN_STATUS_FAILED,
    };
    const rf_run_data *current = rf_session_get_current_run(v->session);
    rf_runs_table_set_live(v->table, current != NULL ? current->dir : NULL,
                           of_state[rf_session_get_state(v->session)]);
}

static void update_actions(runs_view *v);

/* Read the folder again; `force`: rebuild the rows even when nothing
 * changed (a rename, Reload). The rows are built only while the view is on
 * screen: GTK makes widgets for up to 200 rows of a list, which for a full
 * runs folder costs more than reading it (docs/bench-gui.md). */
static void refresh(runs_view *v, gboolean force)
{
    update_live(v);
    v->stale |= rf_runs_table_refresh(v->table) || force;
    if (v->stale && gtk_widget_get_mapped(v->widget)) {
        v->stale = FALSE;
        g_auto(GStrv) keys = rf_runs_table_differing_keys(v->table);
        measure_columns(v, fixed_columns, G_N_ELEMENTS(fixed_columns));
        measure_columns(v, (const char *const *)keys, g_strv_length(keys));
        rebuild_rows(v);
        update_key_columns(v, keys);
    }
    update_summary(v);
    update_actions(v);
    gtk_widget_set_sensitive(v->sweep_toggle, v->table->sweeps->len > 0);
    rf_sweep_panel_update(v->sweep_panel, v->table->sweeps);
}

static gboolean on_settled(gpointer data)
{
    runs_view *v = data;
    v->settle_source = 0;
    refresh(v, FALSE);
    return G_SOURCE_REMOVE;
}

static void refresh_soon(runs_view *v)
{
    if (v->settle_source == 0)
        v->settle_source = g_timeout_add(SETTLE_MS, on_settled, v);
}

static void on_folder_changed(GFileMonitor *m, GFile *file, GFile *other, GFileMonitorEvent event, runs_view *v)
{
    (void)m;
    (void)file;
    (void)other;
    (void)event;
    refresh_soon(v);
}

static gboolean on_poll(gpointer data)
{
    refresh(data, FALSE);
    return G_SOURCE_CONTINUE;
}

static void on_map(GtkWidget *w, runs_view *v)
{
    (void)w;
    refresh(v, FALSE);
    if (v->poll_source == 0)
        v->poll_source = g_timeout_add_seconds(POLL_SECONDS, on_poll, v);
}

static void on_unmap(GtkWidget *w, runs_view *v)
{
    (void)w;
    g_clear_handle_id(&v->poll_source, g_source_remove);
}

static void on_state_changed(RfSession *s, GtkWidget *widget)
{
    (void)s;
    refresh_soon(g_object_get_data(G_OBJECT(widget), VIEW_KEY));
}

/* ---- actions on the selected runs ---- */

static void enable(runs_view *v, const char *name, gboolean on)
{
    g_simple_action_set_enabled(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(v->actions), name)), on);
}

static void update_actions(runs_view *v)
{
    g_autoptr(GPtrArray) picked = selected_entries(v);
    enable(v, "rename", picked->len == 1);
    enable(v, "tag", picked->len > 0);
    enable(v, "delete", picked->len > 0);
    if (picked->len > 0) {
        const rf_run_entry *first = g_ptr_array_index(picked, 0);
        gtk_editable_set_text(GTK_EDITABLE(v->rename_entry), first->name);
        gtk_editable_set_text(GTK_EDITABLE(v->tags_entry), first->tags);
    }
}

/* The first selected trial of a sweep has its line highlighted. */
static void highlight_selected_trial(runs_view *v)
{
    g_autoptr(GPtrArray) picked = selected_entries(v);
    for (guint i = 0; i < picked->len; i++) {
        const rf_run_entry *e = g_ptr_array_index(picked, i);
        if (e->sweep[0] != '\0') {
            g_autofree char *sweep = g_path_get_dirname(e->dir);
            rf_sweep_panel_highlight(v->sweep_panel, sweep, e->folder);
            return;
        }
    }
    rf_sweep_panel_highlight(v->sweep_panel, NULL, NULL);
}

static void on_selection_changed(GtkSelectionModel *m, guint position, guint n, runs_view *v)
{
    (void)m;
    (void)position;
    (void)n;
    update_actions(v);
    highlight_selected_trial(v);
}

static void show_error(runs_view *v, const char *what, const GError *error)
{
    rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(v->widget)), what, error->message);
}

/* A new name (name != NULL) or new tags for every selected run. */
static void set_meta_of_selected(runs_view *v, const char *name, const char *tags)
{
    g_autoptr(GPtrArray) picked = selected_entries(v);
    g_autoptr(GError) error = NULL;
    for (guint i = 0; i < picked->len; i++) {
        rf_run_entry *e = g_ptr_array_index(picked, i);
        if (!rf_run_entry_set_meta(e, name != NULL ? name : e->name, tags != NULL ? tags : e->tags, &error)) {
            show_error(v, name != NULL ? "Could not rename the run" : "Could not tag the run", error);
            break;
        }
    }
    refresh(v, TRUE);
}

static void action_rename(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    set_meta_of_selected(data, g_variant_get_string(p, NULL), NULL);
}

static void action_tag(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    set_meta_of_selected(data, NULL, g_variant_get_string(p, NULL));
}

typedef struct trash_request {
    runs_view *v;
    GtkWidget *widget;     /* a reference: the view outlives the question */
    GPtrArray *entries;
} trash_request;

static void trash_answered(gboolean yes, gpointer data)
{
    trash_request *req = data;
    runs_view *v = g_object_get_data(G_OBJECT(req->widget), VIEW_KEY);
    for (guint i = 0; yes && v != NULL && i < req->entries->len; i++) {
        const rf_run_entry *e = g_ptr_array_index(req->entries, i);
        g_autoptr(GFile) dir = g_file_new_for_path(e->dir);
        g_autoptr(GError) error = NULL;
        rf_session_remove_overlay(v->session, e->dir);
        if (!g_file_trash(dir, NULL, &error)) {
            show_error(v, "Could not move the run to the trash", error);
            break;
        }
    }
    if (yes && v != NULL)
        refresh(v, TRUE);
    g_ptr_array_unref(req->entries);
    g_object_unref(req->widget);
    g_free(req);
}

static void action_delete(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    runs_view *v = data;
    g_autoptr(GPtrArray) picked = selected_entries(v);
    const rf_run_data *current = rf_session_get_current_run(v->session);
    RfRunState state = rf_session_get_state(v->session);
    gboolean training = state == RF_RUN_LOADING || state == RF_RUN_RUNNING || state == RF_RUN_PAUSED;
    for (guint i = 0; i < picked->len && training && current != NULL; i++)
        if (g_strcmp0(((rf_run_entry *)g_ptr_array_index(picked, i))->dir, current->dir) == 0) {
            rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(v->widget)), "This run is still training",
                            "Stop it before moving its folder to the trash.");
            return;
        }
    if (picked->len == 0)
        return;
    const rf_run_entry *first = g_ptr_array_index(picked, 0);
    g_autofree char *what = picked->len == 1 ? g_strdup_printf("Move “%s” to the trash?", first->name)
                                             : g_strdup_printf("Move %u runs to the trash?", picked->len);
    trash_request *req = g_new0(trash_request, 1);
    req->widget = g_object_ref(v->widget);
    req->entries = g_steal_pointer(&picked);
    rf_dialog_confirm(GTK_WINDOW(gtk_widget_get_root(v->widget)), what,
                      "Their folders (config, metrics and checkpoint) go to the trash, from where they can be "
                      "restored.",
                      "Move to _Trash", trash_answered, req);
}

/* ---- TensorBoard runs ---- */

/* A folder of TensorBoard event files (anyone's) joins the Training view's
 * overlay, its tags matched to our series (ui/plot/tb_run_data.h). */
static void tensorboard_chosen(const char *path, gpointer data)
{
    g_autoptr(GtkWidget) widget = data;
    runs_view *v = g_object_get_data(G_OBJECT(widget), VIEW_KEY);
    if (path == NULL || v == NULL || gtk_widget_get_root(widget) == NULL)
        return;
    g_autoptr(GError) error = NULL;
    if (!rf_session_add_overlay(v->session, path, &error))
        rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(widget)), "Could not open the TensorBoard run",
                        error->message);
}

static void action_open_tensorboard(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    runs_view *v = data;
    rf_dialog_choose_path(GTK_WINDOW(gtk_widget_get_root(v->widget)), RF_CHOOSE_OPEN_FOLDER, RF_FOLDER_RUN,
                          "Open a TensorBoard Run", "_Open", NULL, NULL, NULL, tensorboard_chosen,
                          g_object_ref(v->widget));
}

static void action_remove_tensorboard(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    runs_view *v = data;
    GPtrArray *overlays = rf_session_get_overlays(v->session);
    g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < overlays->len; i++) {
        const rf_run_data *r = g_ptr_array_index(overlays, i);
        if (r->tensorboard)
            g_ptr_array_add(dirs, g_strdup(r->dir));
    }
    for (guint i = 0; i < dirs->len; i++)
        rf_session_remove_overlay(v->session, g_ptr_array_index(dirs, i));
}

/* Remove is there while a TensorBoard run is drawn. */
static void on_overlays_changed(RfSession *s, GtkWidget *widget)
{
    runs_view *v = g_object_get_data(G_OBJECT(widget), VIEW_KEY);
    if (v == NULL)
        return;
    GPtrArray *overlays = rf_session_get_overlays(s);
    gboolean any = FALSE;
    for (guint i = 0; i < overlays->len; i++)
        any |= ((const rf_run_data *)g_ptr_array_index(overlays, i))->tensorboard;
    g_simple_action_set_enabled(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(v->actions),
                                                                           "remove-tensorboard")),
                                any);
}

static GtkWidget *tensorboard_button(void)
{
    g_autoptr(GMenu) menu = g_menu_new();
    g_menu_append(menu, "_Open TensorBoard Run…", "runs.open-tensorboard");
    g_menu_append(menu, "_Remove TensorBoard Runs", "runs.remove-tensorboard");
    GtkWidget *button = gtk_menu_button_new();
    gtk_widget_set_name(button, "tensorboard-button");
    gtk_menu_button_set_label(GTK_MENU_BUTTON(button), "Tensor_Board");
    gtk_menu_button_set_use_underline(GTK_MENU_BUTTON(button), TRUE);
    gtk_menu_button_set_menu_model(GTK_MENU_BUTTON(button), G_MENU_MODEL(menu));
    gtk_widget_set_tooltip_text(button, "Draw a folder of TensorBoard event files (a PyTorch run's, say) "
                                        "in the Training view beside these runs");
    return button;
}

/* Double-click or Enter on a row: the run opens as File → Open Checkpoint
 * opens its checkpoint (the window's win.open-run). */
static void on_row_activated(GtkColumnView *list, guint position, runs_view *v)
{
    (void)list;
    g_autoptr(RfRunRow) row = g_list_model_get_item(G_LIST_MODEL(v->selection), position);
    if (row == NULL)
        return;
    const rf_run_entry *e = entry_of(row);
    GtkWindow *window = GTK_WINDOW(gtk_widget_get_root(v->widget));
    if (!e->has_checkpoint) {
        rf_dialog_error(window, "This run has no checkpoint",
                        "Its folder holds no checkpoint.safetensors to open. Its curves can still be drawn in the "
                        "Training view: tick it in the Draw column.");
        return;
    }
    g_autofree char *path = g_build_filename(e->dir, "checkpoint.safetensors", NULL);
    if (!gtk_widget_activate_action(v->widget, "win.open-run", "s", path))
        rf_dialog_error(window, "A run is training", "Pause or stop it before opening another run.");
}

static void action_reload(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    refresh(data, TRUE);
}

/* ---- the Sweep panel ---- */

/* A click on trial `dir`'s line: its row alone is selected, and the
 * Training view draws it (as ticking its Draw box does). */
static void on_trial_clicked(const char *dir, gpointer data)
{
    runs_view *v = data;
    rf_run_entry *e = rf_runs_table_find(v->table, dir);
    if (e == NULL)
        return;
    if (session_run(v->session, dir) == NULL && !is_overlay(v->session, dir)) {
        g_autoptr(GError) error = NULL;
        if (!rf_session_add_overlay(v->session, dir, &error))
            show_error(v, "Could not draw this run", error);
        /* its row again, so that its Draw box shows it */
        GListModel *store = G_LIST_MODEL(v->store);
        for (guint i = 0, n = g_list_model_get_n_items(store); i < n; i++) {
            g_autoptr(RfRunRow) row = g_list_model_get_item(store, i);
            if (rf_run_row_get_entry(row) == e) {
                g_autoptr(RfRunRow) fresh = rf_run_row_new(e);
                g_list_store_splice(v->store, i, 1, (gpointer *)&fresh, 1);
                break;
            }
        }
    }
    GListModel *model = G_LIST_MODEL(v->selection);
    for (guint i = 0, n = g_list_model_get_n_items(model); i < n; i++) {
        g_autoptr(GObject) row = g_list_model_get_item(model, i);
        if (entry_of(row) == e) {
            gtk_selection_model_select_item(v->selection, i, TRUE);
            break;
        }
    }
}

/* The panel below the list, and its plot the one File → Export Plot… writes. */
static void on_sweep_toggled(GtkToggleButton *button, runs_view *v)
{
    gboolean on = gtk_toggle_button_get_active(button);
    GtkWidget *paned = gtk_widget_get_parent(v->sweep_panel);
    if (on)   /* the list keeps a third of the room, the figure the rest */
        gtk_paned_set_position(GTK_PANED(paned), gtk_widget_get_height(paned) / 3);
    gtk_widget_set_visible(v->sweep_panel, on);
    rf_view_set_plot(v->widget, on ? rf_sweep_panel_plot(v->sweep_panel) : NULL);
}

static GtkWidget *sweep_toggle(runs_view *v)
{
    GtkWidget *button = gtk_toggle_button_new_with_mnemonic("S_weep");
    gtk_widget_set_name(button, "sweep-toggle");
    gtk_widget_set_tooltip_text(button, "Show a sweep's trials as parallel coordinates below the list");
    g_signal_connect(button, "toggled", G_CALLBACK(on_sweep_toggled), v);
    gtk_widget_set_sensitive(button, FALSE);
    return button;
}

/* ---- the toolbar ---- */

static void on_entry_activate(GtkEntry *entry, runs_view *v)
{
    const char *action = g_object_get_data(G_OBJECT(entry), "rf-action");
    g_action_group_activate_action(G_ACTION_GROUP(v->actions), action,
                                   g_variant_new_string(gtk_editable_get_text(GTK_EDITABLE(entry))));
    GtkWidget *popover = gtk_widget_get_ancestor(GTK_WIDGET(entry), GTK_TYPE_POPOVER);
    if (popover != NULL)
        gtk_popover_popdown(GTK_POPOVER(popover));
}

/* A button opening a popover with an entry; Enter applies `action` to the
 * selected runs. */
static GtkWidget *entry_button(runs_view *v, const char *label, const char *action, const char *name,
                               const char *hint, GtkWidget **entry)
{
    *entry = gtk_entry_new();
    gtk_widget_set_name(*entry, name);
    gtk_entry_set_placeholder_text(GTK_ENTRY(*entry), hint);
    gtk_editable_set_width_chars(GTK_EDITABLE(*entry), 28);
    g_object_set_data(G_OBJECT(*entry), "rf-action", (gpointer)action);
    g_signal_connect(*entry, "activate", G_CALLBACK(on_entry_activate), v);
    GtkWidget *popover = gtk_popover_new();
    gtk_popover_set_child(GTK_POPOVER(popover), *entry);
    GtkWidget *button = gtk_menu_button_new();
    gtk_menu_button_set_label(GTK_MENU_BUTTON(button), label);
    gtk_menu_button_set_use_underline(GTK_MENU_BUTTON(button), TRUE);
    gtk_menu_button_set_popover(GTK_MENU_BUTTON(button), popover);
    g_object_bind_property(g_action_map_lookup_action(G_ACTION_MAP(v->actions), action), "enabled", button,
                           "sensitive", G_BINDING_SYNC_CREATE);
    return button;
}

static GtkWidget *toolbar(runs_view *v)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_margin_start(bar, 12);
    gtk_widget_set_margin_end(bar, 12);
    gtk_widget_set_margin_top(bar, 6);
    gtk_widget_set_margin_bottom(bar, 6);
    GtkWidget *reload = gtk_button_new_with_mnemonic("_Reload");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(reload), "runs.reload");
    gtk_widget_set_tooltip_text(reload, "Read the runs folder again");
    GtkWidget *rename = entry_button(v, "Re_name…", "rename", "rename-entry", "Name (empty: the folder's)",
                                     &v->rename_entry);
    GtkWidget *tags = entry_button(v, "_Tags…", "tag", "tags-entry", "Tags, e.g. baseline, lr-sweep",
                                   &v->tags_entry);
    GtkWidget *delete = gtk_button_new_with_mnemonic("_Delete…");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(delete), "runs.delete");
    gtk_widget_set_tooltip_text(delete, "Move the selected runs' folders to the trash");
    v->summary = GTK_LABEL(gtk_label_new(NULL));
    gtk_widget_add_css_class(GTK_WIDGET(v->summary), "dim-label");
    gtk_widget_set_hexpand(GTK_WIDGET(v->summary), TRUE);
    gtk_label_set_xalign(v->summary, 1.0f);
    gtk_label_set_ellipsize(v->summary, PANGO_ELLIPSIZE_MIDDLE);
    gtk_box_append(GTK_BOX(bar), reload);
    gtk_box_append(GTK_BOX(bar), rename);
    gtk_box_append(GTK_BOX(bar), tags);
    gtk_box_append(GTK_BOX(bar), delete);
    gtk_box_append(GTK_BOX(bar), tensorboard_button());
    v->sweep_toggle = sweep_toggle(v);
    gtk_box_append(GTK_BOX(bar), v->sweep_toggle);
    gtk_box_append(GTK_BOX(bar), GTK_WIDGET(v->summary));
    return bar;
}

static const GActionEntry actions[] = {
    {"rename", action_rename, "s", NULL, NULL, {0}},
    {"tag", action_tag, "s", NULL, NULL, {0}},
    {"delete", action_delete, NULL, NULL, NULL, {0}},
    {"reload", action_reload, NULL, NULL, NULL, {0}},
    {"open-tensorboard", action_open_tensorboard, NULL, NULL, NULL, {0}},
    {"remove-tensorboard", action_remove_tensorboard, NULL, NULL, NULL, {0}},
};

static GtkColumnView *build_list(runs_view *v)
{
    v->store = g_list_store_new(RF_TYPE_RUN_ROW);
    GtkColumnView *list = GTK_COLUMN_VIEW(gtk_column_view_new(NULL));
    GtkSortListModel *sorted = gtk_sort_list_model_new(G_LIST_MODEL(v->store),
                                                       g_object_ref(gtk_column_view_get_sorter(list)));
    v->selection = GTK_SELECTION_MODEL(gtk_multi_selection_new(G_LIST_MODEL(sorted)));
    gtk_column_view_set_model(list, v->selection);
    g_object_unref(v->selection);   /* the list's */
    gtk_widget_set_name(GTK_WIDGET(list), "runs-list");
    gtk_column_view_set_show_column_separators(list, TRUE);
    gtk_column_view_set_reorderable(list, TRUE);
    GtkColumnViewColumn *draw = check_column(v);
    gtk_column_view_append_column(list, draw);
    g_object_unref(draw);
    for (size_t i = 0; i < G_N_ELEMENTS(fixed_columns); i++) {
        gboolean numeric = i >= 4 && i <= 7;
        GtkColumnViewColumn *c = text_column(v, fixed_titles[i], fixed_columns[i], numeric);
        gtk_column_view_append_column(list, c);
        g_object_unref(c);
    }
    v->key_columns = g_ptr_array_new_with_free_func(g_object_unref);
    v->widths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_signal_connect(v->selection, "selection-changed", G_CALLBACK(on_selection_changed), v);
    g_signal_connect(list, "activate", G_CALLBACK(on_row_activated), v);
    return list;
}

GtkWidget *rf_runs_view_new(RfSession *s)
{
    runs_view *v = g_new0(runs_view, 1);
    v->session = s;
    const char *root = rf_session_get_runs_dir(s);
    g_autofree char *fallback = root == NULL ? rf_runs_default_dir() : NULL;
    v->table = rf_runs_table_new(root != NULL ? root : fallback);
    v->widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    g_object_set_data_full(G_OBJECT(v->widget), VIEW_KEY, v, (GDestroyNotify)runs_view_free);
    v->actions = g_simple_action_group_new();
    g_action_map_add_action_entries(G_ACTION_MAP(v->actions), actions, G_N_ELEMENTS(actions), v);
    gtk_widget_insert_action_group(v->widget, "runs", G_ACTION_GROUP(v->actions));

    v->list = build_list(v);
    v->warnings = GTK_LABEL(gtk_label_new(NULL));
    gtk_widget_set_name(GTK_WIDGET(v->warnings), "runs-warnings");
    gtk_widget_add_css_class(GTK_WIDGET(v->warnings), "dim-label");
    gtk_label_set_wrap(v->warnings, TRUE);
    gtk_label_set_selectable(v->warnings, TRUE);
    gtk_label_set_xalign(v->warnings, 0.0f);
    gtk_widget_set_margin_start(GTK_WIDGET(v->warnings), 12);
    gtk_widget_set_margin_end(GTK_WIDGET(v->warnings), 12);
    gtk_widget_set_margin_bottom(GTK_WIDGET(v->warnings), 6);
    GtkWidget *scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), GTK_WIDGET(v->list));
    gtk_widget_set_vexpand(scrolled, TRUE);
    gtk_widget_set_size_request(scrolled, -1, 120);
    v->sweep_panel = rf_sweep_panel_new(on_trial_clicked, v);
    gtk_widget_set_visible(v->sweep_panel, FALSE);
    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
    gtk_widget_set_name(paned, "runs-paned");
    gtk_paned_set_start_child(GTK_PANED(paned), scrolled);
    gtk_paned_set_end_child(GTK_PANED(paned), v->sweep_panel);
    gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
    gtk_widget_set_vexpand(paned, TRUE);
    gtk_box_append(GTK_BOX(v->widget), rf_view_scroll_sideways(toolbar(v)));
    gtk_box_append(GTK_BOX(v->widget), GTK_WIDGET(v->warnings));
    gtk_box_append(GTK_BOX(v->widget), paned);

    g_autoptr(GFile) folder = g_file_new_for_path(v->table->root);
    v->monitor = g_file_monitor_directory(folder, G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);
    if (v->monitor != NULL)
        g_signal_connect(v->monitor, "changed", G_CALLBACK(on_folder_changed), v);
    g_signal_connect(v->widget, "destroy", G_CALLBACK(on_destroy), v);
    g_signal_connect(v->widget, "map", G_CALLBACK(on_map), v);
    g_signal_connect(v->widget, "unmap", G_CALLBACK(on_unmap), v);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_state_changed), v->widget, 0);
    g_signal_connect_object(s, "overlays-changed", G_CALLBACK(on_overlays_changed), v->widget, 0);
    on_overlays_changed(s, v->widget);
    refresh(v, TRUE);
    return v->widget;
}
