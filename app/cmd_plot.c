/* `rangefinder plot`: the workbench's Training or Memory figure of one or
 * more run directories, written to PNG, SVG or PDF with the same drawing
 * code as the workbench, without GTK or a display (for servers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/train.h"
#include "../datasets/datasets.h"
#include "../ui/figures/distribution_figure.h"
#include "../ui/figures/memory_figure.h"
#include "../ui/figures/parallel_sweep.h"
#include "../ui/figures/training_figure.h"
#include "../ui/plot/smooth.h"
#include "cli.h"
#include "commands.h"
#include "sweep_file.h"
#include "sweep_table.h"

#define DEFAULT_WIDTH 1600
#define DEFAULT_HEIGHT 1000
/* Planning time per encoder before the memory figure skips longer lengths. */
#define PLAN_BUDGET_SECONDS 10.0

static gboolean parse_size(const char *text, rf_export_options *o, GError **error)
{
    if (rf_export_parse_size(text, &o->width, &o->height, &o->unit))
        return TRUE;
    g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                "--size '%s': give WIDTHxHEIGHT in pixels, or with a unit: in, cm or pt "
                "(e.g. 1600x1000, 6x4in, 15x10cm, 400x300pt)", text);
    return FALSE;
}

/* A number for --dpi or --font-size within [min, max], or a sentence naming the option. */
static gboolean parse_number(const char *option, const char *text, double min, double max, const char *example,
                             double *value, GError **error)
{
    char *end = NULL;
    double v = g_ascii_strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= min && v <= max)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s '%s': give a number from %g to %g (e.g. %s)", option,
                    text, min, max, example);
        return FALSE;
    }
    *value = v;
    return TRUE;
}

/* The size, dpi and font size together: a size that is too small or too
 * large at the dpi (a PNG's pixels, or the drawing's) is refused here. */
static gboolean parse_export(const char *size, const char *dpi, const char *font_size, gboolean png,
                             rf_export_options *o, GError **error)
{
    if ((size != NULL && !parse_size(size, o, error)) ||
        (dpi != NULL && !parse_number("--dpi", dpi, RF_EXPORT_DPI_MIN, RF_EXPORT_DPI_MAX, "300", &o->dpi, error)) ||
        (font_size != NULL && !parse_number("--font-size", font_size, RF_EXPORT_FONT_MIN, RF_EXPORT_FONT_MAX, "10",
                                            &o->font_size, error)))
        return FALSE;
    char why[256];
    if (!rf_export_options_check(o, png, why, sizeof why)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--size '%s': %s", size != NULL ? size : "1600x1000", why);
        return FALSE;
    }
    return TRUE;
}

/* The input shape of a run's data: known from the config for ListOps and
 * the random task, else read by opening the data set once. */
static gboolean input_shape(const rf_config *cfg, int *feat_dim, int *vocab, int *classes, GError **error)
{
    if (rf_memory_figure_input_shape(cfg, feat_dim, vocab, classes))
        return TRUE;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(cfg, &st);
    if (ds == NULL)
        return rf_cli_fail_status(error, &st);
    *feat_dim = ds->feat_dim;
    *vocab = ds->vocab;
    *classes = ds->classes;
    rf_dataset_free(ds);
    return TRUE;
}

/* metrics.csv does not record the plan: recompute it (and the parameter
 * count) for runs whose input is known from the config alone (not a
 * TensorBoard run's: it has no config of ours). */
static void fill_plan(rf_run_data *r)
{
    if (r->tensorboard)
        return;
    int feat_dim, vocab, classes;
    rf_memory_plan plan;
    rf_status st = {0};
    if (rf_memory_figure_input_shape(&r->cfg, &feat_dim, &vocab, &classes) &&
        rf_memory_plan_compute(&r->cfg, r->cfg.data.max_len, feat_dim, vocab, classes, &plan, &st)) {
        r->planned_bytes = (double)plan.total;
        r->params = plan.param_count;
    }
}

