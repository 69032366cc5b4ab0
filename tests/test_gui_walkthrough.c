/* The held-out walkthrough: one scripted session through the real
 * application under Xvfb, as a newcomer's first hour goes, each step
 * checked for what a person would see.
 *   1. Launch on the default config (data/configs/default.ini) at
 *      1024 x 600: the window keeps that size, and the sidebar toggle and
 *      the view tabs are inside it.
 *   2. Open the sidebar with its toggle, lower Steps in its field, press
 *      Train: the run finishes, the status line and step counter read what
 *      the run's metrics.csv ends with (a row every train.log_every steps),
 *      and the Training view's legend gives its test accuracy.
 *   3. Every view: the ones with something of this run draw it; Latent and
 *      TaLK say why they have nothing for full attention; Runs lists it.
 *      The views that ask why run the trained model when asked: Evaluate
 *      classifies the whole test split, Attribution explains the Data
 *      view's test sample position by position, Projector's Compute places
 *      the first validation samples; each draws its figure.
 *   4. Switch the data set to Fashion-MNIST in the sidebar (Max length goes,
 *      Patch shows), set patches of 7 in their field and train it (skipped
 *      where Debian's copy is not installed).
 *   5. Inspect a PNG the test draws, through File → Inspect File and the
 *      file chooser: the Data view's bars read `rangefinder predict`'s
 *      probabilities for that file and its class.
 *   6. Export the Training figure to PNG, SVG and PDF as Export Plot…
 *      does: valid files of the figure, no widget's text in them.
 *   7. Train a third run, pause it, quit with Ctrl+Q's action: the window
 *      asks first; Close Without Saving closes it and, as the question
 *      says, writes no checkpoint.
 *   8. Launch a new application on the same runs folder: the Runs view
 *      lists the three runs, the one closed without saving not as running,
 *      the first with its name and its test accuracy as the status line
 *      gave it; double-clicking it opens its checkpoint (the status line
 *      and the step counter are the run's, the Training view draws its
 *      curves).
 *
 * argv[1]: the rangefinder executable (for `predict`).
 */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <math.h>
#include <string.h>

#include "../datasets/projection.h"
#include "../ui/data_tasks.h"
#include "../ui/figures/evaluation_figure.h"
#include "../ui/figures/training_figure.h"
#include "../ui/views/run_row.h"
#include "../ui/workbench.h"
#include "figure_text.h"
#include "file_chooser.h"
#include "gui_steps.h"
#include "view_drawing.h"
#include "widget_find.h"
#include "workbench_app.h"

#define WIDTH 1024
#define HEIGHT 600
#define STEPS 60   /* at least the default config's warm-up (50 steps) */

static const char *const pages[] = {"training", "attention", "latent", "talk", "memory", "data", "compare", "runs"};

/* --- what the files say --- */

/* The last row of each split in a metrics.csv (step,split,loss,accuracy,lr,seconds). */
typedef struct last_rows {
    gboolean has[3];
    long long step[3];
    double loss[3], accuracy[3];
} last_rows;

static const char *const split_names[] = {"train", "val", "test"};

static gboolean read_last_rows(const char *csv, last_rows *out, int *train_rows)
{
    *out = (last_rows){0};
    *train_rows = 0;
    g_autofree char *text = NULL;
    if (!g_file_get_contents(csv, &text, NULL, NULL))
        return FALSE;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (guint i = 1; lines[i] != NULL; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) < 4)
            continue;
        for (int k = 0; k < 3; k++)
            if (strcmp(f[1], split_names[k]) == 0) {
                *train_rows += k == 0;
                out->has[k] = TRUE;
                out->step[k] = g_ascii_strtoll(f[0], NULL, 10);
                out->loss[k] = g_ascii_strtod(f[2], NULL);
                out->accuracy[k] = g_ascii_strtod(f[3], NULL);
            }
    }
    return out->has[0];
}

/* The status line's read-outs as the documented format gives them for
 * these rows: "loss 2.14 · acc 21.9 % · val 18.2 % · test 17.0 % · ". */
static char *read_outs_of(const last_rows *r)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "loss %.3g · acc %.1f %% · ", r->loss[0], 100 * r->accuracy[0]);
    if (r->has[1])
        g_string_append_printf(s, "val %.1f %% · ", 100 * r->accuracy[1]);
    if (r->has[2])
        g_string_append_printf(s, "test %.1f %% · ", 100 * r->accuracy[2]);
    return g_string_free(s, FALSE);
}

/* The one folder of `runs` not in `known` (NULL-terminated), or NULL. */
static char *new_run_folder(const char *runs, const char *const *known)
{
    g_autoptr(GDir) d = g_dir_open(runs, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;)
        if (known == NULL || !g_strv_contains(known, name))
            return g_strdup(name);
    return NULL;
}

/* --- the window as seen --- */

typedef struct Ink {
    double drawn;    /* fraction of pixels unlike the most common colour */
    guint colours;   /* distinct colours */
} Ink;

