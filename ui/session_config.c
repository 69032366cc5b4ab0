/* The session's configuration: editing keys (optimiser keys reach a running
 * run at its next step), replacing the whole config, and the planner's
 * numbers for it. */
#include <string.h>

#include "../config/config_file.h"
#include "session_private.h"

/* The keys rf_trainer_set_optim changes between steps. */
static const char *const optimiser_keys[] = {
    "train.lr", "train.clip", "train.weight_decay", "train.warmup", "train.schedule", "train.gamma",
    "train.decay_every", "train.steps", NULL,
};

static gboolean is_optimiser_key(const char *key)
{
    return g_strv_contains(optimiser_keys, key);
}

static gboolean fail_status(GError **error, const rf_status *st)
{
    g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, st->msg);
    return FALSE;
}

static gboolean run_exists(RfSession *s)
{
    return s->worker != NULL && s->current != NULL;
}

/* A value as the Training view's marker shows it: numbers at 6 significant
 * digits (the config keeps floats exactly: 0.00100000005), text as is. */
static void readable_value(const char *value, char *out, size_t size)
{
    char *end = NULL;
    double v = g_ascii_strtod(value, &end);
    if (end != value && *end == '\0')
        g_ascii_formatd(out, (gint)size, "%.6g", v);
    else
        g_strlcpy(out, value, size);
}

/* train.steps reaches a run that has ended only to let a finished run go on
 * past the steps it made; otherwise it is the next run's, and the last run
 * keeps the step budget it trained to. */
static gboolean steps_reach_run(RfSession *s)
{
    if (s->state == RF_RUN_LOADING || s->state == RF_RUN_RUNNING || s->state == RF_RUN_PAUSED)
        return TRUE;
    return s->state == RF_RUN_FINISHED && s->cfg.train.steps > s->step;
}

/* The current run's record follows the optimiser settings it trains with. */
static void send_optimiser(RfSession *s)
{
    if (!run_exists(s) || !s->current_follows_cfg)
        return;
    guint64 serial = rf_worker_set_optim(s->worker, &s->cfg);
    for (const char *const *key = optimiser_keys; *key != NULL; key++) {
        if (strcmp(*key, "train.steps") == 0 && !steps_reach_run(s))
            continue;
        char value[RF_STR_LEN + 32], before[RF_STR_LEN + 32];
        rf_config_get(&s->cfg, *key, value, sizeof value);
        rf_config_get(&s->current->cfg, *key, before, sizeof before);
        if (strcmp(before, value) == 0)
            continue;
        /* The Training view marks the step that took it (RF_MSG_OPTIM). */
        char shown_before[64], shown_after[64];
        readable_value(before, shown_before, sizeof shown_before);
        readable_value(value, shown_after, sizeof shown_after);
        rf_run_data_add_change(s->current, serial, *key, shown_before, shown_after);
        rf_config_set(&s->current->cfg, *key, value, NULL);
    }
}

const rf_config *rf_session_get_config(RfSession *s)
{
    return &s->cfg;
}

const rf_config *rf_session_get_run_config(RfSession *s)
{
    return s->current != NULL ? &s->current->cfg : &s->cfg;
}

char **rf_session_config_differences(const rf_config *base, const rf_config *other, gboolean with_values)
{
    g_autoptr(GStrvBuilder) keys = g_strv_builder_new();
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        char dotted[160], was[RF_STR_LEN + 32], is[RF_STR_LEN + 32];
        g_snprintf(dotted, sizeof dotted, "%s.%s", k->section, k->key);
        const char *value = rf_config_get(other, dotted, is, sizeof is);
        if (g_strcmp0(rf_config_get(base, dotted, was, sizeof was), value) == 0)
            continue;
        g_autofree char *item = with_values ? g_strdup_printf("%s=%s", dotted, value) : g_strdup(dotted);
        g_strv_builder_add(keys, item);
    }
    return g_strv_builder_end(keys);
}

char **rf_session_get_pending_keys(RfSession *s)
{
    if (s->current == NULL)
        return g_new0(char *, 1);
    return rf_session_config_differences(&s->current->cfg, &s->cfg, FALSE);
}

