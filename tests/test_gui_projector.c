/* The Projector view of the real application under Xvfb, against the
 * command line: Compute before any model says there is none; the "what"
 * menu is off for a model without BLRP's latent and the step slider off
 * (no run, so no kept weights), each saying why; a tiny ListOps run
 * (tests/trained_view.h) is trained to its end, its model saved and projected by `rangefinder
 * project --out --tensorboard --json`, and the view's Compute gives the
 * same validation samples:
 *   - the points' places are one linear map of the CLI's (PC1, PC2), PC1
 *     rightwards and PC2 upwards, and the axis titles carry its shares;
 *   - an isolated point is painted at its place in its label's colour;
 *   - hover over it names the sample, its label and answer, and its text;
 *   - "Correctness" recolours it as right or wrong, as the CLI says;
 *   - Export for TensorBoard… writes the CLI's metadata.tsv and as many
 *     vectors as it;
 *   - the step slider's positions are the run's kept steps (4 and 8) and
 *     the current model; moved to step 4 it draws `rangefinder project
 *     --step 4`'s points, not the last step's, and the title names step 4;
 *   - a click on the point brings the Data view forward on the validation
 *     split with that sample selected;
 *   - the run resumed, the steps it keeps join the slider as it trains, and
 *     a kept step is projected while it trains (the current model is
 *     refused until it pauses).
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: also writes
 * screenshot-projector.png (1600 x 1000, for docs/) and the window at
 * 1024 x 600 and 1920 x 1080. */
#include <math.h>
#include <string.h>

#include "../ui/figures/projector_figure.h"
#include "../ui/view.h"
#include "figure_pixels.h"
#include "figure_text.h"
#include "file_chooser.h"
#include "trained_view.h"

#define VAL TRAINED_VIEW_VAL
typedef struct cli_point {
    int label, predicted;
    double pc1, pc2;
} cli_point;

/* `rangefinder project`'s rows (index,label,prediction,correct,length,pc1,pc2)
 * and its JSON line's explained shares. */
static GArray *cli_project(const char *rangefinder, const char *checkpoint, const char *step, const char *dir,
                           double explained[2])
{
    GArray *points = g_array_new(FALSE, FALSE, sizeof(cli_point));
    g_autofree char *csv_path = g_build_filename(dir, "cli-points.csv", NULL);
    g_autofree char *tb = g_build_filename(dir, "cli-tensorboard", NULL);
    const char *argv[] = {rangefinder, "project", "--checkpoint", checkpoint, "--out", csv_path,
                          "--tensorboard", tb, "--json", step != NULL ? "--step" : NULL, step, NULL};
    g_autofree char *out = NULL, *err = NULL, *csv = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL) || !g_file_get_contents(csv_path, &csv, NULL, NULL)) {
        tap_diag("project failed: %s", err != NULL ? err : "");
        return points;
    }
    const char *at = strstr(out, "\"explained\":[");
    if (at != NULL && sscanf(at, "\"explained\":[%lf,%lf", &explained[0], &explained[1]) != 2)
        tap_diag("no explained shares in %s", out);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    for (int i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        long long index;
        int correct, length;
        cli_point p;
        if (sscanf(lines[i], "%lld,%d,%d,%d,%d,%lf,%lf", &index, &p.label, &p.predicted, &correct, &length, &p.pc1,
                   &p.pc2) == 7 && index == points->len)
            g_array_append_val(points, p);
    }
    return points;
}

static gboolean projected(gpointer fig)
{
    const rf_figure f = rf_projector_figure_get(fig);
    char why[256];
    return !f.empty(f.data, why, sizeof why);
}



static void places(rf_projector_figure *fig, RfPlotView *plot, int n, double *x, double *y)
{
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    for (int i = 0; i < n; i++)
        if (!rf_projector_figure_point_centre(fig, w, h, &zoom, i, &x[i], &y[i]))
            x[i] = y[i] = NAN;
}

