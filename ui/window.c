/* The main window: run controls, sidebar, views, status line, and the
 * run actions (the file and export actions: window_files.c). */
#include "window.h"
#include "window_private.h"

#include <math.h>
#include <string.h>

#include "data_tasks.h"
#include "../core/checkpoint.h"
#include "dialogs.h"
#include "plot/plot.h"
#include "rfui-resources.h"
#include "settings.h"
#include "sidebar_handle.h"
#include "toast.h"
#include "view.h"
#include "view_switcher.h"

G_DEFINE_TYPE(RfWindow, rf_window, GTK_TYPE_APPLICATION_WINDOW)

/* What the views ask for beside the sidebar (the natural width of the row
 * above them): with the sidebar's 360 px, windows narrower than about
 * 1,240 px fold it away. */
#define VIEWS_NATURAL_WIDTH 860

/* The views in their switcher's groups (ui/view_switcher.h), in the order
 * of Alt+1 to Alt+9 and Alt+0. */
static const struct {
    const char *name, *title, *group;
    GtkWidget *(*create)(RfSession *s);
} views[] = {
    {"training", "Training", "Run", rf_training_view_new},
    {"memory", "Memory", "Run", rf_memory_view_new},
    {"compare", "Compare", "Run", rf_compare_view_new},
    {"runs", "Runs", "Run", rf_runs_view_new},
    {"attention", "Attention", "Model", rf_attention_view_new},
    {"latent", "Latent", "Model", rf_latent_view_new},
    {"talk", "TaLK", "Model", rf_talk_view_new},
    {"distributions", "Distributions", "Model", rf_distributions_view_new},
    {"data", "Data", "Why", rf_data_view_new},
    {"evaluation", "Evaluation", "Why", rf_evaluation_view_new},
    {"attribution", "Attribution", "Why", rf_attribution_view_new},
    {"projector", "Projector", "Why", rf_projector_view_new},
};

/* --- formatting --- */

/* 1240 -> "1,240" */
static void format_count(int64_t n, char *buf, size_t size)
{
    char digits[32];
    g_snprintf(digits, sizeof digits, "%" G_GINT64_FORMAT, n < 0 ? -n : n);
    size_t len = strlen(digits), o = 0;
    if (n < 0 && o + 1 < size)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 1 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 1 < size)
            buf[o++] = ',';
        if (o + 1 < size)
            buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

/* 192 s -> "3:12", 4000 s -> "1:06:40" */
static void format_duration(double seconds, char *buf, size_t size)
{
    long s = lround(seconds);
    if (s >= 3600)
        g_snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        g_snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
}

static double seconds_per_step(const rf_run_data *run)
{
    if (run == NULL)
        return 0.0;
    if (run->median_step_seconds > 0.0)
        return run->median_step_seconds;
    const rf_metrics *last = rf_run_data_last(run, RF_SPLIT_TRAIN);
    return last != NULL ? last->step_seconds : 0.0;
}

/* --- keeping the window in step with the session --- */

static void set_action_enabled(RfWindow *win, const char *name, gboolean enabled)
{
    GAction *action = g_action_map_lookup_action(G_ACTION_MAP(win), name);
    if (action != NULL)
        g_simple_action_set_enabled(G_SIMPLE_ACTION(action), enabled);
}

/* Whether Train continues the current run instead of starting a new one:
 * it is paused, or it finished and train.steps has been raised since (which
 * reached the run), with no edit waiting for a new run. */
static gboolean can_continue(RfWindow *win)
{
    RfRunState state = rf_session_get_state(win->session);
    if (state == RF_RUN_PAUSED)
        return TRUE;
    const rf_run_data *run = rf_session_get_current_run(win->session);
    const rf_config *cfg = rf_session_get_config(win->session);
    g_auto(GStrv) pending = rf_session_get_pending_keys(win->session);
    return state == RF_RUN_FINISHED && run != NULL && rf_session_get_step(win->session) < cfg->train.steps &&
           pending[0] == NULL;
}