/* --smooth W, --x step|time and --log PANEL,... onto the figure. */
static gboolean set_curves(rf_training_figure *figure, const char *smooth, const char *x, const char *log,
                           GError **error)
{
    if (smooth != NULL) {
        char *end = NULL;
        double w = g_ascii_strtod(smooth, &end);
        if (end == smooth || *end != '\0' || !(w >= 0 && w <= RF_SMOOTH_MAX)) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                        "--smooth '%s': give a weight from 0 (raw) to %g (e.g. 0.6)", smooth, RF_SMOOTH_MAX);
            return FALSE;
        }
        rf_training_figure_set_smoothing(figure, w);
    }
    if (x != NULL) {
        if (strcmp(x, "step") != 0 && strcmp(x, "time") != 0) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--x '%s': allowed values are step|time", x);
            return FALSE;
        }
        rf_training_figure_set_x(figure, strcmp(x, "time") == 0 ? RF_TRAINING_X_TIME : RF_TRAINING_X_STEP);
    }
    g_auto(GStrv) panels = log != NULL ? g_strsplit(log, ",", -1) : NULL;
    for (char **name = panels; name != NULL && *name != NULL; name++) {
        int panel = rf_training_panel_from_name(g_strstrip(*name));
        if (panel < 0 || !rf_training_figure_set_log(figure, (rf_training_panel)panel, true)) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                        "--log '%s': give panels from loss,lr,step_time separated by commas", log);
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean export_training(GPtrArray *runs, rf_training_figure *figure, const char *out,
                                const rf_export_options *o, GError **error)
{
    for (guint i = 0; i < runs->len; i++)
        fill_plan(runs->pdata[i]);
    rf_training_figure_set_runs(figure, (rf_run_data *const *)runs->pdata, runs->len);
    rf_figure f = rf_training_figure_figure(figure);
    char err[1024];
    if (!rf_figure_export_with(&f, NULL, out, o, err, sizeof err)) {
        g_set_error_literal(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, err);
        return FALSE;
    }
    return TRUE;
}

static gboolean export_memory(GPtrArray *runs, const char *out, const rf_export_options *o, GError **error)
{
    const rf_run_data *first = runs->pdata[0];
    int feat_dim, vocab, classes;
    if (!input_shape(&first->cfg, &feat_dim, &vocab, &classes, error))
        return FALSE;
    rf_memory_figure figure;
    rf_memory_figure_init(&figure);
    rf_memory_figure_compute(&figure, &first->cfg, feat_dim, vocab, classes, PLAN_BUDGET_SECONDS);
    rf_memory_figure_set_runs(&figure, (rf_run_data *const *)runs->pdata, runs->len);
    rf_figure f = rf_memory_figure_figure(&figure);
    char err[1024];
    gboolean ok = rf_figure_export_with(&f, NULL, out, o, err, sizeof err);
    rf_memory_figure_clear(&figure);
    if (!ok)
        g_set_error_literal(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, err);
    return ok;
}

/* One tensor's distributions.csv rows of every run, overlaid. */
static gboolean export_distribution(char **dirs, const char *name, const char *kind, const char *out,
                                    const rf_export_options *o, GError **error)
{
    rf_dist_kind k = RF_DIST_KINDS;
    for (int i = 0; i < RF_DIST_KINDS; i++)
        if (g_strcmp0(kind != NULL ? kind : "param", rf_dist_kind_name(i)) == 0)
            k = i;
    if (k == RF_DIST_KINDS) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--kind '%s': allowed values are param|grad|tap", kind);
        return FALSE;
    }
    rf_distribution_figure figure;
    rf_distribution_figure_init(&figure, name, k);
    gboolean ok = TRUE;
    for (char **d = dirs; ok && *d != NULL; d++) {
        g_autofree char *path = g_build_filename(*d, "distributions.csv", NULL), *label = g_path_get_basename(*d);
        GArray *rows = rf_distributions_csv_read(path, error);
        ok = rows != NULL;
        if (ok)
            rf_distribution_figure_add_run(&figure, label, rows);
        if (rows != NULL)
            g_array_free(rows, TRUE);
    }
    rf_figure f = rf_distribution_figure_figure(&figure);
    char err[1024];
    if (ok && !rf_figure_export_with(&f, NULL, out, o, err, sizeof err)) {
        g_set_error_literal(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, err);
        ok = FALSE;
    }
    rf_distribution_figure_clear(&figure);
    return ok;
}