/* The places are px = a + b pc1, py = c + d pc2 with b > 0 > d. */
static bool places_match(const GArray *cli, const double *x, const double *y)
{
    const cli_point *p = (const cli_point *)(const void *)cli->data;
    int n = (int)cli->len, lo = 0, hi = 0, bottom = 0, top = 0;
    for (int i = 1; i < n; i++) {
        lo = p[i].pc1 < p[lo].pc1 ? i : lo;
        hi = p[i].pc1 > p[hi].pc1 ? i : hi;
        bottom = p[i].pc2 < p[bottom].pc2 ? i : bottom;
        top = p[i].pc2 > p[top].pc2 ? i : top;
    }
    double b = (x[hi] - x[lo]) / (p[hi].pc1 - p[lo].pc1), d = (y[top] - y[bottom]) / (p[top].pc2 - p[bottom].pc2);
    if (!(b > 0 && d < 0)) {
        tap_diag("the places do not grow with the coordinates: %.3g px per unit across, %.3g up", b, d);
        return false;
    }
    for (int i = 0; i < n; i++) {
        double want_x = x[lo] + b * (p[i].pc1 - p[lo].pc1), want_y = y[bottom] + d * (p[i].pc2 - p[bottom].pc2);
        if (!(fabs(x[i] - want_x) < 0.5 && fabs(y[i] - want_y) < 0.5)) {
            tap_diag("sample %d (%.5g, %.5g) drawn at (%.1f, %.1f), wanted (%.1f, %.1f)", i, p[i].pc1, p[i].pc2, x[i],
                     y[i], want_x, want_y);
            return false;
        }
    }
    return true;
}

/* A sample with no other point within 8 px, so that what lies there is its
 * alone (-1: none). */
static int isolated(int n, const double *x, const double *y)
{
    for (int i = 0; i < n; i++) {
        bool alone = true;
        for (int j = 0; j < n && alone; j++)
            alone = j == i || hypot(x[i] - x[j], y[i] - y[j]) > 8;
        if (alone)
            return i;
    }
    return -1;
}

/* The pixel at (x, y) of the drawn plot is colour c at the points' 60%
 * over white. */
static bool painted_as(RfPlotView *plot, double x, double y, rf_rgb c)
{
    cairo_surface_t *s = draw_plot(plot);
    int r, g, b;
    pixel(s, (int)x, (int)y, &r, &g, &b);
    cairo_surface_destroy(s);
    double want[3] = {255 * (0.6 * c.r + 0.4), 255 * (0.6 * c.g + 0.4), 255 * (0.6 * c.b + 0.4)};
    bool ok = fabs(r - want[0]) < 12 && fabs(g - want[1]) < 12 && fabs(b - want[2]) < 12;
    if (!ok)
        tap_diag("at (%.0f, %.0f): %d %d %d, wanted %.0f %.0f %.0f", x, y, r, g, b, want[0], want[1], want[2]);
    return ok;
}


static gboolean title_names(gpointer step)
{
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(g_object_get_data(step, "win")), "projector");
    g_autoptr(GPtrArray) texts = figure_texts(rf_view_get_plot(page));
    return has_text(texts, g_object_get_data(step, "words"));
}

/* The run trained 8 steps, evaluated at 4 and 8, so it kept those: the
 * slider's positions are 4, 8 and the current model; moved to step 4 it
 * draws the points `rangefinder project --step 4` gives, and the title
 * names the step. */