static Ink ink_of(GtkWidget *widget)
{
    Ink ink = {0};
    g_autoptr(GdkTexture) texture = render(widget);
    if (texture == NULL)
        return ink;
    int w = gdk_texture_get_width(texture), h = gdk_texture_get_height(texture);
    guint32 *pixels = g_new(guint32, (gsize)w * h);
    gdk_texture_download(texture, (guchar *)pixels, (gsize)w * 4);
    g_autoptr(GHashTable) counts = g_hash_table_new(g_direct_hash, g_direct_equal);
    guint most = 0;
    for (gsize i = 0; i < (gsize)w * h; i++) {
        gpointer key = GUINT_TO_POINTER(pixels[i]);
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, key)) + 1;
        g_hash_table_insert(counts, key, GUINT_TO_POINTER(n));
        most = MAX(most, n);
    }
    ink.drawn = 1.0 - (double)most / ((double)w * h);
    ink.colours = g_hash_table_size(counts);
    g_free(pixels);
    return ink;
}

/* The window's bounds, the client-side decorations included. */
static graphene_rect_t frame_of(GtkWidget *win)
{
    graphene_rect_t frame = GRAPHENE_RECT_INIT(0, 0, 0, 0);
    if (!gtk_widget_compute_bounds(win, win, &frame))
        frame = GRAPHENE_RECT_INIT(0, 0, (float)gtk_widget_get_width(win), (float)gtk_widget_get_height(win));
    return frame;
}

static gboolean shown_inside(GtkWidget *w, GtkWidget *win)
{
    graphene_rect_t r, frame = frame_of(win);
    return w != NULL && gtk_widget_get_mapped(w) && gtk_widget_compute_bounds(w, win, &r) && r.size.width > 0 &&
           graphene_rect_contains_rect(&frame, &r);
}

/* The button (or other actionable widget) that activates `action`. */
static GtkWidget *find_actionable(GtkWidget *root, const char *action)
{
    if (GTK_IS_ACTIONABLE(root) && g_strcmp0(gtk_actionable_get_action_name(GTK_ACTIONABLE(root)), action) == 0)
        return root;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_actionable(c, action);
        if (found != NULL)
            return found;
    }
    return NULL;
}

/* The texts of the labels under `root` (the plot itself draws, it has none). */
static void widget_texts(GtkWidget *root, GPtrArray *out)
{
    if (GTK_IS_LABEL(root) && gtk_widget_get_visible(root) && strlen(gtk_label_get_text(GTK_LABEL(root))) > 1)
        g_ptr_array_add(out, g_strdup(gtk_label_get_text(GTK_LABEL(root))));
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c))
        widget_texts(c, out);
}

/* A label or inscription (the Runs view's cells) under `root` reads `text`. */
static const char *wanted_words;
static gboolean label_says(gpointer label)
{
    return strstr(gtk_label_get_text(GTK_LABEL(label)), wanted_words) != NULL;
}

static gboolean label_shows(GtkWidget *root, const char *text)
{
    if ((GTK_IS_LABEL(root) && strcmp(gtk_label_get_text(GTK_LABEL(root)), text) == 0) ||
        (GTK_IS_INSCRIPTION(root) && g_strcmp0(gtk_inscription_get_text(GTK_INSCRIPTION(root)), text) == 0))
        return TRUE;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c))
        if (label_shows(c, text))
            return TRUE;
    return FALSE;
}

static void type_into(GtkWidget *spin, const char *text)
{
    gtk_editable_set_text(GTK_EDITABLE(spin), text);
    gtk_spin_button_update(GTK_SPIN_BUTTON(spin));
    spin_for(0.1);
}

static GtkWidget *field(RfWindow *win, const char *key)
{
    return rf_config_panel_get_editor(rf_window_get_config_panel(win), key);
}

static void show_sidebar(RfWindow *win)
{
    GtkWidget *toggle = find_named(GTK_WIDGET(win), "sidebar-toggle");
    if (toggle != NULL && !gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(toggle))) {
        g_signal_emit_by_name(toggle, "clicked");
        spin_for(0.5);
    }
}

/* Below the fold the shown sidebar lies over the views: fold it again. */
static void hide_sidebar(RfWindow *win)
{
    GtkWidget *toggle = find_named(GTK_WIDGET(win), "sidebar-toggle");
    if (toggle != NULL && gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(toggle)) &&
        gtk_widget_get_width(GTK_WIDGET(win)) < 1280) {
        g_signal_emit_by_name(toggle, "clicked");
        spin_for(0.5);
    }
}

static gboolean widget_shown(gpointer widget)
{
    return gtk_widget_get_mapped(widget) && gtk_widget_get_width(widget) > 100 && gtk_widget_get_height(widget) > 50;
}

/* The view is on screen with its size (a slow machine lays it out frames
 * after it was asked for), its plot too where it has one. */
static gboolean laid_out(gpointer view)
{
    RfPlotView *plot = rf_view_get_plot(view);
    return widget_shown(view) && (plot == NULL || widget_shown(plot));
}

/* --- the application --- */

static RfWindow *launch(const char *runs, RfApplication **app, const char *what)
{
    *app = rf_application_new(NULL);   /* the default config */
    rf_application_set_runs_dir(*app, runs);
    g_application_set_flags(G_APPLICATION(*app), g_application_get_flags(G_APPLICATION(*app)) | G_APPLICATION_NON_UNIQUE);
    g_autoptr(GError) error = NULL;
    tap_ok(g_application_register(G_APPLICATION(*app), NULL, &error), "%s: the application registers", what);
    g_application_activate(G_APPLICATION(*app));
    RfWindow *win = RF_WINDOW(gtk_application_get_active_window(GTK_APPLICATION(*app)));
    if (!tap_ok(win != NULL, "%s: activation opens the main window", what))
        return NULL;
    g_object_set(gtk_settings_get_default(), "gtk-enable-animations", FALSE, NULL);
    gtk_window_set_default_size(GTK_WINDOW(win), WIDTH, HEIGHT);
    tap_ok(spin_until(data_loaded, rf_window_get_session(win), 120.0), "%s: the default config's data loads", what);
    spin_for(0.5);
    return win;
}

