/* Distributions over training (TAP): the percentiles of a hand-computed
 * case and of random data against a naive sort-based reference;
 * distributions.csv written, resumed (rows after the resume step cut) and
 * read back, a bad file refused naming the file, line and problem; and
 * the distributions.csv of a run trained by `rangefinder train` (argv[1]):
 * every parameter and its gradient at every evaluation, percentiles in
 * order, and the last evaluation's equal to those recomputed from the
 * saved checkpoint's tensors; the distribution figure's hover reading the
 * CSV's percentiles, and `rangefinder plot --distribution` writing it.
 *
 *   test_distributions PATH/TO/rangefinder */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "../config/distributions_csv.h"
#include "../core/safetensors.h"
#include "../ui/figures/distribution_figure.h"
#include "../ui/plot/plot.h"
#include "tap.h"

/* The reference: insertion sort of a copy, then linear interpolation at
 * rank p/100 * (n-1). */
static double naive_percentile(const float *x, int n, int p)
{
    double *s = malloc((size_t)n * sizeof *s);
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && s[j - 1] > x[i]; j--)
            s[j] = s[j - 1];
        s[j] = x[i];
    }
    double rank = p / 100.0 * (n - 1);
    int lo = (int)rank, hi = lo + 1 < n ? lo + 1 : lo;
    double v = s[lo] + (s[hi] - s[lo]) * (rank - lo);
    free(s);
    return v;
}

static bool close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(1e-30, fmax(fabs(a), fabs(b))) || fabs(a - b) < 1e-30;
}

static void test_hand_case(void)
{
    /* sorted 1..5: rank p/100*4, so p7 = 1 + 0.28 and so on */
    const float x[] = {3, 1, 2, 5, 4};
    const double want[RF_DIST_QUANTILES] = {1, 1.28, 1.64, 2.24, 3, 3.76, 4.36, 4.72, 5};
    float scratch[5];
    rf_distribution d;
    rf_distribution_of(x, 5, scratch, &d);
    bool same = d.count == 5 && close_to(d.mean, 3, 1e-12);
    for (int k = 0; k < RF_DIST_QUANTILES; k++)
        same = same && close_to(d.q[k], want[k], 1e-9);
    tap_ok(same, "five values: count, mean and the nine percentiles as computed by hand");
    const float one = -2.5f;
    rf_distribution_of(&one, 1, scratch, &d);
    tap_ok(d.q[0] == -2.5 && d.q[4] == -2.5 && d.q[8] == -2.5 && d.mean == -2.5, "one value: every percentile is it");
}

static void test_random(void)
{
    GRand *r = g_rand_new_with_seed(7);
    bool same = true;
    for (int trial = 0; trial < 20 && same; trial++) {
        int n = 1 + g_rand_int_range(r, 0, 700);
        float *x = malloc((size_t)n * sizeof *x), *scratch = malloc((size_t)n * sizeof *x);
        double sum = 0;
        for (int i = 0; i < n; i++)   /* ties too: every fourth trial draws from 5 values */
            sum += x[i] = trial % 4 == 0 ? (float)g_rand_int_range(r, 0, 5) : (float)g_rand_double_range(r, -3, 9);
        rf_distribution d;
        rf_distribution_of(x, n, scratch, &d);
        same = d.count == n && close_to(d.mean, sum / n, 1e-9);
        for (int k = 0; k < RF_DIST_QUANTILES; k++)
            if (!close_to(d.q[k], naive_percentile(x, n, rf_dist_percents[k]), 1e-9)) {
                tap_diag("n %d p%d: %.9g, the reference %.9g", n, rf_dist_percents[k], d.q[k],
                         naive_percentile(x, n, rf_dist_percents[k]));
                same = false;
            }
        free(x);
        free(scratch);
    }
    g_rand_free(r);
    tap_ok(same, "random data (20 sizes up to 700, with ties): percentiles equal a naive sort's");
}

