/* The command line's data opening (see data_open.h). */
#include "data_open.h"

#include <stdio.h>
#include <unistd.h>

#include "../datasets/datasets.h"
#include "../datasets/folder_report.h"

#define BAR_WIDTH 30

static void draw_bar(const char *what, int64_t done, int64_t total, void *ctx)
{
    (void)ctx;
    int filled = total > 0 ? (int)(done * BAR_WIDTH / total) : BAR_WIDTH;
    fprintf(stderr, "\ropening data: %s %lld/%lld [%.*s%*s]", what, (long long)done, (long long)total, filled,
            "##############################", BAR_WIDTH - filled, "");
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

rf_dataset *rf_cli_open_data(const rf_config *cfg, rf_status *st)
{
    bool bar = isatty(STDERR_FILENO);
    if (bar)
        rf_load_progress_set(draw_bar, NULL);
    rf_dataset *ds = rf_dataset_open(cfg, st);
    if (bar)
        rf_load_progress_set(NULL, NULL);
    char line[512];
    if (ds != NULL && rf_dataset_summary(ds, line, sizeof line))
        fprintf(stderr, "data: %s\n", line);
    return ds;
}
