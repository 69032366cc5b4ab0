/* What the workbench writes and counts agrees with the config and with what
 * it says, under Xvfb with the real application (a tiny full-attention
 * ListOps model, 12 steps, train.log_every = 5):
 *   1. the run's metrics.csv holds what `rangefinder train` writes for the
 *      config: training rows at steps 5, 10 and 12 (log_every and the
 *      last), validation rows at 6 and 12, the test row at 12; and its
 *      distributions.csv every parameter, gradient and tap at 6 and 12;
 *   2. the step counter describes the last run by its own step budget:
 *      Steps lowered to 4 after the 12-step run has finished reads
 *      "last run: step 12 / 12" with a full bar, not "step 12 / 4"; a
 *      run paused at step P that Steps = 1 ends reads "last run: step P / P";
 *   3. with train.checkpoint_every = 4, a run paused at step P (9 or more)
 *      has the checkpoint of step P - P mod 4 in its folder, as `rangefinder
 *      train` would (the CLI's record of the same config);
 *   4. Ctrl+Q on a paused run, answered Close Without Saving, closes the
 *      window and writes no checkpoint into the run's folder (its
 *      metrics.csv is there), as the dialog says.
 */
#include <string.h>

#include "../config/distributions_csv.h"
#include "../core/checkpoint.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA
                                   "[model]\n"
                                   "encoder = full\n"
                                   "layers = 1\n"
                                   "dim = 16\n"
                                   "heads = 2\n"
                                   "ff = 32\n"
                                   "[train]\n"
                                   "steps = 12\n"
                                   "warmup = 0\n"
                                   "eval_every = 6\n"
                                   "eval_batches = 1\n"
                                   "checkpoint_every = 0\n"
                                   "log_every = 5\n";

/* "split@step" of each row of a metrics.csv, space-separated; NULL when the
 * file cannot be read. */
static char *rows_of_csv(const char *dir)
{
    g_autofree char *path = g_build_filename(dir, "metrics.csv", NULL), *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return NULL;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GString *rows = g_string_new(NULL);
    for (int i = 1; lines[i] != NULL; i++) {
        g_auto(GStrv) fields = g_strsplit(lines[i], ",", 3);
        if (fields[0] != NULL && fields[1] != NULL)
            g_string_append_printf(rows, "%s%s@%s", rows->len > 0 ? " " : "", fields[1], fields[0]);
    }
    return g_string_free(rows, FALSE);
}

static gboolean step_reached(gpointer data)
{
    RfSession *s = ((gpointer *)data)[0];
    return rf_session_get_step(s) >= *(int64_t *)((gpointer *)data)[1];
}

static gboolean finished(gpointer session)
{
    return rf_session_get_state(session) == RF_RUN_FINISHED;
}

static gboolean stopped(gpointer session)
{
    return rf_session_get_state(session) == RF_RUN_STOPPED;
}

/* Asks for the pause again each time it is polled: the run's worker may
 * not exist yet when Train has just been pressed (a pause then does nothing). */
static gboolean paused(gpointer session)
{
    rf_session_pause(session);
    return rf_session_get_state(session) == RF_RUN_PAUSED;
}

/* A new run, paused (after the steps it made before the pause took), then
 * stepped by hand to at least `step`; the step it is paused at, or -1 with
 * a diagnostic line naming the wait that ran out and what the session was
 * in (a miss under load is then readable from the log). */
static int64_t paused_run(RfWindow *win, int64_t step)
{
    RfSession *s = rf_window_get_session(win);
    GAction *train = g_action_map_lookup_action(G_ACTION_MAP(win), "train");
    gboolean enabled = g_action_get_enabled(train);
    RfRunState before = rf_session_get_state(s);
    const rf_run_data *run_before = rf_session_get_current_run(s);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    gboolean new_run = rf_session_get_current_run(s) != run_before;
    int64_t budget = rf_session_get_config(s)->train.steps;
    /* at once, where the worker exists; it may have made steps already
     * (its caller gives the run a budget to spare) */
    rf_session_pause(s);
    const char *wait = "the first pause";
    if (!spin_until(paused, s, 60.0))
        goto missed;
    for (int64_t next = rf_session_get_step(s) + 1; next <= step; next++) {
        gpointer args[2] = {s, &next};
        rf_session_step_once(s, NULL);
        wait = "a step by hand";
        if (!spin_until(step_reached, args, 60.0))
            goto missed;
    }
    /* the worker says it is paused again after each step: under load, late */
    wait = "the pause after the steps by hand";
    if (spin_until(paused, s, 30.0))
        return rf_session_get_step(s);
missed:;
    static const char *const states[] = {"idle", "loading", "running", "paused", "finished", "stopped", "failed"};
    tap_diag("paused_run: %s did not come: Train was %s in state %s before and %s (train.steps %lld); the run "
             "is now %s at step %lld",
             wait, enabled ? "enabled" : "disabled", states[before], new_run ? "started a new run" : "kept the run",
             (long long)budget, states[rf_session_get_state(s)], (long long)rf_session_get_step(s));
    return -1;
}