static void update_actions(RfWindow *win)
{
    RfRunState state = rf_session_get_state(win->session);
    gboolean running = state == RF_RUN_RUNNING, paused = state == RF_RUN_PAUSED;
    gboolean busy = running || state == RF_RUN_LOADING;
    gboolean has_run = rf_session_get_current_run(win->session) != NULL;
    gboolean has_data = rf_session_get_dataset(win->session) != NULL;

    set_action_enabled(win, "train", !busy && (has_data || paused));
    set_action_enabled(win, "pause", running);
    set_action_enabled(win, "step", paused);
    set_action_enabled(win, "stop", running || paused);
    set_action_enabled(win, "restart", running || paused);
    if (!running && !paused)
        gtk_revealer_set_reveal_child(win->restart_banner, FALSE);
    set_action_enabled(win, "save-checkpoint",
                       has_run && (paused || state == RF_RUN_STOPPED || state == RF_RUN_FINISHED));
    set_action_enabled(win, "export-metrics", has_run);
    set_action_enabled(win, "open-checkpoint", !busy);
    set_action_enabled(win, "open-checkpoint-on-data", !busy);
    set_action_enabled(win, "open-run", !busy);
    set_action_enabled(win, "open-data", !busy && !paused);
    set_action_enabled(win, "open-config", !busy && !paused);

    gboolean resume = can_continue(win);
    gtk_label_set_text_with_mnemonic(win->train_label, resume ? "_Resume" : "_Train");
    gtk_widget_set_tooltip_text(win->train_button,
                                resume ? "Resume training (Ctrl+Return)" : "Start a new run (Ctrl+Return)");
}

static gboolean run_is_live(RfRunState state)
{
    return state == RF_RUN_LOADING || state == RF_RUN_RUNNING || state == RF_RUN_PAUSED;
}

/* The run on screen's step counter. Once it has ended and the edits differ
 * from it (another config opened, another encoder picked), Train starts a
 * new run: the counter says it is the last run's. */
static void update_progress(RfWindow *win)
{
    const rf_config *cfg = rf_session_get_run_config(win->session);
    int64_t step = rf_session_get_step(win->session);
    int64_t steps = cfg->train.steps;
    RfRunState state = rf_session_get_state(win->session);
    g_auto(GStrv) pending = rf_session_get_pending_keys(win->session);
    gboolean last_run = !run_is_live(state) && pending[0] != NULL;
    char done[32], total[32];
    format_count(step, done, sizeof done);
    format_count(steps, total, sizeof total);
    g_autofree char *text = g_strdup_printf("%sstep %s / %s", last_run ? "last run: " : "", done, total);
    gtk_label_set_text(win->step_label, text);
    gtk_widget_set_tooltip_text(GTK_WIDGET(win->step_label),
                                last_run ? "The last run's steps; Train starts a new run with the edited settings"
                                         : NULL);
    gtk_progress_bar_set_fraction(win->progress, steps > 0 ? CLAMP((double)step / (double)steps, 0.0, 1.0) : 0.0);

    double per_step = seconds_per_step(rf_session_get_current_run(win->session));
    if (state == RF_RUN_RUNNING && per_step > 0.0 && steps > step) {
        char eta[32];
        format_duration(per_step * (double)(steps - step), eta, sizeof eta);
        g_autofree char *eta_text = g_strdup_printf("ETA %s", eta);
        gtk_label_set_text(win->eta_label, eta_text);
    } else {
        gtk_label_set_text(win->eta_label, "");
    }
}

static const char *state_words(RfRunState state)
{
    switch (state) {
    case RF_RUN_IDLE: return "ready";
    case RF_RUN_LOADING: return "loading…";
    case RF_RUN_RUNNING: return "training";
    case RF_RUN_PAUSED: return "paused";
    case RF_RUN_FINISHED: return "finished";
    case RF_RUN_STOPPED: return "stopped";
    case RF_RUN_FAILED: return "failed";
    }
    return "";
}

/* The edits waiting for the next run, for the status line:
 * " · next run: model.encoder = talk" (" and 2 more keys"). */
static void append_pending(RfWindow *win, GString *s)
{
    g_auto(GStrv) pending = rf_session_get_pending_keys(win->session);
    if (pending[0] == NULL)
        return;
    char value[RF_STR_LEN + 32];
    rf_config_get(rf_session_get_config(win->session), pending[0], value, sizeof value);
    g_string_append_printf(s, " · next run: %s = %s", pending[0], value);
    guint more = g_strv_length(pending) - 1;
    if (more > 0)
        g_string_append_printf(s, " and %u more key%s", more, more == 1 ? "" : "s");
}

