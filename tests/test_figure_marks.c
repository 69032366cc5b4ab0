/* What the Training figure marks and how it leaves the window, headless:
 * each run in its own colour whatever else is drawn, the run folder's
 * colour kept for its life; baselines drawn only under the runs of their
 * data; validation rows darker than the train rows, over them, a single
 * evaluation visible, labels off the data; exports of the figure alone (no
 * "log" buttons), their SVG text as <text>, an empty figure refused. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../config/run_folder.h"
#include "../ui/figures/memory_figure.h"
#include "../ui/figures/training_figure.h"
#include "../ui/figures/training_figure_private.h"
#include "../ui/plot/plot.h"
#include "../ui/runs_table.h"
#include "figure_pixels.h"
#include "tap.h"

#define W 900
#define H 600

/* A run of `steps` train rows whose accuracy is `acc(step)`, validation
 * every `every` steps (0: none) on the same curve. */
typedef double (*curve)(int step);

static rf_run_data *run_of(const char *task, int steps, int every, curve acc)
{
    rf_run_data *r = rf_run_data_new(task, NULL);
    g_strlcpy(r->cfg.data.task, task, sizeof r->cfg.data.task);
    for (int i = 1; i <= steps; i++) {
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = 2.0 - acc(i), .accuracy = acc(i), .lr = 1e-3,
                        .seconds = 0.05 * i, .step_seconds = 0.05};
        rf_run_data_append(r, &m);
        if (every > 0 && i % every == 0) {
            m.split = RF_SPLIT_VAL;
            rf_run_data_append(r, &m);
        }
    }
    return r;
}

static double rising(int step) { return 0.2 + 0.5 * (1 - exp(-step / 150.0)); }
static double flat(int step) { (void)step; return 0.5; }

static bool near_colour(cairo_surface_t *s, int x, int y, rf_rgb c, double tolerance)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    return fabs(r / 255.0 - c.r) < tolerance && fabs(g / 255.0 - c.g) < tolerance && fabs(b / 255.0 - c.b) < tolerance;
}

/* Pixels of colour c in [x0, x1) x [y0, y1). */
static int count_in(cairo_surface_t *s, rf_rgb c, int x0, int x1, int y0, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            n += near_colour(s, x, y, c, 0.02);
    return n;
}

static int count_all(cairo_surface_t *s, rf_rgb c)
{
    return count_in(s, c, 0, W, 0, H);
}

/* Validation rows are the run's hue darkened (docs/plots.md). */
static rf_rgb val_colour(rf_rgb c)
{
    return (rf_rgb){0.55 * c.r, 0.55 * c.g, 0.55 * c.b};
}

/* ---- colours ---- */

static void test_run_colours(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *a = run_of("listops", 300, 0, rising), *b = run_of("listops", 300, 0, flat);
    a->color = 5;
    b->color = 2;
    rf_run_data *both[2] = {a, b};
    rf_training_figure_set_runs(tf, both, 2);
    cairo_surface_t *s = render_figure(&f, W, H);
    int b_own = count_all(s, rf_series_color(2)), b_second = count_all(s, rf_series_color(1));
    cairo_surface_destroy(s);
    rf_training_figure_set_runs(tf, &b, 1);
    s = render_figure(&f, W, H);
    int b_alone = count_all(s, rf_series_color(2)), b_first = count_all(s, rf_series_color(0));
    cairo_surface_destroy(s);
    tap_ok(b_own > 200 && b_alone > 200 && b_second == 0 && b_first == 0,
           "a run is drawn in its own colour beside another run and alone (%d, %d px), not by its place (%d, %d)",
           b_own, b_alone, b_second, b_first);
    rf_run_data_free(a);
    rf_run_data_free(b);
}

/* A run folder's colour: given when it is made (the one fewest others
 * have), kept by a rename, read back by the figures' loader; a folder made
 * without one gets the same colour from its name at every read. */