static void check_step_slider(RfWindow *win, const char *rangefinder, const char *dir, const GArray *last)
{
    RfSession *s = rf_window_get_session(win);
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "projector");
    RfPlotView *plot = rf_view_get_plot(page);
    rf_projector_figure *fig = rf_plot_view_get_figure(plot)->data;
    GtkWidget *steps = find_named(page, "projector-steps");
    GtkAdjustment *adj = gtk_range_get_adjustment(GTK_RANGE(steps));
    tap_ok(gtk_widget_get_sensitive(steps) && gtk_adjustment_get_lower(adj) == 0 &&
               gtk_adjustment_get_upper(adj) == 2 && gtk_range_get_value(GTK_RANGE(steps)) == 2 &&
               strcmp(gtk_label_get_text(GTK_LABEL(find_named(page, "projector-step"))), "now") == 0,
           "the step slider is on, with three positions (steps 4 and 8, then the current model), at \"now\"");
    rf_run_data *run = rf_session_get_current_run(s);
    g_autofree char *ckpt = g_build_filename(run->dir, "checkpoint.safetensors", NULL);
    double explained[2] = {-1, -1};
    g_autoptr(GArray) cli = cli_project(rangefinder, ckpt, "4", dir, explained);
    if (!tap_ok(cli->len == VAL, "rangefinder project --step 4 gives the %d validation samples (%u)", VAL, cli->len))
        return;

    gtk_range_set_value(GTK_RANGE(steps), 0);
    g_autoptr(GObject) wanted = g_object_new(G_TYPE_OBJECT, NULL);
    g_object_set_data(wanted, "win", win);
    g_object_set_data(wanted, "words", (gpointer) "at step 4 ");
    bool titled = spin_until(title_names, wanted, 60.0);
    tap_ok(titled && strcmp(gtk_label_get_text(GTK_LABEL(find_named(page, "projector-step"))), "4") == 0,
           "moved to its first position, the slider says step 4 and the figure's title names step 4");
    spin_for(0.5);
    double x[VAL], y[VAL];
    places(fig, plot, VAL, x, y);
    tap_ok(places_match(cli, x, y), "the %d points drawn are `rangefinder project --step 4`'s (PC1, PC2)", VAL);
    tap_diag("against the last step's projection (expected to differ):");
    tap_ok(!places_match(last, x, y), "and they are not the last step's");
}

static gboolean run_running(gpointer s)
{
    return rf_session_get_state(s) == RF_RUN_RUNNING;
}

static gboolean more_steps_kept(gpointer steps)
{
    return gtk_adjustment_get_upper(gtk_range_get_adjustment(steps)) > 2;
}

static gboolean status_names_step_4(gpointer status)
{
    return strstr(gtk_label_get_text(status), "at step 4 ") != NULL;
}

/* The run goes on (train.steps raised): the steps it keeps join the
 * slider as they are written, the slider stays at step 4, the current
 * model is refused while the run trains, and a kept step is projected all
 * the same. */
static void check_slider_while_training(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    show_page(win, "projector");
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "projector");
    GtkWidget *steps = find_named(page, "projector-steps"), *status = find_named(page, "projector-status");
    GtkWidget *step = find_named(page, "projector-step");
    g_autoptr(GError) error = NULL;
    rf_session_set_key(s, "train.steps", "100000", NULL, NULL);
    if (!tap_ok(rf_session_resume(s, &error) && spin_until(run_running, s, 10.0), "the run goes on to step 100,000"))
        return;
    gboolean joined = spin_until(more_steps_kept, steps, 30.0) && rf_session_get_state(s) == RF_RUN_RUNNING;
    double positions = gtk_adjustment_get_upper(gtk_range_get_adjustment(GTK_RANGE(steps))) + 1;
    tap_ok(joined && strcmp(gtk_label_get_text(GTK_LABEL(step)), "4") == 0,
           "while it trains, the steps it keeps join the slider, which stays at step 4 (%.0f positions)", positions);
    gtk_range_set_value(GTK_RANGE(steps), gtk_adjustment_get_upper(gtk_range_get_adjustment(GTK_RANGE(steps))));
    const char *said = gtk_label_get_text(GTK_LABEL(status));
    tap_ok(strcmp(gtk_label_get_text(GTK_LABEL(step)), "now") == 0 && strstr(said, "Pause the run") != NULL,
           "at \"now\" while it trains, the current model is refused: %s", said);
    gtk_range_set_value(GTK_RANGE(steps), 0);
    said = gtk_label_get_text(GTK_LABEL(status));
    tap_ok(strcmp(said, "Computing…") == 0, "back at step 4 while it trains, the projection starts: %s", said);
    gboolean done = spin_until(status_names_step_4, status, 60.0) && rf_session_get_state(s) == RF_RUN_RUNNING;
    tap_ok(done, "and ends while the run trains on, naming step 4: %s", gtk_label_get_text(GTK_LABEL(status)));
    rf_session_stop(s);
}

