/* `rangefinder inspect --against` (see inspect_against.h). */
#include "inspect_against.h"

#include <math.h>
#include <string.h>

#include "cli.h"
#include "npy.h"

#define CHECKPOINT_FILE "checkpoint.safetensors"

static void differs(GString *s, const char *what, const char *mine, const char *theirs)
{
    g_string_append_printf(s, "%s%s %s against %s", s->len > 0 ? ", " : "", what, mine, theirs);
}

static void differs_int(GString *s, const char *what, int mine, int theirs)
{
    char m[16], t[16];
    if (mine == theirs)
        return;
    g_snprintf(m, sizeof m, "%d", mine);
    g_snprintf(t, sizeof t, "%d", theirs);
    differs(s, what, m, t);
}

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
    const rf_dataset *da = a->ds, *db = b->ds;
    g_autoptr(GString) why = g_string_new(NULL);
    if (strcmp(a->cfg.data.task, b->cfg.data.task) != 0)
        differs(why, "data.task", b->cfg.data.task, a->cfg.data.task);
    if (da->feat_dim != db->feat_dim)
        differs_int(why, "features per position", db->feat_dim, da->feat_dim);
    else if (da->feat_dim == 0)
        differs_int(why, "vocabulary", db->vocab, da->vocab);
    differs_int(why, "input length", db->seq_len, da->seq_len);
    differs_int(why, "classes", db->classes, da->classes);
    if (why->len == 0)
        return TRUE;
    g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s cannot be compared with %s: their models differ in %s",
                other, a_path, why->str);
    return FALSE;
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
