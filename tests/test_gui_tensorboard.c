/* The Runs view's TensorBoard runs, under Xvfb with the real application:
 * TensorBoard → Open TensorBoard Run… on a folder of event files with
 * PyTorch-style tags (Loss/train, Accuracy/val, learning_rate) adds it to
 * the Training view's overlay, its points those of the files; a folder
 * without event files is refused with a message naming it; Remove
 * TensorBoard Runs takes it off again. A run trained in the workbench
 * writes its own event file, whose train/loss and val/accuracy are its
 * metrics.csv rows, and is drawn beside the TensorBoard run.
 * RF_SCREENSHOT_DIR set: also writes screenshot-tensorboard.png there (the
 * Training view with both runs).
 */
#include <math.h>
#include <string.h>

#include "../config/tb_reader.h"
#include "../config/tb_writer.h"
#include "../ui/dialogs.h"
#include "../ui/figures/training_figure.h"
#include "../ui/view.h"
#include "file_chooser.h"
#include "widget_find.h"
#include "widget_render.h"
#include "workbench_app.h"

#define STEPS 20

static const char small_config[] = RF_TEST_TINY_DATA RF_TEST_TINY_BLRP "[train]\nsteps = 30\n";

static double train_loss(int step)
{
    return 2.5 * exp(-step / 8.0) + 0.25;
}

static double val_accuracy(int step)
{
    return 0.1 + 0.03 * step;
}

/* What a PyTorch run's SummaryWriter would leave: one file, its own tags. */
static gboolean write_tensorboard_run(const char *dir)
{
    g_mkdir_with_parents(dir, 0700);
    g_autoptr(GError) error = NULL;
    g_autoptr(rf_tb_writer) w = rf_tb_writer_open(dir, &error);
    for (int step = 1; w != NULL && step <= STEPS; step++) {
        const char *tags[] = {"Loss/train", "learning_rate", "Accuracy/val"};
        double values[] = {train_loss(step), 1e-3 / step, val_accuracy(step)};
        if (!rf_tb_writer_scalars(w, step, tags, values, step % 5 == 0 ? 3 : 2, &error))
            break;
    }
    return tap_ok(w != NULL && error == NULL, "a TensorBoard run is written%s%s", error ? ": " : "",
                  error ? error->message : "");
}

static guint training_run_count(RfWindow *win)
{
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "training");
    RfPlotView *plot = rf_view_get_plot(view);
    return rf_training_figure_get_run_count(g_object_get_data(G_OBJECT(plot), "rf-training-figure"));
}

static gboolean same_float(double got, double want)
{
    return fabs(got - (double)(float)want) <= 1e-7 * fabs(want);
}

/* The overlay's rows against the files' points. */
static void check_points(const rf_run_data *r)
{
    guint train = 0, val = 0;
    gboolean loss_ok = TRUE, lr_ok = TRUE, acc_ok = TRUE, time_ok = TRUE;
    for (guint i = 0; i < r->rows->len; i++) {
        const rf_metrics *m = &g_array_index(r->rows, rf_metrics, i);
        int step = (int)m->step;
        time_ok &= isfinite(m->seconds) && m->seconds >= 0;
        if (m->split == RF_SPLIT_TRAIN) {
            train++;
            loss_ok &= step == (int)train && same_float(m->loss, train_loss(step));
            lr_ok &= same_float(m->lr, 1e-3 / step);
        } else if (m->split == RF_SPLIT_VAL) {
            val++;
            acc_ok &= step == 5 * (int)val && same_float(m->accuracy, val_accuracy(step)) && isnan(m->loss);
        }
    }
    tap_ok(train == STEPS && loss_ok, "Loss/train is the train loss at steps 1-%d, the files' values (%u rows)", STEPS,
           train);
    tap_ok(lr_ok, "learning_rate is the learning rate");
    tap_ok(val == STEPS / 5 && acc_ok, "Accuracy/val is the validation accuracy at steps 5, 10, 15, 20 (%u rows)",
           val);
    tap_ok(time_ok, "every row has its time since the first event");
}

/* The one run folder of `runs`, or NULL. */
static char *only_folder(const char *runs)
{
    g_autoptr(GDir) d = g_dir_open(runs, 0, NULL);
    const char *name = d != NULL ? g_dir_read_name(d) : NULL;
    return name != NULL && g_dir_read_name(d) == NULL ? g_build_filename(runs, name, NULL) : NULL;
}