static void check_projector(RfWindow *win, const char *rangefinder, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *ckpt = save_model_for_cli(win, dir);
    double explained[2] = {-1, -1};
    g_autoptr(GArray) cli = cli_project(rangefinder, ckpt, NULL, dir, explained);
    if (!tap_ok(cli->len == VAL, "rangefinder project gives the %d validation samples (%u)", VAL, cli->len))
        return;
    const cli_point *p = (const cli_point *)(const void *)cli->data;

    show_page(win, "projector");
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "projector");
    RfPlotView *plot = rf_view_get_plot(page);
    rf_projector_figure *fig = rf_plot_view_get_figure(plot)->data;
    g_signal_emit_by_name(find_named(page, "project"), "clicked");
    if (!tap_ok(spin_until(projected, fig, 60.0), "Compute fills the figure"))
        return;
    spin_for(0.5);

    double x[VAL], y[VAL];
    places(fig, plot, VAL, x, y);
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    double past_x, past_y;
    tap_ok(!rf_projector_figure_point_centre(fig, w, h, &RF_ZOOM_ALL, VAL, &past_x, &past_y) &&
               places_match(cli, x, y),
           "the view's %d points are the CLI's (PC1, PC2), PC1 rightwards and PC2 upwards", VAL);
    g_autoptr(GPtrArray) texts = figure_texts(plot);
    g_autofree char *pc1 = g_strdup_printf("PC1 (%.1f%%)", 100 * explained[0]);
    g_autofree char *pc2 = g_strdup_printf("PC2 (%.1f%%)", 100 * explained[1]);
    tap_ok(has_text(texts, pc1) && has_text(texts, pc2), "the axis titles carry the CLI's shares: %s, %s", pc1, pc2);

    int k = isolated(VAL, x, y);
    if (!tap_ok(k >= 0, "a point stands apart from the others (#%d)", k))
        return;
    rf_rgb colour;
    rf_projector_figure_point_colour(fig, k, &colour);
    rf_rgb of_label = rf_series_color(p[k].label);
    tap_ok(rf_projector_figure_colouring(fig) == RF_PROJECTOR_BY_LABEL && colour.r == of_label.r &&
               colour.g == of_label.g && colour.b == of_label.b && painted_as(plot, x[k], y[k], colour),
           "sample #%d is painted at its place in the colour of its label %d", k, p[k].label);

    const rf_figure *f = rf_plot_view_get_figure(plot);
    char text[512] = "";
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    bool hit = f->hover(f->data, w, h, &zoom, x[k] + 1, y[k] + 1, text, sizeof text);
    g_autofree char *names = g_strdup_printf("sample %d: label %d, answered %d: ", k, p[k].label, p[k].predicted);
    const rf_dataset *ds = rf_session_get_dataset(s);
    char described[256] = "";
    ds->describe(ds, RF_SPLIT_VAL, k, described, sizeof described);
    tap_ok(hit && g_str_has_prefix(text, names) && described[0] != '\0' && strstr(text, described) != NULL,
           "hover over it names the sample, its label, its answer and its text: %s", text);

    gtk_drop_down_set_selected(GTK_DROP_DOWN(find_named(page, "projector-colour")), 2);
    spin_for(0.3);
    rf_rgb right, wrong;
    int other = -1;   /* a sample answered the other way than k */
    for (int i = 0; i < VAL && other < 0; i++)
        other = (p[i].label == p[i].predicted) != (p[k].label == p[k].predicted) ? i : -1;
    rf_projector_figure_point_colour(fig, p[k].label == p[k].predicted ? k : other, &right);
    rf_projector_figure_point_colour(fig, p[k].label == p[k].predicted ? other : k, &wrong);
    rf_projector_figure_point_colour(fig, k, &colour);
    tap_ok(other >= 0 && rf_projector_figure_colouring(fig) == RF_PROJECTOR_BY_CORRECTNESS &&
               (right.r != wrong.r || right.g != wrong.g || right.b != wrong.b) &&
               painted_as(plot, x[k], y[k], colour),
           "Colour by Correctness repaints #%d as %s (label %d, answered %d)", k,
           p[k].label == p[k].predicted ? "right" : "wrong", p[k].label, p[k].predicted);

    /* Export for TensorBoard… into a new folder */
    g_autofree char *tb = g_build_filename(dir, "view-tensorboard", NULL);
    g_mkdir_with_parents(tb, 0700);
    g_signal_emit_by_name(find_named(page, "projector-export-tensorboard"), "clicked");
    if (spin_until(chooser_open, NULL, 5.0)) {
        spin_for(0.5);
        answer_chooser(tb);
    }
    g_autofree char *meta_path = g_build_filename(tb, "metadata.tsv", NULL);
    g_autofree char *tensors_path = g_build_filename(tb, "tensors.tsv", NULL);
    g_autofree char *config_path = g_build_filename(tb, "projector_config.pbtxt", NULL);
    spin_until(file_written, config_path, 10.0);
    g_autofree char *cli_meta_path = g_build_filename(dir, "cli-tensorboard", "metadata.tsv", NULL);
    g_autofree char *meta = NULL, *cli_meta = NULL, *tensors = NULL;
    g_file_get_contents(meta_path, &meta, NULL, NULL);
    g_file_get_contents(cli_meta_path, &cli_meta, NULL, NULL);
    g_file_get_contents(tensors_path, &tensors, NULL, NULL);
    int rows = 0;
    for (const char *c = tensors; c != NULL && *c != '\0'; c++)
        rows += *c == '\n';
    tap_ok(meta != NULL && cli_meta != NULL && strcmp(meta, cli_meta) == 0 && rows == VAL &&
               g_file_test(config_path, G_FILE_TEST_IS_REGULAR),
           "Export for TensorBoard… writes the CLI's metadata.tsv, %d vectors and projector_config.pbtxt", rows);

    gtk_drop_down_set_selected(GTK_DROP_DOWN(find_named(page, "projector-colour")), 0);
    check_step_slider(win, rangefinder, dir, cli);
    view_screenshots(win, "projector");
    show_page(win, "projector");
    places(fig, plot, VAL, x, y);
    k = isolated(VAL, x, y);
    if (tap_ok(k >= 0, "a point to open")) {
        rf_plot_view_click(plot, x[k], y[k]);
        check_data_view_shows(win, "a click on a point", RF_SPLIT_VAL, k);
    }
    check_slider_while_training(win);
}

static void before_any_model(RfWindow *win)
{
    const char *said = click_without_model(win, "projector", "project", "projector-status");
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "projector");
    tap_ok(strstr(said, "no model yet") != NULL && !projected(rf_plot_view_get_figure(rf_view_get_plot(page))->data),
           "Compute before any model says so and draws nothing: %s", said);
    GtkWidget *what = find_named(page, "projector-what"), *steps = find_named(page, "projector-steps");
    const char *what_tip = gtk_widget_get_tooltip_text(what), *steps_tip = gtk_widget_get_tooltip_text(steps);
    tap_ok(!gtk_widget_get_sensitive(what) && what_tip != NULL && strstr(what_tip, "blrp") != NULL,
           "for a full-attention model the latent cannot be chosen, and its tooltip says why: %s", what_tip);
    tap_ok(!gtk_widget_get_sensitive(steps) && steps_tip != NULL && strstr(steps_tip, "keeps no weights") != NULL,
           "before any run the step slider is off, and says there are no kept weights: %s", steps_tip);
}

int main(int argc, char **argv)
{
    return trained_view_main(argc, argv, "the Projector view against the CLI", before_any_model, check_projector);
}
