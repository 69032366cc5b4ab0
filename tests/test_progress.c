/* `rangefinder train`'s progress lines when stdout is not a terminal
 * (app/progress.c): the speed in steps a second, or in seconds a step when
 * a step takes longer than about one (a million-token run's 42.6 s, not
 * "0.0 steps/s"), and the time left. */
#include <stdio.h>
#include <string.h>

#include "../app/progress.h"
#include "tap.h"

/* The line printed for a training report at `step` of 200, `seconds` after
 * the start. */
static void line_at(int64_t step, double seconds, char *line, size_t size)
{
    FILE *out = tmpfile();
    rf_progress *p = rf_progress_new(out, 0, 200);
    rf_metrics m = {.step = step, .split = RF_SPLIT_TRAIN, .loss = 0.5, .accuracy = 0.75, .lr = 1e-3,
                    .seconds = seconds};
    rf_progress_metrics(p, &m);
    rf_progress_free(p);
    rewind(out);
    if (fgets(line, (int)size, out) == NULL)
        line[0] = '\0';
    line[strcspn(line, "\n")] = '\0';
    fclose(out);
}

int main(void)
{
    char line[256];
    line_at(30, 1278.0, line, sizeof line);   /* 42.6 s a step, 170 steps left */
    tap_ok(strcmp(line, "step 30/200 loss 0.500 acc 0.750 lr 1.0e-03 42.6 s/step ETA 2:00:42") == 0,
           "a slow run says seconds a step and hours left (\"%s\")", line);
    line_at(50, 4.0, line, sizeof line);   /* 12.5 steps a second, 150 left */
    tap_ok(strcmp(line, "step 50/200 loss 0.500 acc 0.750 lr 1.0e-03 12.5 steps/s ETA 00:12") == 0,
           "a fast run says steps a second and minutes left (\"%s\")", line);
    line_at(100, 100.0, line, sizeof line);   /* one step a second */
    tap_ok(strstr(line, " 1.0 steps/s ETA 01:40") != NULL, "a step a second reads 1.0 steps/s (\"%s\")", line);
    return tap_done();
}
