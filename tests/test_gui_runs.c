/* The Runs view and the runs folder (issue 12 item 12), under Xvfb with the
 * real application started on a runs folder of three run folders (and a
 * malformed one): the rows and their statuses, the column of a config key
 * that differs, rename and tags kept in run.ini, a run moved to the trash
 * (XDG_DATA_HOME is a folder of the test, so the trash is too), a run
 * picked for the Training view's overlay, and a run trained in the
 * workbench written to a new folder of the runs folder and listed.
 * A run folder written while the view is shown appears by itself.
 * RF_SCREENSHOT_DIR set: also writes screenshot-runs.png there, with the
 * runs of the folder RF_SCREENSHOT_RUNS (e.g. bench/runs: their config.ini
 * and metrics.csv are copied) listed beside the test's.
 */
#include <math.h>
#include <string.h>

#include "../config/baselines_file.h"
#include "../ui/dialogs.h"
#include "../ui/figures/training_figure.h"
#include "../ui/view.h"
#include "../ui/views/run_row.h"
#include "run_folders.h"
#include "widget_find.h"
#include "widget_render.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA
                                   RF_TEST_TINY_BLRP
                                   "[train]\n"
                                   "steps = 30\n"
                                   "eval_every = 10\n"
                                   "log_every = 5\n";

/* Check buttons under `root` that can be toggled and are off. */
static GtkCheckButton *find_free_check(GtkWidget *root)
{
    if (GTK_IS_CHECK_BUTTON(root) && gtk_widget_get_sensitive(root) &&
        !gtk_check_button_get_active(GTK_CHECK_BUTTON(root)))
        return GTK_CHECK_BUTTON(root);
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkCheckButton *found = find_free_check(c);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static GListModel *rows_of(GtkColumnView *list)
{
    return G_LIST_MODEL(gtk_column_view_get_model(list));
}

/* The row of run folder `folder`, or -1. */
static int row_of(GtkColumnView *list, const char *folder)
{
    GListModel *rows = rows_of(list);
    for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(RfRunRow) row = g_list_model_get_item(rows, i);
        if (strcmp(rf_run_row_get_entry(row)->folder, folder) == 0)
            return (int)i;
    }
    return -1;
}

static const rf_run_entry *entry_at(GtkColumnView *list, int i)
{
    if (i < 0)
        return NULL;
    g_autoptr(RfRunRow) row = g_list_model_get_item(rows_of(list), (guint)i);
    return rf_run_row_get_entry(row);   /* the table keeps the entry */
}

static gboolean has_column(GtkColumnView *list, const char *title)
{
    GListModel *columns = gtk_column_view_get_columns(list);
    for (guint i = 0; i < g_list_model_get_n_items(columns); i++) {
        g_autoptr(GtkColumnViewColumn) c = g_list_model_get_item(columns, i);
        if (g_strcmp0(gtk_column_view_column_get_title(c), title) == 0)
            return TRUE;
    }
    return FALSE;
}

static void select_folder(GtkColumnView *list, const char *folder)
{
    int i = row_of(list, folder);
    if (i >= 0)
        gtk_selection_model_select_item(gtk_column_view_get_model(list), (guint)i, TRUE);
    spin_for(0.1);
}

static guint training_run_count(RfWindow *win)
{
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "training");
    RfPlotView *plot = rf_view_get_plot(view);
    return rf_training_figure_get_run_count(g_object_get_data(G_OBJECT(plot), "rf-training-figure"));
}

static GtkDialog *find_confirm(void)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (g_strcmp0(gtk_widget_get_name(GTK_WIDGET(w)), "confirm") == 0)
            return GTK_DIALOG(w);
    }
    return NULL;
}

static char *file_in(const char *dir, const char *folder, const char *file)
{
    return g_build_filename(dir, folder, file, NULL);
}

static void make_runs(const char *runs)
{
    static const char *const blrp[] = {"model.encoder=blrp", "model.dim=16", "data.task=listops", NULL};
    static const char *const full[] = {"model.encoder=full", "model.dim=32", "data.task=listops", NULL};
    static const char *const small[] = {"model.encoder=full", "model.dim=16", "data.task=listops", NULL};
    const fake_run fixtures[] = {
        {"2026-11-20_100000-blrp", blrp, 2000, 10, TRUE, TRUE, 7200},
        {"2026-11-21_100000-full", full, 1500, 10, FALSE, TRUE, 7200},
        {"2026-11-22_100000-small", small, 300, 10, FALSE, FALSE, 7200},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(fixtures); i++)
        g_free(write_fake_run(runs, &fixtures[i]));
    g_autofree char *bad = g_build_filename(runs, "not-a-run", NULL);
    g_mkdir_with_parents(bad, 0700);
}

