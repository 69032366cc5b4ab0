/* Sweep files (config/sweep_file.h): grid order and count, the budget in
 * runs, random draws reproducible and within their ranges, every trial's
 * config, and one clear error naming the file, the line and the key for
 * each kind of bad file. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "../config/sweep_file.h"
#include "tap.h"

static char *dir;

/* `text` written to DIR/name; its path. */
static char *write_file(const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);
    g_file_set_contents(path, text, -1, NULL);
    return path;
}

/* The error loading `text`, or "" when it loads. */
static char *load_error(const char *text)
{
    g_autofree char *path = write_file("bad.ini", text);
    GError *error = NULL;
    rf_sweep *s = rf_sweep_load(path, &error);
    rf_sweep_free(s);
    char *msg = g_strdup(error != NULL ? error->message : "");
    g_clear_error(&error);
    return msg;
}

static void check_error(const char *what, const char *text, const char *want1, const char *want2)
{
    g_autofree char *msg = load_error(text);
    tap_ok(strstr(msg, want1) != NULL && strstr(msg, want2) != NULL, "%s: '%s' names '%s' and '%s'", what, msg, want1,
           want2);
}

static void test_grid(void)
{
    g_autofree char *path = write_file("grid.ini", "[sweep]\nmethod = grid\n\n[keys]\n"
                                                   "model.encoder = ls, talk, linear\n"
                                                   "train.lr = 1e-3, 3e-4\n");
    GError *error = NULL;
    g_autoptr(rf_sweep) s = rf_sweep_load(path, &error);
    if (!tap_ok(s != NULL, "a grid sweep file loads (%s)", error != NULL ? error->message : "ok"))
        return;
    tap_ok(rf_sweep_trial_count(s) == 6, "3 x 2 values: 6 trials (got %d)", rf_sweep_trial_count(s));
    const char *want[6][2] = {{"ls", "1e-3"},     {"ls", "3e-4"},     {"talk", "1e-3"},
                              {"talk", "3e-4"},   {"linear", "1e-3"}, {"linear", "3e-4"}};
    bool in_order = true;
    for (int i = 0; i < 6; i++) {
        g_auto(GStrv) v = rf_sweep_trial_values(s, i);
        in_order = in_order && strcmp(v[0], want[i][0]) == 0 && strcmp(v[1], want[i][1]) == 0;
        if (!in_order)
            tap_diag("trial %d: %s %s", i + 1, v[0], v[1]);
    }
    tap_ok(in_order, "every combination once, the last key changing fastest, in the file's order");
    rf_config cfg;
    g_auto(GStrv) sets = NULL;
    tap_ok(rf_sweep_trial_config(s, 4, &cfg, &sets, NULL) && strcmp(cfg.model.encoder, "linear") == 0 &&
               fabsf(cfg.train.lr - 1e-3f) < 1e-9f && g_strv_length(sets) == 2,
           "trial 5's config has model.encoder = linear, train.lr = 1e-3");

    g_autofree char *cut = write_file("cut.ini", "[sweep]\nmethod = grid\nbudget_runs = 4\n\n[keys]\n"
                                                 "model.encoder = ls, talk, linear\ntrain.lr = 1e-3, 3e-4\n");
    g_autoptr(rf_sweep) c = rf_sweep_load(cut, NULL);
    tap_ok(c != NULL && rf_sweep_trial_count(c) == 4, "budget_runs = 4 cuts the grid of 6 to its first 4");
}

static void test_random(void)
{
    g_autofree char *path = write_file("random.ini", "[sweep]\nmethod = random\nbudget_runs = 50\nseed = 7\n\n"
                                                     "[keys]\ntrain.lr = log-uniform 1e-4 3e-3\n"
                                                     "model.dropout = uniform 0 0.3\nmodel.layers = int 1 4\n"
                                                     "model.encoder = ls, talk\n");
    GError *error = NULL;
    g_autoptr(rf_sweep) s = rf_sweep_load(path, &error);
    if (!tap_ok(s != NULL, "a random sweep file loads (%s)", error != NULL ? error->message : "ok"))
        return;
    tap_ok(rf_sweep_trial_count(s) == 50, "budget_runs = 50: 50 trials");
    bool within = true, low_lr = false, high_lr = false, both_encoders[2] = {false, false}, all_layers[4] = {0};
    for (int i = 0; i < 50; i++) {
        g_auto(GStrv) v = rf_sweep_trial_values(s, i);
        double lr = g_ascii_strtod(v[0], NULL), dropout = g_ascii_strtod(v[1], NULL);
        int layers = atoi(v[2]);
        within = within && lr >= 1e-4 * 0.9999 && lr <= 3e-3 * 1.0001 && dropout >= 0 && dropout <= 0.3 &&
                 layers >= 1 && layers <= 4;
        low_lr = low_lr || lr < 5e-4;     /* log-uniform: a third of the draws below 5e-4 */
        high_lr = high_lr || lr > 1e-3;
        both_encoders[strcmp(v[3], "talk") == 0] = true;
        if (layers >= 1 && layers <= 4)
            all_layers[layers - 1] = true;
    }
    tap_ok(within, "50 draws within their ranges (log-uniform, uniform, int)");
    tap_ok(low_lr && high_lr && both_encoders[0] && both_encoders[1] && all_layers[0] && all_layers[3],
           "the draws cover the ranges: lr below 5e-4 and above 1e-3, both encoders, 1 and 4 layers");
    g_autoptr(rf_sweep) again = rf_sweep_load(path, NULL);
    bool same = again != NULL;
    for (int i = 0; same && i < 50; i++) {
        g_auto(GStrv) a = rf_sweep_trial_values(s, i);
        g_auto(GStrv) b = rf_sweep_trial_values(again, i);
        same = g_strv_equal((const char *const *)a, (const char *const *)b);
    }
    g_auto(GStrv) later = rf_sweep_trial_values(s, 3);
    g_auto(GStrv) earlier = rf_sweep_trial_values(s, 2);
    g_auto(GStrv) third = rf_sweep_trial_values(s, 3);
    tap_ok(same && g_strv_equal((const char *const *)later, (const char *const *)third) &&
               !g_strv_equal((const char *const *)later, (const char *const *)earlier),
           "the same seed draws the same values for each trial, whenever it is asked; trials differ");
    g_autofree char *other = write_file("other.ini", "[sweep]\nmethod = random\nbudget_runs = 50\nseed = 8\n\n"
                                                     "[keys]\ntrain.lr = log-uniform 1e-4 3e-3\n");
    g_autoptr(rf_sweep) o = rf_sweep_load(other, NULL);
    g_auto(GStrv) seed7 = rf_sweep_trial_values(s, 0);
    g_auto(GStrv) seed8 = o != NULL ? rf_sweep_trial_values(o, 0) : NULL;
    tap_ok(seed8 != NULL && strcmp(seed8[0], seed7[0]) != 0, "another seed draws another value (%s, %s)",
           seed7[0], seed8 != NULL ? seed8[0] : "none");
}