/* metrics.csv's rows of `split` against the event files' `tag`. */
static gboolean events_match_csv(const char *dir, const char *split, const char *column_tag, int column, guint *n)
{
    g_autofree char *csv_path = g_build_filename(dir, "metrics.csv", NULL);
    g_autofree char *csv = NULL;
    g_autoptr(rf_tb_run) run = rf_tb_run_read(dir, NULL);
    const rf_tb_series *series = run != NULL ? rf_tb_run_find(run, column_tag) : NULL;
    if (series == NULL || !g_file_get_contents(csv_path, &csv, NULL, NULL))
        return FALSE;
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    *n = 0;
    for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) != 6 || strcmp(f[1], split) != 0)
            continue;
        if (*n >= series->points->len)
            return FALSE;
        rf_tb_point p = g_array_index(series->points, rf_tb_point, *n);
        double want = g_ascii_strtod(f[column], NULL);
        if (p.step != g_ascii_strtoll(f[0], NULL, 10) || fabs(p.value - want) > 1e-5 * fabs(want) + 1e-6)
            return FALSE;
        (*n)++;
    }
    return *n > 0 && *n == series->points->len;
}

static void check_workbench_run(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED,
           "a run trains to its end in the workbench");
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    g_autofree char *folder = only_folder(runs);
    guint train = 0, val = 0;
    gboolean match = folder != NULL && events_match_csv(folder, "train", "train/loss", 2, &train) &&
                     events_match_csv(folder, "val", "val/accuracy", 3, &val);
    tap_ok(match,
           "its folder's event file holds metrics.csv's train losses (%u) and validation accuracies (%u)", train,
           val);
    tap_ok(training_run_count(win) == 2, "the Training view draws it beside the TensorBoard run (%u runs)",
           training_run_count(win));
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-gui-tb-XXXXXX", NULL);
    g_autofree char *tb = g_build_filename(dir, "pytorch-run", NULL);
    g_autofree char *empty = g_build_filename(dir, "no-events", NULL);
    g_mkdir_with_parents(empty, 0700);
    write_tensorboard_run(tb);

    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    RfSession *s = rf_window_get_session(win);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "runs");
    spin_for(0.3);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "runs");
    tap_ok(view != NULL && find_named(view, "tensorboard-button") != NULL, "the Runs view has a TensorBoard menu");
    tap_ok(training_run_count(win) == 0, "the Training view draws no run at first");

    gtk_widget_activate_action(view, "runs.open-tensorboard", NULL);
    g_autofree char *start = opened_chooser_folder();
    tap_ok(*start != '\0', "Open TensorBoard Run… asks for a folder (starting in %s)", start);
    answer_chooser(tb);
    spin_for(0.2);
    GPtrArray *overlays = rf_session_get_overlays(s);
    const rf_run_data *r = overlays->len == 1 ? g_ptr_array_index(overlays, 0) : NULL;
    tap_ok(r != NULL && r->tensorboard && g_str_has_suffix(r->name, "pytorch-run"),
           "the folder joins the overlay as a TensorBoard run named after it");
    tap_ok(training_run_count(win) == 1, "the Training view draws it (%u runs)", training_run_count(win));
    if (r != NULL)
        check_points(r);

    gtk_widget_activate_action(view, "runs.open-tensorboard", NULL);
    g_free(opened_chooser_folder());   /* its folder loaded */
    answer_chooser(empty);
    spin_for(0.2);
    const char *detail = rf_dialog_last_error_detail();
    tap_ok(detail != NULL && strstr(detail, empty) != NULL && strstr(detail, "no TensorBoard event files") != NULL,
           "a folder without event files is refused, named: %s", detail != NULL ? detail : "(no message)");
    tap_ok(overlays->len == 1, "and nothing is added");

    check_workbench_run(win, dir);
    const char *shots = g_getenv("RF_SCREENSHOT_DIR");
    if (shots != NULL) {
        gtk_stack_set_visible_child_name(rf_window_get_stack(win), "training");
        spin_for(0.5);
        g_autoptr(GdkTexture) texture = render(GTK_WIDGET(win));
        g_autofree char *path = g_build_filename(shots, "screenshot-tensorboard.png", NULL);
        tap_ok(texture != NULL && gdk_texture_save_to_png(texture, path), "screenshot %s", path);
    }

    gtk_widget_activate_action(view, "runs.remove-tensorboard", NULL);
    spin_for(0.2);
    tap_ok(overlays->len == 0 && training_run_count(win) == 1,
           "Remove TensorBoard Runs takes it off the plot, the session's run stays");

    close_workbench(win, app);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", dir);
    return tap_done();
}
