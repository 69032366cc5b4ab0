#include "curriculum.h"

#include <stdio.h>
#include <string.h>

/* Keys a stage may set: what it trains on and how, never the model, the
 * seed or where it runs. */
static const char *const stage_keys[] = {
    "data.batch", "data.min_len", "data.max_len", "data.max_depth", "data.max_args", "data.train_size",
    "data.val_size", "data.test_size", "data.concat", "data.augment_shift", "data.augment_flip",
    "train.steps", "train.lr", "train.warmup", "train.schedule", "train.gamma", "train.decay_every",
    "train.weight_decay", "train.beta1", "train.beta2", "train.eps", "train.clip", "train.eval_every",
    "train.eval_batches", "train.checkpoint_every", "train.log_every", NULL,
};

static bool stage_key(const char *dotted)
{
    for (int i = 0; stage_keys[i] != NULL; i++)
        if (strcmp(stage_keys[i], dotted) == 0)
            return true;
    return false;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The text of stage k (0-based) of the list, without the blanks around
 * it, into buf; false past the last stage. */
static bool stage_text(const char *list, int k, char *buf, size_t size)
{
    const char *p = list;
    for (int i = 0; i < k; i++) {
        p = strchr(p, ';');
        if (p == NULL)
            return false;
        p++;
    }
    const char *end = strchr(p, ';');
    if (end == NULL)
        end = p + strlen(p);
    while (p < end && blank(*p))
        p++;
    while (end > p && blank(end[-1]))
        end--;
    size_t n = (size_t)(end - p) < size - 1 ? (size_t)(end - p) : size - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

static int listed_stages(const rf_config *run)
{
    const char *p = run->train.curriculum;
    while (blank(*p))
        p++;
    if (*p == '\0')
        return 0;
    int n = 1;
    for (p = run->train.curriculum; (p = strchr(p, ';')) != NULL; p++)
        n++;
    return n;
}

int rf_curriculum_count(const rf_config *run) { return listed_stages(run) + 1; }

/* Stage k's assignments applied to out; `steps` tells whether it named
 * train.steps. */
static bool apply_stage(const rf_config *run, int k, rf_config *out, bool *steps, rf_status *st)
{
    char text[RF_STR_LEN];
    if (!stage_text(run->train.curriculum, k, text, sizeof text))
        return rf_fail(st, "train.curriculum has no stage %d", k + 1);
    if (text[0] == '\0')
        return rf_fail(st, "train.curriculum: stage %d is empty (stages are separated by ';')", k + 1);
    *steps = false;
    char *save = NULL;
    for (char *a = strtok_r(text, " \t\r\n", &save); a != NULL; a = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(a, '=');
        if (eq == NULL)
            return rf_fail(st, "train.curriculum, stage %d: '%s' is not section.key=value", k + 1, a);
        *eq = '\0';
        if (!stage_key(a))
            return rf_fail(st, "train.curriculum, stage %d: %s cannot change between stages (a stage may set "
                               "data.min_len, data.max_len, data.train_size and the other data sizes, data.batch, "
                               "and the optimiser, schedule and evaluation keys)", k + 1, a);
        rf_status why = {0};
        if (!rf_config_set(out, a, eq + 1, &why))
            return rf_fail(st, "train.curriculum, stage %d: %s", k + 1, why.msg);
        *steps = *steps || strcmp(a, "train.steps") == 0;
    }
    return true;
}

bool rf_curriculum_stage(const rf_config *run, int k, rf_config *out, rf_status *st)
{
    int last = listed_stages(run);
    if (k < 0 || k > last)
        return rf_fail(st, "train.stage = %d: this curriculum has stages 0 to %d", k, last);
    *out = *run;
    out->train.curriculum[0] = '\0';
    out->train.stage = 0;
    bool steps;
    return k == last || apply_stage(run, k, out, &steps, st);
}

int64_t rf_curriculum_first_step(const rf_config *run, int k)
{
    int64_t first = 0;
    for (int i = 0; i < k; i++) {
        rf_config stage;
        if (!rf_curriculum_stage(run, i, &stage, NULL))
            return -1;
        first += stage.train.steps;
    }
    return first;
}

int64_t rf_curriculum_run_step(const rf_config *run, int64_t stage_step)
{
    return rf_curriculum_first_step(run, run->train.stage) + stage_step;
}

bool rf_curriculum_check(const rf_config *run, rf_status *st)
{
    int listed = listed_stages(run);
    if (listed + 1 > RF_CURRICULUM_MAX)
        return rf_fail(st, "train.curriculum lists %d stages; at most %d come before the run's own", listed,
                       RF_CURRICULUM_MAX - 1);
    if (run->train.stage > listed)
        return rf_fail(st, "train.stage = %d: the curriculum has %d stages before the run's own (0 to %d)",
                       run->train.stage, listed, listed);
    for (int k = 0; k < listed; k++) {
        rf_config stage = *run;
        stage.train.curriculum[0] = '\0';
        stage.train.stage = 0;
        bool steps;
        if (!apply_stage(run, k, &stage, &steps, st))
            return false;
        if (!steps)
            return rf_fail(st, "train.curriculum, stage %d: name its length with train.steps=N", k + 1);
        /* A learned position table is sized by max_len: the next stage's
         * model could not take these weights. */
        if (strcmp(run->model.pos, "learned") == 0 && stage.data.max_len != run->data.max_len)
            return rf_fail(st, "train.curriculum, stage %d: data.max_len = %d, but model.pos = learned sizes its "
                               "table by data.max_len (%d in the run), so the stages' weights would not fit "
                               "each other; use model.pos = sinusoidal or none", k + 1, stage.data.max_len,
                           run->data.max_len);
        rf_status why = {0};
        if (!rf_config_validate(&stage, &why))
            return rf_fail(st, "train.curriculum, stage %d: %s", k + 1, why.msg);
    }
    return true;
}
