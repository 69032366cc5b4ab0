/* The weights a run keeps at its evaluations (core/kept_weights.h): the
 * thinning rule on hand-worked cases and over a long run, the folder's
 * listing, and the weights file (core/checkpoint.h's values-only file)
 * read back, damaged and foreign. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "kept_weights.h"
#include "params.h"
#include "safetensors.h"
#include "tap.h"

#define MAX_STEPS 512

static char test_dir[] = "/tmp/rf_test_kept_weights.XXXXXX";

/* The steps rf_kept_weights_thin keeps of steps[0..n), in place; their count. */
static int thin(int64_t *steps, int n, int keep)
{
    bool drop[MAX_STEPS];
    int left = rf_kept_weights_thin(steps, n, keep, drop);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!drop[i])
            steps[k++] = steps[i];
    return k == left ? k : -1;
}

static bool same_steps(const int64_t *got, int n, const int64_t *want, int m)
{
    return n == m && memcmp(got, want, (size_t)n * sizeof *got) == 0;
}

static void test_thin_by_hand(void)
{
    int64_t few[] = {0, 10, 20};
    tap_ok(thin(few, 3, 3) == 3 && few[2] == 20, "no more steps than kept: none is dropped");

    /* merged gaps of the interior steps: 10 -> 20, 20 -> 11, 21 -> 10 */
    int64_t s[] = {0, 10, 20, 21, 30};
    int n = thin(s, 5, 4);
    tap_ok(same_steps(s, n, (int64_t[]){0, 10, 20, 30}, 4),
           "0 10 20 21 30 to 4: 21 goes (its neighbours 20 and 30 are the closest pair it leaves)");

    int64_t e[] = {0, 1, 2, 3};
    n = thin(e, 4, 3);
    tap_ok(same_steps(e, n, (int64_t[]){0, 2, 3}, 3), "equal gaps: the earliest interior step goes");

    int64_t t[] = {0, 5, 6, 7, 100};
    n = thin(t, 5, 2);
    tap_ok(same_steps(t, n, (int64_t[]){0, 100}, 2), "keep 2: the first and the latest stay");

    int64_t one[] = {3, 6, 9};
    n = thin(one, 3, 1);
    tap_ok(same_steps(one, n, (int64_t[]){9}, 1), "keep 1: only the latest stays");
    int64_t none[] = {3, 6, 9};
    tap_ok(thin(none, 3, 0) == 0, "keep 0: none stays");
}

/* A run evaluated every 50 steps for 300 evaluations, keeping 20, thinned
 * after each as the trainer does: the first and the latest are always
 * there, never more than 20, and the kept steps stay spread over the run. */
static void test_thin_over_a_run(void)
{
    enum { KEEP = 20, EVALS = 300, EVERY = 50 };
    int64_t kept[MAX_STEPS];
    int n = 0;
    bool bounded = true, ends = true, spread = true;
    for (int e = 1; e <= EVALS; e++) {
        kept[n++] = (int64_t)e * EVERY;
        n = thin(kept, n, KEEP);
        bounded = bounded && n >= 1 && n <= KEEP;
        ends = ends && kept[0] == EVERY && kept[n - 1] == (int64_t)e * EVERY;
        if (e >= 2 * KEEP) {
            /* no gap more than three times an even spread's, so every
             * part of the run is seen */
            double even = (double)(kept[n - 1] - kept[0]) / (KEEP - 1);
            for (int i = 1; i < n; i++)
                if ((double)(kept[i] - kept[i - 1]) > 3 * even) {
                    if (spread)
                        tap_diag("after %d evaluations: gap %lld..%lld against an even %.0f", e,
                                 (long long)kept[i - 1], (long long)kept[i], even);
                    spread = false;
                }
        }
    }
    tap_ok(bounded, "a run of %d evaluations never keeps more than %d", EVALS, KEEP);
    tap_ok(ends, "the first evaluation and the latest are always kept");
    tap_ok(n == KEEP, "at the end %d are kept (got %d)", KEEP, n);
    tap_ok(spread, "no gap between kept steps is ever more than 3x an even spread's");
    int first_half = 0;
    for (int i = 0; i < n; i++)
        first_half += kept[i] <= (int64_t)EVALS * EVERY / 2;
    tap_ok(first_half >= KEEP / 4 && n - first_half >= KEEP / 4,
           "both halves of the run keep at least %d steps (%d and %d)", KEEP / 4, first_half, n - first_half);
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f != NULL)
        fclose(f);
}

