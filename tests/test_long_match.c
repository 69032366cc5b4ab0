/* The long-range match task (datasets/long_match.h): every sample holds
 * exactly one A marker and one B marker, each with a digit, anywhere in
 * the sequence, and its label is the digits' sum; samples are a
 * function of (seed, split, index); the markers spread over the whole
 * length; either digit alone says nothing about the label; text inputs
 * featurise token by token, with bad ones refused by place; a sample's
 * head (what the baselines read) is the whole sample's, and baselines
 * measured through it are those of whole samples. The markers
 * are found here by a scan of our own, not by the task's
 * rf_long_match_find. */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../datasets/baselines.h"
#include "../datasets/datasets.h"
#include "../datasets/long_match.h"
#include "tap.h"

static rf_dataset *open_task(int len, int size, uint64_t seed, rf_status *st)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "long_match");
    cfg.data.max_len = len;
    cfg.data.train_size = cfg.data.val_size = cfg.data.test_size = size;
    cfg.train.seed = seed;
    return rf_dataset_open(&cfg, st);
}

typedef struct marks {
    int count_a, count_b, a, b, digit_a, digit_b;
} marks;

/* The markers as a reader would find them: tokens 1-10 are A0-A9, 11-20 B0-B9. */
static marks scan(const float *x, int len)
{
    marks m = {0, 0, -1, -1, -1, -1};
    for (int i = 0; i < len; i++) {
        int t = (int)x[i];
        if (t >= 1 && t <= 10)
            m.count_a++, m.a = i, m.digit_a = t - 1;
        else if (t >= 11 && t <= 20)
            m.count_b++, m.b = i, m.digit_b = t - 11;
    }
    return m;
}

/* Every sample at length `len`: one A, one B, every other token a
 * distractor (a plain digit 21-30 or the dot 31), the label a + b. */
static int bad_samples(rf_dataset *ds, int len, int n, int *pairs_seen)
{
    float *x = malloc((size_t)len * sizeof *x);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int got = 0, label = -1;
        rf_status st = {0};
        if (!ds->get(ds, RF_SPLIT_TRAIN, i, x, &got, &label, &st) || got != len) {
            bad++;
            continue;
        }
        marks m = scan(x, len);
        bool ok = m.count_a == 1 && m.count_b == 1 && label == m.digit_a + m.digit_b;
        for (int t = 0; ok && t < len; t++)
            if (t != m.a && t != m.b)
                ok = x[t] >= 21 && x[t] <= 31;
        bad += !ok;
        if (ok && pairs_seen != NULL)
            pairs_seen[m.a * len + m.b] = 1;
    }
    free(x);
    return bad;
}

static void test_samples(void)
{
    rf_status st = {0};
    rf_dataset *ds = open_task(64, 2000, 7, &st);
    if (!tap_ok(ds != NULL && ds->seq_len == 64 && ds->vocab == 32 && ds->classes == 19 &&
                    strcmp(ds->class_names[13], "13") == 0,
                "long_match opens with 32 tokens and 19 classes (%s)", st.msg))
        return;
    int bad = bad_samples(ds, 64, 2000, NULL);
    tap_ok(bad == 0, "2,000 samples of 64 tokens: one A and one B marker, distractors elsewhere, label a + b "
                     "(%d bad)", bad);
    rf_dataset_free(ds);
    /* the shortest lengths: every placement of the two occurs */
    for (int len = 2; len <= 4; len++) {
        ds = open_task(len, 3000, 1, &st);
        int *seen = calloc((size_t)(len * len), sizeof *seen), missing = 0;
        bad = ds != NULL ? bad_samples(ds, len, 3000, seen) : -1;
        for (int a = 0; a < len; a++)
            for (int b = 0; b < len; b++)
                missing += a != b && !seen[a * len + b];
        tap_ok(bad == 0 && missing == 0, "length %d: every sample valid (%d bad), every placement of A and B drawn "
               "(%d missing)", len, bad, missing);
        free(seen);
        rf_dataset_free(ds);
    }
    ds = open_task(1, 10, 1, &st);
    tap_ok(ds == NULL && strstr(st.msg, "data.max_len >= 2") != NULL, "length 1 is refused naming data.max_len (%s)",
           st.msg);
}

static bool same_sample(rf_dataset *a, rf_dataset *b, rf_split sa, rf_split sb, int64_t i)
{
    float x[200], y[200];
    int la, lb, ya, yb;
    rf_status st = {0};
    return a->get(a, sa, i, x, &la, &ya, &st) && b->get(b, sb, i, y, &lb, &yb, &st) && la == lb && ya == yb &&
           memcmp(x, y, (size_t)la * sizeof *x) == 0;
}

static void test_determinism(void)
{
    rf_status st = {0};
    rf_dataset *a = open_task(200, 10, 3, &st), *b = open_task(200, 10, 3, &st), *c = open_task(200, 10, 4, &st);
    int same = 0, other_seed = 0, other_split = 0;
    for (int i = 0; i < 10; i++) {
        same += same_sample(a, b, RF_SPLIT_TRAIN, RF_SPLIT_TRAIN, i);
        other_seed += same_sample(a, c, RF_SPLIT_TRAIN, RF_SPLIT_TRAIN, i);
        other_split += same_sample(a, b, RF_SPLIT_TRAIN, RF_SPLIT_TEST, i);
    }
    tap_ok(same == 10 && other_seed == 0 && other_split == 0,
           "same seed, split and index give the same sample (%d of 10); another seed (%d) or split (%d) another",
           same, other_seed, other_split);
    rf_dataset_free(a);
    rf_dataset_free(b);
    rf_dataset_free(c);
}