/* Percentiles over k evenly spaced values of n (value i * n / k), against
 * the naive reference on those values; the count, mean and extremes over
 * all n; k >= n the exact summary; a NaN outside the sample still makes
 * the maximum NaN (NaN sorts above everything). */
static void test_sampled(void)
{
    GRand *r = g_rand_new_with_seed(11);
    bool same = true, extremes = true;
    for (int trial = 0; trial < 12 && same && extremes; trial++) {
        int n = 300 + g_rand_int_range(r, 0, 3000), k = 17 + g_rand_int_range(r, 0, 200);
        float *x = malloc((size_t)n * sizeof *x), *picked = malloc((size_t)k * sizeof *x);
        float *scratch = malloc((size_t)n * sizeof *x);
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++) {
            sum += x[i] = (float)g_rand_double_range(r, -3, 9);
            lo = fmin(lo, x[i]);
            hi = fmax(hi, x[i]);
        }
        for (int i = 0; i < k; i++)
            picked[i] = x[(int64_t)i * n / k];
        rf_distribution d;
        rf_distribution_sampled(x, n, k, scratch, &d);
        same = d.count == n && close_to(d.mean, sum / n, 1e-9);
        extremes = d.q[0] == lo && d.q[RF_DIST_QUANTILES - 1] == hi;
        for (int q = 1; q < RF_DIST_QUANTILES - 1; q++)
            if (!close_to(d.q[q], naive_percentile(picked, k, rf_dist_percents[q]), 1e-9)) {
                tap_diag("n %d k %d p%d: %.9g, the reference %.9g", n, k, rf_dist_percents[q], d.q[q],
                         naive_percentile(picked, k, rf_dist_percents[q]));
                same = false;
            }
        rf_distribution whole, all;
        rf_distribution_of(x, n, scratch, &whole);
        rf_distribution_sampled(x, n, n + 5, scratch, &all);
        same = same && whole.count == all.count && whole.mean == all.mean;
        for (int q = 0; q < RF_DIST_QUANTILES; q++)
            same = same && whole.q[q] == all.q[q];
        if (trial == 0) {
            x[1] = NAN;   /* index 1 is never picked: i * n / k skips it when k < n / 2 */
            rf_distribution_sampled(x, n, k < n / 2 ? k : n / 3, scratch, &d);
            tap_ok(isnan(d.q[RF_DIST_QUANTILES - 1]) && isfinite(d.q[0]),
                   "a NaN outside the sampled values makes the maximum NaN, the minimum stays a number");
        }
        free(x);
        free(picked);
        free(scratch);
    }
    g_rand_free(r);
    tap_ok(same, "sampled (12 sizes, every k-th of n): the percentiles equal a naive sort's of those values, the "
                 "count and mean all n's; k >= n the exact summary");
    tap_ok(extremes, "and the minimum and maximum are all n's, not the sample's");
}

static rf_distribution sample_distribution(const char *name, rf_dist_kind kind, double shift)
{
    rf_distribution d = {.kind = kind, .count = 12, .mean = 0.5 + shift};
    snprintf(d.name, sizeof d.name, "%s", name);
    for (int k = 0; k < RF_DIST_QUANTILES; k++)
        d.q[k] = shift + k * 0.125;
    return d;
}

static GArray *read_rows(const char *path)
{
    g_autoptr(GError) error = NULL;
    GArray *rows = rf_distributions_csv_read(path, &error);
    if (rows == NULL)
        tap_diag("%s", error->message);
    return rows;
}