/* 1. */
static void check_window_fits(RfWindow *win)
{
    GtkWidget *w = GTK_WIDGET(win);
    graphene_rect_t frame = frame_of(w);
    tap_ok(frame.size.width <= WIDTH + 0.5f && frame.size.height <= HEIGHT + 0.5f,
           "launched at %dx%d, the window keeps that size (%.0fx%.0f)", WIDTH, HEIGHT, frame.size.width,
           frame.size.height);
    GtkWidget *toggle = find_named(w, "sidebar-toggle"), *tabs = find_named(w, "view-switcher");
    tap_ok(shown_inside(toggle, w) && shown_inside(tabs, w), "the sidebar toggle and the view switcher are inside it");
    tap_ok(strcmp(rf_session_get_config(rf_window_get_session(win))->model.encoder, "full") == 0 &&
               strcmp(rf_session_get_config(rf_window_get_session(win))->data.task, "listops") == 0,
           "it opens the default config: full attention on ListOps");
}

/* Steps lowered in the sidebar's field, Train pressed; waits for the end.
 * Returns whether the run finished. */
static gboolean train_through_the_window(RfWindow *win, const char *what)
{
    RfSession *s = rf_window_get_session(win);
    show_sidebar(win);
    GtkWidget *steps = field(win, "train.steps");
    char text[16];
    g_snprintf(text, sizeof text, "%d", STEPS);
    if (steps != NULL)
        type_into(steps, text);
    tap_ok(steps != NULL && gtk_widget_get_mapped(steps) && rf_session_get_config(s)->train.steps == STEPS,
           "%s: the sidebar's Steps field, shown, takes %d (shown: %d, train.steps = %d%s%s)", what, STEPS,
           steps != NULL && gtk_widget_get_mapped(steps), rf_session_get_config(s)->train.steps,
           steps != NULL ? "; " : "", rf_config_panel_get_message(rf_window_get_config_panel(win), "train.steps"));
    hide_sidebar(win);
    GtkWidget *train = find_actionable(GTK_WIDGET(win), "win.train");
    if (!tap_ok(train != NULL && shown_inside(train, GTK_WIDGET(win)) && gtk_widget_is_sensitive(train),
                "%s: the Train button is shown and enabled", what))
        return FALSE;
    g_signal_emit_by_name(train, "clicked");
    gboolean settled = spin_until(run_settled, s, 300.0);
    gboolean finished = settled && rf_session_get_state(s) == RF_RUN_FINISHED;
    tap_ok(finished && rf_session_get_step(s) == STEPS, "%s: the run finishes at step %d (%s)", what, STEPS,
           rf_session_get_error(s) != NULL ? rf_session_get_error(s) : "no error");
    spin_until(has_probes, s, 30.0);
    spin_for(0.5);
    return finished;
}

/* 2. The read-outs of the finished run are its metrics.csv's last rows. */
static void check_read_outs(RfWindow *win, const char *runs, const char *folder, const char *what)
{
    g_autofree char *csv = g_build_filename(runs, folder, "metrics.csv", NULL);
    last_rows rows;
    int train_rows = 0, every = rf_session_get_run_config(rf_window_get_session(win))->train.log_every;
    gboolean read = read_last_rows(csv, &rows, &train_rows);
    tap_ok(read && rows.has[2] && rows.step[0] == STEPS && rows.step[2] == STEPS,
           "%s: its metrics.csv ends with a train and a test row at step %d", what, STEPS);
    tap_ok(every > 1 && train_rows == STEPS / every, "%s: a train row every train.log_every = %d steps (%d rows)", what,
           every, train_rows);
    if (!read)
        return;
    g_autofree char *want = read_outs_of(&rows);
    const char *status = rf_window_get_status_text(win);
    tap_ok(g_str_has_prefix(status, want), "%s: the status line reads metrics.csv's last rows (\"%s\", the rows: \"%s\")",
           what, status, want);
    g_autofree char *counter = g_strdup_printf("step %d / %d", STEPS, STEPS);
    tap_ok(strstr(rf_window_get_step_text(win), counter) != NULL, "%s: the step counter reads \"%s\" (\"%s\")", what,
           counter, rf_window_get_step_text(win));
    show_page(win, "training");
    GtkWidget *training = gtk_stack_get_child_by_name(rf_window_get_stack(win), "training");
    spin_until(laid_out, training, 30.0);
    g_autoptr(GPtrArray) texts = figure_texts(rf_view_get_plot(training));
    g_autofree char *legend = g_strdup_printf(" · test %.1f %%", 100 * rows.accuracy[2]);
    tap_ok(has_text(texts, legend), "%s: the Training view's legend gives its test accuracy (\"%s\")", what,
           legend + 3);
}

