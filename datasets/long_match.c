/* The long-range match task (see long_match.h). */
#include "long_match.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "featurise.h"

#define LONG_MATCH_STREAM 0x4c6f6e674d61ull   /* "LongMa": this task's numbers apart from others of the seed */
#define DISTRACTORS 11                         /* the ten plain digits and the dot */

static const char *const class_names[RF_LONG_MATCH_CLASSES] = {"0",  "1",  "2",  "3",  "4",  "5",  "6",
                                                                "7",  "8",  "9",  "10", "11", "12", "13",
                                                                "14", "15", "16", "17", "18"};

typedef struct long_match {
    rf_dataset ds;
    uint64_t seed;
} long_match;

static const char *const token_texts[RF_LONG_MATCH_VOCAB] = {
    "",   "A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "B0", "B1", "B2", "B3", "B4",
    "B5", "B6", "B7", "B8", "B9", "0",  "1",  "2",  "3",  "4",  "5",  "6",  "7",  "8",  "9",  ".",
};

const char *rf_long_match_token_text(int token)
{
    return token > 0 && token < RF_LONG_MATCH_VOCAB ? token_texts[token] : "?";
}

bool rf_long_match_find(const float *x, int len, int *pos_a, int *digit_a, int *pos_b, int *digit_b)
{
    int a = -1, b = -1;
    for (int i = 0; i < len; i++) {
        int t = (int)x[i], *slot = NULL;
        if (t >= RF_LONG_MATCH_A0 && t < RF_LONG_MATCH_B0)
            slot = &a;
        else if (t >= RF_LONG_MATCH_B0 && t < RF_LONG_MATCH_DIGIT0)
            slot = &b;
        if (slot == NULL)
            continue;
        if (*slot >= 0)
            return false;
        *slot = i;
    }
    if (a < 0 || b < 0)
        return false;
    *pos_a = a, *pos_b = b;
    *digit_a = (int)x[a] - RF_LONG_MATCH_A0;
    *digit_b = (int)x[b] - RF_LONG_MATCH_B0;
    return true;
}

/* Sample `index` of `split`: its key (stream 0 the distractors, 1 the
 * positions, 2 the digits) and its two markers. */
typedef struct markers {
    uint64_t key;
    int a, b, digit_a, digit_b;
} markers;

static bool markers_of(const rf_dataset *ds, rf_split split, int64_t index, markers *m, rf_status *st)
{
    const long_match *lm = ds->impl;
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= ds->size[split])
        return rf_fail(st, "long_match has no %s sample %lld", rf_split_name(split), (long long)index);
    uint64_t key = rf_hash3(lm->seed, LONG_MATCH_STREAM + (uint64_t)split, (uint64_t)index);
    int n = ds->seq_len;
    /* A anywhere, B anywhere else: uniform over the other n - 1 positions */
    int a = (int)(rf_uniform(key, 1, 0) * n), b = (int)(rf_uniform(key, 1, 1) * (n - 1));
    b += b >= a;
    *m = (markers){key, a, b, (int)(rf_uniform(key, 2, 0) * 10), (int)(rf_uniform(key, 2, 1) * 10)};
    return true;
}

static int token_at(const markers *m, int t)
{
    if (t == m->a)
        return RF_LONG_MATCH_A0 + m->digit_a;
    if (t == m->b)
        return RF_LONG_MATCH_B0 + m->digit_b;
    return RF_LONG_MATCH_DIGIT0 + (int)(rf_uniform(m->key, 0, (uint64_t)t) * DISTRACTORS);
}

static bool long_match_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                           rf_status *st)
{
    markers m;
    if (!markers_of(ds, split, index, &m, st))
        return false;
    int n = ds->seq_len;
    for (int t = 0; t < n; t++)
        x[t] = (float)token_at(&m, t);
    *len = n;
    *label = m.digit_a + m.digit_b;
    return true;
}

/* What the baselines read, without making the million-token sample. */
static bool long_match_head(const rf_dataset *ds, rf_split split, int64_t index, int *first, int *len, int *label,
                            rf_status *st)
{
    markers m;
    if (!markers_of(ds, split, index, &m, st))
        return false;
    *first = token_at(&m, 0);
    *len = ds->seq_len;
    *label = m.digit_a + m.digit_b;
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
        snprintf(buf, size, "A%d at position %d, B%d at %d (%d apart): label %d + %d = %d", da, a, db, b,
                 abs(b - a), da, db, label);
    free(x);
    return ok;
}

/* The token the text at *c starts ("A3", "B7", a digit or '.'), moving *c
 * past it; 0 for text that is none. */
static int next_token(const char **c)
{
    char k = **c;
    if ((k == 'A' || k == 'B') && (*c)[1] >= '0' && (*c)[1] <= '9') {
        int token = (k == 'A' ? RF_LONG_MATCH_A0 : RF_LONG_MATCH_B0) + ((*c)[1] - '0');
        *c += 2;
        return token;
    }
    if (k >= '0' && k <= '9') {
        (*c)++;
        return RF_LONG_MATCH_DIGIT0 + (k - '0');
    }
    if (k == '.') {
        (*c)++;
        return RF_LONG_MATCH_DOT;
    }
    return 0;
}

/* "A3", "B7", digits and dots; white space is skipped. */
static bool long_match_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                                 rf_status *st)
{
    char *source = rf_input_text(ds, path, text, "text of markers (A0-A9, B0-B9), digits and dots", st);
    if (source == NULL)
        return false;
    char name[128];
    rf_input_name(path, text, name, sizeof name);
    bool ok = true;
    int n = 0;
    for (const char *c = source; ok && *c != '\0';) {
        if (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') {
            c++;
            continue;
        }
        const char *at = c;
        int token = next_token(&c);
        if (token == 0)
            ok = rf_fail(st, "%s: character %ld: '%c' %s", name, (long)(at - source) + 1, *at,
                         *at == 'A' || *at == 'B' ? "is a marker without its digit (A0-A9, B0-B9)"
                                                  : "is not a long_match token (A0-A9, B0-B9, a digit or '.')");
        else if (n == ds->seq_len)
            ok = rf_fail(st, "%s: more than %d tokens; this model takes at most %d", name, ds->seq_len, ds->seq_len);
        else
            x[n++] = (float)token;
    }
    if (ok && n == 0)
        ok = rf_fail(st, "%s: no tokens (markers A0-A9 and B0-B9, digits and dots, e.g. \"..A3.7..B9\")", name);
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
        rf_fail(st, "long_match needs data.max_len >= %d (room for both markers); got %d",
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
    lm->ds.head = long_match_head;
    lm->ds.describe = long_match_describe;
    lm->ds.featurise = long_match_featurise;
    lm->ds.destroy = long_match_destroy;
    lm->ds.impl = lm;
    return &lm->ds;
}
