/* The Evaluation view's figure (ui/figures/evaluation_figure.h), drawn
 * headless: the counts it writes in the cells are the matrix's, row by row;
 * hover over a cell reads its count, hover over a bar its group and
 * baselines; a click selects the cell and tells the view; with more slice
 * groups or classes than fit, the rows that fit are drawn at a readable
 * size and a note says how many more; with nothing measured the figure is
 * empty (an export refuses it) and says why. RF_INSPECT_PNG_DIR set: the
 * figures are also written there as PNG, to look at. */
#include <stdio.h>
#include <string.h>

#include "../datasets/listops.h"
#include "../ui/figures/evaluation_figure.h"
#include "../ui/plot/plot.h"
#include "tap.h"

/* The texts the figure draws at w x h, in drawing order. */
static GPtrArray *drawn_texts(const rf_figure *fig, int w, int h, const char *png)
{
    const char *dir = g_getenv("RF_INSPECT_PNG_DIR");
    if (dir != NULL) {
        g_autofree char *path = g_build_filename(dir, png, NULL);
        char err[256];
        rf_figure_export(fig, &RF_ZOOM_ALL, path, w, h, err, sizeof err);
    }
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    GString *svg = g_string_new(NULL);
    rf_plot_collect_svg_text(cr, svg);
    fig->draw(fig->data, cr, w, h, &RF_ZOOM_ALL);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    for (const char *at = svg->str; (at = strstr(at, "<text")) != NULL;) {
        const char *open = strchr(at, '>'), *close = open != NULL ? strstr(open, "</text>") : NULL;
        if (close == NULL)
            break;
        g_ptr_array_add(out, g_strndup(open + 1, (gsize)(close - open - 1)));
        at = close;
    }
    g_string_free(svg, TRUE);
    return out;
}

static bool has_text(GPtrArray *texts, const char *wanted)
{
    for (guint i = 0; i < texts->len; i++)
        if (strstr(g_ptr_array_index(texts, i), wanted) != NULL)
            return true;
    return false;
}

static int chosen_label = -1, chosen_answer = -1;
static void on_cell(void *ctx, int label, int answer)
{
    (void)ctx;
    chosen_label = label;
    chosen_answer = answer;
}

/* ListOps-like: 3 classes, samples [MAX d ] of label i answered (i + j) % 3. */
static void listops_case(void)
{
    rf_dataset ds = {.name = "listops", .seq_len = 8, .vocab = RF_LISTOPS_VOCAB, .classes = 3};
    static int by_first[RF_LISTOPS_VOCAB];
    rf_baseline_rules rules = {.vocab = RF_LISTOPS_VOCAB, .classes = 3, .majority = 1, .by_first = by_first};
    rf_eval_slices s;
    rf_eval_slices_init(&s, &ds, 1, &rules);
    const float x[3] = {RF_LISTOPS_MAX, RF_LISTOPS_DIGIT0 + 4, RF_LISTOPS_CLOSE};
    int64_t want[9] = {0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j <= i + 1; j++) {   /* rows of 2, 3 and 4 samples */
            rf_eval_slices_add(&s, x, 3, i, (i + j) % 3);
            want[i * 3 + (i + j) % 3]++;
        }
    rf_eval_slices_finish(&s);

    rf_evaluation_figure *f = rf_evaluation_figure_new();
    rf_evaluation_figure_on_cell(f, on_cell, NULL);
    rf_evaluation_figure_set(f, &s, "Test split: 9 samples");
    rf_figure fig = rf_evaluation_figure_get(f);
    const int w = 1200, h = 700;
    g_autoptr(GPtrArray) texts = drawn_texts(&fig, w, h, "evaluation-listops.png");
    bool same = texts->len >= 9;
    for (int i = 0; same && i < 9; i++) {
        char n[16];
        snprintf(n, sizeof n, "%lld", (long long)want[i]);
        same = strcmp(g_ptr_array_index(texts, texts->len - 9 + (guint)i), n) == 0;
    }
    tap_ok(same, "the last 9 texts are the matrix's counts, row by row");
    tap_ok(has_text(texts, "Accuracy by slice (marks: without the model)") && has_text(texts, "by operator") &&
               has_text(texts, "[MAX") && has_text(texts, "depth 1"),
           "the slices are drawn with their groups and the baselines' key");

    double cx, cy;
    char text[256] = "";
    bool centre = rf_evaluation_figure_cell_centre(f, w, h, 2, 0, &cx, &cy);
    bool read = centre && fig.hover(fig.data, w, h, &RF_ZOOM_ALL, cx, cy, text, sizeof text);
    tap_ok(read && strstr(text, "label 2, answered 0: 1 sample (") != NULL, "hover over cell (2, 0) reads it: %s",
           text);
    int label, answer;
    tap_ok(fig.click(fig.data, w, h, &RF_ZOOM_ALL, cx, cy) && chosen_label == 2 && chosen_answer == 0 &&
               rf_evaluation_figure_selected(f, &label, &answer) && label == 2 && answer == 0,
           "a click on it selects it and tells the view");
    tap_ok(!fig.click(fig.data, w, h, &RF_ZOOM_ALL, w - 5, 5), "a click outside the matrix changes nothing");
    rf_evaluation_figure_free(f);
}

