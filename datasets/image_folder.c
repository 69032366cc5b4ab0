/* PLACEHOLDER: data.task = image_folder */
#include "image_folder.h"
rf_dataset *rf_image_folder_open(const rf_config *cfg, rf_status *st)
{
    (void)cfg;
    rf_fail(st, "data.task = image_folder is not built yet");
    return NULL;
}