/* A sweep folder's parallel coordinates (ui/figures/parallel_sweep.h). */
static gboolean export_parallel(const char *dir, const char *out, const rf_export_options *o, guint *trials,
                                GError **error)
{
    if (!rf_is_sweep_folder(dir)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "%s: not a sweep folder (no sweep.ini and sweep.csv, which `rangefinder sweep` writes)", dir);
        return FALSE;
    }
    g_autoptr(rf_parallel_figure) figure = rf_parallel_figure_load_sweep(dir, error);
    if (figure == NULL)
        return FALSE;
    *trials = rf_parallel_figure_trial_count(figure);
    rf_figure f = rf_parallel_figure_figure(figure);
    char err[1024];
    if (!rf_figure_export_with(&f, NULL, out, o, err, sizeof err)) {
        g_set_error_literal(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, err);
        return FALSE;
    }
    return TRUE;
}

/* "1800x1200 pixels at 300 dpi" or "432x288 pt": what the file holds. */
static const char *size_words(const rf_export_options *o, gboolean png, char *words, size_t size)
{
    if (png) {
        int w, h;
        rf_export_png_size(o, &w, &h);
        snprintf(words, size, "%dx%d pixels at %g dpi", w, h, o->dpi);
    } else {
        double w, h;
        rf_export_points(o, &w, &h);
        snprintf(words, size, "%gx%g pt", round(w * 100) / 100, round(h * 100) / 100);
    }
    return words;
}

