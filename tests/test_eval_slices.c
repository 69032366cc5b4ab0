/* rf_eval_slices (datasets/eval_slices.h): the confusion matrix, precision,
 * recall and F1, and every slice with the baselines' rules right on each
 * group, on small cases counted by hand (a ListOps table of seven samples
 * with rules written by hand, a float table with class names), through
 * rf_eval_slices_measure with a classifier that answers from a table
 * (windows that split the data, probability ties), and its refusals. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../datasets/eval_slices.h"
#include "../datasets/listops.h"
#include "tap.h"

enum { MIN_ = RF_LISTOPS_MIN, MAX_ = RF_LISTOPS_MAX, MED_ = RF_LISTOPS_MED, SM_ = RF_LISTOPS_SM,
       CL = RF_LISTOPS_CLOSE, D0 = RF_LISTOPS_DIGIT0 };

typedef struct {
    int len, label, answer;
    int ids[12];
} sample;

/* Labels are made up (the slices never read a value); classes 0..3, and no
 * sample is labelled or answered 3, so its precision and recall are 0/0. */
static const sample listops[] = {
    {4, 2, 2, {MAX_, D0 + 2, D0 + 9, CL}},                                      /* [MAX 2 9 ] */
    {7, 0, 1, {MIN_, D0 + 4, MAX_, D0 + 1, D0 + 2, CL, CL}},                    /* [MIN 4 [MAX 1 2 ] ] */
    {1, 1, 1, {D0 + 7}},                                                         /* 7 */
    {10, 0, 0, {SM_, D0 + 1, MED_, D0 + 2, MIN_, D0 + 3, D0 + 4, CL, CL, CL}},  /* [SM 1 [MED 2 [MIN 3 4 ] ] ] */
    {4, 1, 0, {MAX_, D0 + 1, D0 + 2, CL}},                                      /* [MAX 1 2 ] */
    {8, 0, 1, {MIN_, D0 + 1, D0 + 2, D0 + 3, D0 + 4, D0 + 5, D0 + 6, CL}},      /* [MIN 1 2 3 4 5 6 ] */
    {3, 2, 0, {MED_, D0 + 1, CL}},                                               /* [MED 1 ] */
};
enum { N = sizeof listops / sizeof *listops, CLASSES = 4 };

static bool listops_get(const rf_dataset *ds, rf_split split, int64_t i, float *x, int *len, int *label,
                        rf_status *st)
{
    (void)ds, (void)split, (void)st;
    for (int p = 0; p < listops[i].len; p++)
        x[p] = (float)listops[i].ids[p];
    *len = listops[i].len;
    *label = listops[i].label;
    return true;
}

/* The rules, by hand: majority class 0; [MIN -> 0, [MAX -> 2, [MED -> 1,
 * [SM -> 0, every digit -> 1. Right on samples 0, 1, 2, 3, 5 (first token)
 * and 1, 3, 5 (majority). */
static int by_first[RF_LISTOPS_VOCAB];
static const rf_baseline_rules *hand_rules(void)
{
    static rf_baseline_rules r = {.vocab = RF_LISTOPS_VOCAB, .classes = CLASSES, .majority = 0, .by_first = by_first};
    for (int t = 0; t < RF_LISTOPS_VOCAB; t++)
        by_first[t] = t == MIN_ || t == SM_ ? 0 : t == MAX_ ? 2 : 1;
    return &r;
}

static rf_dataset listops_table(void)
{
    rf_dataset ds = {.name = "listops", .seq_len = 12, .vocab = RF_LISTOPS_VOCAB, .classes = CLASSES,
                     .get = listops_get};
    ds.size[RF_SPLIT_TEST] = N;
    return ds;
}

typedef struct {
    const char *name;
    int64_t samples, right, right_majority, right_first;
} want_group;

/* The slice holds exactly `want`, in order, with names and counts. */
static void check_slice(const rf_eval_slices *s, rf_slice_kind kind, const want_group *want, int count)
{
    const rf_slice_groups *sl = &s->slices[kind];
    bool same = sl->count == count;
    for (int i = 0; same && i < count; i++)
        same = strcmp(sl->groups[i].name, want[i].name) == 0 && sl->groups[i].samples == want[i].samples &&
               sl->groups[i].right == want[i].right && sl->groups[i].right_majority == want[i].right_majority &&
               sl->groups[i].right_first == want[i].right_first;
    tap_ok(same, "slice %s: %d group(s) as counted by hand", rf_slice_kind_name(kind), count);
    for (int i = 0; !same && i < sl->count; i++)
        tap_diag("got %s %lld/%lld, rules %lld and %lld", sl->groups[i].name, (long long)sl->groups[i].right,
                 (long long)sl->groups[i].samples, (long long)sl->groups[i].right_majority,
                 (long long)sl->groups[i].right_first);
}