static void set_steps(RfWindow *win, int steps)
{
    GtkWidget *spin = rf_config_panel_get_editor(rf_window_get_config_panel(win), "train.steps");
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), steps);
    spin_for(0.2);
}

static GtkProgressBar *find_progress(GtkWidget *root)
{
    if (GTK_IS_PROGRESS_BAR(root))
        return GTK_PROGRESS_BAR(root);
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkProgressBar *found = find_progress(c);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static GtkMessageDialog *close_question(void)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (GTK_IS_MESSAGE_DIALOG(w))
            return GTK_MESSAGE_DIALOG(w);
    }
    return NULL;
}

static gboolean has_close_question(gpointer data)
{
    (void)data;
    return close_question() != NULL;
}

static gboolean is_null_question(gpointer data)
{
    (void)data;
    return close_question() == NULL;
}

static gboolean is_null(gpointer data)
{
    return *(gpointer *)data == NULL;
}

/* The run's distributions.csv as `train` writes it: at each evaluation
 * (steps 6 and 12) every parameter's values and gradient and the taps. */
static void check_distributions(const char *dir)
{
    g_autofree char *path = dir != NULL ? g_build_filename(dir, "distributions.csv", NULL) : NULL;
    g_autoptr(GError) error = NULL;
    GArray *rows = path != NULL ? rf_distributions_csv_read(path, &error) : NULL;
    int count[2][RF_DIST_KINDS] = {{0}}, other = 0;
    for (guint i = 0; rows != NULL && i < rows->len; i++) {
        const rf_distribution_row *r = &g_array_index(rows, rf_distribution_row, i);
        if (r->step == 6 || r->step == 12)
            count[r->step == 12][r->d.kind]++;
        else
            other++;
    }
    tap_ok(rows != NULL && other == 0 && count[0][RF_DIST_PARAM] > 0 &&
               memcmp(count[0], count[1], sizeof count[0]) == 0 &&
               count[0][RF_DIST_GRAD] == count[0][RF_DIST_PARAM] && count[0][RF_DIST_TAP] > 0,
           "distributions.csv holds every parameter (%d), its gradient (%d) and the taps (%d) at steps 6 and 12 only%s%s",
           count[1][RF_DIST_PARAM], count[1][RF_DIST_GRAD], count[1][RF_DIST_TAP], error ? ": " : "",
           error ? error->message : "");
    if (rows != NULL)
        g_array_free(rows, TRUE);
}

static void check_log_every(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    gboolean done = spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED;
    const rf_run_data *run = rf_session_get_current_run(s);
    g_autofree char *rows = done && run->dir != NULL ? rows_of_csv(run->dir) : NULL;
    tap_ok(rows != NULL && strcmp(rows, "train@5 val@6 train@10 train@12 val@12 test@12") == 0,
           "metrics.csv of a 12-step run with log_every = 5 holds what `train` writes (%s)", rows ? rows : "none");
    check_distributions(done ? run->dir : NULL);
}

static void check_counter(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    GtkProgressBar *bar = find_progress(GTK_WIDGET(win));
    tap_ok(strcmp(rf_window_get_step_text(win), "step 12 / 12") == 0, "the finished run's counter reads '%s'",
           rf_window_get_step_text(win));
    set_steps(win, 4);
    tap_ok(rf_session_get_config(s)->train.steps == 4 &&
               strcmp(rf_window_get_step_text(win), "last run: step 12 / 12") == 0 && bar != NULL &&
               gtk_progress_bar_get_fraction(bar) == 1.0,
           "Steps lowered to 4 after it: the counter keeps the last run's budget ('%s', bar %.2f)",
           rf_window_get_step_text(win), bar != NULL ? gtk_progress_bar_get_fraction(bar) : -1.0);

    /* a model edit, so Train starts a new run, and a budget that a pause
     * taken late still finds going: the Train action refreshes the window
     * after starting the run's worker, and under load that took as long as
     * a 12-step run of this model */
    tap_ok(rf_session_set_key(s, "model.ff", "36", NULL, NULL), "model.ff = 36 for a new run");
    set_steps(win, 200);
    int64_t at = paused_run(win, 2);
    set_steps(win, 1);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);   /* resumes the paused run */
    gboolean ended = at >= 2 && at < 200 && spin_until(finished, s, 60.0) && rf_session_get_step(s) == at;
    spin_for(0.2);
    g_autofree char *want = g_strdup_printf("last run: step %lld / %lld", (long long)at, (long long)at);
    tap_ok(ended && strcmp(rf_window_get_step_text(win), want) == 0,
           "a run paused at step %lld that Steps = 1 ends there: the counter reads '%s'", (long long)at,
           rf_window_get_step_text(win));
    set_steps(win, 12);
}