/* 40 classes of images, 10 samples each: more classes and slice groups
 * than a small figure holds. */
static void crowded_case(void)
{
    rf_dataset ds = {.name = "image_folder", .seq_len = 4, .feat_dim = 2, .classes = 40};
    rf_eval_slices s;
    rf_eval_slices_init(&s, &ds, 1, NULL);
    const float x[8] = {0};
    for (int i = 0; i < 400; i++)
        rf_eval_slices_add(&s, x, 4, i % 40, (i * 7) % 40);
    rf_eval_slices_finish(&s);
    rf_evaluation_figure *f = rf_evaluation_figure_new();
    rf_evaluation_figure_set(f, &s, "Test split: 400 samples");
    rf_figure fig = rf_evaluation_figure_get(f);
    g_autoptr(GPtrArray) texts = drawn_texts(&fig, 1000, 520, "evaluation-crowded.png");
    tap_ok(has_text(texts, "more classes (CSV export)") && has_text(texts, "more rows (in the CSV export)"),
           "a small figure with 40 classes says how many classes and rows it leaves to the CSV");
    int bars = 0;   /* each class's bar says "…% of 10" */
    for (guint i = 0; i < texts->len; i++)
        bars += g_str_has_suffix(g_ptr_array_index(texts, i), "% of 10");
    tap_ok(bars >= 5 && bars < 40 && !has_text(texts, "Accuracy by slice (marks"),
           "it draws the %d class bars that fit at a readable size (not all 40 squeezed in); float data has no "
           "baselines", bars);
    rf_evaluation_figure_free(f);
}

static void empty_case(void)
{
    rf_evaluation_figure *f = rf_evaluation_figure_new();
    rf_figure fig = rf_evaluation_figure_get(f);
    char why[128] = "";
    tap_ok(fig.empty(fig.data, why, sizeof why) && strstr(why, "Evaluate") != NULL, "before Evaluate it is empty: %s",
           why);
    char err[256] = "";
    g_autofree char *path = g_build_filename(g_get_tmp_dir(), "rf-empty-evaluation.svg", NULL);
    tap_ok(!rf_figure_export(&fig, &RF_ZOOM_ALL, path, 800, 600, err, sizeof err) &&
               !g_file_test(path, G_FILE_TEST_EXISTS),
           "an export of it is refused, nothing written: %s", err);
    rf_evaluation_figure_free(f);
}

int main(void)
{
    listops_case();
    crowded_case();
    empty_case();
    return tap_done();
}
