#include "data_dir.h"

#include <stdio.h>

/* RF_DATA_FROM_BINDIR: meson's datadir/rangefinder relative to its bindir,
 * "../share/rangefinder" by default (config/meson.build). */

char *rf_path_from_program(const char *relative)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe == NULL)
        return NULL;
    g_autofree char *dir = g_path_get_dirname(exe);
    return g_canonicalize_filename(relative, dir);
}

/* The data folder that `ini` (an uninstalled.ini) names, or NULL when there
 * is no such file. A file that is there but unusable is reported. */
static char *uninstalled_data_dir(const char *ini)
{
    if (!g_file_test(ini, G_FILE_TEST_EXISTS))
        return NULL;
    g_autoptr(GKeyFile) keys = g_key_file_new();
    g_autoptr(GError) error = NULL;
    char *dir = NULL;
    if (g_key_file_load_from_file(keys, ini, G_KEY_FILE_NONE, &error))
        dir = g_key_file_get_string(keys, "uninstalled", "datadir", &error);
    if (dir == NULL) {
        fprintf(stderr, "rangefinder: %s: %s (rerun meson setup --reconfigure in this build folder)\n", ini,
                error->message);
        return NULL;
    }
    return dir;
}

char *rf_data_dir(void)
{
    static const char *const beside_or_above[] = {RF_UNINSTALLED_FILE, "../" RF_UNINSTALLED_FILE};
    for (size_t i = 0; i < G_N_ELEMENTS(beside_or_above); i++) {
        g_autofree char *ini = rf_path_from_program(beside_or_above[i]);
        char *dir = ini != NULL ? uninstalled_data_dir(ini) : NULL;
        if (dir != NULL)
            return dir;
    }
    char *installed = rf_path_from_program(RF_DATA_FROM_BINDIR);
    return installed != NULL ? installed : g_strdup(RF_DATA_FROM_BINDIR);
}
