/* The random task (see random_task.h). */
#include "random_task.h"

#include <glib.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "featurise.h"

#define RANDOM_STREAM 0x52616e646f6dull   /* "Random": keeps this task's numbers apart from others of the seed */
#define MAX_VOCAB (1 << 24)                /* ids stay exact as floats */

typedef struct random_task {
    rf_dataset ds;
    uint64_t seed;
} random_task;

static bool random_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                       rf_status *st)
{
    const random_task *rt = ds->impl;
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= ds->size[split])
        return rf_fail(st, "random has no %s sample %lld", rf_split_name(split), (long long)index);
    /* one key per sample; token t is counter t of stream 0, the label stream 1 */
    uint64_t key = rf_hash3(rt->seed, RANDOM_STREAM + (uint64_t)split, (uint64_t)index);
    for (int t = 0; t < ds->seq_len; t++)
        x[t] = (float)(1 + (int)(rf_uniform(key, 0, (uint64_t)t) * (ds->vocab - 1)));
    *len = ds->seq_len;
    *label = (int)(rf_uniform(key, 1, 0) * ds->classes);
    return true;
}

/* Whitespace-separated token ids, 1..vocab-1, at most seq_len of them. */
static bool random_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                             rf_status *st)
{
    char *source = rf_input_text(ds, path, text, "token ids separated by spaces", st);
    if (source == NULL)
        return false;
    char name[128];
    rf_input_name(path, text, name, sizeof name);
    char **words = g_strsplit_set(g_strstrip(source), " \t\r\n", -1);
    bool ok = true;
    int n = 0;
    for (char **w = words; ok && *w != NULL; w++) {
        if (**w == '\0')
            continue;
        gint64 id = 0;
        if (n == ds->seq_len)
            ok = rf_fail(st, "%s: more than %d token ids; this random model takes at most %d", name, ds->seq_len,
                         ds->seq_len);
        else if (!g_ascii_string_to_signed(*w, 10, 1, ds->vocab - 1, &id, NULL))
            ok = rf_fail(st, "%s: '%.20s' is not a token id of this random model (1..%d)", name, *w, ds->vocab - 1);
        else
            x[n++] = (float)id;
    }
    if (ok && n == 0)
        ok = rf_fail(st, "%s: no token ids (this random model takes ids 1..%d separated by spaces)", name,
                     ds->vocab - 1);
    *len = n;
    g_strfreev(words);
    g_free(source);
    return ok;
}

static void random_destroy(rf_dataset *ds)
{
    free(ds->impl);
}

rf_dataset *rf_random_task_open(const rf_config *cfg, rf_status *st)
{
    const int sizes[RF_SPLIT_COUNT] = {cfg->data.train_size, cfg->data.val_size, cfg->data.test_size};
    if (cfg->data.max_len < 1 || cfg->data.vocab < 2 || cfg->data.vocab > MAX_VOCAB || cfg->data.classes < 2) {
        rf_fail(st, "random task needs data.max_len >= 1, 2 <= data.vocab <= %d and data.classes >= 2; "
                    "got %d, %d, %d", MAX_VOCAB, cfg->data.max_len, cfg->data.vocab, cfg->data.classes);
        return NULL;
    }
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        if (sizes[s] < 0) {
            rf_fail(st, "random task: data.%s_size = %d must be >= 0", rf_split_name((rf_split)s), sizes[s]);
            return NULL;
        }
    random_task *rt = calloc(1, sizeof *rt);
    if (rt == NULL) {
        rf_fail(st, "out of memory for the random task");
        return NULL;
    }
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        rt->ds.size[s] = sizes[s];
    rt->seed = cfg->train.seed;
    rt->ds.name = "random";
    rt->ds.seq_len = cfg->data.max_len;
    rt->ds.feat_dim = 0;
    rt->ds.vocab = cfg->data.vocab;
    rt->ds.classes = cfg->data.classes;
    rt->ds.get = random_get;
    rt->ds.featurise = random_featurise;
    rt->ds.destroy = random_destroy;
    rt->ds.impl = rt;
    return &rt->ds;
}