static void check_checkpoint_every(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    /* a model edit (a new run in a new folder), long enough to pause in */
    tap_ok(rf_session_set_key(s, "model.ff", "40", NULL, NULL) &&
               rf_session_set_key(s, "train.checkpoint_every", "4", NULL, NULL),
           "model.ff = 40 and train.checkpoint_every = 4 for a new run");
    set_steps(win, 400);   /* as in check_counter */
    int64_t at = paused_run(win, 9);
    if (!tap_ok(at >= 9, "a new run is paused at step 9 or later (%" G_GINT64_FORMAT ")", at))
        return;
    g_autofree char *checkpoint = g_build_filename(rf_session_get_current_run(s)->dir, "checkpoint.safetensors", NULL);
    rf_config cfg;
    int64_t saved = -1;
    rf_status st = {0};
    gboolean read = rf_checkpoint_read_config(checkpoint, &cfg, &saved, &st);
    tap_ok(read && saved == at - at % 4, "its folder holds the checkpoint of step %" G_GINT64_FORMAT " (%s: step %" G_GINT64_FORMAT "%s%s)",
           at - at % 4, checkpoint, saved, read ? "" : ", ", read ? "" : st.msg);
    /* closing the window asks first, and says what closing without saving loses */
    gtk_window_close(GTK_WINDOW(win));
    GtkMessageDialog *question = spin_until(has_close_question, NULL, 10.0) ? close_question() : NULL;
    g_autofree char *said = NULL, *want = g_strdup_printf("checkpoint of step %" G_GINT64_FORMAT ";", saved);
    if (question != NULL)
        g_object_get(question, "secondary-text", &said, NULL);
    tap_ok(said != NULL && strstr(said, want) != NULL,
           "closing the window asks first, naming the checkpoint the folder keeps: %s", said != NULL ? said : "no dialog");
    if (question != NULL)
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_CANCEL);
    spin_until(is_null_question, NULL, 10.0);
    rf_session_stop(s);
    tap_ok(spin_until(stopped, s, 30.0), "the run stops");
    rf_session_set_key(s, "train.checkpoint_every", "0", NULL, NULL);
    set_steps(win, 12);
}

static void check_close_without_saving(RfWindow *win, RfApplication *app)
{
    RfSession *s = rf_window_get_session(win);
    /* a model edit: Train starts a new run (in a new folder), not a resume */
    tap_ok(rf_session_set_key(s, "model.ff", "48", NULL, NULL), "model.ff = 48 for a new run");
    set_steps(win, 200);   /* so a pause taken late still finds the run going */
    if (!tap_ok(paused_run(win, 1) >= 1, "a new run is paused after a step or more"))
        return;
    g_autofree char *dir = g_strdup(rf_session_get_current_run(s)->dir);
    g_action_group_activate_action(G_ACTION_GROUP(app), "quit", NULL);
    GtkMessageDialog *question = spin_until(has_close_question, NULL, 10.0) ? close_question() : NULL;
    g_autofree char *said = NULL;
    if (question != NULL)
        g_object_get(question, "secondary-text", &said, NULL);
    tap_ok(said != NULL && strstr(said, "lost") != NULL, "Ctrl+Q asks first: %s", said != NULL ? said : "no dialog");
    if (question == NULL)
        return;
    gpointer alive = win;
    g_object_add_weak_pointer(G_OBJECT(win), &alive);
    gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_REJECT);   /* Close Without Saving */
    tap_ok(spin_until(is_null, &alive, 30.0), "Close Without Saving closes the window");
    g_autofree char *checkpoint = g_build_filename(dir, "checkpoint.safetensors", NULL);
    g_autofree char *csv = g_build_filename(dir, "metrics.csv", NULL);
    tap_ok(g_file_test(csv, G_FILE_TEST_EXISTS) && !g_file_test(checkpoint, G_FILE_TEST_EXISTS),
           "and writes no checkpoint, as the dialog says: the run's folder holds metrics.csv and no "
           "checkpoint.safetensors (%s)", dir);
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-records-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    check_log_every(win);
    check_counter(win);
    check_checkpoint_every(win);
    check_close_without_saving(win, app);
    g_object_unref(app);
    return tap_done();
}