/* 3. */
static void check_every_view(RfWindow *win)
{
    GtkStack *stack = rf_window_get_stack(win);
    for (size_t i = 0; i < G_N_ELEMENTS(pages); i++) {
        show_page(win, pages[i]);
        GtkWidget *view = gtk_stack_get_child_by_name(stack, pages[i]);
        if (!tap_ok(view != NULL && spin_until(laid_out, view, 30.0), "the %s view comes on screen", pages[i]))
            continue;
        spin_for(0.3);   /* views redraw at most ten times a second */
        RfPlotView *plot = rf_view_get_plot(view);
        g_autoptr(GPtrArray) texts = plot != NULL ? figure_texts(plot) : g_ptr_array_new_with_free_func(g_free);
        g_autofree char *words = joined(texts);
        if (strcmp(pages[i], "latent") == 0 || strcmp(pages[i], "talk") == 0) {
            const char *encoder = strcmp(pages[i], "latent") == 0 ? "blrp" : "talk";
            g_autofree char *why = g_strdup_printf("exist for the %s encoder; this run uses full", encoder);
            tap_ok(has_text(texts, why), "the %s view says why it is empty for full attention (\"%s\")", pages[i],
                   words);
            GtkWidget *layer = find_named(view, "probe-layer");
            tap_ok(layer != NULL && !gtk_widget_get_sensitive(layer),
                   "and its Layer drop-down is greyed out, with nothing to pick");
            continue;
        }
        if (strcmp(pages[i], "attention") == 0) {
            GtkWidget *map = find_named(view, "probe-layer");
            tap_ok(map != NULL && gtk_widget_get_sensitive(map), "the attention view's Map drop-down can be used");
        }
        Ink ink = ink_of(view);
        if (strcmp(pages[i], "runs") == 0) {
            GtkWidget *list = find_named(view, "runs-list");
            guint rows = list != NULL ? g_list_model_get_n_items(G_LIST_MODEL(
                                            gtk_column_view_get_model(GTK_COLUMN_VIEW(list))))
                                      : 0;
            tap_ok(rows == 1 && ink.drawn > 0.02, "the runs view lists the run (%u rows, %.1f %% of its pixels)",
                   rows, 100 * ink.drawn);
            continue;
        }
        gboolean empty = has_text(texts, "No ") || has_text(texts, "start training") || has_text(texts, "press Train");
        /* 2 %: curves and labels at 1024 x 600; an empty view's sentence is < 1 % */
        tap_ok(ink.drawn > 0.02 && ink.colours > 16 && !empty,
               "the %s view draws the run (%.1f %% of its pixels, %u colours; \"%.200s\")", pages[i],
               100 * ink.drawn, ink.colours, words);
    }
}

/* 3, the views that ask why: `button` of `page` pressed, then waited for
 * until its status says `done` (or 60 s); the view drawn. */
static gboolean computed_in(RfWindow *win, const char *page, const char *button, const char *status,
                            const char *done, Ink *ink)
{
    show_page(win, page);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), page);
    g_signal_emit_by_name(find_named(view, button), "clicked");
    GtkWidget *said = find_named(view, status);
    wanted_words = done;
    gboolean ok = spin_until(label_says, said, 60.0);
    spin_for(0.3);   /* views redraw at most ten times a second */
    *ink = ink_of(view);
    if (!ok)
        tap_diag("%s: %s", page, gtk_label_get_text(GTK_LABEL(said)));
    return ok;
}

static void check_why_views(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    const rf_dataset *ds = rf_session_get_dataset(s);
    int64_t test = ds->size[RF_SPLIT_TEST], val = ds->size[RF_SPLIT_VAL];
    Ink ink;
    g_autofree char *evaluated = g_strdup_printf("Test split at step %d: %lld samples", STEPS, (long long)test);
    gboolean done = computed_in(win, "evaluation", "evaluate", "evaluation-status", evaluated, &ink);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "evaluation");
    const rf_eval_slices *slices = rf_evaluation_figure_slices(rf_plot_view_get_figure(rf_view_get_plot(view))->data);
    tap_ok(done && slices != NULL && slices->samples == test && ink.drawn > 0.02,
           "Evaluate classifies the run's %lld test samples and draws where it is right and wrong (%.1f %%)",
           (long long)test, 100 * ink.drawn);

    rf_data_view_show_sample(gtk_stack_get_child_by_name(rf_window_get_stack(win), "data"), RF_SPLIT_TEST, 0);
    g_autofree float *x = g_new0(float, (size_t)ds->seq_len * MAX(1, ds->feat_dim));
    int len = 0, label = 0;
    rf_status st = {0};
    ds->get(ds, RF_SPLIT_TEST, 0, x, &len, &label, &st);
    done = computed_in(win, "attribution", "attribution-compute", "attribution-status", "of test #0", &ink);
    int drawn = 0;
    const float *values = rf_attribution_view_values(gtk_stack_get_child_by_name(rf_window_get_stack(win),
                                                                                  "attribution"), &drawn);
    tap_ok(done && values != NULL && drawn == len && len > 0 && ink.drawn > 0.02,
           "Attribution explains the Data view's test #0, one value for each of its %d tokens (%d; %.1f %%)", len,
           drawn, 100 * ink.drawn);

    g_autofree char *projected = g_strdup_printf("of the first %lld validation samples at step %d",
                                                 (long long)MIN(val, RF_PROJECTION_DEFAULT_SAMPLES), STEPS);
    done = computed_in(win, "projector", "project", "projector-status", projected, &ink);
    tap_ok(done && ink.drawn > 0.02, "Projector's Compute places the run's first %lld validation samples (%.1f %%)",
           (long long)MIN(val, RF_PROJECTION_DEFAULT_SAMPLES), 100 * ink.drawn);
}