typedef struct listed {
    GtkColumnView *list;
    const char *folder;
} listed;

static gboolean is_listed(gpointer data)
{
    const listed *l = data;
    return row_of(l->list, l->folder) >= 0;
}

/* The new folder a run of the workbench made: the one not among `before`. */
static char *new_folder(const char *runs, const char *const *before)
{
    g_autoptr(GDir) d = g_dir_open(runs, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;)
        if (!g_strv_contains(before, name))
            return g_strdup(name);
    return NULL;
}

/* For the screenshot: real runs beside the test's, two of them tagged.
 * The copies keep their files' times (which tell a run still training from
 * a stopped one), and a checkpoint is an empty stand-in. */
static void copy_screenshot_runs(const char *runs)
{
    const char *from = g_getenv("RF_SCREENSHOT_RUNS");
    g_autoptr(GDir) d = from != NULL ? g_dir_open(from, 0, NULL) : NULL;
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
        static const char *const files[] = {"config.ini", "metrics.csv", "checkpoint.safetensors"};
        g_autofree char *to = g_build_filename(runs, name, NULL);
        g_mkdir_with_parents(to, 0700);
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
            g_autofree char *src = g_build_filename(from, name, files[i], NULL), *dst = file_in(runs, name, files[i]);
            g_autofree char *text = NULL;
            gsize len = 0;
            GStatBuf st;
            if (g_stat(src, &st) != 0 || (i < 2 && !g_file_get_contents(src, &text, &len, NULL)))
                continue;
            g_file_set_contents(dst, i < 2 ? text : "", (gssize)len, NULL);
            struct utimbuf times = {.actime = st.st_atime, .modtime = st.st_mtime};
            g_utime(dst, &times);
        }
        g_autofree char *meta = file_in(runs, name, "run.ini");
        if (g_str_has_suffix(name, "-full") || g_str_has_suffix(name, "-blrp"))
            g_file_set_contents(meta, "[run]\ntags=baseline\n", -1, NULL);
    }
}

static gboolean folder_gone(gpointer path)
{
    return !g_file_test(path, G_FILE_TEST_EXISTS);
}

static gboolean finished_at_40(gpointer session)
{
    return rf_session_get_state(session) == RF_RUN_FINISHED && rf_session_get_step(session) == 40;
}

/* Trains a run in the workbench and checks its folder; returns the folder's
 * name (g_free), or NULL. */
static char *check_training_recorded(RfWindow *win, GtkColumnView *list, const char *runs)
{
    static const char *const before[] = {"2026-11-20_100000-blrp", "2026-11-21_100000-full", "2026-11-23_100000-cli",
                                         "not-a-run", NULL};
    RfSession *s = rf_window_get_session(win);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED,
           "a run trains to its end in the workbench");
    g_autofree char *folder = new_folder(runs, before);
    tap_ok(folder != NULL && g_str_has_suffix(folder, "-listops-blrp"), "it has a new folder in the runs folder (%s)",
           folder != NULL ? folder : "none");
    if (folder == NULL)
        return NULL;
    g_autofree char *ini = file_in(runs, folder, "config.ini");
    g_autofree char *csv = file_in(runs, folder, "metrics.csv");
    g_autofree char *checkpoint = file_in(runs, folder, "checkpoint.safetensors");
    g_autofree char *text = NULL;
    g_file_get_contents(csv, &text, NULL, NULL);
    tap_ok(g_file_test(ini, G_FILE_TEST_EXISTS) && text != NULL &&
               g_str_has_prefix(text, "step,split,loss,accuracy,lr,seconds\n") && strstr(text, "\n30,test,") != NULL,
           "with config.ini and metrics.csv up to the test row, as `train` writes them");
    tap_ok(g_file_test(checkpoint, G_FILE_TEST_EXISTS), "and the checkpoint of its end");
    g_autofree char *run_dir = g_build_filename(runs, folder, NULL);
    rf_run_data *run = rf_session_get_current_run(s);
    double majority = NAN, first = NAN;
    gboolean read = rf_baselines_file_read(run_dir, &majority, &first, NULL);
    tap_ok(read && isfinite(first) && run != NULL && run->baseline_first_token == first &&
               run->baseline_majority == majority,
           "and baselines.ini, whose values the Training view's run has too (first token %.3f, majority %.3f)", first,
           majority);
    /* the view heard of the ended run, and shows it when it comes on screen */
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "runs");
    spin_for(1.0);
    int i = row_of(list, folder);
    const rf_run_entry *e = entry_at(list, i);
    tap_ok(e != NULL && e->status == RF_RUN_STATUS_FINISHED && e->steps == 30,
           "the Runs view lists it, finished at step 30 (%s, %lld)", e != NULL ? rf_run_status_name(e->status) : "-",
           e != NULL ? (long long)e->steps : -1LL);
    tap_ok(training_run_count(win) == 2, "the Training view draws the session's run and the picked one (%u)",
           training_run_count(win));

    /* continued past its end: the same folder goes on */
    tap_ok(rf_session_set_key(s, "train.steps", "40", NULL, NULL), "train.steps raised to 40");
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(finished_at_40, s, 120.0), "the finished run continues to step 40");
    g_autofree char *more = NULL;
    g_file_get_contents(csv, &more, NULL, NULL);
    g_autofree char *again =
        new_folder(runs, (const char *const[]){before[0], before[1], before[2], before[3], folder, NULL});
    tap_ok(more != NULL && strstr(more, "\n40,test,") != NULL && again == NULL,
           "its rows go on in the same metrics.csv, no new folder (%s)", again != NULL ? again : "none");
    return g_steal_pointer(&folder);
}

