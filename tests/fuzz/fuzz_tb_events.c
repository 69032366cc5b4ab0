/* TensorBoard event files (config/tb_reader.c), as the Runs view and
 * `rangefinder plot` read anyone's: any bytes either read into series that
 * each have a tag and points, or are refused with a message naming the
 * file and a byte offset. */
#include <string.h>

#include "../../config/tb_reader.h"
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
    } else {
        FUZZ_CHECK(error != NULL && strstr(error->message, "events.out.tfevents.fuzz: byte ") != NULL,
                   "a refusal without the file and offset: %s", error != NULL ? error->message : "(none)");
        g_error_free(error);
    }
    rf_tb_run_free(run);
    return 0;
}