static void test_listing(void)
{
    char run[600], dir[700], path[800];
    int64_t *steps = NULL;
    int n = -1;
    rf_status st = {0};
    snprintf(run, sizeof run, "%s/run", test_dir);
    mkdir(run, 0755);
    tap_ok(rf_kept_weights_list(run, &steps, &n, &st) && n == 0 && steps == NULL,
           "a run folder without weights/ keeps no steps");
    snprintf(dir, sizeof dir, "%s/weights", run);
    mkdir(dir, 0755);
    const int64_t made[] = {1500, 20, 1000000, 500};
    for (int i = 0; i < 4; i++) {
        tap_ok(rf_kept_weights_path(run, made[i], path, sizeof path), "the path of step %lld fits",
               (long long)made[i]);
        touch(path);
    }
    rf_kept_weights_path(run, 20, path, sizeof path);
    tap_ok(strcmp(strrchr(path, '/'), "/step-000020.safetensors") == 0, "step 20's file is %s",
           strrchr(path, '/') + 1);
    const char *others[] = {"step-000030.safetensors.tmp-AbC123", "notes.txt", "step-.safetensors",
                            "step-12x.safetensors", "checkpoint.safetensors"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, others[i]);
        touch(path);
    }
    bool ok = rf_kept_weights_list(run, &steps, &n, &st);
    tap_ok(ok && same_steps(steps, n, (int64_t[]){20, 500, 1500, 1000000}, 4),
           "the listing holds the four kept steps, ascending, and nothing else of the folder");
    free(steps);

    /* resumed at step 500: 1500 and 1,000,000 are trained again */
    ok = rf_kept_weights_forget_after(run, 500, &st) && rf_kept_weights_list(run, &steps, &n, &st);
    snprintf(path, sizeof path, "%s/%s", dir, others[0]);
    bool temp_gone = access(path, F_OK) != 0;
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    tap_ok(ok && same_steps(steps, n, (int64_t[]){20, 500}, 2) && temp_gone && access(path, F_OK) == 0,
           "resumed at step 500, the weights kept past it and a killed write's temporary file are removed, "
           "other files stay");
    free(steps);
}

static rf_params *make_store(bool values_only, rf_status *st)
{
    rf_params *p = rf_params_new(7);
    rf_params_register(p, "embed.weight", (rf_shape){2, {10, 4, 1, 1}}, RF_INIT_NORMAL, 0.1f, st);
    rf_params_register(p, "head.bias", (rf_shape){1, {3, 1, 1, 1}}, RF_INIT_NORMAL, 0.1f, st);
    if (values_only)
        rf_params_set_values_only(p);
    rf_params_allocate(p, st);
    return p;
}

/* The parameters' values (the store's padding between them aside). */
static bool same_values(const rf_params *a, const rf_params *b)
{
    for (int k = 0; k < a->count; k++)
        if (memcmp(a->value + a->entries[k].offset, b->value + b->entries[k].offset,
                   (size_t)a->entries[k].numel * sizeof(float)) != 0)
            return false;
    return a->count == b->count;
}

static void test_weights_file(void)
{
    rf_status st = {0};
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_params *from = make_store(true, &st);
    for (size_t i = 0; i < from->total; i++)
        from->value[i] = 0.25f * (float)i - 3.0f;
    char path[600], bad[600];
    snprintf(path, sizeof path, "%s/w.safetensors", test_dir);
    tap_ok(rf_checkpoint_save_weights(path, &cfg, from, 40, &st), "a values-only store writes a weights file (%s)",
           st.msg);

    rf_safetensors *f = rf_safetensors_read(path, &st);
    tap_ok(f != NULL && rf_safetensors_count(f) == 2 && rf_safetensors_find(f, "optimizer.m.head.bias") == NULL &&
               strcmp(rf_safetensors_meta(f, "optimizer"), "none") == 0,
           "the file holds the two parameters alone, and says optimizer = none");
    rf_safetensors_free(f);

    rf_params *full = make_store(false, &st);
    for (size_t i = 0; i < full->total; i++)
        full->m[i] = full->v[i] = 1.0f;
    int64_t step = -1;
    bool ok = rf_checkpoint_load(path, full, &step, &st);
    bool zero_moments = true;
    for (size_t i = 0; i < full->total; i++)
        zero_moments = zero_moments && full->m[i] == 0 && full->v[i] == 0;
    tap_ok(ok && step == 40 && same_values(full, from) && zero_moments,
           "a training store loads it: the same values, step 40, its AdamW moments zeroed (%s)", st.msg);
    rf_params *values = make_store(true, &st);
    tap_ok(rf_checkpoint_load(path, values, &step, &st) &&
               same_values(values, from),
           "a forward-only store loads it");

    /* one byte of the data flipped */
    FILE *in = fopen(path, "rb");
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    unsigned char *bytes = malloc((size_t)size);
    fseek(in, 0, SEEK_SET);
    size_t got = fread(bytes, 1, (size_t)size, in);
    fclose(in);
    bytes[size - 5] ^= 0x40;
    snprintf(bad, sizeof bad, "%s/damaged.safetensors", test_dir);
    FILE *out = fopen(bad, "wb");
    fwrite(bytes, 1, got, out);
    fclose(out);
    free(bytes);
    rf_status err = {0};
    tap_ok(!rf_checkpoint_load(bad, values, &step, &err) && strstr(err.msg, bad) != NULL &&
               strstr(err.msg, "damaged") != NULL,
           "a damaged weights file is refused, naming the file: %s", err.msg);

    /* a safetensors file of someone else's */
    snprintf(bad, sizeof bad, "%s/foreign.safetensors", test_dir);
    float x[3] = {1, 2, 3};
    rf_st_tensor t = {.name = "head.bias", .ndim = 1, .shape = {3}, .data = x};
    rf_safetensors_write(bad, &t, 1, NULL, 0, &st);
    err = (rf_status){0};
    tap_ok(!rf_checkpoint_load(bad, values, &step, &err) && strstr(err.msg, bad) != NULL &&
               strstr(err.msg, "not a Rangefinder checkpoint") != NULL,
           "a foreign safetensors file is refused, naming the file: %s", err.msg);
    rf_params_free(from);
    rf_params_free(full);
    rf_params_free(values);
}

int main(void)
{
    if (mkdtemp(test_dir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    test_thin_by_hand();
    test_thin_over_a_run();
    test_listing();
    test_weights_file();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_dir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", test_dir);
    return tap_done();
}