static void test_folder_colours(const char *tmp)
{
    g_autofree char *runs = g_build_filename(tmp, "runs", NULL);
    char *made[4];
    int colours[4];
    for (int i = 0; i < 3; i++) {
        g_autofree char *label = g_strdup_printf("run%d", i);
        made[i] = rf_run_folder_create(runs, label, NULL);
        colours[i] = made[i] != NULL ? rf_run_folder_color(made[i]) : -1;
    }
    tap_ok(colours[0] == 0 && colours[1] == 1 && colours[2] == 2,
           "three new run folders get three colours (%d %d %d)", colours[0], colours[1], colours[2]);
    for (int i = 0; i < 3; i++) {
        g_autofree char *csv = g_build_filename(made[i], "metrics.csv", NULL);
        g_autofree char *ini = g_build_filename(made[i], "config.ini", NULL);
        g_file_set_contents(csv, "step,split,loss,accuracy,lr,seconds\n1,train,1,0.5,0.001,0.1\n", -1, NULL);
        g_file_set_contents(ini, "[data]\ntask = listops\n", -1, NULL);
    }
    g_autoptr(rf_run_entry) e = rf_run_entry_load(made[1], NULL);
    gboolean renamed = e != NULL && rf_run_entry_set_meta(e, "wide", "sweep", NULL);
    g_autoptr(rf_run_data) loaded = rf_run_data_load_dir(made[1], NULL);
    tap_ok(renamed && loaded != NULL && loaded->color == 1 && strcmp(loaded->name, "wide") == 0,
           "a rename keeps the colour; the loaded run has it and the name (%d, %s)", loaded ? loaded->color : -1,
           loaded ? loaded->name : "-");
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", made[0]);
    tap_ok(system(cmd) == 0, "remove the first run");
    made[3] = rf_run_folder_create(runs, "run3", NULL);
    colours[3] = made[3] != NULL ? rf_run_folder_color(made[3]) : -1;
    tap_ok(colours[3] == 0 && rf_run_folder_color(made[1]) == 1 && rf_run_folder_color(made[2]) == 2,
           "a new run takes the colour no run has now (%d); the others keep theirs", colours[3]);
    g_autofree char *old = g_build_filename(runs, "2024-01-01_000000-old", NULL);
    g_mkdir(old, 0755);
    int first = rf_run_folder_color(old), again = rf_run_folder_color(old);
    tap_ok(first >= 0 && first < RF_RUN_COLORS && first == again,
           "a folder made without a colour gets one from its name, the same at every read (%d)", first);
    for (int i = 1; i < 4; i++)
        g_free(made[i]);
    g_free(made[0]);
}

/* ---- baselines ---- */

/* The baselines' grey (0.35, 0.35, 0.38): the rightmost pixel of the
 * longest grey row in the accuracy panel (top right), or -1. */
static int baseline_right_end(cairo_surface_t *s)
{
    rf_rgb grey = {0.35, 0.35, 0.38};
    int best_row = -1, best = 0;
    for (int y = 0; y < H * 56 / 100; y++) {
        int n = count_in(s, grey, W / 2, W, y, y + 1);
        if (n > best) {
            best = n;
            best_row = y;
        }
    }
    int right = -1;
    for (int x = W / 2; x < W && best_row >= 0 && best > 30; x++)
        if (near_colour(s, x, best_row, grey, 0.02))
            right = x;
    return right;
}

static void test_baselines_under_their_runs(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    /* ListOps trained 200 steps, then Fashion-MNIST (no baselines) 800 */
    rf_run_data *listops = run_of("listops", 200, 50, flat), *images = run_of("fashion_mnist", 800, 100, rising);
    listops->baseline_first_token = 0.366;
    listops->baseline_majority = 0.169;
    rf_run_data *runs[2] = {listops, images};
    rf_training_figure_set_runs(tf, runs, 2);
    cairo_surface_t *s = render_figure(&f, W, H);
    int end = baseline_right_end(s);
    cairo_surface_destroy(s);
    /* the accuracy panel spans x from W/2 to W over steps 0..800: step 200
     * lies about a quarter of the way in */
    tap_ok(end > W / 2 && end < W / 2 + W / 4,
           "ListOps' baselines end with the ListOps run (x %d), not under the Fashion-MNIST run to x ~%d", end,
           W - 20);
    char label[96];
    rf_training_baseline_label(listops, 0, label, sizeof label);
    tap_ok(strcmp(label, "listops · first token alone: 36.6%") == 0, "and their label names the data: '%s'", label);
    rf_run_data_free(listops);
    rf_run_data_free(images);
}