static void test_csv(const char *dir)
{
    g_autofree char *path = g_build_filename(dir, "distributions.csv", NULL);
    rf_distribution d[2] = {sample_distribution("layer0.w", RF_DIST_PARAM, 0),
                            sample_distribution("layer0.attn.probs", RF_DIST_TAP, -1)};
    rf_distributions_csv *c = rf_distributions_csv_create(path, NULL);
    for (int64_t step = 10; step <= 30; step += 10)
        rf_distributions_csv_write(c, step, d, 2, NULL);
    rf_distributions_csv_close(c);
    GArray *rows = read_rows(path);
    bool same = rows != NULL && rows->len == 6;
    for (guint i = 0; same && i < rows->len; i++) {
        const rf_distribution_row *row = &g_array_index(rows, rf_distribution_row, i);
        const rf_distribution *want = &d[i % 2];
        same = row->step == 10 * (int64_t)(i / 2 + 1) && strcmp(row->d.name, want->name) == 0 &&
               row->d.kind == want->kind && row->d.count == want->count && row->d.mean == want->mean &&
               memcmp(row->d.q, want->q, sizeof want->q) == 0;
    }
    tap_ok(same, "distributions.csv: rows read back as written (step, name, kind, count, percentiles, mean)");
    if (rows != NULL)
        g_array_free(rows, TRUE);

    /* a crash cut the last row short; the run resumes from step 20 */
    FILE *f = fopen(path, "a");
    fputs("40,layer0.w,param,12,0,0.1", f);
    fclose(f);
    c = rf_distributions_csv_resume(path, 20, NULL);
    rf_distributions_csv_write(c, 30, d, 1, NULL);
    rf_distributions_csv_close(c);
    rows = read_rows(path);
    same = rows != NULL && rows->len == 5;
    for (guint i = 0; same && i < rows->len; i++)
        same = g_array_index(rows, rf_distribution_row, i).step == (i < 4 ? 10 * (int64_t)(i / 2 + 1) : 30);
    tap_ok(same, "resume at step 20 cuts the rows after it and a row cut short, then appends");
    if (rows != NULL)
        g_array_free(rows, TRUE);
}

/* A file of HEADER plus `row` fails naming path:2 and `problem`. */
static void expect_bad(const char *dir, const char *row, const char *problem)
{
    g_autofree char *path = g_build_filename(dir, "bad.csv", NULL);
    g_autofree char *text = g_strdup_printf("step,name,kind,count,min,p7,p16,p31,p50,p69,p84,p93,max,mean\n"
                                            "5,a.w,param,3,0,0,0,0,0,0,0,0,0,0\n%s",
                                            row);
    g_file_set_contents(path, text, -1, NULL);
    g_autoptr(GError) error = NULL;
    GArray *rows = rf_distributions_csv_read(path, &error);
    g_autofree char *where = g_strdup_printf("%s:3: ", path);
    bool named = rows == NULL && error != NULL && g_str_has_prefix(error->message, where) &&
                 strstr(error->message, problem) != NULL;
    tap_ok(named, "a bad row is refused naming the file, line 3 and '%s'", problem);
    if (!named)
        tap_diag("got: %s", error != NULL ? error->message : "no error");
    if (rows != NULL)
        g_array_free(rows, TRUE);
}

static void test_bad_files(const char *dir)
{
    expect_bad(dir, "6,a.w,param,3,0,0,0,0,0,0,0,0\n", "12 fields, expected 14");
    expect_bad(dir, "x,a.w,param,3,0,0,0,0,0,0,0,0,0,0\n", "step 'x' is not a step number");
    expect_bad(dir, "4,a.w,param,3,0,0,0,0,0,0,0,0,0,0\n", "step 4 comes after step 5");
    expect_bad(dir, "6,a.w,weights,3,0,0,0,0,0,0,0,0,0,0\n", "kind 'weights' is none of");
    expect_bad(dir, "6,a.w,grad,0,0,0,0,0,0,0,0,0,0,0\n", "count '0' is not a positive");
    expect_bad(dir, "6,a.w,tap,3,0,0,0,zero,0,0,0,0,0,0\n", "p31 'zero' is not a number");
    expect_bad(dir, "6,a.w,tap,3,0,0,0,0,2,1,3,3,3,0\n", "p69 1 is below p50 2");
    expect_bad(dir, "6,,tap,3,0,0,0,0,0,0,0,0,0,0\n", "the name is empty");
    expect_bad(dir, "6,a.w,tap,3,0,0,0,0,0,0,0,0,0,0", "cut short");
}

