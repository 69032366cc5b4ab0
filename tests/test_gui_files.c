/* The workbench meets bad files from outside (issue 10 item 9): a missing
 * data folder, an image or audio folder with corrupt files (a warning
 * naming them, an error under data.strict), a truncated IDX file, text and
 * .npy arrays it cannot take, and exports into places that cannot be
 * written end in a dialog naming the file; the window stays open and
 * usable throughout. (Split out of test_gui.c.) */
#include <glib/gstdio.h>
#include <string.h>

#include "gui_fixtures.h"
#include "workbench_app.h"

static void check_bad_data_folder(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    set_key(s, "data.task", "image_folder");
    const char *missing = "/nonexistent/rangefinder-gui-test";
    rf_window_open_data_path(win, missing);
    gboolean shown = spin_until(error_shown, (gpointer)missing, 60.0);
    tap_ok(shown,
           "a missing data folder ends in an error dialog naming it (%s: %s)",
           shown ? rf_dialog_last_error() : "none", shown ? rf_dialog_last_error_detail() : "");
    close_all_dialogs(win);
    tap_ok(gtk_widget_get_visible(GTK_WIDGET(win)), "the window stays open and usable");
}

/* A warning dialog whose message contains `data`. */
static gboolean warning_shown(gpointer data)
{
    const char *detail = rf_dialog_last_warning_detail();
    return detail != NULL && strstr(detail, data) != NULL;
}

/* An IDX file (big-endian dims, unsigned bytes), cut to `keep` bytes (0: whole). */
static void write_idx(const char *dir, const char *name, int rank, const guint32 *dims, gsize keep)
{
    gsize items = 1;
    for (int d = 0; d < rank; d++)
        items *= dims[d];
    g_autofree guint8 *idx = g_malloc0(4 + 4 * (gsize)rank + items);
    idx[2] = 0x08;   /* unsigned bytes */
    idx[3] = (guint8)rank;
    for (int d = 0; d < rank; d++)
        for (int b = 0; b < 4; b++)
            idx[4 + 4 * d + b] = (guint8)(dims[d] >> (24 - 8 * b));
    for (gsize i = 0; i < items; i++)
        idx[4 + 4 * rank + i] = rank == 1 ? (guint8)(i % 10) : (guint8)(i * 7);
    write_bytes(dir, name, idx, keep != 0 ? keep : 4 + 4 * (gsize)rank + items);
}

/* A dialog's lines as one TAP-safe line. */
static char *one_line(const char *text)
{
    char *line = g_strchomp(g_strdup(text != NULL ? text : "none"));
    g_strdelimit(line, "\n", '|');
    return line;
}

/* Open `path` for the current task; wait for the error dialog naming `bad`. */
static gboolean open_refused(RfWindow *win, const char *path, const char *bad, const char *why)
{
    rf_window_open_data_path(win, path);
    gboolean shown = spin_until(error_shown, (gpointer)bad, 60.0);
    const char *detail = rf_dialog_last_error_detail();
    gboolean said = shown && strstr(detail, why) != NULL && strcmp(rf_dialog_last_error(), "Could not open the data") == 0;
    close_all_dialogs(win);
    return said;
}

/* Open `path`; wait for the warning dialog naming `bad` and the data set. */
static gboolean open_with_warning(RfWindow *win, const char *path, const char *bad, const char *task)
{
    RfSession *s = rf_window_get_session(win);
    rf_window_open_data_path(win, path);
    gboolean shown = spin_until(warning_shown, (gpointer)bad, 120.0);
    close_all_dialogs(win);
    return shown && dataset_is(s, task);
}