/* 4. Fashion-MNIST from the sidebar's Task, in patches of 7. */
static gboolean is_fashion(gpointer s)
{
    const rf_dataset *ds = rf_session_get_dataset(s);
    return ds != NULL && !rf_session_data_loading(s) && strcmp(ds->name, "fashion_mnist") == 0;
}

static gboolean switch_to_fashion(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    const rf_data_task *fashion = rf_data_task_find("fashion_mnist");
    if (fashion == NULL || !g_file_test(fashion->default_path, G_FILE_TEST_IS_DIR)) {
        tap_skip("Fashion-MNIST, its PNG inspected", "%s is not installed (Debian: dataset-fashion-mnist)",
                 fashion != NULL ? fashion->default_path : "Fashion-MNIST");
        return FALSE;
    }
    show_sidebar(win);
    GtkWidget *task = field(win, "data.task");
    gtk_drop_down_set_selected(GTK_DROP_DOWN(task), (guint)(fashion - rf_data_tasks));
    gboolean opened = spin_until(is_fashion, s, 120.0);
    tap_ok(opened && find_chooser() == NULL, "choosing Fashion-MNIST in the sidebar opens it from %s",
           fashion->default_path);
    GtkWidget *patch = field(win, "data.patch");
    if (patch != NULL)
        type_into(patch, "7");
    tap_ok(patch != NULL && gtk_widget_get_mapped(patch) && rf_session_get_config(s)->data.patch == 7,
           "the Patch field is shown for Fashion-MNIST and takes 7");
    GtkWidget *max_len = field(win, "data.max_len");
    tap_ok(max_len != NULL && !gtk_widget_get_mapped(max_len), "Max length, which images do not read, is not shown");
    return opened;
}

/* 5. A picture drawn by the test, inspected through the file chooser. */
static char *draw_picture(const char *dir)
{
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 28, 28);
    cairo_t *cr = cairo_create(img);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);   /* a trouser-like pair of legs */
    cairo_rectangle(cr, 8, 3, 5, 23);
    cairo_rectangle(cr, 15, 3, 5, 23);
    cairo_rectangle(cr, 8, 3, 12, 6);
    cairo_fill(cr);
    cairo_destroy(cr);
    char *path = g_build_filename(dir, "my-picture.png", NULL);
    cairo_surface_write_to_png(img, path);
    cairo_surface_destroy(img);
    return path;
}

/* `rangefinder predict`'s class and probabilities for `input`. */
static gboolean predict(const char *exe, const char *checkpoint, const char *input, char **klass, GArray *probs)
{
    const char *argv[] = {exe, "predict", "--checkpoint", checkpoint, input, NULL};
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL))
        return FALSE;
    const char *c = strstr(out, "\"class\":"), *p = strstr(out, "\"probabilities\":[");
    if (c == NULL || p == NULL)
        return FALSE;
    c = strchr(c + 8, '"');
    const char *end = c != NULL ? strchr(c + 1, '"') : NULL;
    if (end == NULL)
        return FALSE;
    *klass = g_strndup(c + 1, (gsize)(end - c - 1));
    for (const char *at = p + strlen("\"probabilities\":["); *at != ']' && *at != '\0';) {
        char *next = NULL;
        double v = g_ascii_strtod(at, &next);
        if (next == at)
            return FALSE;
        g_array_append_val(probs, v);
        at = *next == ',' ? next + 1 : next;
    }
    return probs->len > 0;
}

/* The numbers of the probability bars ("0.1234", one a class, in order). */
static GPtrArray *bar_values(GPtrArray *texts)
{
    GPtrArray *values = g_ptr_array_new();
    for (guint i = 0; i < texts->len; i++) {
        const char *t = g_ptr_array_index(texts, i);
        if (strlen(t) == 6 && g_ascii_isdigit(t[0]) && t[1] == '.' && strspn(t + 2, "0123456789") == 4)
            g_ptr_array_add(values, (gpointer)t);
    }
    return values;
}

static void check_inspected_picture(RfWindow *win, const char *dir, const char *exe, const char *run_dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *png = draw_picture(dir);
    g_action_group_activate_action(G_ACTION_GROUP(win), "inspect-file", NULL);
    gboolean asked = spin_until(chooser_open, NULL, 10.0);
    answer_chooser(png);
    wanted_name = "my-picture.png";
    gboolean added = asked && spin_until(watching_named, s, 30.0);
    wanted_tap = "logits";
    gboolean predicted = added && spin_until(probes_of_input, s, 30.0);
    show_page(win, "data");
    tap_ok(predicted && g_strcmp0(gtk_stack_get_visible_child_name(rf_window_get_stack(win)), "data") == 0,
           "Inspect File… takes the PNG from the chooser; the Data view shows it with the model's prediction "
           "(asked %d, listed %d, predicted %d; %d inspected)", asked, added, predicted,
           rf_session_get_inspected_count(s));
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    g_autoptr(GPtrArray) plots = g_ptr_array_new();
    collect(data, RF_TYPE_PLOT_VIEW, plots);
    RfPlotView *bars = plots->len == 2 ? g_ptr_array_index(plots, 1) : NULL;
    if (bars != NULL)
        spin_until(widget_shown, bars, 30.0);
    g_autoptr(GPtrArray) texts = bars != NULL && gtk_widget_get_visible(GTK_WIDGET(bars))
                                     ? figure_texts(bars)
                                     : g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) shown = bar_values(texts);
    g_autofree char *checkpoint = g_build_filename(run_dir, "checkpoint.safetensors", NULL);
    g_autofree char *klass = NULL;
    g_autoptr(GArray) probs = g_array_new(FALSE, FALSE, sizeof(double));
    gboolean ran = exe != NULL && predict(exe, checkpoint, png, &klass, probs);
    if (!tap_ok(ran, "`rangefinder predict --checkpoint %s` classifies the same PNG", checkpoint))
        return;
    g_autoptr(GString) differ = g_string_new(NULL);
    for (guint k = 0; k < probs->len; k++) {
        char want[16];
        g_snprintf(want, sizeof want, "%.4f", g_array_index(probs, double, k));
        const char *got = k < shown->len ? g_ptr_array_index(shown, k) : "none";
        if (strcmp(want, got) != 0)
            g_string_append_printf(differ, " class %u: %s shown, %s predicted;", k, got, want);
    }
    tap_ok(shown->len == probs->len && differ->len == 0,
           "the Data view's %u bars read predict's %u probabilities to the digit shown%s", shown->len, probs->len,
           differ->str);
    g_autofree char *named = g_strdup_printf(": %s", klass);
    tap_ok(texts->len > 0 && strstr(g_ptr_array_index(texts, 0), named) != NULL,
           "and its title names predict's class, %s (\"%s\")", klass,
           texts->len > 0 ? (const char *)g_ptr_array_index(texts, 0) : "none");
    rf_session_watch_inspected(s, NULL);
}

