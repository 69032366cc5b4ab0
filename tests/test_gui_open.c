/* Files and run folders handed to the workbench (GApplication's open:
 * `rangefinder RUNDIR`, `rangefinder FILE.safetensors`, a second launch
 * handing them to the first), under Xvfb with the real application:
 *   1. A short run is trained and recorded in the runs folder.
 *   2. A new workbench, not yet open, handed the run's checkpoint opens its
 *      window on it: the run at the checkpoint's step.
 *   3. Another, handed the run folder, draws the run in the Training view,
 *      which it shows.
 *   4. Its open window, handed a file named .safetensors that is no
 *      checkpoint, says so in an error dialog naming the file and stays as
 *      it was; handed the checkpoint, it opens it.
 */
#include <string.h>

#include "../ui/dialogs.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA RF_TEST_TINY_BLRP "[train]\nsteps = 2\neval_every = 2\n";

static void open_path(RfApplication *app, const char *path)
{
    GFile *files[] = {g_file_new_for_path(path)};
    g_application_open(G_APPLICATION(app), files, 1, "");
    g_object_unref(files[0]);
    spin_for(0.5);
}

static gboolean has_overlay(RfSession *s, const char *dir)
{
    GPtrArray *overlays = rf_session_get_overlays(s);
    for (guint i = 0; overlays != NULL && i < overlays->len; i++)
        if (g_strcmp0(((rf_run_data *)g_ptr_array_index(overlays, i))->dir, dir) == 0)
            return TRUE;
    return FALSE;
}

/* A workbench on the runs folder `runs`, registered but not yet open, as
 * `rangefinder FILE` starts one. */
static RfApplication *unopened_workbench(const char *runs)
{
    RfApplication *app = rf_application_new(NULL);
    rf_application_set_runs_dir(app, runs);
    g_application_set_flags(G_APPLICATION(app), g_application_get_flags(G_APPLICATION(app)) | G_APPLICATION_NON_UNIQUE);
    tap_ok(g_application_register(G_APPLICATION(app), NULL, NULL), "a new workbench registers");
    return app;
}

static RfWindow *window_of(RfApplication *app)
{
    GtkWindow *win = gtk_application_get_active_window(GTK_APPLICATION(app));
    return win != NULL ? RF_WINDOW(win) : NULL;
}

/* The checkpoint's run, opened at its step: paused, or finished at once
 * (the checkpoint is the run's last step). */
static gboolean at_checkpoint(RfSession *s)
{
    RfRunState state = rf_session_get_state(s);
    return (state == RF_RUN_PAUSED || state == RF_RUN_FINISHED) && rf_session_get_step(s) == 2;
}

int main(int argc, char **argv)
{
    (void)argc;
    application_kernels(argv);
    g_autofree char *dir = g_dir_make_tmp("rf-open-XXXXXX", NULL);
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    RfSession *s = rf_window_get_session(win);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, s, 120.0), "a two-step run finishes");
    rf_run_data *run = rf_session_get_current_run(s);
    g_autofree char *run_dir = g_strdup(run != NULL ? run->dir : NULL);
    g_autofree char *checkpoint = run_dir != NULL ? g_build_filename(run_dir, "checkpoint.safetensors", NULL) : NULL;
    if (!tap_ok(checkpoint != NULL && g_file_test(checkpoint, G_FILE_TEST_EXISTS),
                "the run is recorded with its checkpoint (%s)", checkpoint))
        return tap_done();
    close_workbench(win, app);

    /* `rangefinder FILE.safetensors` */
    app = unopened_workbench(runs);
    open_path(app, checkpoint);
    win = window_of(app);
    if (!tap_ok(win != NULL, "handed a checkpoint, the workbench opens its window"))
        return tap_done();
    s = rf_window_get_session(win);
    tap_ok(spin_until((Condition)at_checkpoint, s, 30.0),
           "it opens the checkpoint: its run at step 2 (state %d, step %" G_GINT64_FORMAT ")",
           rf_session_get_state(s), rf_session_get_step(s));
    tap_ok(rf_dialog_last_error() == NULL, "no error dialog (%s)", rf_dialog_last_error_detail());
    close_workbench(win, app);

    /* `rangefinder RUNDIR` */
    app = unopened_workbench(runs);
    open_path(app, run_dir);
    win = window_of(app);
    if (!tap_ok(win != NULL, "handed a run folder, the workbench opens its window"))
        return tap_done();
    s = rf_window_get_session(win);
    tap_ok(has_overlay(s, run_dir), "the run folder's run is drawn in the Training view");
    tap_ok(g_strcmp0(gtk_stack_get_visible_child_name(rf_window_get_stack(win)), "training") == 0,
           "the Training view is shown");
    tap_ok(spin_until(data_loaded, s, 60.0), "the data loads");

    /* handed to the open window: a file that is no checkpoint, then the checkpoint */
    g_autofree char *bogus = g_build_filename(dir, "notes.safetensors", NULL);
    g_file_set_contents(bogus, "not a checkpoint\n", -1, NULL);
    open_path(app, bogus);
    const char *error = rf_dialog_last_error_detail();
    tap_ok(g_strcmp0(rf_dialog_last_error(), "Could not open the checkpoint") == 0 && error != NULL &&
               strstr(error, "notes.safetensors") != NULL,
           "the open window refuses a .safetensors file that is no checkpoint in an error dialog naming it (%s)",
           error);
    tap_ok(window_of(app) == win && rf_session_get_step(s) == 0, "the window and its session stay as they were");
    open_path(app, checkpoint);
    tap_ok(window_of(app) == win && spin_until((Condition)at_checkpoint, s, 30.0),
           "the open window, handed the checkpoint, opens it (state %d, step %" G_GINT64_FORMAT ")",
           rf_session_get_state(s), rf_session_get_step(s));
    close_workbench(win, app);
    return tap_done();
}