/* "loss 1.73 · acc 38.0 % · val 41.2 % · test 40.5 % · 0.21 s/step · 2.9 GiB · ListOps · BLRP"
 * (accuracies as percent with one decimal, as Compare and the figures give them),
 * all of the run on screen, then the edits that wait for the next run. */
static void update_status(RfWindow *win)
{
    const rf_config *cfg = rf_session_get_run_config(win->session);
    const rf_run_data *run = rf_session_get_current_run(win->session);
    RfRunState state = rf_session_get_state(win->session);
    GString *s = g_string_new(NULL);
    const rf_metrics *train = run != NULL ? rf_run_data_last(run, RF_SPLIT_TRAIN) : NULL;
    const rf_metrics *val = run != NULL ? rf_run_data_last(run, RF_SPLIT_VAL) : NULL;
    const rf_metrics *test = run != NULL ? rf_run_data_last(run, RF_SPLIT_TEST) : NULL;
    if (train != NULL)
        g_string_append_printf(s, "loss %.3g · acc %.1f %% · ", train->loss, 100 * train->accuracy);
    if (val != NULL)
        g_string_append_printf(s, "val %.1f %% · ", 100 * val->accuracy);
    if (test != NULL)
        g_string_append_printf(s, "test %.1f %% · ", 100 * test->accuracy);
    double per_step = seconds_per_step(run);
    if (per_step > 0.0)
        g_string_append_printf(s, "%.2g s/step · ", per_step);
    if (run != NULL && (run->peak_bytes > 0.0 || run->planned_bytes > 0.0)) {
        char bytes[32];
        rf_format_bytes(run->peak_bytes > 0.0 ? run->peak_bytes : run->planned_bytes, bytes, sizeof bytes);
        g_string_append_printf(s, "%s%s · ", bytes, run->peak_bytes > 0.0 ? "" : " planned");
    }
    int64_t done = 0, total = 0;
    const char *what = "";
    if (win->loading_data)
        rf_data_progress(&done, &total, &what);
    if (win->loading_data && total > 0 && done < total)
        g_string_append_printf(s, "loading data… %'" G_GINT64_FORMAT " of %'" G_GINT64_FORMAT " %s · ", done, total,
                               what);
    else if (train == NULL || state != RF_RUN_RUNNING)
        g_string_append_printf(s, "%s · ", win->loading_data ? "loading data…" : state_words(state));
    g_string_append_printf(s, "%s · %s", rf_choice_label("data.task", cfg->data.task),
                           rf_choice_label("model.encoder", cfg->model.encoder));
    append_pending(win, s);
    gtk_label_set_text(win->status_label, s->str);
    g_string_free(s, TRUE);
}

void rf_window_refresh(RfWindow *win)
{
    update_actions(win);
    update_progress(win);
    update_status(win);
}

static void on_session_changed(RfSession *s, gpointer user_data)
{
    (void)s;
    rf_window_refresh(RF_WINDOW(user_data));
}

static void on_config_changed(RfSession *s, const char *key, gpointer user_data)
{
    (void)s;
    (void)key;
    rf_window_refresh(RF_WINDOW(user_data));
}

static void on_data_changed(RfSession *s, gpointer user_data)
{
    RfWindow *win = user_data;
    gboolean asked = win->loading_data;
    win->loading_data = FALSE;
    rf_window_refresh(win);
    /* Skipped files go to stderr too, which a workbench user never sees. */
    long long count = 0;
    const char *lines = rf_session_get_data_warnings(s, &count);
    if (!asked || count == 0)
        return;
    g_autoptr(GString) detail = g_string_new(lines);
    long long shown = 0;
    for (const char *c = lines; *c != '\0'; c++)
        shown += *c == '\n';
    if (count > shown)
        g_string_append_printf(detail, "… and %lld more (all of them are on standard error)\n", count - shown);
    g_string_append(detail, "Set Data → Strict to refuse a folder with bad files instead.");
    g_autofree char *what = g_strdup_printf("The data opened with %lld warning%s", count, count == 1 ? "" : "s");
    rf_dialog_warning(GTK_WINDOW(win), what, detail->str);
}

static void on_run_failed(RfSession *s, const char *message, gpointer user_data)
{
    (void)s;
    RfWindow *win = user_data;
    const char *what = win->loading_data ? "Could not open the data" : "Training stopped with an error";
    win->loading_data = FALSE;
    rf_window_refresh(win);
    rf_dialog_error(GTK_WINDOW(win), what, message);
}