/* The figure of the run's rows for `name`: its hover, swept over the
 * plot, reads each evaluation's percentiles as the CSV has them; and
 * `rangefinder plot --distribution` writes it. */
static void test_figure(const char *rangefinder, const char *run, const GArray *rows, const char *name)
{
    rf_distribution_figure f;
    rf_distribution_figure_init(&f, name, RF_DIST_GRAD);
    guint kept = rf_distribution_figure_add_run(&f, "run", rows);
    rf_figure fig = rf_distribution_figure_figure(&f);
    rf_zoom all = RF_ZOOM_ALL;
    int steps_read = 0, agree = 0;
    int64_t last = -1;
    for (double px = 0; px < 800; px += 1) {
        char text[512];
        if (!fig.hover(fig.data, 800, 500, &all, px, 250, text, sizeof text))
            continue;
        long long step = -1;
        if (sscanf(text, "run step %lld:", &step) != 1 || step == last)
            continue;
        last = step;
        steps_read++;
        for (guint i = 0; i < rows->len; i++) {
            const rf_distribution_row *r = &g_array_index(rows, rf_distribution_row, i);
            if (r->step != step || r->d.kind != RF_DIST_GRAD || strcmp(r->d.name, name) != 0)
                continue;
            char want[64], min[32], p50[32], max[32];
            rf_format_number(r->d.q[0], min, sizeof min);
            rf_format_number(r->d.q[4], p50, sizeof p50);
            rf_format_number(r->d.q[8], max, sizeof max);
            snprintf(want, sizeof want, "min %s ", min);
            bool same = strstr(text, want) != NULL;
            snprintf(want, sizeof want, " p50 %s ", p50);
            same = same && strstr(text, want) != NULL;
            snprintf(want, sizeof want, " max %s", max);
            same = same && g_str_has_suffix(text, want);
            if (!same)
                tap_diag("hover at step %lld: '%s'; the CSV's min %s p50 %s max %s", step, text, min, p50, max);
            agree += same;
        }
    }
    tap_ok(kept == 2 && steps_read == 2 && agree == 2,
           "the figure's hover over %s's gradient reads both evaluations' percentiles as the CSV holds them", name);
    rf_distribution_figure_clear(&f);

    g_autofree char *svg = g_build_filename(run, "grad.svg", NULL);
    const char *argv[] = {rangefinder, "plot", run, "--distribution", name, "--kind", "grad", "--out", svg, NULL};
    int status = -1;
    bool ran = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                            NULL, NULL, NULL, &status, NULL) &&
               g_spawn_check_wait_status(status, NULL);
    g_autofree char *text = NULL;
    tap_ok(ran && g_file_get_contents(svg, &text, NULL, NULL) && strstr(text, "<svg") != NULL,
           "rangefinder plot --distribution %s --kind grad writes an SVG", name);
    const char *bad[] = {rangefinder, "plot", run, "--distribution", name, "--kind", "weights", "--out", svg, NULL};
    g_autofree char *err = NULL;
    ran = g_spawn_sync(NULL, (char **)bad, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL);
    tap_ok(ran && WIFEXITED(status) && WEXITSTATUS(status) == 2 && strstr(err, "--kind 'weights'") != NULL,
           "an unknown --kind is a usage error naming it");
}

/* `rangefinder train` of a config holding `ini` into DIR/NAME with the
 * `--set` keys in `sets` (NULL-ended): whether it finished; its stdout
 * into *out, its stderr in a diagnostic when it did not. */
static bool train(const char *rangefinder, const char *dir, const char *name, const char *ini,
                  const char *const *sets, char **run, char **out)
{
    g_autofree char *config = g_strdup_printf("%s/%s.ini", dir, name);
    g_file_set_contents(config, ini, -1, NULL);
    *run = g_build_filename(dir, name, NULL);
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    const char *head[] = {rangefinder, "train", "--config", config, "--out", *run};
    for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
        g_ptr_array_add(argv, (gpointer)head[i]);
    for (int i = 0; sets[i] != NULL; i++) {
        g_ptr_array_add(argv, (gpointer) "--set");
        g_ptr_array_add(argv, (gpointer)sets[i]);
    }
    g_ptr_array_add(argv, NULL);
    int status = -1;
    g_autofree char *err = NULL;
    bool ran = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, &err, &status,
                            NULL) &&
               g_spawn_check_wait_status(status, NULL);
    if (!ran)
        tap_diag("%s", err != NULL ? err : "");
    return ran;
}