/* 6. Export Plot… on the Training view, to each format. */
static gboolean svg_parses(const char *svg, GError **error)
{
    static const GMarkupParser nothing = {0};
    GMarkupParseContext *ctx = g_markup_parse_context_new(&nothing, G_MARKUP_TREAT_CDATA_AS_TEXT, NULL, NULL);
    gboolean ok = g_markup_parse_context_parse(ctx, svg, -1, error) && g_markup_parse_context_end_parse(ctx, error);
    g_markup_parse_context_free(ctx);
    return ok;
}

static void check_exports(RfWindow *win, const char *dir)
{
    show_page(win, "training");
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "training");
    g_autoptr(GPtrArray) widgets = g_ptr_array_new_with_free_func(g_free);
    widget_texts(view, widgets);
    static const char *const formats[] = {"png", "svg", "pdf"};
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        g_autofree char *name = g_strdup_printf("training.%s", formats[i]);
        g_autofree char *path = g_build_filename(dir, name, NULL);
        gboolean ok = rf_window_export_plot_or_explain(win, NULL, path, 800, 500);
        g_autofree char *bytes = NULL;
        gsize len = 0;
        ok = ok && g_file_get_contents(path, &bytes, &len, NULL);
        tap_ok(ok && len > 1000,
               "Export Plot… writes the Training figure to %s (%zu bytes)", name, (size_t)len);
        if (bytes == NULL)
            continue;
        if (i == 0) {
            int w = 0, h = 0;
            GdkPixbufFormat *format = gdk_pixbuf_get_file_info(path, &w, &h);
            tap_ok(memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0 && format != NULL && w == 800 && h == 500,
                   "the PNG is a PNG of 800 x 500 (%d x %d)", w, h);
        } else if (i == 1) {
            g_autoptr(GError) error = NULL;
            g_autoptr(GPtrArray) texts = svg_texts(bytes);
            tap_ok(svg_parses(bytes, &error) && strstr(bytes, "<svg") != NULL && texts->len > 5 &&
                       has_text(texts, "Loss") && strstr(bytes, "glyph") == NULL,
                   "the SVG parses, its %u labels are <text> elements (%s)", texts->len,
                   error != NULL ? error->message : "no error");
            g_autoptr(GString) leaked = g_string_new(NULL);
            for (guint k = 0; k < texts->len; k++)
                for (guint m = 0; m < widgets->len; m++)
                    if (strcmp(g_ptr_array_index(texts, k), g_ptr_array_index(widgets, m)) == 0)
                        g_string_append_printf(leaked, " \"%s\"", (const char *)g_ptr_array_index(texts, k));
            for (guint k = 0; k < texts->len; k++)
                if (strcmp(g_ptr_array_index(texts, k), "log") == 0)
                    g_string_append(leaked, " \"log\"");
            tap_ok(widgets->len > 0 && leaked->len == 0,
                   "none of its text is a widget's (the view's %u labels, the log toggles)%s", widgets->len,
                   leaked->str);
        } else {
            tap_ok(g_str_has_prefix(bytes, "%PDF-") && len > 16 && memmem(bytes + len - 16, 16, "%%EOF", 5) != NULL,
                   "the PDF starts with %%PDF- and is complete (%%%%EOF)");
        }
    }
}

/* 7. */
static gboolean is_null(gpointer p)
{
    return *(gpointer *)p == NULL;
}

static GtkWindow *open_dialog(RfWindow *win)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (w != GTK_WINDOW(win) && gtk_widget_get_visible(GTK_WIDGET(w)))
            return w;
    }
    return NULL;
}

