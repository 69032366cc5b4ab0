/* TensorBoard event files (config/tb_reader.c), as the Runs view and
 * `rangefinder plot` read anyone's: any bytes either read into series that
 * each have a tag and points, or are refused with a message naming the
 * file and a byte offset. What reads becomes the plots' run
 * (ui/plot/tb_run_data.c: any steps, values and times), or is refused with
 * a message naming the folder. */
#include <string.h>

#include "../../ui/plot/tb_run_data.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_tb_run *run = rf_tb_run_new("fuzz");
    GError *error = NULL;
    if (rf_tb_run_add_events(run, "events.out.tfevents.fuzz", data, size, &error)) {
        for (guint i = 0; i < run->series->len; i++) {
            const rf_tb_series *s = g_ptr_array_index(run->series, i);
            FUZZ_CHECK(s->tag != NULL && s->points != NULL, "series %u without a tag or points", i);
        }
        rf_run_data *r = rf_run_data_from_tensorboard(run, &error);
        FUZZ_CHECK(r != NULL || strstr(error->message, "fuzz: ") == error->message,
                   "a refused run without its folder: %s", error->message);
        for (guint i = 1; r != NULL && i < r->rows->len; i++)
            FUZZ_CHECK(g_array_index(r->rows, rf_metrics, i - 1).step <= g_array_index(r->rows, rf_metrics, i).step,
                       "rows out of step order at %u", i);
        rf_run_data_free(r);
        g_clear_error(&error);
    } else {
        FUZZ_CHECK(error != NULL && strstr(error->message, "events.out.tfevents.fuzz: byte ") != NULL,
                   "a refusal without the file and offset: %s", error != NULL ? error->message : "(none)");
        g_error_free(error);
    }
    rf_tb_run_free(run);
    return 0;
}
