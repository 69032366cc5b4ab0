/* rf_dataset_open: the task name to its constructor. */
#include "datasets.h"

#include <stdio.h>
#include <string.h>

#include "audio_folder.h"
#include "fashion_mnist.h"
#include "folder_report.h"
#include "image_table.h"
#include "image_folder.h"
#include "listops.h"
#include "lra_tsv.h"
#include "npy_task.h"
#include "random_task.h"
#include "long_match.h"
#include "text_folder.h"
#include "ucr.h"

typedef struct task_entry {
    const char *name;
    rf_dataset *(*open)(const rf_config *cfg, rf_status *st);
} task_entry;

static const task_entry tasks[] = {
    {"listops", rf_listops_open},
    {"random", rf_random_task_open},
    {"long_match", rf_long_match_open},
    {"fashion_mnist", rf_fashion_mnist_open},
    {"image_folder", rf_image_folder_open},
    {"audio_folder", rf_audio_folder_open},
    {"ucr", rf_ucr_open},
    {"lra_tsv", rf_lra_tsv_open},
    {"text_folder", rf_text_folder_open},
    {"npy", rf_npy_task_open},
};

#define TASK_COUNT (sizeof tasks / sizeof tasks[0])

rf_dataset *rf_dataset_open(const rf_config *cfg, rf_status *st)
{
    for (size_t i = 0; i < TASK_COUNT; i++)
        if (strcmp(cfg->data.task, tasks[i].name) == 0)
            return tasks[i].open(cfg, st);
    char allowed[256] = "";
    for (size_t i = 0; i < TASK_COUNT; i++) {
        strcat(allowed, i > 0 ? ", " : "");
        strcat(allowed, tasks[i].name);
    }
    rf_fail(st, "unknown data.task '%s' (allowed: %s)", cfg->data.task, allowed);
    return NULL;
}

bool rf_dataset_summary(const rf_dataset *ds, char *buf, size_t size)
{
    char formats[256];
    rf_audio_folder_stats a;
    const rf_format_counts *images = ds != NULL && strcmp(ds->name, "image_folder") == 0 ? rf_image_formats(ds) : NULL;
    int64_t skipped;
    if (images != NULL) {
        rf_format_counts_text(images, formats, sizeof formats);
        skipped = rf_image_skipped(ds);
        int64_t read = images->other;
        for (int i = 0; i < images->kinds; i++)
            read += images->count[i];
        snprintf(buf, size, "image_folder: %lld images read (%s)", (long long)read, formats);
    } else if (rf_audio_folder_get_stats(ds, &a)) {
        rf_format_counts_text(&a.formats, formats, sizeof formats);
        skipped = a.skipped;
        snprintf(buf, size, "audio_folder: %lld clips, %.1f s (%s)", (long long)a.clips, a.audio_seconds, formats);
    } else {
        return false;
    }
    size_t n = strlen(buf);
    if (skipped > 0 && n < size)
        snprintf(buf + n, size - n, ", %lld file%s skipped", (long long)skipped, skipped == 1 ? "" : "s");
    return true;
}

bool rf_dataset_shortfall(const rf_dataset *ds, const rf_config *cfg, char *buf, size_t size)
{
    static const char *const words[RF_SPLIT_COUNT] = {"training", "validation", "test"};
    const int64_t asked[RF_SPLIT_COUNT] = {cfg->data.train_size, cfg->data.val_size, cfg->data.test_size};
    size_t n = 0;
    if (size > 0)
        buf[0] = '\0';
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        if (ds->size[s] < asked[s] && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s: %lld of %lld asked", n > 0 ? " · " : "", words[s],
                                  (long long)ds->size[s], (long long)asked[s]);
    return n > 0;
}