static void check_bad_image_folder(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *root = make_folder(dir, "images");
    g_autofree char *cats = make_folder(root, "cat"), *dogs = make_folder(root, "dog");
    write_pngs(cats, 6, 40);
    write_pngs(dogs, 6, 160);
    write_bytes(cats, "broken-image.png", "this is not a PNG at all", 24);
    g_autofree char *good = g_build_filename(cats, "0.png", NULL), *png = NULL;
    gsize n = 0;
    g_file_get_contents(good, &png, &n, NULL);
    write_bytes(dogs, "cut-image.png", png, n / 2);
    set_key(s, "data.task", "image_folder");
    set_key(s, "data.image_size", "8");
    set_key(s, "data.val_size", "2");
    set_key(s, "data.test_size", "2");

    gboolean warned = open_with_warning(win, root, "broken-image.png", "image_folder");
    const char *detail = rf_dialog_last_warning_detail();
    g_autofree char *said = one_line(detail);
    tap_ok(warned && strstr(detail, "cut-image.png") != NULL &&
               strcmp(rf_dialog_last_warning(), "The data opened with 2 warnings") == 0 &&
               rf_session_get_dataset(s)->size[0] == 8,
           "an image folder with a corrupt and a truncated PNG opens with a warning dialog naming both, the "
           "other 12 images kept (%s: %s)", rf_dialog_last_warning(), said);

    int64_t done = 0, total = 0;
    const char *what = "";
    rf_data_progress(&done, &total, &what);
    tap_ok(total == 14 && done == total && strcmp(what, "images") == 0,
           "the loader's progress reaches the workbench (%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " %s)", done, total,
           what);

    set_key(s, "data.strict", "true");
    gboolean refused = open_refused(win, root, "broken-image.png", "strict");
    tap_ok(refused, "with data.strict the corrupt PNG is an error dialog naming it (%s)", rf_dialog_last_error_detail());
    tap_ok(dataset_is(s, "image_folder") && gtk_widget_get_visible(GTK_WIDGET(win)),
           "the refused folder leaves the data set that was open, and the window usable");
    set_key(s, "data.strict", "false");
}

static void check_bad_audio_folder(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *root = write_audio_folder(s, dir);
    g_autofree char *low = g_build_filename(root, "low", NULL);
    static const char corrupt[] = "RIFF\x24\x00\x00\x00WAVEfmt garbage, no audio";
    write_bytes(low, "corrupt-clip.wav", corrupt, sizeof corrupt - 1);

    gboolean warned = open_with_warning(win, root, "corrupt-clip.wav", "audio_folder");
    g_autofree char *said = one_line(rf_dialog_last_warning_detail());
    tap_ok(warned && rf_session_get_dataset(s)->size[0] == 6,
           "an audio folder with a corrupt WAV opens with a warning dialog naming it, the other 8 clips kept (%s)", said);
    set_key(s, "data.strict", "true");
    gboolean refused = open_refused(win, root, "corrupt-clip.wav", "strict");
    tap_ok(refused, "with data.strict the corrupt WAV is an error dialog naming it (%s)", rf_dialog_last_error_detail());
    set_key(s, "data.strict", "false");
}

static void check_truncated_idx(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *root = make_folder(dir, "fashion");
    const guint32 train_images[] = {20, 28, 28}, test_images[] = {10, 28, 28}, train_labels[] = {20},
                  test_labels[] = {10};
    write_idx(root, "train-images-idx3-ubyte", 3, train_images, 16 + 28 * 28 * 20 - 1000);
    write_idx(root, "train-labels-idx1-ubyte", 1, train_labels, 0);
    write_idx(root, "t10k-images-idx3-ubyte", 3, test_images, 0);
    write_idx(root, "t10k-labels-idx1-ubyte", 1, test_labels, 0);
    set_key(s, "data.task", "fashion_mnist");
    gboolean refused = open_refused(win, root, "train-images-idx3-ubyte", "truncated");
    tap_ok(refused, "a truncated IDX file is an error dialog naming it and saying so (%s)", rf_dialog_last_error_detail());
    tap_ok(dataset_is(s, "audio_folder"), "the data set that was open stays open");
}

/* No leftover "<name>.XXXXXX" temporaries of an export in `dir`. */
static gboolean no_temporaries(const char *dir, const char *name)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_autofree char *prefix = g_strconcat(name, ".", NULL);
    for (const char *entry; d != NULL && (entry = g_dir_read_name(d)) != NULL;)
        if (g_str_has_prefix(entry, prefix))
            return FALSE;
    return TRUE;
}