/* ---- validation ---- */

/* The dark validation colour of the run at the accuracy panel's points:
 * on a run whose validation rows lie exactly on its train rows, at a
 * single evaluation, and with a baseline label that would sit on the last
 * evaluation at the right end. */
static void test_validation_visible(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_training_figure_set_smoothing(tf, 0);
    rf_run_data *r = run_of("listops", 400, 100, rising);
    r->color = 0;
    rf_training_figure_set_runs(tf, &r, 1);
    rf_rgb c = rf_series_color(0), dark = val_colour(c);
    cairo_surface_t *s = render_figure(&f, W, H);
    int on_train = count_in(s, dark, W / 2, W, 0, H * 56 / 100);
    cairo_surface_destroy(s);
    tap_ok(on_train > 60, "validation rows on the train rows show in the darker hue (%d px)", on_train);

    rf_run_data *single = run_of("listops", 400, 0, rising);
    single->color = 0;
    rf_metrics m = {.step = 200, .split = RF_SPLIT_VAL, .loss = 1.5, .accuracy = rising(200), .lr = 1e-3,
                    .seconds = 10};
    rf_run_data_append(single, &m);
    rf_training_figure_set_runs(tf, &single, 1);
    s = render_figure(&f, W, H);
    int point = count_in(s, dark, W / 2, W, 0, H * 56 / 100);
    cairo_surface_destroy(s);
    tap_ok(point >= 12, "a single evaluation is visible as its point (%d px)", point);

    /* a flat run at 0.5 evaluated near its end, a baseline just under */
    rf_run_data *last = run_of("listops", 400, 360, flat);
    last->color = 0;
    rf_training_figure_set_runs(tf, &last, 1);
    s = render_figure(&f, W, H);
    int without = count_in(s, dark, W - W / 8, W, 0, H * 56 / 100);
    cairo_surface_destroy(s);
    last->baseline_first_token = 0.49;
    last->baseline_majority = 0.30;
    s = render_figure(&f, W, H);
    int with = count_in(s, dark, W - W / 8, W, 0, H * 56 / 100);
    cairo_surface_destroy(s);
    tap_ok(without >= 12 && with >= without,
           "a baseline's label leaves the last evaluation uncovered (%d px of it without labels, %d with)", without,
           with);
    rf_run_data_free(r);
    rf_run_data_free(single);
    rf_run_data_free(last);
}

/* A finished run's test accuracy in the legend, as percent with one
 * decimal like every accuracy the workbench shows. */
static void test_legend_test_accuracy(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_run_data *runs[2] = {run_of("listops", 100, 50, rising), run_of("listops", 100, 50, flat)};
    rf_metrics m = {.step = 100, .split = RF_SPLIT_TEST, .loss = 1.2, .accuracy = 0.4052, .seconds = 5};
    rf_run_data_append(runs[0], &m);
    rf_training_figure_set_runs(tf, runs, 2);
    g_auto(GStrv) labels = rf_training_legend_labels(tf);
    tap_ok(strcmp(labels[0], "listops · test 40.5 %") == 0 && strcmp(labels[1], "listops") == 0,
           "the legend gives a finished run's test accuracy ('%s', '%s')", labels[0], labels[1]);
    rf_run_data_free(runs[0]);
    rf_run_data_free(runs[1]);
}

/* ---- exports ---- */