gboolean rf_session_set_key(RfSession *s, const char *key, const char *value, gboolean *needs_restart,
                            GError **error)
{
    if (needs_restart != NULL)
        *needs_restart = FALSE;
    rf_config next = s->cfg;
    rf_status st = {0};
    /* the whole config the change makes, as a run would check it: keys
     * that are only wrong together (model.heads and model.dim) too */
    if (!rf_config_set(&next, key, value, &st) || !rf_config_validate(&next, &st))
        return fail_status(error, &st);
    s->cfg = next;
    if (is_optimiser_key(key)) {
        send_optimiser(s);
    } else if (needs_restart != NULL && run_exists(s)) {
        char now[RF_STR_LEN + 32], then[RF_STR_LEN + 32];
        *needs_restart = g_strcmp0(rf_config_get(&s->cfg, key, now, sizeof now),
                                   rf_config_get(&s->current->cfg, key, then, sizeof then)) != 0;
    }
    g_signal_emit(s, rf_session_signals[RF_SESSION_CONFIG_CHANGED], 0, key);
    return TRUE;
}

gboolean rf_session_set_config(RfSession *s, const rf_config *cfg, GError **error)
{
    rf_status st = {0};
    if (!rf_config_validate(cfg, &st))
        return fail_status(error, &st);
    s->cfg = *cfg;
    /* A whole config is for the next run: the current one keeps the
     * settings it ran with and no longer follows the edits. */
    s->current_follows_cfg = FALSE;
    g_signal_emit(s, rf_session_signals[RF_SESSION_CONFIG_CHANGED], 0, NULL);
    return TRUE;
}

gboolean rf_session_load_config_file(RfSession *s, const char *ini_path, GError **error)
{
    rf_config cfg;
    if (!rf_config_load_ini(ini_path, NULL, &cfg, error))
        return FALSE;
    return rf_session_set_config(s, &cfg, error);
}

/* The data shape the planner should assume for cfg: the loaded data set's
 * when it is the one cfg names, else what cfg says. */
static void planned_data(RfSession *s, const rf_config *cfg, int *seq_len, int *feat_dim, int *vocab, int *classes)
{
    const rf_dataset *ds = s->data != NULL ? s->data->ds : NULL;
    if (ds != NULL && rf_data_config_equal(&s->data->cfg, cfg)) {
        *seq_len = ds->seq_len;
        *feat_dim = ds->feat_dim;
        *vocab = ds->vocab;
        *classes = ds->classes;
    } else {
        *seq_len = cfg->data.max_len;
        *feat_dim = 0;
        *vocab = cfg->data.vocab;
        *classes = cfg->data.classes;
    }
}

/* The forward FLOPs per sample of cfg's graph, built again unallocated to
 * walk its products; FALSE (st says why) when it cannot be built. */
static gboolean forward_flops(const rf_config *cfg, int seq_len, int feat_dim, int vocab, int classes,
                              double *flops, rf_status *st)
{
    rf_params *p = rf_params_new(cfg->train.seed);
    rf_model *m = rf_model_new(cfg, cfg->data.batch, seq_len, feat_dim, vocab, classes, p, false, st);
    gboolean built = m != NULL;
    *flops = built ? rf_model_flops_per_sample(m) : 0;
    rf_model_free(m);
    rf_params_free(p);
    return built;
}

gboolean rf_session_plan(RfSession *s, int seq_len, rf_memory_plan *plan, double *flops_per_sample,
                         GError **error)
{
    rf_status st = {0};
    if (!rf_config_validate(&s->cfg, &st))
        return fail_status(error, &st);
    int data_len, feat_dim, vocab, classes;
    planned_data(s, &s->cfg, &data_len, &feat_dim, &vocab, &classes);
    if (seq_len <= 0)
        seq_len = data_len;
    if (!rf_memory_plan_compute(&s->cfg, seq_len, feat_dim, vocab, classes, plan, &st))
        return fail_status(error, &st);
    if (flops_per_sample != NULL) {
        if (!forward_flops(&s->cfg, seq_len, feat_dim, vocab, classes, flops_per_sample, &st))
            return fail_status(error, &st);
    }
    return TRUE;
}

/* Forward only: backward costs about twice as much again for every config,
 * and the ETAs use only ratios of these. */
double rf_session_step_flops(RfSession *s, const rf_config *cfg)
{
    rf_status st = {0};
    if (!rf_config_validate(cfg, &st))
        return 0;
    int seq_len, feat_dim, vocab, classes;
    planned_data(s, cfg, &seq_len, &feat_dim, &vocab, &classes);
    double flops;
    return forward_flops(cfg, seq_len, feat_dim, vocab, classes, &flops, &st) ? flops * cfg->data.batch : 0;
}
