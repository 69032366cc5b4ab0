/* rf_baselines_measure and the rules it fits (datasets/baselines.h): on a small table whose
 * answers are counted by hand (ties, a first token never seen in training,
 * the majority differing from the first-token rule), on generated ListOps
 * against a recount from the expressions' text (the outermost operator is
 * the first word), and its refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../datasets/baselines.h"
#include "../datasets/datasets.h"
#include "tap.h"

/* (first token, label) per sample; every sample is its first token then a 4 */
typedef struct { int first, label; } pair;
static const pair train[] = {{1, 0}, {1, 0}, {1, 2}, {2, 1}, {2, 1}, {3, 2}, {3, 1}};
/* token 1 -> 0, 2 -> 1, 3 -> 1 (a tie of 1 and 2: the lower class), 4 unseen -> the majority, 1 */
static const pair test[] = {{1, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 1}, {1, 1}};

static bool table_get(const rf_dataset *ds, rf_split split, int64_t i, float *x, int *len, int *label,
                      rf_status *st)
{
    (void)ds;
    (void)st;
    const pair *p = split == RF_SPLIT_TRAIN ? &train[i] : &test[i];
    x[0] = (float)p->first;
    x[1] = 4.0f;
    *len = 2;
    *label = p->label;
    return true;
}

static void test_table(void)
{
    rf_dataset ds = {.name = "table", .seq_len = 3, .vocab = 5, .classes = 3, .get = table_get};
    ds.size[RF_SPLIT_TRAIN] = sizeof train / sizeof *train;
    ds.size[RF_SPLIT_TEST] = sizeof test / sizeof *test;
    rf_baselines b = {0};
    rf_status st = {0};
    tap_ok(rf_baselines_measure(&ds, RF_SPLIT_TEST, &b, &st), "a token table is measured (%s)", st.msg);
    /* first-token rule right on samples 1, 2, 3, 5 (4/6); majority class 1 on 3, 5, 6 (3/6) */
    tap_ok(fabs(b.first_token - 4.0 / 6.0) < 1e-12, "first token: 4 of 6 (got %.4f)", b.first_token);
    tap_ok(fabs(b.majority - 3.0 / 6.0) < 1e-12, "majority: 3 of 6 (got %.4f)", b.majority);
    rf_baseline_rules r;
    tap_ok(rf_baseline_rules_fit(&ds, &r, &st), "the rules are fitted (%s)", st.msg);
    tap_ok(r.majority == 1 && rf_baseline_rules_first_token(&r, 1) == 0 && rf_baseline_rules_first_token(&r, 2) == 1 &&
               rf_baseline_rules_first_token(&r, 3) == 1 && rf_baseline_rules_first_token(&r, 4) == 1 &&
               rf_baseline_rules_first_token(&r, -1) == 1 && rf_baseline_rules_first_token(&r, 99) == 1,
           "the rules answer sample by sample: majority 1; token 1 -> 0, 2 -> 1, 3 (a tie) -> 1, unseen -> 1");
    rf_baseline_rules_clear(&r);

    ds.size[RF_SPLIT_VAL] = 0;
    rf_status_clear(&st);
    tap_ok(!rf_baselines_measure(&ds, RF_SPLIT_VAL, &b, &st) && strstr(st.msg, "val") != NULL,
           "an empty split is refused: %s", st.msg);
    ds.feat_dim = 2;
    rf_status_clear(&st);
    tap_ok(!rf_baselines_measure(&ds, RF_SPLIT_TEST, &b, &st) && strstr(st.msg, "token data") != NULL,
           "float data is refused: %s", st.msg);
}

/* The rules refitted from describe()'s text: the first word of an expression. */
static void recount(const rf_dataset *ds, double *first_token, double *majority)
{
    enum { OPS = 8, CLASSES = 10 };
    char names[OPS][16] = {{0}};
    int64_t counts[OPS][CLASSES] = {{0}}, all[CLASSES] = {0};
    char buf[64];
    for (int pass = 0; pass < 2; pass++) {
        rf_split split = pass == 0 ? RF_SPLIT_TRAIN : RF_SPLIT_TEST;
        int64_t right_first = 0, right_major = 0;
        int major = 0;
        for (int k = 1; k < CLASSES; k++)
            major = all[k] > all[major] ? k : major;
        float *x = calloc((size_t)ds->seq_len, sizeof *x);
        for (int64_t i = 0; i < ds->size[split]; i++) {
            int len, label;
            ds->get(ds, split, i, x, &len, &label, NULL);
            ds->describe(ds, split, i, buf, sizeof buf);
            *strchr(buf, ' ') = '\0';
            int op = 0;
            while (op < OPS - 1 && names[op][0] != '\0' && strcmp(names[op], buf) != 0)
                op++;
            if (pass == 0) {
                snprintf(names[op], sizeof names[op], "%.15s", buf);
                counts[op][label]++;
                all[label]++;
                continue;
            }
            int guess = 0;
            for (int k = 1; k < CLASSES; k++)
                guess = counts[op][k] > counts[op][guess] ? k : guess;
            right_first += guess == label;
            right_major += major == label;
        }
        free(x);
        if (pass == 1) {
            *first_token = (double)right_first / (double)ds->size[split];
            *majority = (double)right_major / (double)ds->size[split];
        }
    }
}

static void test_listops(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    bool ok = rf_config_set(&cfg, "data.task", "listops", &st) && rf_config_set(&cfg, "data.max_len", "200", &st) &&
              rf_config_set(&cfg, "data.min_len", "20", &st) && rf_config_set(&cfg, "data.train_size", "3000", &st) &&
              rf_config_set(&cfg, "data.test_size", "600", &st);
    rf_dataset *ds = ok ? rf_dataset_open(&cfg, &st) : NULL;
    tap_ok(ds != NULL, "ListOps opens (%s)", st.msg);
    if (ds == NULL)
        return;
    rf_baselines b;
    tap_ok(rf_baselines_measure(ds, RF_SPLIT_TEST, &b, &st), "ListOps is measured (%s)", st.msg);
    double first, major;
    recount(ds, &first, &major);
    tap_ok(b.first_token == first && b.majority == major,
           "ListOps: first token %.4f and majority %.4f, as recounted from the outermost operators' text "
           "(%.4f, %.4f)", b.first_token, b.majority, first, major);
    tap_ok(b.first_token > b.majority + 0.1, "the outermost operator tells far more than the majority class "
           "(%.3f against %.3f)", b.first_token, b.majority);
    rf_dataset_free(ds);
}

int main(void)
{
    test_table();
    test_listops();
    return tap_done();
}
