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

/* FNV-1a of the folder's name: stable across runs, versions and machines. */
static int color_from_name(const char *dir)
{
    g_autofree char *base = g_path_get_basename(dir);
    guint32 h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)base; *c != '\0'; c++)
        h = (h ^ *c) * 16777619u;
    return (int)(h % RF_RUN_COLORS);
}

int rf_run_folder_color(const char *dir)
{
    g_autofree char *meta = g_build_filename(dir, RF_RUN_META_FILE, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (g_key_file_load_from_file(kf, meta, G_KEY_FILE_NONE, NULL)) {
        g_autoptr(GError) error = NULL;
        gint64 color = g_key_file_get_int64(kf, "run", "color", &error);
        if (error == NULL && color >= 0 && color < RF_RUN_COLORS)
            return (int)color;
    }
    return color_from_name(dir);
}

/* The colour fewest of the other run folders in `runs` have. */
static int least_used_color(const char *runs, const char *made)
{
    int used[RF_RUN_COLORS] = {0};
    g_autoptr(GDir) d = g_dir_open(runs, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
        g_autofree char *dir = g_build_filename(runs, name, NULL);
        if (strcmp(dir, made) != 0 && g_file_test(dir, G_FILE_TEST_IS_DIR))
            used[rf_run_folder_color(dir)]++;
    }
    int best = 0;
    for (int c = 1; c < RF_RUN_COLORS; c++)
        if (used[c] < used[best])
            best = c;
    return best;
}

static gboolean write_color(const char *runs, const char *dir, GError **error)
{
    g_autofree char *text = g_strdup_printf("[run]\ncolor=%d\n", least_used_color(runs, dir));
    g_autofree char *meta = g_build_filename(dir, RF_RUN_META_FILE, NULL);
    g_autoptr(GError) local = NULL;
    if (g_file_set_contents(meta, text, -1, &local))
        return TRUE;
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot write %s: %s", meta, local->message);
    return FALSE;
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
        if (g_mkdir(dir, 0777) == 0) {
            if (write_color(runs, dir, error))
                return dir;
            g_rmdir(dir);
            g_free(dir);
            return NULL;
        }
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