static void check_listops(const rf_eval_slices *s, const char *how)
{
    static const int64_t matrix[CLASSES][CLASSES] = {
        {1, 2, 0, 0},   /* labelled 0: sample 3 answered 0, samples 1 and 5 answered 1 */
        {1, 1, 0, 0},   /* labelled 1: sample 4 answered 0, sample 2 answered 1 */
        {1, 0, 1, 0},   /* labelled 2: sample 6 answered 0, sample 0 answered 2 */
        {0, 0, 0, 0},
    };
    tap_ok(s->samples == N && s->right == 3, "%s: 3 of 7 right (got %lld of %lld)", how, (long long)s->right,
           (long long)s->samples);
    tap_ok(s->baselines && s->right_majority == 3 && s->right_first == 5,
           "%s: the rules are right on 3 (majority) and 5 (first token) of 7", how);
    tap_ok(memcmp(s->confusion, matrix, sizeof matrix) == 0, "%s: the confusion matrix as counted by hand", how);
    /* column sums 3, 3, 1, 0; row sums 3, 2, 2, 0 */
    const double p[CLASSES] = {1.0 / 3, 1.0 / 3, 1.0, 0}, r[CLASSES] = {1.0 / 3, 0.5, 0.5, 0},
                 f1[CLASSES] = {1.0 / 3, 0.4, 2.0 / 3, 0};
    bool close = true;
    for (int k = 0; k < CLASSES; k++) {
        close &= fabs(s->precision[k] - p[k]) < 1e-12 && fabs(s->recall[k] - r[k]) < 1e-12 &&
                 fabs(s->f1[k] - f1[k]) < 1e-12;
        if (fabs(s->f1[k] - f1[k]) >= 1e-12 || fabs(s->precision[k] - p[k]) >= 1e-12)
            tap_diag("class %d: P %.4f R %.4f F1 %.4f", k, s->precision[k], s->recall[k], s->f1[k]);
    }
    tap_ok(close, "%s: precision, recall and F1 per class (class 3, never labelled nor answered: 0)", how);

    /* name, samples, the model right, the majority rule right, the first-token rule right */
    const want_group ops[] = {{"[MIN", 2, 0, 2, 2}, {"[MAX", 2, 1, 0, 1}, {"[MED", 1, 0, 0, 0}, {"[SM", 1, 1, 1, 1},
                              {"digit", 1, 1, 0, 1}};
    check_slice(s, RF_SLICE_OPERATOR, ops, 5);
    const want_group depth[] = {{"depth 0", 1, 1, 0, 1}, {"depth 1", 4, 1, 1, 2}, {"depth 2", 1, 0, 1, 1},
                                {"depth 3", 1, 1, 1, 1}};
    check_slice(s, RF_SLICE_DEPTH, depth, 4);
    const want_group length[] = {{"1", 1, 1, 0, 1}, {"3-4", 3, 1, 0, 1}, {"5-8", 2, 0, 2, 2}, {"9-16", 1, 1, 1, 1}};
    check_slice(s, RF_SLICE_LENGTH, length, 4);
    const want_group concat[] = {{"K=1", 7, 3, 3, 5}};
    check_slice(s, RF_SLICE_CONCAT, concat, 1);
    tap_ok(s->slices[RF_SLICE_CLASS].count == 0, "%s: token data has no class slice", how);

    int64_t count = 0;
    g_autofree int64_t *cell = rf_eval_slices_cell(s, 0, 1, &count);
    tap_ok(count == 2 && cell[0] == 1 && cell[1] == 5, "%s: the cell (label 0, answer 1) lists samples 1 and 5", how);
    g_autofree int64_t *empty = rf_eval_slices_cell(s, 3, 3, &count);
    tap_ok(count == 0, "%s: an empty cell lists nothing", how);
}

static void test_added(void)
{
    rf_dataset ds = listops_table();
    rf_eval_slices s;
    rf_eval_slices_init(&s, &ds, 1, hand_rules());
    float x[12];
    for (int i = 0; i < N; i++) {
        for (int p = 0; p < listops[i].len; p++)
            x[p] = (float)listops[i].ids[p];
        rf_eval_slices_add(&s, x, listops[i].len, listops[i].label, listops[i].answer);
    }
    rf_eval_slices_finish(&s);
    check_listops(&s, "added one by one");
    rf_eval_slices_clear(&s);
}

/* Answers from the table, in the order asked; class 3 ties with the answer,
 * so the lowest of the two must win. */
typedef struct {
    int next, calls;
} table_model;

