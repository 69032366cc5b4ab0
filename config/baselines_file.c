#include "baselines_file.h"

#include <math.h>

#define GROUP "baselines"

gboolean rf_baselines_file_write(const char *dir, double majority, double first_token, GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_key_file_set_string(kf, GROUP, "split", "val");
    g_key_file_set_double(kf, GROUP, "majority", majority);
    g_key_file_set_double(kf, GROUP, "first_token", first_token);
    g_autofree char *path = g_build_filename(dir, RF_BASELINES_FILE, NULL);
    gsize len = 0;
    g_autofree char *text = g_key_file_to_data(kf, &len, NULL);
    return g_file_set_contents(path, text, (gssize)len, error);   /* atomic: a temporary file renamed */
}

/* One fraction in [0, 1], or an error naming the file and the key. */
static gboolean read_fraction(GKeyFile *kf, const char *path, const char *key, double *out, GError **error)
{
    g_autoptr(GError) e = NULL;
    double v = g_key_file_get_double(kf, GROUP, key, &e);
    if (e != NULL) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: [%s] %s: %s", path, GROUP, key,
                    e->message);
        return FALSE;
    }
    if (!(v >= 0.0 && v <= 1.0)) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s] %s = %g is not a fraction between 0 and 1", path, GROUP, key, v);
        return FALSE;
    }
    *out = v;
    return TRUE;
}

gboolean rf_baselines_file_read(const char *dir, double *majority, double *first_token, GError **error)
{
    *majority = *first_token = NAN;
    g_autofree char *path = g_build_filename(dir, RF_BASELINES_FILE, NULL);
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return TRUE;
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) e = NULL;
    if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &e)) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE, "%s: %s", path, e->message);
        return FALSE;
    }
    double m, f;
    if (!read_fraction(kf, path, "majority", &m, error) || !read_fraction(kf, path, "first_token", &f, error))
        return FALSE;
    *majority = m;
    *first_token = f;
    return TRUE;
}
