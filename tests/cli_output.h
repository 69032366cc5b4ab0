/* What the GUI tests that check a view against the command line share:
 * running `rangefinder ARGS...` to its end, and reading the .npy it wrote. */
#ifndef RF_TESTS_CLI_OUTPUT_H
#define RF_TESTS_CLI_OUTPUT_H

#include <glib.h>

#include "../datasets/npy_read.h"
#include "tap.h"

/* `rangefinder ARGS...` (argv[0] the program) run to its end; its stdout
 * (NULL on failure, said as a TAP comment). */
static inline char *cli_run(const char *const *argv)
{
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
        tap_diag("%s %s failed: %s", argv[0], argv[1], err != NULL ? err : "");
        return NULL;
    }
    return g_steal_pointer(&out);
}

/* The array of `npy` as floats (NULL on failure). */
static inline GArray *npy_values(const char *npy)
{
    rf_npy_array a;
    rf_status st = {0};
    if (!rf_npy_open(npy, &a, &st)) {
        tap_diag("%s", st.msg);
        return NULL;
    }
    GArray *values = g_array_new(FALSE, FALSE, sizeof(float));
    for (int64_t i = 0; i < a.count; i++) {
        float v = (float)rf_npy_value(&a, i);
        g_array_append_val(values, v);
    }
    rf_npy_close(&a);
    return values;
}

#endif