static bool table_classify(void *ctx, const rf_outside_input *in, int rows, float *probs, rf_status *st)
{
    (void)st;
    table_model *m = ctx;
    m->calls++;
    for (int r = 0; r < rows; r++, m->next++) {
        const sample *want = &listops[m->next];
        bool same_input = in[r].len == want->len && (int)in[r].x[0] == want->ids[0];
        for (int k = 0; k < CLASSES; k++)
            probs[r * CLASSES + k] = 0.1f;
        probs[r * CLASSES + want->answer] = 0.35f;
        probs[r * CLASSES + 3] = 0.35f;
        if (!same_input)
            probs[r * CLASSES + 3] = 0.9f;   /* an input out of order shows as a wrong answer */
    }
    return true;
}

static void test_measured(void)
{
    rf_dataset ds = listops_table();
    table_model m = {0};
    rf_eval_slices s;
    rf_status st = {0};
    tap_ok(rf_eval_slices_measure(&ds, RF_SPLIT_TEST, 1, hand_rules(), 3, table_classify, &m, &s, &st),
           "measure runs the split (%s)", st.msg);
    tap_ok(m.calls == 3, "7 samples in windows of 3 are 3 calls (got %d)", m.calls);
    check_listops(&s, "measured");
    rf_eval_slices_clear(&s);

    ds.size[RF_SPLIT_VAL] = 0;
    rf_status_clear(&st);
    m = (table_model){0};
    tap_ok(rf_eval_slices_measure(&ds, RF_SPLIT_VAL, 1, NULL, 3, table_classify, &m, &s, &st) && s.samples == 0 &&
               m.calls == 0,
           "an empty split measures nothing and asks the model nothing");
    rf_eval_slices_clear(&s);
}

static bool bad_label_get(const rf_dataset *ds, rf_split split, int64_t i, float *x, int *len, int *label,
                          rf_status *st)
{
    bool ok = listops_get(ds, split, i, x, len, label, st);
    *label = i == 2 ? 7 : *label;
    return ok;
}

static void test_refusals(void)
{
    rf_dataset ds = listops_table();
    ds.get = bad_label_get;
    table_model m = {0};
    rf_eval_slices s;
    rf_status st = {0};
    tap_ok(!rf_eval_slices_measure(&ds, RF_SPLIT_TEST, 1, NULL, 4, table_classify, &m, &s, &st) &&
               strstr(st.msg, "test sample 2: label 7 outside 0..3") != NULL,
           "a label out of range is refused naming the sample: %s", st.msg);
    rf_eval_slices_clear(&s);
}

/* Float data: no ListOps slices; the class slice names each class. */
static void test_classes(void)
{
    static const char *const names[] = {"dark", "light", NULL};
    rf_dataset ds = {.name = "image_folder", .seq_len = 4, .feat_dim = 2, .classes = 2, .class_names = names};
    rf_eval_slices s;
    rf_eval_slices_init(&s, &ds, 1, NULL);
    const float x[8] = {0};
    rf_eval_slices_add(&s, x, 4, 0, 0);
    rf_eval_slices_add(&s, x, 4, 0, 1);
    rf_eval_slices_add(&s, x, 4, 1, 1);
    rf_eval_slices_finish(&s);
    const want_group classes[] = {{"dark", 2, 1, 0, 0}, {"light", 1, 1, 0, 0}};
    check_slice(&s, RF_SLICE_CLASS, classes, 2);
    tap_ok(!s.baselines, "no rules, no baselines");
    const want_group length[] = {{"3-4", 3, 2, 0, 0}};
    check_slice(&s, RF_SLICE_LENGTH, length, 1);
    tap_ok(s.slices[RF_SLICE_OPERATOR].count == 0 && s.slices[RF_SLICE_DEPTH].count == 0,
           "float data has no operator or depth slice");
    /* answered light twice, once right: precision 1/2, recall 1, F1 2/3 */
    tap_ok(fabs(s.precision[1] - 0.5) < 1e-12 && fabs(s.recall[1] - 1.0) < 1e-12 &&
               fabs(s.f1[1] - 2.0 / 3) < 1e-12 && fabs(s.precision[0] - 1.0) < 1e-12 &&
               fabs(s.recall[0] - 0.5) < 1e-12,
           "precision and recall of dark and light");
    rf_eval_slices_clear(&s);

    /* data.concat's K names the one group */
    rf_dataset lo = listops_table();
    rf_eval_slices_init(&s, &lo, 3, hand_rules());
    const float e[4] = {MAX_, D0, D0, CL};
    rf_eval_slices_add(&s, e, 4, 0, 0);
    rf_eval_slices_finish(&s);
    const want_group k3[] = {{"K=3", 1, 1, 1, 0}};
    check_slice(&s, RF_SLICE_CONCAT, k3, 1);
    rf_eval_slices_clear(&s);
}

int main(void)
{
    test_added();
    test_measured();
    test_refusals();
    test_classes();
    return tap_done();
}
