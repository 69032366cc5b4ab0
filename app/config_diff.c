#include "config_diff.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config_file.h"

/* Keys a resumed run may change: they steer how training continues, not
 * what is trained or on which data. */
static const char *const resumable[] = {
    "train.steps", "train.lr", "train.warmup", "train.schedule", "train.gamma", "train.decay_every", "train.weight_decay",
    "train.beta1", "train.beta2", "train.eps", "train.clip", "train.threads", "train.gemm",
    "train.precision", "train.device", "train.tf32", "train.cuda_graph", "train.recompute", "train.eval_every", "train.eval_batches", "train.checkpoint_every", "train.keep_weights", "train.log_every", NULL,
};

static gboolean is_resumable(const char *dotted)
{
    return g_strv_contains(resumable, dotted);
}

/* Core owns the definition of "shapes the model"; ask it about this key alone. */
static gboolean shapes_model(const rf_config *saved, const rf_config_key *k, const char *value)
{
    rf_config one = *saved;
    char dotted[160];
    snprintf(dotted, sizeof dotted, "%s.%s", k->section, k->key);
    if (!rf_config_set(&one, dotted, value, NULL))
        return TRUE;
    return !rf_config_same_model(saved, &one);
}

gboolean rf_config_check_changes(const rf_config *saved, const rf_config *wanted, rf_change_policy policy,
                                 GError **error)
{
    char was[RF_STR_LEN + 32], now[RF_STR_LEN + 32], dotted[160];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        rf_config_format_value(saved, k, was, sizeof was);
        rf_config_format_value(wanted, k, now, sizeof now);
        if (strcmp(was, now) == 0)
            continue;
        snprintf(dotted, sizeof dotted, "%s.%s", k->section, k->key);
        /* another data set is fine for eval when it fits the model: the
         * caller checks that once it is open (rf_model_input_fits) */
        if (policy == RF_CHANGE_KEEP_MODEL && strcmp(k->section, "data") == 0)
            continue;
        if (shapes_model(saved, k, now)) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                        "--set %s=%s: the checkpoint's model has %s = %s, and a different %s needs a new run",
                        dotted, now, dotted, was, dotted);
            return FALSE;
        }
        if (policy == RF_CHANGE_SCHEDULE_ONLY && !is_resumable(dotted)) {
            g_autofree char *allowed = g_strjoinv(", ", (char **)resumable);
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                        "--set %s=%s: %s cannot change when a run resumes (it was %s); keys that can: %s",
                        dotted, now, dotted, was, allowed);
            return FALSE;
        }
    }
    return TRUE;
}

char *rf_config_data_changes(const rf_config *saved, const rf_config *wanted)
{
    GString *out = g_string_new(NULL);
    char was[RF_STR_LEN + 32], now[RF_STR_LEN + 32];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        if (strcmp(k->section, "data") != 0)
            continue;
        rf_config_format_value(saved, k, was, sizeof was);
        rf_config_format_value(wanted, k, now, sizeof now);
        if (strcmp(was, now) != 0)
            g_string_append_printf(out, "%sdata.%s=%s", out->len > 0 ? " " : "", k->key, now);
    }
    return g_string_free(out, out->len == 0);
}
