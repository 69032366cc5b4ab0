/* The long-range match task (see long_match.h). */
#include "long_match.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "featurise.h"

#define LONG_MATCH_STREAM 0x4c6f6e674d61ull   /* "LongMa": this task's numbers apart from others of the seed */
#define DISTRACTORS 11                         /* the ten digits and the dot */

static const char *const class_names[RF_LONG_MATCH_CLASSES] = {"0",  "1",  "2",  "3",  "4",  "5",  "6",
                                                                "7",  "8",  "9",  "10", "11", "12", "13",
                                                                "14", "15", "16", "17", "18"};

typedef struct long_match {
    rf_dataset ds;
    uint64_t seed;
} long_match;

char rf_long_match_token_char(int token)
{
    if (token == RF_LONG_MATCH_A)
        return 'A';
    if (token == RF_LONG_MATCH_B)
        return 'B';
    if (token >= RF_LONG_MATCH_DIGIT0 && token < RF_LONG_MATCH_DIGIT0 + 10)
        return (char)('0' + token - RF_LONG_MATCH_DIGIT0);
    return token == RF_LONG_MATCH_DOT ? '.' : '?';
}

static bool is_digit(float t)
{
    return t >= RF_LONG_MATCH_DIGIT0 && t < RF_LONG_MATCH_DIGIT0 + 10;
}

bool rf_long_match_find(const float *x, int len, int *pos_a, int *digit_a, int *pos_b, int *digit_b)
{
    int a = -1, b = -1;
    for (int i = 0; i < len; i++) {
        int *slot = x[i] == RF_LONG_MATCH_A ? &a : x[i] == RF_LONG_MATCH_B ? &b : NULL;
        if (slot == NULL)
            continue;
        if (*slot >= 0 || i + 1 >= len || !is_digit(x[i + 1]))
            return false;
        *slot = i;
    }
    if (a < 0 || b < 0)
        return false;
    *pos_a = a, *pos_b = b;
    *digit_a = (int)x[a + 1] - RF_LONG_MATCH_DIGIT0;
    *digit_b = (int)x[b + 1] - RF_LONG_MATCH_DIGIT0;
    return true;
}

/* B's position: uniform over the slots [0, n - 2] that keep it and its
 * digit off A's two (|b - a| >= 2), drawn directly from their count. */
static int second_marker(double u, int a, int n)
{
    int first_blocked = a > 0 ? a - 1 : 0, last_blocked = a + 1 < n - 2 ? a + 1 : n - 2;
    int free_slots = (n - 1) - (last_blocked - first_blocked + 1);
    int k = (int)(u * free_slots);
    return k < first_blocked ? k : k + (last_blocked - first_blocked + 1);
}

static bool long_match_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                           rf_status *st)
{
    const long_match *lm = ds->impl;
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= ds->size[split])
        return rf_fail(st, "long_match has no %s sample %lld", rf_split_name(split), (long long)index);
    /* one key per sample: stream 0 the distractors, 1 the positions, 2 the digits */
    uint64_t key = rf_hash3(lm->seed, LONG_MATCH_STREAM + (uint64_t)split, (uint64_t)index);
    int n = ds->seq_len;
    for (int t = 0; t < n; t++)
        x[t] = (float)(RF_LONG_MATCH_DIGIT0 + (int)(rf_uniform(key, 0, (uint64_t)t) * DISTRACTORS));
    int a = (int)(rf_uniform(key, 1, 0) * (n - 1));
    int b = second_marker(rf_uniform(key, 1, 1), a, n);
    int digit_a = (int)(rf_uniform(key, 2, 0) * 10), digit_b = (int)(rf_uniform(key, 2, 1) * 10);
    x[a] = RF_LONG_MATCH_A, x[a + 1] = (float)(RF_LONG_MATCH_DIGIT0 + digit_a);
    x[b] = RF_LONG_MATCH_B, x[b + 1] = (float)(RF_LONG_MATCH_DIGIT0 + digit_b);
    *len = n;
    *label = digit_a + digit_b;
    return true;
}

static bool long_match_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    float *x = malloc((size_t)ds->seq_len * sizeof *x);
    int len = 0, label = 0, a, da, b, db;
    rf_status st = {0};
    bool ok = x != NULL && long_match_get(ds, split, index, x, &len, &label, &st) &&
              rf_long_match_find(x, len, &a, &da, &b, &db);
    if (ok)
        snprintf(buf, size, "A at position %d holds %d, B at %d holds %d (%d apart): label %d + %d = %d",
                 a, da, b, db, abs(b - a), da, db, label);
    free(x);
    return ok;
}

/* One token per character; white space is skipped. */
static bool long_match_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                                 rf_status *st)
{
    char *source = rf_input_text(ds, path, text, "text of A, B, digits and dots", st);
    if (source == NULL)
        return false;
    char name[128];
    rf_input_name(path, text, name, sizeof name);
    bool ok = true;
    int n = 0;
    for (const char *c = source; ok && *c != '\0'; c++) {
        if (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n')
            continue;
        int token = *c == 'A' ? RF_LONG_MATCH_A
                    : *c == 'B' ? RF_LONG_MATCH_B
                    : *c == '.' ? RF_LONG_MATCH_DOT
                    : *c >= '0' && *c <= '9' ? RF_LONG_MATCH_DIGIT0 + (*c - '0')
                                             : 0;
        if (token == 0)
            ok = rf_fail(st, "%s: character %ld: '%c' is not a long_match token (A, B, a digit or '.')", name,
                         (long)(c - source) + 1, *c);
        else if (n == ds->seq_len)
            ok = rf_fail(st, "%s: more than %d tokens; this model takes at most %d", name, ds->seq_len, ds->seq_len);
        else
            x[n++] = (float)token;
    }
    if (ok && n == 0)
        ok = rf_fail(st, "%s: no tokens (A, B, digits and dots, e.g. \"A3..7B9\")", name);
    *len = n;
    g_free(source);
    return ok;
}

static void long_match_destroy(rf_dataset *ds)
{
    free(ds->impl);
}

rf_dataset *rf_long_match_open(const rf_config *cfg, rf_status *st)
{
    const int sizes[RF_SPLIT_COUNT] = {cfg->data.train_size, cfg->data.val_size, cfg->data.test_size};
    if (cfg->data.max_len < RF_LONG_MATCH_MIN_LEN) {
        rf_fail(st, "long_match needs data.max_len >= %d (two markers, each with its digit, apart); got %d",
                RF_LONG_MATCH_MIN_LEN, cfg->data.max_len);
        return NULL;
    }
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        if (sizes[s] < 0) {
            rf_fail(st, "long_match: data.%s_size = %d must be >= 0", rf_split_name((rf_split)s), sizes[s]);
            return NULL;
        }
    long_match *lm = calloc(1, sizeof *lm);
    if (lm == NULL) {
        rf_fail(st, "out of memory for the long_match task");
        return NULL;
    }
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        lm->ds.size[s] = sizes[s];
    lm->seed = cfg->train.seed;
    lm->ds.name = "long_match";
    lm->ds.seq_len = cfg->data.max_len;
    lm->ds.vocab = RF_LONG_MATCH_VOCAB;
    lm->ds.classes = RF_LONG_MATCH_CLASSES;
    lm->ds.class_names = class_names;
    lm->ds.get = long_match_get;
    lm->ds.describe = long_match_describe;
    lm->ds.featurise = long_match_featurise;
    lm->ds.destroy = long_match_destroy;
    lm->ds.impl = lm;
    return &lm->ds;
}