/* A run of `rangefinder train` for 6 steps, evaluating every 3. */
static void test_trained_run(const char *rangefinder, const char *dir)
{
    const char *sets[] = {"data.max_len=60", "data.min_len=10", "data.train_size=64", "data.val_size=16",
                          "data.test_size=16", "data.batch=4", "model.dim=16", "model.heads=2", "model.ff=32",
                          "train.steps=6", "train.eval_every=3", "train.threads=1", NULL};
    g_autofree char *run = NULL, *out = NULL;
    if (!tap_ok(train(rangefinder, dir, "run", "[data]\ntask = listops\n[train]\nseed = 3\n", sets, &run, &out),
                "rangefinder train: a tiny run of 6 steps, evaluated at steps 3 and 6"))
        return;
    g_autofree char *csv = g_build_filename(run, "distributions.csv", NULL);
    g_autofree char *ckpt = g_build_filename(run, "checkpoint.safetensors", NULL);
    GArray *rows = read_rows(csv);
    rf_status st = {0};
    rf_safetensors *f = rf_safetensors_read(ckpt, &st);
    if (!tap_ok(rows != NULL && f != NULL, "distributions.csv and the checkpoint read back")) {
        tap_diag("%s", st.msg);
        return;
    }
    int params = 0, every = 1, taps = 0, matched = 0, mismatched = 0;
    for (int i = 0; i < rf_safetensors_count(f); i++) {
        const rf_st_tensor *t = rf_safetensors_tensor(f, i);
        if (strncmp(t->name, "optimizer.", 10) == 0)
            continue;
        params++;
        for (int64_t step = 3; step <= 6; step += 3)
            for (rf_dist_kind kind = RF_DIST_PARAM; kind <= RF_DIST_GRAD; kind++) {
                const rf_distribution_row *hit = NULL;
                for (guint r = 0; r < rows->len; r++) {
                    const rf_distribution_row *row = &g_array_index(rows, rf_distribution_row, r);
                    if (row->step == step && row->d.kind == kind && strcmp(row->d.name, t->name) == 0)
                        hit = row;
                }
                if (hit == NULL) {
                    tap_diag("no %s row for %s at step %lld", rf_dist_kind_name(kind), t->name, (long long)step);
                    every = 0;
                    continue;
                }
                if (step != 6 || kind != RF_DIST_PARAM)
                    continue;
                int64_t n = 1;
                for (int k = 0; k < t->ndim; k++)
                    n *= t->shape[k];
                float *scratch = malloc((size_t)n * sizeof *scratch);
                rf_distribution want;
                rf_distribution_of(t->data, n, scratch, &want);
                free(scratch);
                bool same = want.count == hit->d.count && close_to(want.mean, hit->d.mean, 1e-6);
                for (int k = 0; k < RF_DIST_QUANTILES; k++)
                    same = same && close_to(want.q[k], hit->d.q[k], 1e-6);
                if (!same)
                    tap_diag("%s at step 6: the CSV's p50 %.9g, the checkpoint's %.9g", t->name, hit->d.q[4],
                             want.q[4]);
                same ? matched++ : mismatched++;
            }
    }
    bool ordered = true;
    for (guint r = 0; r < rows->len; r++) {
        const rf_distribution_row *row = &g_array_index(rows, rf_distribution_row, r);
        taps += row->d.kind == RF_DIST_TAP;
        ordered = ordered && row->d.q[0] <= row->d.mean && row->d.mean <= row->d.q[RF_DIST_QUANTILES - 1];
    }
    tap_ok(params > 0 && every, "every one of the %d parameter tensors has a param and a grad row at steps 3 and 6",
           params);
    tap_ok(taps > 0, "the model's probe taps have rows (%d)", taps);
    bool probs = false;
    for (guint r = 0; r < rows->len; r++)
        probs = probs || strcmp(g_array_index(rows, rf_distribution_row, r).d.name, "layer0.attn.probs") == 0;
    tap_ok(probs, "among them the attention probabilities, 2 x 60 x 60 floats a sample");
    tap_ok(ordered && rows->len > 0, "min <= mean <= max in every row (the reader checks min <= p7 <= ... <= max)");
    tap_ok(matched == params && mismatched == 0,
           "the step-6 parameter rows equal the distributions of the checkpoint's tensors (%d of %d)", matched, params);
    rf_safetensors_free(f);
    test_figure(rangefinder, run, rows, "layer0.attn.q.weight");
    g_array_free(rows, TRUE);
}

