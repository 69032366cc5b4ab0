#include "run_folder.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>


/* More runs than this started in one second under one name is a bug. */
#define MAX_SAME_NAME 1000

char *rf_runs_default_dir(void)
{
    return g_build_filename(g_get_user_data_dir(), "rangefinder", "runs", NULL);
}

char *rf_run_config_name(const char *config_path)
{
    char *base = g_path_get_basename(config_path);
    if (g_str_has_suffix(base, ".ini") && strlen(base) > 4)
        base[strlen(base) - 4] = '\0';
    return base;
}

char *rf_run_folder_create(const char *runs, const char *label, GError **error)
{
    if (g_mkdir_with_parents(runs, 0777) != 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot create the runs folder %s: %s", runs,
                    g_strerror(errno));
        return NULL;
    }
    g_autoptr(GDateTime) now = g_date_time_new_now_local();
    g_autofree char *stamp = g_date_time_format(now, "%Y-%m-%d_%H%M%S");
    for (int n = 1; n <= MAX_SAME_NAME; n++) {
        g_autofree char *name = n == 1 ? g_strdup_printf("%s-%s", stamp, label)
                                       : g_strdup_printf("%s-%s-%d", stamp, label, n);
        char *dir = g_build_filename(runs, name, NULL);
        if (g_mkdir(dir, 0777) == 0)
            return dir;
        int err = errno;
        if (err != EEXIST) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot create %s: %s", dir, g_strerror(err));
            g_free(dir);
            return NULL;
        }
        g_free(dir);
    }
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %d runs named %s-%s already exist", runs,
                MAX_SAME_NAME, stamp, label);
    return NULL;
}
