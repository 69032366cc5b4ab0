/* PLACEHOLDER: data.task = audio_folder */
#include "audio_folder.h"
rf_dataset *rf_audio_folder_open(const rf_config *cfg, rf_status *st)
{
    (void)cfg;
    rf_fail(st, "data.task = audio_folder is not built yet");
    return NULL;
}