/* `rangefinder train` on long_match with `sets` into DIR/NAME: its
 * distributions.csv's rows (NULL when it did not run or read), its stdout
 * in *out. */
static GArray *long_match_rows(const char *rangefinder, const char *dir, const char *name, const char *const *sets,
                               const char *what, char **out)
{
    g_autofree char *run = NULL;
    if (!tap_ok(train(rangefinder, dir, name, "[data]\ntask = long_match\n[train]\nseed = 3\n", sets, &run, out),
                "rangefinder train: %s", what))
        return NULL;
    g_autofree char *csv = g_build_filename(run, "distributions.csv", NULL);
    return read_rows(csv);
}

/* The peak_rss_bytes of train's result line in `out`; -1 without one. */
static double peak_rss(const char *out)
{
    const char *at = out != NULL ? strstr(out, "\"peak_rss_bytes\":") : NULL;
    return at != NULL ? g_ascii_strtod(at + strlen("\"peak_rss_bytes\":"), NULL) : -1;
}

/* Full attention at 8,192 tokens: its probabilities tap holds 2 heads x
 * 8,192 x 8,192 floats a sample (512 MiB), past RF_DIST_TAP_MAX_FLOATS, so
 * the run's distributions leave it out, keep the small taps, and the run's
 * memory stays near its 16 MiB plan (reading that tap took 2 GiB). */
static void test_long_run(const char *rangefinder, const char *dir)
{
    const char *sets[] = {"data.max_len=8192", "data.train_size=16", "data.val_size=2", "data.test_size=2",
                          "data.batch=1", "model.encoder=full", "model.dim=16", "model.heads=2", "model.ff=32",
                          "train.steps=1", "train.warmup=0", "train.threads=2", NULL};
    g_autofree char *out = NULL;
    GArray *rows = long_match_rows(rangefinder, dir, "long", sets, "full attention at 8,192 tokens, one step", &out);
    if (out == NULL)
        return;
    int taps = 0, probs = 0;
    for (guint r = 0; rows != NULL && r < rows->len; r++) {
        const rf_distribution *d = &g_array_index(rows, rf_distribution_row, r).d;
        taps += d->kind == RF_DIST_TAP;
        probs += strstr(d->name, "attn.probs") != NULL;
    }
    tap_ok(rows != NULL && taps > 0 && probs == 0,
           "its distributions keep %d small taps and leave out the 8,192 x 8,192 probabilities (%d rows of them)",
           taps, probs);
    double rss = peak_rss(out);
    tap_ok(rss > 0 && rss < 1024.0 * 1024 * 1024, "and the run's peak RSS stays under 1 GiB (%.0f MiB)",
           rss / (1024.0 * 1024));
    if (rows != NULL)
        g_array_free(rows, TRUE);
}

/* BLRP at 16,384 tokens, segments recomputed: its forward taps (every
 * segment's latent attention maps) hold about 420 MiB for one sample, far
 * more than the run's plan (about 60 MiB); they are summarised as the
 * pass makes them, so the run's peak RSS stays below what a copy of them
 * would take (when every tap was copied first, 583 MiB). */
