/* Opening a config's data set from the command line: a progress bar on a
 * terminal while a folder loads, and the folder tasks' summary line. */
#ifndef RF_APP_DATA_OPEN_H
#define RF_APP_DATA_OPEN_H

#include "../core/config.h"
#include "../core/data.h"

/* rf_dataset_open, drawing "opening data: images 1234/60000 [#####   ]" on
 * stderr when it is a terminal, then writing rf_dataset_summary's line
 * ("data: image_folder: ...") on stderr when there is one. */
rf_dataset *rf_cli_open_data(const rf_config *cfg, rf_status *st);

#endif