/* While data loads, the status line follows the loader's progress. */
static gboolean tick_loading(gpointer user_data)
{
    RfWindow *win = user_data;
    if (!win->loading_data) {
        win->loading_tick = 0;
        return G_SOURCE_REMOVE;
    }
    rf_window_refresh(win);
    return G_SOURCE_CONTINUE;
}

void rf_window_open_data(RfWindow *win)
{
    win->loading_data = TRUE;
    rf_session_open_data(win->session);
    if (win->loading_tick == 0)
        win->loading_tick = g_timeout_add(200, tick_loading, win);
    rf_window_refresh(win);
}

/* --- run actions --- */

static void start_run(RfWindow *win)
{
    g_autoptr(GError) error = NULL;
    if (!rf_session_start(win->session, &error))
        rf_dialog_error(GTK_WINDOW(win), "Could not start training", error->message);
    rf_window_refresh(win);
}

/* Resume, or say why not (another process trains the run's folder). */
static void resume_run(RfWindow *win)
{
    g_autoptr(GError) error = NULL;
    if (!rf_session_resume(win->session, &error))
        rf_dialog_error(GTK_WINDOW(win), "Could not resume training", error->message);
}

static void action_train(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    if (can_continue(win))
        resume_run(win);
    else
        start_run(win);
}

static void action_pause(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    rf_session_pause(RF_WINDOW(user_data)->session);
}

static void action_step(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    g_autoptr(GError) error = NULL;
    if (!rf_session_step_once(win->session, &error))
        rf_dialog_error(GTK_WINDOW(win), "Could not take a step", error->message);
}

static void action_stop(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    rf_session_stop(win->session);
    rf_window_refresh(win);
}

static void action_restart(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    rf_session_stop(win->session);
    start_run(win);
}

/* F9 and the header's toggle show or hide the sidebar. */
static void action_toggle_sidebar(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    adw_flap_set_reveal_flap(win->flap, !adw_flap_get_reveal_flap(win->flap));
}

/* Space pauses and resumes, unless a text field wants the space. */
static gboolean toggle_pause(GtkWidget *widget, GVariant *args, gpointer user_data)
{
    (void)args;
    (void)user_data;
    RfWindow *win = RF_WINDOW(widget);
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(win));
    if (focus != NULL && GTK_IS_EDITABLE(focus))
        return FALSE;
    RfRunState state = rf_session_get_state(win->session);
    if (state == RF_RUN_RUNNING)
        rf_session_pause(win->session);
    else if (state == RF_RUN_PAUSED)
        resume_run(win);
    else
        return FALSE;
    return TRUE;
}

/* --- feedback where the user is --- */

void rf_window_toast(RfWindow *win, const char *text, const char *folder)
{
    g_return_if_fail(RF_IS_WINDOW(win));
    rf_toast_show(&win->toast, text, folder);
}

const char *rf_window_get_toast(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), NULL);
    return rf_toast_text(&win->toast);
}

const char *rf_window_get_toast_folder(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), NULL);
    return rf_toast_folder(&win->toast);
}

gboolean rf_window_restart_offered(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), FALSE);
    return gtk_revealer_get_reveal_child(win->restart_banner);
}

static void on_restart_needed(RfConfigPanel *panel, gpointer user_data)
{
    (void)panel;
    RfWindow *win = user_data;
    gtk_revealer_set_reveal_child(win->restart_banner, TRUE);
}

/* --- closing --- */

static void stop_and_close(RfWindow *win)
{
    rf_session_stop(win->session);
    gtk_window_destroy(GTK_WINDOW(win));
}

static void checkpoint_before_close(const char *path, gpointer user_data)
{
    RfWindow *win = user_data;
    if (path != NULL && rf_window_save_checkpoint(win, path))
        stop_and_close(win);
    g_object_unref(win);
}

