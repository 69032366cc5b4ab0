/* The data sets the workbench offers (see data_tasks.h). */
#include "data_tasks.h"

#include <glib.h>
#include <string.h>

#include "../datasets/fashion_mnist.h"

/* In the order of data.task's choices in core/config.c (test_gui_data
 * checks it). */
const rf_data_task rf_data_tasks[] = {
    {"listops", "ListOps (generated)", false, false, NULL},
    {"random", "Random tokens", false, false, NULL},
    {"long_match", "Long-range match (generated)", false, false, NULL},
    {"fashion_mnist", "Fashion-MNIST", false, true, RF_FASHION_MNIST_DIR},
    {"image_folder", "Image folder", true, true, NULL},
    {"audio_folder", "Audio folder", true, true, NULL},
    {"ucr", "Time series (UCR)", true, true, NULL},
    {"lra_tsv", "LRA TSV files", true, true, NULL},
    {"text_folder", "Text folder", true, true, NULL},
    {"npy", "NumPy arrays", true, true, NULL},
};
const size_t rf_data_task_count = G_N_ELEMENTS(rf_data_tasks);

const rf_data_task *rf_data_task_find(const char *key)
{
    for (size_t i = 0; i < rf_data_task_count; i++)
        if (strcmp(rf_data_tasks[i].key, key) == 0)
            return &rf_data_tasks[i];
    return NULL;
}

bool rf_data_task_asks_folder(const rf_data_task *t)
{
    return t->needs_path || (t->takes_path && (t->default_path == NULL ||
                                               !g_file_test(t->default_path, G_FILE_TEST_IS_DIR)));
}

char *rf_data_task_chooser_title(const char *verb, const rf_data_task *t)
{
    return t != NULL ? g_strdup_printf("%s Data · %s", verb, t->title) : g_strdup_printf("%s Data", verb);
}