static char *read_text(const char *path)
{
    char *text = NULL;
    return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

static void test_exports(const char *tmp)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    char err[512] = "";
    g_autofree char *empty_png = g_build_filename(tmp, "empty.png", NULL);
    bool refused = !rf_figure_export(&f, NULL, empty_png, W, H, err, sizeof err);
    tap_ok(refused && strstr(err, empty_png) != NULL && strstr(err, "no runs to plot") != NULL &&
               !g_file_test(empty_png, G_FILE_TEST_EXISTS),
           "an empty Training figure is refused with a sentence, no file written: %s", err);

    rf_run_data *r = run_of("listops", 300, 100, rising);
    r->baseline_first_token = 0.366;
    rf_training_figure_set_runs(tf, &r, 1);
    /* no faint raw rows: cairo 1.16's SVG surface leaks the snapshot of
     * each translucent group (inside libcairo), which LeakSanitizer reports */
    rf_training_figure_set_smoothing(tf, 0);
    /* the "log" buttons: drawn on screen, never into a file */
    cairo_surface_t *screen = render_figure(&f, W, H);
    laid_out l;
    rf_training_lay_out(tf, W, H, &RF_ZOOM_ALL, &l);
    rf_rect button = rf_training_log_button(&l.plots[RF_TRAINING_LOSS], RF_TRAINING_LOSS);
    rf_training_laid_out_clear(&l);
    rf_rgb white = {1, 1, 1};
    int area = (int)(button.w * button.h);
    int on_screen = area - count_in(screen, white, (int)button.x, (int)(button.x + button.w), (int)button.y,
                                    (int)(button.y + button.h));
    cairo_surface_destroy(screen);
    g_autofree char *png = g_build_filename(tmp, "training.png", NULL);
    bool exported = rf_figure_export(&f, NULL, png, W, H, err, sizeof err);
    cairo_surface_t *file = exported ? cairo_image_surface_create_from_png(png) : NULL;
    int in_file = file != NULL ? area - count_in(file, white, (int)button.x, (int)(button.x + button.w),
                                                 (int)button.y, (int)(button.y + button.h))
                               : -1;
    if (file != NULL)
        cairo_surface_destroy(file);
    tap_ok(on_screen > 20 && in_file == 0,
           "the Loss panel's log button is drawn on screen (%d px) and not into the PNG (%d px)", on_screen, in_file);

    /* SVG: text as <text> elements, none of them a widget's */
    g_autofree char *svg = g_build_filename(tmp, "training.svg", NULL);
    exported = rf_figure_export(&f, NULL, svg, W, H, err, sizeof err);
    g_autofree char *text = exported ? read_text(svg) : NULL;
    tap_ok(text != NULL && strstr(text, ">Loss</text>") != NULL && strstr(text, ">Accuracy</text>") != NULL &&
               strstr(text, "first token alone") != NULL && strstr(text, "<text") != NULL,
           "the SVG's titles and labels are <text> elements");
    tap_ok(text != NULL && strstr(text, ">log</text>") == NULL && strstr(text, "glyph") == NULL,
           "and it holds no \"log\" button and no glyph outlines");

    /* the Memory figure to SVG: its text is text too */
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_memory_figure mf;
    rf_memory_figure_init(&mf);
    int feat_dim, vocab, classes;
    rf_memory_figure_input_shape(&cfg, &feat_dim, &vocab, &classes);
    rf_memory_figure_compute(&mf, &cfg, feat_dim, vocab, classes, 0.5);
    rf_figure memory = rf_memory_figure_figure(&mf);
    g_autofree char *msvg = g_build_filename(tmp, "memory.svg", NULL);
    exported = rf_figure_export(&memory, NULL, msvg, W, H, err, sizeof err);
    g_autofree char *mtext = exported ? read_text(msvg) : NULL;
    tap_ok(mtext != NULL && strstr(mtext, "<text") != NULL && strstr(mtext, "glyph") == NULL,
           "the Memory figure's SVG text is <text> too");
    rf_memory_figure_clear(&mf);

    /* an old run: no memory measured, and the panel says so in words,
     * its byte axis never ticking "1 B, 1 B, 0 B" */
    g_autofree char *old_svg = g_build_filename(tmp, "old-run.svg", NULL);
    exported = rf_figure_export(&f, NULL, old_svg, W, H, err, sizeof err);
    g_autofree char *old_text = exported ? read_text(old_svg) : NULL;
    int ones = 0;
    for (const char *p = old_text; p != NULL && (p = strstr(p, ">1 B</text>")) != NULL; p++)
        ones++;
    tap_ok(old_text != NULL && strstr(old_text, ">Not measured for these runs</text>") != NULL && ones <= 1,
           "a run without memory says so in words, and its byte ticks differ (%d ticks read 1 B)", ones);
    rf_run_data_free(r);
}

int main(void)
{
    g_autofree char *tmp = g_dir_make_tmp("rf-test-marks-XXXXXX", NULL);
    test_run_colours();
    test_folder_colours(tmp);
    test_baselines_under_their_runs();
    test_validation_visible();
    test_legend_test_accuracy();
    test_exports(tmp);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp);
    return tap_done();
}
