/* Where the workbench's file choosers start (issue 12 item 10), under Xvfb
 * with the real application and its menu actions:
 *   1. Open Configuration starts in the folder of the config the window
 *      was opened with.
 *   2. A checkpoint saved through Save Checkpoint… lands where it was
 *      chosen, and then Export Metrics… and Open Checkpoint… start in that
 *      run folder.
 *   3. Open Data on a file-backed data set starts in the data folder the
 *      sidebar names; after another folder is chosen there, in that one.
 *   4. Without anything chosen, a run chooser starts in the runs folder
 *      ($XDG_DATA_HOME/rangefinder/runs) when it exists.
 * And a save or an export confirms itself in a toast over the views that
 * offers the folder (issue 12 item 4).
 */
#include <glib/gstdio.h>
#include <string.h>

#include "../ui/data_tasks.h"
#include "../ui/start_folders.h"
#include "file_chooser.h"
#include "widget_render.h"
#include "workbench_app.h"

static const char small_config[] = "[data]\n"
                                   "task = listops\n"
                                   "max_len = 32\n"
                                   "min_len = 8\n"
                                   "train_size = 64\n"
                                   "val_size = 16\n"
                                   "test_size = 16\n"
                                   "batch = 8\n"
                                   "[model]\n"
                                   "encoder = full\n"
                                   "layers = 1\n"
                                   "dim = 16\n"
                                   "heads = 2\n"
                                   "ff = 32\n"
                                   "[train]\n"
                                   "steps = 2\n";

/* Run `action` on the window; the folder its chooser starts in ("" when it
 * opened none). The chooser is left open. */
static char *chooser_folder(RfWindow *win, const char *action)
{
    g_action_group_activate_action(G_ACTION_GROUP(win), action, NULL);
    return opened_chooser_folder();
}

static void check_folder(RfWindow *win, const char *action, const char *want, const char *what)
{
    g_autofree char *got = chooser_folder(win, action);
    tap_ok(g_strcmp0(got, want) == 0, "%s: starts in %s (%s)", what, want, got);
    answer_chooser(NULL);
}

/* Whether the window's toast mentions a text (a save confirms itself from
 * an idle, later under a sanitiser than the chooser's own answer). */
typedef struct {
    RfWindow *win;
    const char *text;
} toast_wait;

static gboolean toast_says(gpointer data)
{
    const toast_wait *w = data;
    const char *toast = rf_window_get_toast(w->win);
    return toast != NULL && strstr(toast, w->text) != NULL;
}

/* Whether a title says a word twice ("Choose the Image folder Folder"). */
static gboolean repeats_a_word(const char *title)
{
    g_autofree char *lower = g_utf8_strdown(title, -1);
    g_auto(GStrv) words = g_regex_split_simple("[^[:alnum:]]+", lower, 0, 0);
    for (int i = 0; words[i] != NULL; i++)
        for (int j = 0; j < i; j++)
            if (words[i][0] != '\0' && strcmp(words[i], words[j]) == 0)
                return TRUE;
    return FALSE;
}

/* Open Data's chooser for every data set that reads files names the data
 * set once. */
