/* `rangefinder inspect --against` (see inspect_against.h). */
#include "inspect_against.h"

#include <math.h>

#include "../core/model_input.h"
#include "cli.h"
#include "npy.h"

#define CHECKPOINT_FILE "checkpoint.safetensors"

char *rf_against_file(const char *other)
{
    return g_file_test(other, G_FILE_TEST_IS_DIR) ? g_build_filename(other, CHECKPOINT_FILE, NULL) : g_strdup(other);
}

gboolean rf_against_open(rf_saved_model *b, const rf_saved_model *a, const char *a_path, const char *other,
                         const char *const *sets, gboolean forward_only, GError **error)
{
    *b = (rf_saved_model){0};
    if (!rf_saved_model_open(b, other, sets, forward_only, error)) {
        g_prefix_error(error, "--against: ");
        return FALSE;
    }
    rf_status st = {0};
    return rf_model_inputs_comparable(a->cfg.data.task, a->ds, a_path, b->cfg.data.task, b->ds, other, &st) ||
           rf_cli_fail_status(error, &st);
}

gboolean rf_against_write(const char *path, int ndim, const int64_t *dims, const float *a, const float *b,
                          double *range, GError **error)
{
    size_t n = 1;
    int64_t stacked[RF_NPY_MAX_DIMS];
    g_return_val_if_fail(ndim < RF_NPY_MAX_DIMS, FALSE);
    stacked[0] = 3;
    for (int d = 0; d < ndim; d++) {
        stacked[d + 1] = dims[d];
        n *= (size_t)dims[d];
    }
    g_autofree float *all = g_new(float, 3 * n);
    double top = 0;
    for (size_t i = 0; i < n; i++) {
        all[i] = a[i];
        all[n + i] = b[i];
        all[2 * n + i] = a[i] - b[i];
        top = fmax(top, fmax(fabsf(a[i]), fabsf(b[i])));
    }
    *range = top;
    return rf_npy_write(path, ndim + 1, stacked, all, error);
}