static void close_answered(RfCloseAnswer answer, gpointer user_data)
{
    RfWindow *win = user_data;
    switch (answer) {
    case RF_CLOSE_SAVE:
        rf_dialog_choose_path(GTK_WINDOW(win), RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN, "Save Checkpoint", "_Save",
                              "Checkpoints (safetensors)", "*.safetensors", "checkpoint.safetensors",
                              checkpoint_before_close, g_object_ref(win));
        break;
    case RF_CLOSE_DISCARD:   /* as the dialog says: no checkpoint */
        rf_session_stop_without_saving(win->session);
        gtk_window_destroy(GTK_WINDOW(win));
        break;
    case RF_CLOSE_CANCEL:
        if (win->resume_on_cancel)
            resume_run(win);
        break;
    }
    g_object_unref(win);
}

/* The window's size (unmaximised), maximised state, the sidebar's width and
 * whether it is shown beside the views are preferences (ui/settings.h): saved
 * when the window is asked to close, restored when the next one opens. A
 * folded sidebar (a narrow window) says nothing of the choice, so it is
 * saved only side by side. */
static void save_window_state(RfWindow *win)
{
    GSettings *settings = rf_settings();
    if (settings == NULL)
        return;
    gboolean maximized = gtk_window_is_maximized(GTK_WINDOW(win));
    g_settings_set_boolean(settings, "window-maximized", maximized);
    int width = 0, height = 0;
    gtk_window_get_default_size(GTK_WINDOW(win), &width, &height);
    if (!maximized && width > 0 && height > 0) {
        g_settings_set_int(settings, "window-width", width);
        g_settings_set_int(settings, "window-height", height);
    }
    g_settings_set_int(settings, "sidebar-width", rf_sidebar_get_width(GTK_WIDGET(win->sidebar)));
    if (!adw_flap_get_folded(win->flap))
        g_settings_set_boolean(settings, "sidebar-shown", adw_flap_get_reveal_flap(win->flap));
}

static void restore_window_state(RfWindow *win)
{
    GSettings *settings = rf_settings();
    if (settings == NULL)
        return;
    int width = g_settings_get_int(settings, "window-width"), height = g_settings_get_int(settings, "window-height");
    if (width > 0 && height > 0)
        gtk_window_set_default_size(GTK_WINDOW(win), width, height);
    if (g_settings_get_boolean(settings, "window-maximized"))
        gtk_window_maximize(GTK_WINDOW(win));
    rf_sidebar_set_width(GTK_WIDGET(win->sidebar), g_settings_get_int(settings, "sidebar-width"));
    adw_flap_set_reveal_flap(win->flap, g_settings_get_boolean(settings, "sidebar-shown"));
}

/* The step of the checkpoint in the current run's folder (train.checkpoint_every
 * writes them during a run); 0 when it has none. */
static int64_t saved_checkpoint_step(RfWindow *win)
{
    const rf_run_data *run = rf_session_get_current_run(win->session);
    if (run == NULL || run->dir == NULL)
        return 0;
    g_autofree char *path = g_build_filename(run->dir, "checkpoint.safetensors", NULL);
    rf_config cfg;
    int64_t step = 0;
    rf_status st = {0};
    return g_file_test(path, G_FILE_TEST_EXISTS) && rf_checkpoint_read_config(path, &cfg, &step, &st) ? step : 0;
}

static gboolean on_close_request(GtkWindow *window, gpointer user_data)
{
    (void)user_data;
    RfWindow *win = RF_WINDOW(window);
    save_window_state(win);
    RfRunState state = rf_session_get_state(win->session);
    if (state != RF_RUN_RUNNING && state != RF_RUN_PAUSED) {
        rf_session_stop(win->session);
        return FALSE;
    }
    win->resume_on_cancel = state == RF_RUN_RUNNING;
    if (state == RF_RUN_RUNNING)
        rf_session_pause(win->session);
    rf_dialog_ask_close(window, saved_checkpoint_step(win), close_answered, g_object_ref(win));
    return TRUE;
}

/* A view's sample opened in the Data view: (split, index). */
static void action_show_sample(GSimpleAction *a, GVariant *param, gpointer user_data)
{
    (void)a;
    RfWindow *win = user_data;
    gint32 split;
    gint64 index;
    g_variant_get(param, "(ix)", &split, &index);
    GtkWidget *page = gtk_stack_get_child_by_name(win->view_stack, "data");
    if (page == NULL || split < 0 || split >= RF_SPLIT_COUNT)
        return;
    gtk_stack_set_visible_child(win->view_stack, page);
    rf_data_view_show_sample(page, (rf_split)split, index);
}

/* --- type --- */