static void check_chooser_titles(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    for (size_t i = 0; i < rf_data_task_count; i++) {
        const rf_data_task *t = &rf_data_tasks[i];
        if (!t->takes_path)
            continue;
        rf_session_set_key(s, "data.task", t->key, NULL, NULL);
        g_action_group_activate_action(G_ACTION_GROUP(win), "open-data", NULL);
        spin_until(chooser_open, NULL, 5.0);
        GtkWindow *chooser = find_chooser();
        g_autofree char *title = g_strdup(chooser != NULL ? gtk_window_get_title(chooser) : NULL);
        tap_ok(title != NULL && strstr(title, t->title) != NULL && !repeats_a_word(title),
               "Open Data for %s names it once: \"%s\"", t->key, title != NULL ? title : "no chooser");
        answer_chooser(NULL);
    }
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-folders-XXXXXX", NULL);
    /* the runs folder under a data home of our own (read by GLib on first use) */
    g_autofree char *data_home = g_build_filename(dir, "data-home", NULL);
    g_autofree char *runs = g_build_filename(data_home, "rangefinder", "runs", NULL);
    g_mkdir_with_parents(runs, 0700);
    g_setenv("XDG_DATA_HOME", data_home, TRUE);
    g_autofree char *configs = g_build_filename(dir, "my-configs", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(configs, small_config, &app);
    if (win == NULL)
        return tap_done();
    RfSession *s = rf_window_get_session(win);

    /* 1 */
    check_folder(win, "open-config", configs, "Open Configuration");

    /* 4, before any run folder was chosen */
    check_folder(win, "open-checkpoint", runs, "Open Checkpoint with nothing chosen yet");

    /* 2: a model to save first */
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED, "a two-step run finishes");
    g_autofree char *run = g_build_filename(dir, "run-7", NULL);
    g_autofree char *saved = g_build_filename(run, "checkpoint.safetensors", NULL);
    g_mkdir_with_parents(run, 0700);
    g_free(chooser_folder(win, "save-checkpoint"));
    answer_chooser(saved);
    spin_until(toast_says, &(toast_wait){win, "Saved checkpoint.safetensors"}, 10.0);
    tap_ok(g_file_test(saved, G_FILE_TEST_IS_REGULAR), "Save Checkpoint… writes the chosen file %s", saved);
    const char *toast = rf_window_get_toast(win);
    tap_ok(toast != NULL && strstr(toast, "Saved checkpoint.safetensors") != NULL &&
               g_strcmp0(rf_window_get_toast_folder(win), run) == 0,
           "a toast confirms the save and offers its folder (\"%s\")", toast != NULL ? toast : "none");
    const char *shots = g_getenv("RF_SCREENSHOT_DIR");
    if (shots != NULL) {
        gtk_stack_set_visible_child_name(rf_window_get_stack(win), "training");
        spin_for(1.0);   /* the toast slides in */
        g_autoptr(GdkTexture) shot = render(GTK_WIDGET(win));
        g_autofree char *path = g_build_filename(shots, "screenshot-toast.png", NULL);
        tap_ok(shot != NULL && gdk_texture_save_to_png(shot, path), "screenshot %s", path);
    }
    g_autofree char *metrics = g_build_filename(run, "metrics.csv", NULL);
    g_free(chooser_folder(win, "export-metrics"));
    answer_chooser(metrics);
    spin_until(toast_says, &(toast_wait){win, "metrics.csv"}, 10.0);
    toast = rf_window_get_toast(win);
    tap_ok(g_file_test(metrics, G_FILE_TEST_IS_REGULAR) && toast != NULL && strstr(toast, "metrics.csv") != NULL,
           "Export Metrics… writes the file and a toast says so (\"%s\")", toast != NULL ? toast : "none");
    check_folder(win, "export-metrics", run, "Export Metrics after a checkpoint was saved");
    check_folder(win, "open-checkpoint", run, "Open Checkpoint after a checkpoint was saved");

    /* 3 */
    g_autofree char *images = g_build_filename(dir, "images", NULL), *more = g_build_filename(dir, "more-images", NULL);
    g_mkdir_with_parents(images, 0700);
    g_mkdir_with_parents(more, 0700);
    g_autoptr(GError) key_error = NULL;
    tap_ok(rf_session_set_key(s, "data.task", "image_folder", NULL, &key_error) &&
               rf_session_set_key(s, "data.path", images, NULL, &key_error),
           "the sidebar names an image folder (%s)", key_error != NULL ? key_error->message : "ok");
    check_folder(win, "open-data", images, "Open Data");
    g_free(chooser_folder(win, "open-data"));
    answer_chooser(more);
    rf_session_set_key(s, "data.path", "", NULL, NULL);
    check_folder(win, "open-data", more, "Open Data after another folder was chosen");
    check_chooser_titles(win);

    close_workbench(win, app);
    return tap_done();
}