int main(void)
{
    dir = g_dir_make_tmp("rf-sweep-file-XXXXXX", NULL);
    test_grid();
    test_random();

    check_error("no [sweep] section", "[keys]\nmodel.encoder = ls\n", "bad.ini", "no [sweep] section");
    check_error("no [keys] section", "[sweep]\nmethod = grid\n", "bad.ini", "no [keys] section");
    check_error("an unknown key", "[sweep]\nmethod = grid\n\n[keys]\nmodel.encoder = ls\nmodel.colour = red\n",
                "bad.ini:6", "model.colour");
    check_error("a bad value", "[sweep]\nmethod = grid\n\n[keys]\nmodel.encoder = ls, lstm\n", "bad.ini:5", "lstm");
    check_error("a bad range", "[sweep]\nmethod = random\nbudget_runs = 3\n\n[keys]\ntrain.lr = log-uniform 3e-3 1e-4\n",
                "bad.ini:6", "low bound must be below");
    check_error("a log range from 0", "[sweep]\nmethod = random\nbudget_runs = 3\n\n[keys]\ntrain.lr = log-uniform 0 1\n",
                "bad.ini:6", "above 0");
    check_error("a range outside the key's", "[sweep]\nmethod = random\nbudget_runs = 3\n\n[keys]\nmodel.dropout = uniform 0 2\n",
                "bad.ini:6", "allows 0 to");
    check_error("a float range on an int key", "[sweep]\nmethod = random\nbudget_runs = 3\n\n[keys]\nmodel.layers = uniform 1 4\n",
                "bad.ini:6", "whole numbers");
    check_error("a range in a grid", "[sweep]\nmethod = grid\n\n[keys]\ntrain.lr = uniform 0.1 0.2\n", "bad.ini:5",
                "grid search takes lists");
    check_error("an unknown [sweep] key", "[sweep]\nmethod = grid\nbudget = 3\n\n[keys]\nmodel.encoder = ls\n",
                "bad.ini:3", "budget: unknown key");
    check_error("a bad method", "[sweep]\nmethod = bayes\n\n[keys]\nmodel.encoder = ls\n", "bad.ini:2", "grid|random");
    check_error("random without a budget", "[sweep]\nmethod = random\n\n[keys]\nmodel.encoder = ls\n", "bad.ini",
                "needs budget_runs or budget_minutes");
    check_error("a bad base key", "[sweep]\nmethod = grid\n\n[model]\ndim = -3\n\n[keys]\nmodel.encoder = ls\n",
                "bad.ini:5", "dim");

    /* a combination the config refuses: heads must divide dim */
    g_autofree char *path = write_file("combo.ini", "[sweep]\nmethod = grid\n\n[model]\ndim = 16\n\n[keys]\n"
                                                    "model.heads = 2, 3\n");
    g_autoptr(rf_sweep) s = rf_sweep_load(path, NULL);
    GError *error = NULL;
    rf_config cfg;
    bool first = s != NULL && rf_sweep_trial_config(s, 0, &cfg, NULL, NULL);
    bool second = s != NULL && rf_sweep_trial_config(s, 1, &cfg, NULL, &error);
    tap_ok(first && !second && error != NULL && strstr(error->message, "combo.ini: trial 2 (model.heads=3)") != NULL,
           "each trial's whole config is validated: %s", error != NULL ? error->message : "no error");
    g_clear_error(&error);

    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
    if (system(rm) != 0)
        tap_diag("could not remove %s", dir);
    g_free(dir);
    return tap_done();
}