/* win.show-view "NAME" (Alt+1 ...), win.next-view and win.previous-view
 * (Ctrl+Page Down, Ctrl+Page Up): the views in their switcher's order. */
static void action_show_view(GSimpleAction *a, GVariant *name, gpointer data)
{
    (void)a;
    RfWindow *win = data;
    if (gtk_stack_get_child_by_name(win->view_stack, g_variant_get_string(name, NULL)) != NULL)
        gtk_stack_set_visible_child_name(win->view_stack, g_variant_get_string(name, NULL));
}

static void show_view_after(RfWindow *win, int by)
{
    const char *shown = gtk_stack_get_visible_child_name(win->view_stack);
    int n = (int)G_N_ELEMENTS(views), at = 0;
    for (int i = 0; i < n; i++)
        at = g_strcmp0(views[i].name, shown) == 0 ? i : at;
    gtk_stack_set_visible_child_name(win->view_stack, views[(at + by + n) % n].name);
}

static void action_next_view(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    show_view_after(data, 1);
}

static void action_previous_view(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    show_view_after(data, -1);
}

static const GActionEntry win_actions[] = {
    {"train", action_train, NULL, NULL, NULL, {0}},
    {"pause", action_pause, NULL, NULL, NULL, {0}},
    {"step", action_step, NULL, NULL, NULL, {0}},
    {"stop", action_stop, NULL, NULL, NULL, {0}},
    {"restart", action_restart, NULL, NULL, NULL, {0}},
    {"toggle-sidebar", action_toggle_sidebar, NULL, NULL, NULL, {0}},
    {"show-sample", action_show_sample, "(ix)", NULL, NULL, {0}},
    {"show-view", action_show_view, "s", NULL, NULL, {0}},
    {"next-view", action_next_view, NULL, NULL, NULL, {0}},
    {"previous-view", action_previous_view, NULL, NULL, NULL, {0}},
};

static void rf_window_dispose(GObject *object)
{
    RfWindow *win = RF_WINDOW(object);
    g_clear_handle_id(&win->loading_tick, g_source_remove);
    rf_toast_hide(&win->toast);
    gtk_widget_dispose_template(GTK_WIDGET(win), RF_TYPE_WINDOW);
    G_OBJECT_CLASS(rf_window_parent_class)->dispose(object);
    g_clear_object(&win->session);
}

static void rf_window_class_init(RfWindowClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = rf_window_dispose;
    /* The compiled resources register themselves from a constructor in
     * their object file, which a static library links only when something
     * refers to it: this does. */
    if (rf_ui_get_resource() == NULL)
        g_critical("the workbench's compiled resources are missing");
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    g_type_ensure(ADW_TYPE_TOAST_OVERLAY);
    g_type_ensure(ADW_TYPE_FLAP);
    gtk_widget_class_set_template_from_resource(widget_class, "/org/rangefinder/Workbench/window.ui");
    gtk_widget_class_bind_template_child(widget_class, RfWindow, train_button);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, train_label);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, step_label);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, eta_label);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, status_label);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, progress);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, sidebar);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, flap);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, sidebar_handle);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, sidebar_toggle);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, view_stack);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, view_tabs_scroller);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, restart_banner);
    gtk_widget_class_bind_template_child(widget_class, RfWindow, toast_overlay);
}

/* The zoom keys reach the plot on screen wherever the focus is, but in a
 * text field (where they are typed). A focused plot takes them itself. */
static gboolean on_window_key(GtkEventControllerKey *c, guint keyval, guint keycode, GdkModifierType state,
                              gpointer user_data)
{
    (void)c;
    (void)keycode;
    RfWindow *win = user_data;
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(win));
    if (focus != NULL && GTK_IS_EDITABLE(focus))
        return FALSE;
    GtkWidget *page = gtk_stack_get_visible_child(win->view_stack);
    RfPlotView *plot = page != NULL ? rf_view_get_plot(page) : NULL;
    return plot != NULL && rf_plot_view_key(plot, keyval, state);
}