/* The button of `dialog` that reads `label` (mnemonic included). */
static GtkWidget *find_button(GtkWidget *root, const char *label)
{
    if (GTK_IS_BUTTON(root) && g_strcmp0(gtk_button_get_label(GTK_BUTTON(root)), label) == 0)
        return root;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_button(c, label);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static gboolean some_steps_run(gpointer s)
{
    return rf_session_get_state(s) == RF_RUN_RUNNING && rf_session_get_step(s) >= 1;
}

static gboolean run_paused(gpointer s)
{
    return rf_session_get_state(s) == RF_RUN_PAUSED;
}

static gboolean dialog_open(gpointer win)
{
    return open_dialog(win) != NULL;
}

/* A third run started and paused, then Ctrl+Q: the window asks whether to
 * save a checkpoint; Close Without Saving closes it and, as the dialog
 * says, writes no checkpoint. Returns the paused run's folder. */
static char *quit_without_saving(RfApplication *app, RfWindow *win, const char *runs, const char *const *known)
{
    RfSession *s = rf_window_get_session(win);
    g_signal_emit_by_name(find_actionable(GTK_WIDGET(win), "win.train"), "clicked");
    gboolean started = spin_until(some_steps_run, s, 60.0);
    GtkWidget *pause = find_actionable(GTK_WIDGET(win), "win.pause");
    if (started && pause != NULL)
        g_signal_emit_by_name(pause, "clicked");
    gboolean paused = started && spin_until(run_paused, s, 30.0);
    char *folder = new_run_folder(runs, known);
    tap_ok(paused && folder != NULL, "a third run starts and the Pause button pauses it at step %lld (%s)",
           (long long)rf_session_get_step(s), folder != NULL ? folder : "no folder");

    g_auto(GStrv) accels = gtk_application_get_accels_for_action(GTK_APPLICATION(app), "app.quit");
    tap_ok(accels[0] != NULL && strcmp(accels[0], "<Control>q") == 0, "Ctrl+Q is Quit's key (%s)",
           accels[0] != NULL ? accels[0] : "none");
    gpointer alive = win;
    g_object_add_weak_pointer(G_OBJECT(win), &alive);
    g_action_group_activate_action(G_ACTION_GROUP(app), "quit", NULL);
    GtkWindow *question = spin_until(dialog_open, win, 10.0) ? open_dialog(win) : NULL;
    GtkWidget *discard = question != NULL ? find_button(GTK_WIDGET(question), "Close _Without Saving") : NULL;
    g_autofree char *says = NULL;
    if (question != NULL && GTK_IS_MESSAGE_DIALOG(question))
        g_object_get(question, "secondary-text", &says, NULL);
    tap_ok(alive != NULL && discard != NULL && says != NULL && strstr(says, "lost") != NULL,
           "Quit with a paused run keeps the window and asks first (\"%s\")", says != NULL ? says : "no question");
    if (discard != NULL)
        g_signal_emit_by_name(discard, "clicked");
    tap_ok(spin_until(is_null, &alive, 30.0) && gtk_application_get_windows(GTK_APPLICATION(app)) == NULL,
           "Close Without Saving closes the window and leaves none open");
    if (alive != NULL)
        g_object_remove_weak_pointer(G_OBJECT(alive), &alive);
    g_autofree char *checkpoint = folder != NULL ? g_build_filename(runs, folder, "checkpoint.safetensors", NULL)
                                                 : NULL;
    tap_ok(checkpoint != NULL && !g_file_test(checkpoint, G_FILE_TEST_EXISTS),
           "and, as the dialog says, no checkpoint of the paused run is written");
    g_object_unref(app);
    return folder;
}

/* 8. */
static int row_of(GtkColumnView *list, const char *folder)
{
    GListModel *rows = G_LIST_MODEL(gtk_column_view_get_model(list));
    for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(RfRunRow) row = g_list_model_get_item(rows, i);
        if (strcmp(rf_run_row_get_entry(row)->folder, folder) == 0)
            return (int)i;
    }
    return -1;
}

/* The checkpoint of a run at its end: loaded, and the run finished. */
static gboolean run_opened(gpointer s)
{
    return rf_session_get_state(s) == RF_RUN_FINISHED && rf_session_get_step(s) == STEPS &&
           rf_session_get_current_run(s) != NULL;
}