int rf_cmd_plot(int argc, char **argv)
{
    g_autofree char *out = NULL, *size = NULL, *dpi = NULL, *font_size = NULL, *figure = NULL, *smooth = NULL,
                    *x = NULL, *log = NULL, *distribution = NULL, *kind = NULL, *parallel = NULL;
    g_auto(GStrv) dirs = NULL;
    const GOptionEntry entries[] = {
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "The file to write: .png, .svg or .pdf", "FILE"},
        {"size", 0, 0, G_OPTION_ARG_STRING, &size,
         "Size in pixels, or with a unit: 6x4in, 15x10cm, 400x300pt; default 1600x1000 (pixels)", "WxH[UNIT]"},
        {"dpi", 0, 0, G_OPTION_ARG_STRING, &dpi,
         "Pixels per inch: a PNG's resolution (recorded in the file), a pixel's size in SVG and PDF; default 96",
         "N"},
        {"font-size", 0, 0, G_OPTION_ARG_STRING, &font_size,
         "Tick labels' size in points, titles and legends in proportion; default 8.25 (11 pixels at 96 dpi)",
         "PT"},
        {"figure", 'f', 0, G_OPTION_ARG_STRING, &figure, "training (default) or memory", "NAME"},
        {"smooth", 0, 0, G_OPTION_ARG_STRING, &smooth,
         "training: smoothing of the train loss and accuracy, 0 (raw) to 0.999; default 0.6", "W"},
        {"x", 0, 0, G_OPTION_ARG_STRING, &x, "training: the x axis, step (default) or time (wall time)", "AXIS"},
        {"log", 0, 0, G_OPTION_ARG_STRING, &log, "training: panels on a log scale, from loss,lr,step_time",
         "PANELS"},
        {"distribution", 0, 0, G_OPTION_ARG_STRING, &distribution,
         "Draw this tensor's distribution over training from each RUN_DIR/distributions.csv instead", "NAME"},
        {"kind", 0, 0, G_OPTION_ARG_STRING, &kind, "--distribution: param (default), grad or tap", "KIND"},
        {"parallel", 0, 0, G_OPTION_ARG_FILENAME, &parallel,
         "Draw the parallel coordinates of the sweep in SWEEP_DIR (`rangefinder sweep`) instead; no RUN_DIR",
         "SWEEP_DIR"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, NULL, "RUN_DIR…"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Draw the workbench's figures of runs written by `rangefinder train` (RUN_DIR/metrics.csv and\n"
        "config.ini) into a PNG, SVG or PDF file, without a display. A RUN_DIR without metrics.csv\n"
        "that holds TensorBoard event files (a PyTorch run's, say) is read from those.\n"
        "  training: loss, accuracy, learning rate, step time and planned memory against the step\n"
        "            (or the wall time), one colour per run, the train curves smoothed (the Training view).\n"
        "  memory:   planned memory against sequence length for every encoder at the first run's\n"
        "            widths and batch, its config marked (the Memory view).\n"
        "  --distribution NAME: one tensor's percentiles at each evaluation (RUN_DIR/distributions.csv)\n"
        "            as nested bands over steps (min-max, 7-93, 16-84, 31-69, the median a line),\n"
        "            one colour per run.\n"
        "  --parallel SWEEP_DIR: a sweep's trials as parallel coordinates, one axis per swept key and\n"
        "            one for the metric, each trial a line coloured by its metric.");
    g_option_context_set_description(ctx,
        "Examples:\n"
        "  rangefinder plot runs/default --out training.png\n"
        "  rangefinder plot runs/lr1e-3 runs/lr3e-4 --out compare.pdf --size 15x10cm --font-size 9\n"
        "  rangefinder plot runs/default --out figure.png --size 6x4in --dpi 300\n"
        "  rangefinder plot runs/default --smooth 0.9 --x time --log loss,lr --out curves.png\n"
        "  rangefinder plot runs/default --figure memory --out memory.svg\n"
        "  rangefinder plot runs/a runs/b --distribution layer0.ls.q.weight --kind grad --out grad.svg\n"
        "  rangefinder plot --parallel runs/lr-encoders --out sweep.png --size 1024x600\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "plot", &argc, &argv, &error))
        return rf_cli_report(error);
    rf_export_options export = rf_export_pixels(DEFAULT_WIDTH, DEFAULT_HEIGHT);
    gboolean memory = g_strcmp0(figure, "memory") == 0;
    if (parallel != NULL && (out == NULL || (dirs != NULL && dirs[0] != NULL))) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "plot --parallel SWEEP_DIR needs --out FILE and no RUN_DIR (see `rangefinder plot --help`)");
        return rf_cli_report(error);
    }
    if (parallel == NULL && (dirs == NULL || dirs[0] == NULL || out == NULL)) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "plot needs at least one RUN_DIR and --out FILE (see `rangefinder plot --help`)");
        return rf_cli_report(error);
    }
    if (figure != NULL && !memory && strcmp(figure, "training") != 0) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--figure '%s': allowed values are training|memory",
                    figure);
        return rf_cli_report(error);
    }
    if (!rf_figure_format_known(out)) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--out %s: the name must end in .png, .svg or .pdf",
                    out);
        return rf_cli_report(error);
    }
    g_autofree char *lower = g_ascii_strdown(out, -1);
    if (!parse_export(size, dpi, font_size, g_str_has_suffix(lower, ".png"), &export, &error))
        return rf_cli_report(error);
    if (parallel != NULL) {
        guint trials = 0;
        if (!export_parallel(parallel, out, &export, &trials, &error))
            return rf_cli_report(error);
        printf("wrote %s (parallel coordinates of %u trial%s)\n", out, trials, trials == 1 ? "" : "s");
        return RF_EXIT_OK;
    }
    if (distribution != NULL) {
        if (!export_distribution(dirs, distribution, kind, out, &export, &error))
            return rf_cli_report(error);
        printf("wrote %s (distribution of %s)\n", out, distribution);
        return RF_EXIT_OK;
    }
    g_autoptr(rf_training_figure) training = rf_training_figure_new();
    if (!set_curves(training, smooth, x, log, &error))
        return rf_cli_report(error);

    g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func((GDestroyNotify)rf_run_data_free);
    for (char **d = dirs; *d != NULL; d++) {
        rf_run_data *r = rf_run_data_load_dir(*d, &error);
        if (r == NULL)
            return rf_cli_report(error);
        g_ptr_array_add(runs, r);
    }
    gboolean ok = memory ? export_memory(runs, out, &export, &error)
                         : export_training(runs, training, out, &export, &error);
    if (!ok)
        return rf_cli_report(error);
    char words[96];
    printf("wrote %s (%s figure, %s, %u run%s)\n", out, memory ? "memory" : "training",
           size_words(&export, g_str_has_suffix(lower, ".png"), words, sizeof words), runs->len,
           runs->len == 1 ? "" : "s");
    return RF_EXIT_OK;
}