static void check_unwritable_export(RfWindow *win, const char *dir)
{
    g_autofree char *missing = g_build_filename(dir, "no-such-folder", "training.png", NULL);
    gboolean refused = !rf_window_export_plot_or_explain(win, "training", missing, 800, 500);
    tap_ok(refused && error_shown(missing) && strcmp(rf_dialog_last_error(), "Could not export the plot") == 0 &&
               !g_file_test(missing, G_FILE_TEST_EXISTS),
           "an export into a missing folder is an error dialog naming the file (%s)", rf_dialog_last_error_detail());
    close_all_dialogs(win);

    /* A folder where the file should go: written aside, the rename fails,
     * nothing is left behind and the folder is untouched (root can write
     * anywhere, so permissions cannot make the target unwritable here). */
    g_autofree char *taken = make_folder(dir, "taken.pdf");
    refused = !rf_window_export_plot_or_explain(win, "training", taken, 800, 500);
    tap_ok(refused && error_shown(taken) && g_file_test(taken, G_FILE_TEST_IS_DIR) && no_temporaries(dir, "taken.pdf"),
           "an export onto a folder is an error dialog naming it; the folder stays, no partial file is left (%s)",
           rf_dialog_last_error_detail());
    close_all_dialogs(win);
    g_rmdir(taken);

    g_autofree char *under_file = g_build_filename(dir, "small.ini", "training.svg", NULL);
    refused = !rf_window_export_plot_or_explain(win, "training", under_file, 800, 500);
    tap_ok(refused && error_shown(under_file),
           "an export below a file is an error dialog naming it (%s)", rf_dialog_last_error_detail());
    close_all_dialogs(win);
}

/* A text folder with an empty file, and NumPy arrays with one label too few. */
static void check_text_and_arrays(RfWindow *win, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *root = make_folder(dir, "text");
    g_autofree char *neg = make_folder(root, "neg"), *pos = make_folder(root, "pos");
    for (int i = 0; i < 4; i++) {
        g_autofree char *name = g_strdup_printf("%d.txt", i);
        write_bytes(neg, name, "dull and long", 13);
        write_bytes(pos, name, "bright \xff", 8);
    }
    write_bytes(pos, "empty-review.txt", "", 0);
    set_key(s, "data.task", "text_folder");
    set_key(s, "data.max_len", "64");
    set_key(s, "data.min_len", "0");
    gboolean warned = open_with_warning(win, root, "empty-review.txt", "text_folder");
    g_autofree char *said = one_line(rf_dialog_last_warning_detail());
    tap_ok(warned && rf_session_get_dataset(s)->seq_len == 13,
           "a text folder with an empty file opens with a warning dialog naming it (%s)", said);

    g_autofree char *arrays = make_folder(dir, "arrays");
    guint8 x[8 * 4], y[8];
    for (int i = 0; i < 8 * 4; i++)
        x[i] = (guint8)(i % 4 == 3 ? 0 : 1 + i % 5);
    for (int i = 0; i < 8; i++)
        y[i] = (guint8)(i % 2);
    write_npy_u1(arrays, "x.npy", "(8, 4)", x, sizeof x);
    write_npy_u1(arrays, "y.npy", "(7,)", y, 7);
    set_key(s, "data.task", "npy");
    gboolean refused = open_refused(win, arrays, "y.npy", "8 rows");
    tap_ok(refused, "NumPy arrays with 7 labels for 8 rows are an error dialog naming y.npy (%s)",
           rf_dialog_last_error_detail());
    tap_ok(dataset_is(s, "text_folder"), "the text folder stays open");
}

static void check_bad_files(RfWindow *win, const char *dir)
{
    check_bad_image_folder(win, dir);
    check_bad_audio_folder(win, dir);
    check_truncated_idx(win, dir);
    check_text_and_arrays(win, dir);
    check_unwritable_export(win, dir);
    tap_ok(gtk_widget_get_visible(GTK_WIDGET(win)), "after every bad file the window is open and usable");
}

int main(int argc, char **argv)
{
    (void)argc;
    application_kernels(argv);
    g_autofree char *dir = g_dir_make_tmp("rf-gui-files-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    check_bad_data_folder(win);
    check_bad_files(win, dir);
    close_workbench(win, app);
    return tap_done();
}