/* Double-click (the list's activate) on the row of `folder`, the session's
 * finished run: it opens as Open Checkpoint opens it (its config restored,
 * at its step, with its curves) in the Training view. A row without a
 * checkpoint says so. */
static void check_double_click_opens(RfWindow *win, GtkColumnView *list, const char *folder)
{
    RfSession *s = rf_window_get_session(win);
    GtkStack *stack = rf_window_get_stack(win);
    gtk_stack_set_visible_child_name(stack, "runs");
    spin_for(0.5);
    int i = row_of(list, "2026-11-23_100000-cli");
    g_signal_emit_by_name(list, "activate", (guint)(i >= 0 ? i : 0));
    spin_for(0.3);
    tap_ok(i >= 0 && g_strcmp0(rf_dialog_last_error(), "This run has no checkpoint") == 0 &&
               rf_session_get_state(s) == RF_RUN_FINISHED,
           "double-clicking a run without a checkpoint says so and changes nothing (%s)", rf_dialog_last_error());
    i = row_of(list, folder);
    tap_ok(i >= 0 && rf_session_get_state(s) == RF_RUN_FINISHED, "the trained run is listed, and finished");
    if (i < 0)
        return;
    /* an edit the checkpoint does not have: opening it restores its config */
    rf_session_set_key(s, "train.steps", "50", NULL, NULL);
    gboolean edited = rf_session_get_config(s)->train.steps == 50;
    g_signal_emit_by_name(list, "activate", (guint)i);
    spin_for(0.5);
    const rf_run_data *run = rf_session_get_current_run(s);
    tap_ok(edited && rf_session_get_config(s)->train.steps == 40 && rf_session_get_step(s) == 40 && run != NULL,
           "double-clicking it opens its checkpoint: its config (train.steps = %d, not the 50 edited) at step %lld",
           rf_session_get_config(s)->train.steps, (long long)rf_session_get_step(s));
    guint train_rows = 0;
    int64_t last = -1;
    for (guint k = 0; run != NULL && k < run->rows->len; k++) {
        const rf_metrics *m = &g_array_index(run->rows, rf_metrics, k);
        if (m->split == RF_SPLIT_TRAIN) {
            train_rows++;
            last = m->step;
        }
    }
    tap_ok(g_strcmp0(gtk_stack_get_visible_child_name(stack), "training") == 0 && train_rows >= 8 && last == 40 &&
               training_run_count(win) >= 1,
           "and shows the Training view drawing its recorded curves (%u train rows to step %lld)", train_rows,
           (long long)last);
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-gui-runs-XXXXXX", NULL);
    g_autofree char *data_home = g_build_filename(dir, "data", NULL);
    g_mkdir_with_parents(data_home, 0700);
    g_setenv("XDG_DATA_HOME", data_home, TRUE);   /* the trash goes there */
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    make_runs(runs);

    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    gtk_window_set_default_size(GTK_WINDOW(win), 1600, 1000);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "runs");
    spin_for(0.6);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "runs");
    GtkColumnView *list = view != NULL ? GTK_COLUMN_VIEW(find_named(view, "runs-list")) : NULL;
    if (!tap_ok(list != NULL, "the window has a Runs view with its list"))
        return tap_done();

    tap_ok(g_list_model_get_n_items(rows_of(list)) == 3, "it lists the three run folders (%u rows)",
           g_list_model_get_n_items(rows_of(list)));
    const rf_run_entry *full = entry_at(list, row_of(list, "2026-11-21_100000-full"));
    tap_ok(full != NULL && full->status == RF_RUN_STATUS_STOPPED && full->steps == 1500,
           "a run with a checkpoint and no test row is stopped at its last step");
    tap_ok(has_column(list, "model.encoder") && has_column(list, "model.dim") && !has_column(list, "data.task"),
           "the keys that differ between the runs have columns, the others not");
    GtkWidget *warnings = find_named(view, "runs-warnings");
    tap_ok(warnings != NULL && gtk_widget_get_visible(warnings) &&
               strstr(gtk_label_get_text(GTK_LABEL(warnings)), "not-a-run") != NULL,
           "the malformed folder is left out with a warning naming it");

    /* a run folder the command line writes meanwhile (its layout) */
    static const char *const cli_sets[] = {"model.encoder=full", "model.dim=32", "data.task=listops", NULL};
    g_free(write_fake_run(runs, &(fake_run){"2026-11-23_100000-cli", cli_sets, 100, 10, FALSE, FALSE, 0}));
    const rf_run_entry *cli = spin_until(is_listed, &(listed){list, "2026-11-23_100000-cli"}, 5.0)
                                  ? entry_at(list, row_of(list, "2026-11-23_100000-cli"))
                                  : NULL;
    tap_ok(cli != NULL && cli->status == RF_RUN_STATUS_RUNNING,
           "a run folder written meanwhile appears without a reload, running");

    select_folder(list, "2026-11-21_100000-full");
    gtk_widget_activate_action(view, "runs.rename", "s", "wide baseline");
    gtk_widget_activate_action(view, "runs.tag", "s", "baseline, dim-sweep");
    spin_for(0.2);
    g_autofree char *meta = file_in(runs, "2026-11-21_100000-full", "run.ini");
    g_autofree char *meta_text = NULL;
    g_file_get_contents(meta, &meta_text, NULL, NULL);
    full = entry_at(list, row_of(list, "2026-11-21_100000-full"));
    tap_ok(full != NULL && strcmp(full->name, "wide baseline") == 0 && strcmp(full->tags, "baseline, dim-sweep") == 0,
           "rename and tags change the row");
    tap_ok(meta_text != NULL && strstr(meta_text, "name=wide baseline") != NULL &&
               strstr(meta_text, "tags=baseline, dim-sweep") != NULL,
           "and are kept in the folder's run.ini, the folder keeping its name");

    tap_ok(training_run_count(win) == 0, "the Training view draws no run before any is picked");
    GtkCheckButton *check = find_free_check(GTK_WIDGET(list));
    if (check != NULL)
        gtk_check_button_set_active(check, TRUE);
    spin_for(0.2);
    tap_ok(check != NULL && rf_session_get_overlays(rf_window_get_session(win))->len == 1 &&
               training_run_count(win) == 1,
           "a run picked in the Draw column is drawn in the Training view (%u)", training_run_count(win));

    gtk_selection_model_unselect_all(gtk_column_view_get_model(list));
    select_folder(list, "2026-11-22_100000-small");
    gtk_widget_activate_action(view, "runs.delete", NULL);
    spin_for(0.2);
    GtkDialog *confirm = find_confirm();
    tap_ok(confirm != NULL, "Delete asks first");
    if (confirm != NULL)
        gtk_dialog_response(confirm, GTK_RESPONSE_ACCEPT);
    g_autofree char *gone = g_build_filename(runs, "2026-11-22_100000-small", NULL);
    spin_until(folder_gone, gone, 10.0);
    spin_for(0.1);
    g_autofree char *trashed = g_build_filename(data_home, "Trash", "files", "2026-11-22_100000-small", NULL);
    tap_ok(!g_file_test(gone, G_FILE_TEST_EXISTS) && g_file_test(trashed, G_FILE_TEST_IS_DIR),
           "the run's folder went to the trash");
    tap_ok(row_of(list, "2026-11-22_100000-small") < 0 && g_list_model_get_n_items(rows_of(list)) == 3,
           "and its row is gone");

    if (g_getenv("RF_SCREENSHOT_DIR") == NULL)
        gtk_stack_set_visible_child_name(rf_window_get_stack(win), "training");
    g_autofree char *trained = check_training_recorded(win, list, runs);
    if (trained != NULL)
        check_double_click_opens(win, list, trained);

    const char *shots = g_getenv("RF_SCREENSHOT_DIR");
    if (shots != NULL) {
        copy_screenshot_runs(runs);
        /* wider than the other screenshots: a few differing keys show */
        gtk_window_set_default_size(GTK_WINDOW(win), 1900, 1000);
        gtk_stack_set_visible_child_name(rf_window_get_stack(win), "runs");
        gtk_widget_activate_action(view, "runs.reload", NULL);
        spin_for(0.5);
        g_autoptr(GdkTexture) texture = render(GTK_WIDGET(win));
        g_autofree char *path = g_build_filename(shots, "screenshot-runs.png", NULL);
        tap_ok(texture != NULL && gdk_texture_save_to_png(texture, path), "screenshot %s", path);
    }
    close_workbench(win, app);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", dir);
    return tap_done();
}