static void check_relaunch(const char *runs, const char *listops, const char *fashion, const char *discarded)
{
    RfApplication *app = NULL;
    RfWindow *win = launch(runs, &app, "relaunched");
    if (win == NULL)
        return;
    RfSession *s = rf_window_get_session(win);
    show_page(win, "runs");
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "runs");
    GtkColumnView *list = view != NULL ? GTK_COLUMN_VIEW(find_named(view, "runs-list")) : NULL;
    guint n = list != NULL ? g_list_model_get_n_items(G_LIST_MODEL(gtk_column_view_get_model(list))) : 0;
    int i = list != NULL ? row_of(list, listops) : -1;
    guint expected = 1 + (fashion != NULL) + (discarded != NULL);
    tap_ok(i >= 0 && (fashion == NULL || row_of(list, fashion) >= 0) && n == expected,
           "the Runs view lists the runs of the runs folder (%u rows)", n);
    if (i < 0)
        return;
    int d = discarded != NULL ? row_of(list, discarded) : -1;
    g_autoptr(RfRunRow) closed = d >= 0 ? g_list_model_get_item(G_LIST_MODEL(gtk_column_view_get_model(list)),
                                                                (guint)d)
                                        : NULL;
    rf_run_status st = closed != NULL ? rf_run_row_get_entry(closed)->status : RF_RUN_STATUS_RUNNING;
    g_autofree char *lock = discarded != NULL ? g_build_filename(runs, discarded, ".lock", NULL) : NULL;
    g_autofree char *holder = NULL;
    if (lock == NULL || !g_file_get_contents(lock, &holder, NULL, NULL))
        holder = g_strdup("no lock file");
    g_strdelimit(holder, "\n", ' ');
    tap_ok(closed != NULL && st != RF_RUN_STATUS_RUNNING,
           "the run closed without saving is not listed as running: nothing trains it (%s; its lock: \"%s\")",
           closed != NULL ? rf_run_status_name(st) : "not listed", holder);
    g_autoptr(RfRunRow) row = g_list_model_get_item(G_LIST_MODEL(gtk_column_view_get_model(list)), (guint)i);
    const rf_run_entry *e = rf_run_row_get_entry(row);
    g_autofree char *csv = g_build_filename(runs, listops, "metrics.csv", NULL);
    last_rows rows;
    int train_rows = 0;
    read_last_rows(csv, &rows, &train_rows);
    g_autofree char *test = g_strdup_printf("%.1f %%", 100 * rows.accuracy[2]);
    g_autofree char *name = rf_run_entry_cell(e, "name"), *shown_test = rf_run_entry_cell(e, "test");
    tap_ok(strcmp(name, listops) == 0 && label_shows(GTK_WIDGET(list), name),
           "the first run's row shows its name, %s", name);
    tap_ok(e->status == RF_RUN_STATUS_FINISHED && strcmp(shown_test, test) == 0 && label_shows(GTK_WIDGET(list), test),
           "and its test accuracy as the status line gave it, %s (the row: \"%s\")", test, shown_test);

    g_signal_emit_by_name(list, "activate", (guint)i);
    gboolean opened = spin_until(run_opened, s, 60.0);
    GtkWidget *training = gtk_stack_get_child_by_name(rf_window_get_stack(win), "training");
    spin_until(laid_out, training, 30.0);
    spin_for(0.5);
    tap_ok(opened && g_strcmp0(gtk_stack_get_visible_child_name(rf_window_get_stack(win)), "training") == 0,
           "double-clicking it opens its checkpoint at step %d in the Training view", STEPS);
    const char *status = rf_window_get_status_text(win);
    g_autofree char *want = read_outs_of(&rows);
    tap_ok(g_str_has_prefix(status, want) && strstr(status, "finished") != NULL,
           "the status line reads the opened run's recorded rows, finished (\"%s\")", status);
    g_autofree char *counter = g_strdup_printf("step %d / %d", STEPS, STEPS);
    tap_ok(strstr(rf_window_get_step_text(win), counter) != NULL, "the step counter reads \"%s\" (\"%s\")", counter,
           rf_window_get_step_text(win));
    RfPlotView *plot = rf_view_get_plot(training);
    const rf_training_figure *fig = g_object_get_data(G_OBJECT(plot), "rf-training-figure");
    const rf_run_data *run = rf_session_get_current_run(s);
    Ink ink = ink_of(training);
    tap_ok(run != NULL && run->rows->len >= 4 && rf_training_figure_get_run_count(fig) >= 1 && ink.drawn > 0.02,
           "the Training view draws its recorded curves (%u rows, %.1f %% of the pixels)",
           run != NULL ? run->rows->len : 0, 100 * ink.drawn);
    close_workbench(win, app);
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    const char *exe = argc > 1 ? argv[1] : NULL;
    g_autofree char *dir = g_dir_make_tmp("rf-walkthrough-XXXXXX", NULL);
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    g_autofree char *home = g_build_filename(dir, "data", NULL);
    g_setenv("XDG_DATA_HOME", home, TRUE);   /* the chooser's recent files go there, not to the user's */
    /* as `rangefinder gui` starts (app/main.c, ui/workbench.c) */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    if (!tap_ok(rf_workbench_open_display(), "GTK opens the display"))
        return tap_done();
    g_set_application_name("Rangefinder");
    g_set_prgname("rangefinder");   /* g_application_run's doing, which the test does not call */

    RfApplication *app = NULL;
    RfWindow *win = launch(runs, &app, "launched");
    if (win == NULL)
        return tap_done();
    check_window_fits(win);
    g_autofree char *listops = NULL, *fashion = NULL;
    if (train_through_the_window(win, "ListOps")) {
        listops = new_run_folder(runs, NULL);
        tap_ok(listops != NULL && g_str_has_suffix(listops, "-listops-full"), "the run has its folder in %s (%s)",
               runs, listops != NULL ? listops : "none");
        if (listops != NULL)
            check_read_outs(win, runs, listops, "ListOps");
        check_every_view(win);
        check_why_views(win);
    }
    if (switch_to_fashion(win) && train_through_the_window(win, "Fashion-MNIST")) {
        fashion = new_run_folder(runs, (const char *const[]){listops, NULL});
        g_autofree char *run_dir = fashion != NULL ? g_build_filename(runs, fashion, NULL) : NULL;
        tap_ok(fashion != NULL && g_str_has_suffix(fashion, "-fashion_mnist-full"), "it has its own folder (%s)",
               fashion != NULL ? fashion : "none");
        if (fashion != NULL) {
            check_read_outs(win, runs, fashion, "Fashion-MNIST");
            check_inspected_picture(win, dir, exe, run_dir);
        }
    }
    check_exports(win, dir);
    g_autofree char *discarded = quit_without_saving(app, win, runs, (const char *const[]){listops, fashion, NULL});
    if (listops != NULL)
        check_relaunch(runs, listops, fashion, discarded);
    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
    tap_ok(system(rm) == 0, "the test folder is removed");
    return tap_done();
}