static void rf_window_init(RfWindow *win)
{
    gtk_widget_init_template(GTK_WIDGET(win));
    g_object_bind_property(win->flap, "reveal-flap", win->sidebar_toggle, "active",
                           G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
    rf_sidebar_handle_attach(win->sidebar_handle, GTK_WIDGET(win->sidebar));
    rf_toast_init(&win->toast, win->toast_overlay);
    GtkEventController *zoom_keys = gtk_event_controller_key_new();
    g_signal_connect(zoom_keys, "key-pressed", G_CALLBACK(on_window_key), win);
    gtk_widget_add_controller(GTK_WIDGET(win), zoom_keys);
    g_action_map_add_action_entries(G_ACTION_MAP(win), win_actions, G_N_ELEMENTS(win_actions), win);
    g_action_map_add_action_entries(G_ACTION_MAP(win), rf_window_file_actions, rf_window_file_action_count, win);
    g_signal_connect(win, "close-request", G_CALLBACK(on_close_request), NULL);

    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(keys),
                                         gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_space, 0),
                                                          gtk_callback_action_new(toggle_pause, NULL, NULL)));
    gtk_widget_add_controller(GTK_WIDGET(win), keys);

    /* files dropped anywhere on the window are inspected */
    GtkDropTarget *drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
    g_signal_connect(drop, "drop", G_CALLBACK(rf_window_on_drop), win);
    gtk_widget_add_controller(GTK_WIDGET(win), GTK_EVENT_CONTROLLER(drop));
}

RfWindow *rf_window_new(GtkApplication *app, RfSession *session)
{
    RfWindow *win = g_object_new(RF_TYPE_WINDOW, "application", app, NULL);
    win->session = g_object_ref(session);

    win->panel = RF_CONFIG_PANEL(rf_config_panel_new(session));
    g_signal_connect(win->panel, "restart-needed", G_CALLBACK(on_restart_needed), win);
    gtk_scrolled_window_set_child(win->sidebar, GTK_WIDGET(win->panel));
    GtkWidget *switcher = rf_view_switcher_new(win->view_stack);
    gtk_widget_set_halign(switcher, GTK_ALIGN_CENTER);
    gtk_widget_set_hexpand(switcher, TRUE);
    gtk_widget_set_margin_top(switcher, 6);
    gtk_widget_set_margin_bottom(switcher, 6);
    gtk_widget_set_margin_start(switcher, 6);
    gtk_widget_set_margin_end(switcher, 6);
    /* The views ask for VIEWS_NATURAL_WIDTH beside the sidebar, whichever
     * is shown, so that the sidebar folds away at one window width for all
     * (the flap folds by natural widths) rather than view by view. */
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_set_size_request(row, VIEWS_NATURAL_WIDTH, -1);
    gtk_box_append(GTK_BOX(row), switcher);
    gtk_scrolled_window_set_child(win->view_tabs_scroller, row);
    for (size_t i = 0; i < G_N_ELEMENTS(views); i++) {
        gtk_stack_add_titled(win->view_stack, views[i].create(session), views[i].name, views[i].title);
        rf_view_switcher_add(switcher, views[i].name, views[i].group);
        g_autofree char *action = g_strdup_printf("win.show-view::%s", views[i].name);
        g_autofree char *key = g_strdup_printf("<Alt>%zu", (i + 1) % 10);
        const char *const keys[] = {key, NULL};
        if (i < 10)
            gtk_application_set_accels_for_action(app, action, keys);
    }

    g_signal_connect_object(session, "state-changed", G_CALLBACK(on_session_changed), win, 0);
    g_signal_connect_object(session, "metrics-changed", G_CALLBACK(on_session_changed), win, 0);
    g_signal_connect_object(session, "config-changed", G_CALLBACK(on_config_changed), win, 0);
    g_signal_connect_object(session, "data-changed", G_CALLBACK(on_data_changed), win, 0);
    g_signal_connect_object(session, "run-failed", G_CALLBACK(on_run_failed), win, 0);
    restore_window_state(win);
    rf_window_refresh(win);
    return win;
}

void rf_window_reload_data(RfWindow *win)
{
    g_return_if_fail(RF_IS_WINDOW(win));
    rf_window_open_data(win);
}

RfSession *rf_window_get_session(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), NULL);
    return win->session;
}

GtkStack *rf_window_get_stack(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), NULL);
    return win->view_stack;
}

RfConfigPanel *rf_window_get_config_panel(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), NULL);
    return win->panel;
}

const char *rf_window_get_status_text(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), "");
    return gtk_label_get_text(win->status_label);
}

const char *rf_window_get_step_text(RfWindow *win)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), "");
    return gtk_label_get_text(win->step_label);
}
