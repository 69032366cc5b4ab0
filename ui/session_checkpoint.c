/* Checkpoints from the workbench: saving the current run's model, and
 * loading one as a new run paused at its step (config and data restored,
 * or the data set the sidebar names when it fits the model). A checkpoint
 * that fails to load leaves the session as it was. */
#include <stdio.h>
#include <string.h>

#include "../config/run_lock.h"
#include "../core/checkpoint.h"
#include "../core/curriculum.h"
#include "../core/device.h"
#include "../core/model_input.h"
#include "session_private.h"

static gboolean fail_in(GError **error, const char *path, const char *message)
{
    if (strstr(message, path) != NULL)
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, message);
    else
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", path, message);
    return FALSE;
}

gboolean rf_session_save_checkpoint(RfSession *s, const char *path, GError **error)
{
    if (s->worker == NULL) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "%s: there is no model to save yet: start a run or load a checkpoint first", path);
        return FALSE;
    }
    /* not into a run folder another process is training (its own run's folder is fine) */
    g_autofree char *folder = g_path_get_dirname(path);
    if (!rf_run_lock_check(folder, error))
        return FALSE;
    return rf_worker_save(s->worker, path, error);
}

/* The data keys of `from` into cfg; "data.task=lra_tsv data.path=DIR" for
 * those that changed (g_free), or NULL when none did. */
static char *take_data_keys(rf_config *cfg, const rf_config *from)
{
    GString *changed = g_string_new(NULL);
    char name[160], was[RF_STR_LEN + 32], now[RF_STR_LEN + 32];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        if (strcmp(k->section, "data") != 0)
            continue;
        snprintf(name, sizeof name, "data.%s", k->key);
        rf_config_get(cfg, name, was, sizeof was);
        rf_config_get(from, name, now, sizeof now);
        if (strcmp(was, now) != 0) {
            rf_config_set(cfg, name, now, NULL);
            g_string_append_printf(changed, "%s%s=%s", changed->len > 0 ? " " : "", name, now);
        }
    }
    return g_string_free(changed, changed->len == 0);
}

/* The run a checkpoint of `step` ends, when its folder holds the run's
 * metrics.csv (a run folder): its rows up to that step, name and colour;
 * else NULL (a lone file, or rows that do not load: the checkpoint opens
 * as a run of its own). */
static rf_run_data *recorded_rows(const char *path, int64_t step)
{
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *csv = g_build_filename(dir, "metrics.csv", NULL);
    if (!g_file_test(csv, G_FILE_TEST_IS_REGULAR))
        return NULL;
    rf_run_data *r = rf_run_data_load_dir(dir, NULL);
    guint kept = 0;
    for (guint i = 0; r != NULL && i < r->rows->len; i++) {
        const rf_metrics *m = &g_array_index(r->rows, rf_metrics, i);
        if (m->step <= step)
            g_array_index(r->rows, rf_metrics, kept++) = *m;
    }
    if (r != NULL) {
        g_array_set_size(r->rows, kept);
        rf_run_data_update_summary(r);
    }
    return r;
}

/* data_from: NULL for the checkpoint's own data set, else the config whose
 * data keys replace the checkpoint's. */
static gboolean load_checkpoint(RfSession *s, const char *path, const rf_config *data_from, GError **error)
{
    rf_config cfg;
    int64_t step = 0;
    rf_status st = {0};
    rf_config_defaults(&cfg);
    if (!rf_checkpoint_read_config(path, &cfg, &step, &st))
        return fail_in(error, path, st.msg);
    g_autofree char *changed = data_from != NULL ? take_data_keys(&cfg, data_from) : NULL;
    if (changed != NULL && !rf_config_validate(&cfg, &st))
        return fail_in(error, path, st.msg);
    /* a model trained on a GPU runs on the CPU where none is usable */
    g_autofree char *note = NULL;
    rf_status no_device = {0};
    if (strcmp(cfg.train.device, "cpu") != 0 && rf_device_open(cfg.train.device, &no_device) == NULL) {
        g_autofree char *base = g_path_get_basename(path);
        note = g_strdup_printf("%s was trained with train.device = %s, which is not usable here: it runs on the CPU",
                               base, cfg.train.device);
        g_strlcpy(cfg.train.device, "cpu", sizeof cfg.train.device);
    }
    /* A curriculum's checkpoint opens as a plain run of the curriculum's
     * last stage (the workbench trains one config); its stages go on with
     * `rangefinder train --resume`. */
    int stages = rf_curriculum_count(&cfg);
    if (stages > 1) {
        g_autofree char *base = g_path_get_basename(path);
        if (cfg.train.stage < stages - 1) {
            g_autofree char *stage_note = g_strdup_printf(
                "%s was saved in stage %d of %d of its curriculum (train.curriculum): it opens with the last "
                "stage's config; `rangefinder train --resume` goes on with the stages",
                base, cfg.train.stage + 1, stages);
            char *both = note != NULL ? g_strdup_printf("%s; %s", note, stage_note) : g_strdup(stage_note);
            g_free(note);
            note = both;
        }
        cfg.train.curriculum[0] = '\0';
        cfg.train.stage = 0;
    }
    rf_data_ref *data = NULL;
    if (s->data != NULL && rf_data_config_equal(&s->data->cfg, &cfg)) {
        data = rf_data_ref_acquire(s->data);
    } else {
        g_autoptr(GError) data_error = NULL;
        data = rf_data_ref_open(&cfg, &data_error);
        if (data == NULL) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: the data set %s: %s", path,
                        changed != NULL ? "the current config names" : "it was trained on", data_error->message);
            return FALSE;
        }
    }
    rf_model_input in;
    if (changed != NULL &&
        (!rf_model_input_read(path, &in, &st) || !rf_model_input_fits(&in, data->ds, changed, &st))) {
        rf_data_ref_release(data);
        return fail_in(error, path, st.msg);
    }
    rf_trainer *t = rf_trainer_new(&cfg, data->ds, &st);
    if (t == NULL || !rf_trainer_load(t, path, &st)) {
        rf_trainer_free(t);
        rf_data_ref_release(data);
        return fail_in(error, path, st.msg);
    }
    /* the step of the weights loaded: a trainer still running in the
     * checkpoint's folder may have replaced the file since its header was read */
    step = rf_trainer_step_count(t);

    /* The checkpoint is good: it becomes the current run. */
    g_free(s->load_note);
    s->load_note = g_steal_pointer(&note);
    s->queue_running = FALSE;
    rf_session_retire_worker(s);
    g_clear_pointer(&s->error, g_free);
    if (data != s->data)
        rf_session_replace_data(s, rf_data_ref_acquire(data));
    s->cfg = cfg;
    g_signal_emit(s, rf_session_signals[RF_SESSION_CONFIG_CHANGED], 0, NULL);
    s->current_follows_cfg = TRUE;
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *name = g_strdup_printf("%s · %s · %s", cfg.data.task, cfg.model.encoder, base);
    rf_worker *w = rf_worker_new(&cfg, data, t, TRUE, &s->wanted, NULL);
    rf_session_adopt_worker(s, w, &cfg, name, RF_RUN_PAUSED, step, NULL, recorded_rows(path, step));
    s->opened_from = g_path_get_dirname(path);
    return TRUE;
}

gboolean rf_session_load_checkpoint(RfSession *s, const char *path, GError **error)
{
    return load_checkpoint(s, path, NULL, error);
}

gboolean rf_session_load_checkpoint_on_data(RfSession *s, const char *path, GError **error)
{
    rf_config sidebar = s->cfg;
    return load_checkpoint(s, path, &sidebar, error);
}