/* At 1,000 tokens the markers land anywhere and far apart (for two uniform
 * positions the mean distance is a third of the length), and given A's
 * digit d alone the label is uniform over d..d+9: one digit answers one
 * time in ten, no better than guessing. */
static void test_long_range(void)
{
    enum { N = 1000, S = 5000 };
    rf_status st = {0};
    rf_dataset *ds = open_task(N, S, 11, &st);
    float *x = malloc(N * sizeof *x);
    int lowest = N, highest = 0, by_digit[10][19] = {{0}};
    double distance = 0;
    for (int i = 0; ds != NULL && i < S; i++) {
        int len, label;
        ds->get(ds, RF_SPLIT_TRAIN, i, x, &len, &label, &st);
        marks m = scan(x, len);
        distance += abs(m.a - m.b);
        lowest = MIN(lowest, MIN(m.a, m.b));
        highest = MAX(highest, MAX(m.a, m.b));
        if (m.digit_a >= 0 && m.digit_a <= 9)
            by_digit[m.digit_a][label]++;
    }
    distance /= S;
    tap_ok(fabs(distance - N / 3.0) < 0.05 * N && lowest < 10 && highest > N - 10,
           "markers spread over all %d tokens (positions %d..%d) and lie %.0f apart on average (a third: %.0f)", N,
           lowest, highest, distance, N / 3.0);
    int least = S, most = 0, outside = 0;
    for (int d = 0; d < 10; d++)
        for (int y = 0; y < 19; y++) {
            if (y < d || y > d + 9)
                outside += by_digit[d][y];
            else
                least = MIN(least, by_digit[d][y]), most = MAX(most, by_digit[d][y]);
        }
    tap_ok(least > 25 && most < 80 && outside == 0,
           "given A's digit d, the labels d..d+9 are about as likely (%d to %d of about 50 each), no other occurs (%d)",
           least, most, outside);
    free(x);
    rf_dataset_free(ds);
}

static void test_featurise(void)
{
    rf_status st = {0};
    rf_dataset *ds = open_task(8, 3, 1, &st);
    float x[8];
    int len = 0;
    bool ok = ds->featurise(ds, NULL, "A3.\n7 B9", x, &len, &st);
    const float want[] = {4, 31, 28, 20};
    tap_ok(ok && len == 4 && memcmp(x, want, sizeof want) == 0,
           "text featurises token by token (A3, '.', 7, B9), white space skipped (%s)", st.msg);
    rf_status_clear(&st);
    ok = ds->featurise(ds, NULL, "A3.x", x, &len, &st);
    tap_ok(!ok && strstr(st.msg, "character 4") != NULL && strstr(st.msg, "'x'") != NULL,
           "an unknown character is refused by its place (%s)", st.msg);
    rf_status_clear(&st);
    ok = ds->featurise(ds, NULL, "A3.B", x, &len, &st);
    tap_ok(!ok && strstr(st.msg, "character 4") != NULL && strstr(st.msg, "marker without its digit") != NULL,
           "a marker without its digit is refused by its place (%s)", st.msg);
    rf_status_clear(&st);
    ok = ds->featurise(ds, NULL, "A3.......B9", x, &len, &st);
    tap_ok(!ok && strstr(st.msg, "more than 8 tokens") != NULL, "too many tokens are refused (%s)", st.msg);
    char text[256] = "";
    ok = ds->describe(ds, RF_SPLIT_VAL, 1, text, sizeof text);
    tap_ok(ok && strstr(text, " at position ") != NULL && strstr(text, ": label ") != NULL,
           "a sample describes its markers, digits and label: %s", text);
    rf_dataset_free(ds);
}

/* At 4 tokens a marker is at position 0 in about half the samples. */
static void test_head(void)
{
    rf_status st = {0};
    rf_dataset *ds = open_task(4, 300, 5, &st);
    float x[4];
    int differ = 0, marker_first = 0;
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < 300; i++) {
            int len = 0, label = -1, first = -1, head_len = 0, head_label = -2;
            bool ok = ds->get(ds, (rf_split)s, i, x, &len, &label, &st) &&
                      ds->head(ds, (rf_split)s, i, &first, &head_len, &head_label, &st);
            differ += !ok || first != (int)x[0] || head_len != len || head_label != label;
            marker_first += (int)x[0] < RF_LONG_MATCH_DIGIT0;
        }
    tap_ok(differ == 0 && marker_first > 300, "900 samples of 4 tokens (%d with a marker first): the head's first "
           "token, length and label are the whole sample's", marker_first);
    int first, len, label;
    tap_ok(!ds->head(ds, RF_SPLIT_VAL, 300, &first, &len, &label, &st) && strstr(st.msg, "no val sample 300") != NULL,
           "a head past the split is refused (%s)", st.msg);
    rf_dataset whole = *ds;
    whole.head = NULL;
    rf_baselines fast, slow;
    st = (rf_status){0};
    bool ok = rf_baselines_measure(ds, RF_SPLIT_VAL, &fast, &st) &&
              rf_baselines_measure(&whole, RF_SPLIT_VAL, &slow, &st);
    tap_ok(ok && fast.majority == slow.majority && fast.first_token == slow.first_token && fast.majority > 0,
           "the baselines through the head equal those of whole samples (majority %.3f, first token %.3f)%s%s",
           fast.majority, fast.first_token, st.failed ? ": " : "", st.msg);
    rf_dataset_free(ds);
}

int main(void)
{
    test_samples();
    test_determinism();
    test_long_range();
    test_featurise();
    test_head();
    return tap_done();
}
