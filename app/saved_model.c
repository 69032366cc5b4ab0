#include "saved_model.h"

#include <stdlib.h>
#include <string.h>

#include "../core/checkpoint.h"
#include "../core/curriculum.h"
#include "../core/device.h"
#include "../core/model_input.h"
#include "../datasets/datasets.h"
#include "cli.h"
#include "config_diff.h"
#include "config_file.h"

/* A checkpoint trained on a GPU, read where none is usable: it runs on the
 * CPU, with a warning, unless --set names the device (then its error
 * stands). The results are the CPU's (the same model, its own rounding). */
static void fall_back_to_cpu(rf_config *cfg, const char *const *sets, const char *checkpoint)
{
    if (strcmp(cfg->train.device, "cpu") == 0)
        return;
    for (int i = 0; sets != NULL && sets[i] != NULL; i++)
        if (g_str_has_prefix(sets[i], "train.device"))
            return;
    rf_status why = {0};
    if (rf_device_open(cfg->train.device, &why) != NULL)
        return;
    rf_warn("%s: %s; running it on the CPU instead", checkpoint, why.msg);
    g_strlcpy(cfg->train.device, "cpu", sizeof cfg->train.device);
}

gboolean rf_saved_model_open(rf_saved_model *sm, const char *checkpoint, const char *const *sets,
                             gboolean forward_only, GError **error)
{
    *sm = (rf_saved_model){0};
    if (!g_file_test(checkpoint, G_FILE_TEST_EXISTS)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s: no such file", checkpoint);
        return FALSE;
    }
    rf_config saved;
    rf_config_defaults(&saved);
    rf_status st = {0};
    if (!rf_checkpoint_read_config(checkpoint, &saved, &sm->step, &st))
        return rf_cli_fail_status(error, &st);
    sm->step = rf_curriculum_run_step(&saved, sm->step);
    sm->cfg = saved;
    if (!rf_config_apply_sets(&sm->cfg, sets, error) ||
        !rf_config_check_changes(&saved, &sm->cfg, RF_CHANGE_KEEP_MODEL, error) ||
        !rf_config_check(&sm->cfg, checkpoint, error))
        return FALSE;
    fall_back_to_cpu(&sm->cfg, sets, checkpoint);
    sm->ds = rf_dataset_open(&sm->cfg, &st);
    if (sm->ds == NULL)
        return rf_cli_fail_status(error, &st);
    rf_model_input in;
    g_autofree char *changed = rf_config_data_changes(&saved, &sm->cfg);
    g_autofree char *what = changed != NULL ? g_strdup(changed)
                                            : g_strdup_printf("its own data set (data.task=%s)", sm->cfg.data.task);
    if (!rf_model_input_read(checkpoint, &in, &st) || !rf_model_input_fits(&in, sm->ds, what, &st))
        return rf_cli_fail_status(error, &st);
    sm->trainer = forward_only ? rf_trainer_new_forward(&sm->cfg, sm->ds, &st)
                               : rf_trainer_new(&sm->cfg, sm->ds, &st);
    if (sm->trainer == NULL || !rf_trainer_load(sm->trainer, checkpoint, &st))
        return rf_cli_fail_status(error, &st);
    return TRUE;
}

void rf_saved_model_clear(rf_saved_model *sm)
{
    rf_trainer_free(sm->trainer);
    rf_dataset_free(sm->ds);
    sm->trainer = NULL;
    sm->ds = NULL;
}

bool rf_saved_model_classify(rf_saved_model *sm, const rf_outside_input *in, int rows, float *probs, rf_status *st)
{
    return rf_trainer_predict_all(sm->trainer, in, rows, probs, st);
}
