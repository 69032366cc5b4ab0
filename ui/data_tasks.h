/* The data sets the workbench offers, one table for every place that names
 * them (the sidebar's Task, the Data view's menu, the status line, Open
 * Data, the Runs view): the key table's order (core/config.c, data.task) and one label
 * each, and whether the task reads a folder. */
#ifndef RF_DATA_TASKS_H
#define RF_DATA_TASKS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rf_data_task {
    const char *key;            /* data.task */
    const char *title;          /* how the workbench names it */
    bool needs_path;            /* no data without a folder */
    bool takes_path;            /* reads files: a folder may be chosen */
    const char *default_path;   /* read when data.path is empty (NULL: none) */
} rf_data_task;

extern const rf_data_task rf_data_tasks[];
extern const size_t rf_data_task_count;

/* The entry for a data.task value, or NULL. */
const rf_data_task *rf_data_task_find(const char *key);

/* Whether switching to `t` needs a folder chosen first: it needs one, or
 * it reads one and its default location does not exist here. */
bool rf_data_task_asks_folder(const rf_data_task *t);

/* The title of a data folder's chooser: "Choose Data · Image folder" (the
 * task's title once, whether or not it names a folder itself). g_free. */
char *rf_data_task_chooser_title(const char *verb, const rf_data_task *t);

#endif