static void test_long_blrp_run(const char *rangefinder, const char *dir)
{
    const char *sets[] = {"data.max_len=16384", "data.train_size=8", "data.val_size=1", "data.test_size=1",
                          "data.batch=1", "model.encoder=blrp", "model.layers=1", "train.steps=1",
                          "train.warmup=0", "train.recompute=segments", "train.threads=2", NULL};
    g_autofree char *out = NULL;
    GArray *rows = long_match_rows(rangefinder, dir, "blrp", sets, "BLRP at 16,384 tokens, one step", &out);
    if (out == NULL)
        return;
    double tap_bytes = 0;
    int maps = 0;
    for (guint r = 0; rows != NULL && r < rows->len; r++) {
        const rf_distribution *d = &g_array_index(rows, rf_distribution_row, r).d;
        if (d->kind == RF_DIST_TAP)
            tap_bytes += (double)d->count * sizeof(float);
        maps += strstr(d->name, "reads_segment") != NULL;
    }
    double rss = peak_rss(out);
    tap_ok(rows != NULL && maps > 100, "its distributions have every segment's latent attention map (%d rows)", maps);
    tap_ok(rss > 0 && rss < tap_bytes, "the taps summarised hold %.0f MiB a sample, more than the run's whole peak "
           "RSS (%.0f MiB): none was copied", tap_bytes / 1048576, rss / 1048576);
    if (rows != NULL)
        g_array_free(rows, TRUE);
}

/* A file a run is writing, read as the workbench follows it: the rows
 * written whole, a last row not yet ended left out, a header not yet whole
 * giving no rows; a bad whole row still refused. */
static void test_file_being_written(const char *dir)
{
    g_autofree char *path = g_build_filename(dir, "growing.csv", NULL);
    static const char header[] = "step,name,kind,count,min,p7,p16,p31,p50,p69,p84,p93,max,mean\n";
    g_autofree char *text = g_strconcat(header, "5,a.w,param,3,0,0,0,0,1,1,1,1,1,0.5\n6,a.w,par", NULL);
    g_file_set_contents(path, text, -1, NULL);
    g_autoptr(GError) error = NULL;
    GArray *rows = rf_distributions_csv_read_written(path, &error);
    tap_ok(rows != NULL && rows->len == 1 && g_array_index(rows, rf_distribution_row, 0).step == 5 &&
               g_array_index(rows, rf_distribution_row, 0).d.q[4] == 1,
           "a file being written: its whole rows read, the row not yet ended left out (%s)",
           error != NULL ? error->message : "");
    if (rows != NULL)
        g_array_free(rows, TRUE);
    g_file_set_contents(path, "step,name,kind,cou", -1, NULL);
    g_clear_error(&error);
    rows = rf_distributions_csv_read_written(path, &error);
    tap_ok(rows != NULL && rows->len == 0, "a header not yet whole: no rows, no error (%s)",
           error != NULL ? error->message : "");
    if (rows != NULL)
        g_array_free(rows, TRUE);
    g_autofree char *bad = g_strconcat(header, "5,a.w,param,3,0,0,0,0,1,1,1,1,1\n", NULL);
    g_file_set_contents(path, bad, -1, NULL);
    g_clear_error(&error);
    rows = rf_distributions_csv_read_written(path, &error);
    tap_ok(rows == NULL && error != NULL && strstr(error->message, ":2: 13 fields") != NULL,
           "a bad whole row is still refused with its line (%s)", error != NULL ? error->message : "read");
    if (rows != NULL)
        g_array_free(rows, TRUE);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH/TO/rangefinder\n", argv[0]);
        return 2;
    }
    g_autofree char *dir = g_dir_make_tmp("rf-dist-XXXXXX", NULL);
    test_hand_case();
    test_random();
    test_sampled();
    test_csv(dir);
    test_bad_files(dir);
    test_file_being_written(dir);
    test_trained_run(argv[1], dir);
    test_long_run(argv[1], dir);
    test_long_blrp_run(argv[1], dir);
    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
    if (system(rm) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
