#include "data_dir.h"

#include <stdio.h>

/* RF_DATA_FROM_BINDIR: meson's datadir/rangefinder relative to its bindir,
 * "../share/rangefinder" by default; RF_SCHEMAS_FROM_BINDIR likewise
 * datadir/glib-2.0/schemas, RF_DOCS_FROM_BINDIR datadir/doc/rangefinder
 * (config/meson.build). */

char *rf_path_from_program(const char *relative)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe == NULL)
        return NULL;
    g_autofree char *dir = g_path_get_dirname(exe);
    return g_canonicalize_filename(relative, dir);
}

/* The folder that `ini` (an uninstalled.ini) names under `key`, or NULL
 * when there is no such file. A file that is there but unusable is
 * reported. */
static char *uninstalled_dir(const char *ini, const char *key)
{
    if (!g_file_test(ini, G_FILE_TEST_EXISTS))
        return NULL;
    g_autoptr(GKeyFile) keys = g_key_file_new();
    g_autoptr(GError) error = NULL;
    char *dir = NULL;
    if (g_key_file_load_from_file(keys, ini, G_KEY_FILE_NONE, &error))
        dir = g_key_file_get_string(keys, "uninstalled", key, &error);
    if (dir == NULL) {
        fprintf(stderr, "rangefinder: %s: %s (rerun meson setup --reconfigure in this build folder)\n", ini,
                error->message);
        return NULL;
    }
    return dir;
}

/* The build tree's folder `key` (uninstalled.ini beside the program or one
 * folder up), else the installed one, `from_bindir`. */
static char *build_tree_or_installed(const char *key, const char *from_bindir)
{
    static const char *const beside_or_above[] = {RF_UNINSTALLED_FILE, "../" RF_UNINSTALLED_FILE};
    for (size_t i = 0; i < G_N_ELEMENTS(beside_or_above); i++) {
        g_autofree char *ini = rf_path_from_program(beside_or_above[i]);
        char *dir = ini != NULL ? uninstalled_dir(ini, key) : NULL;
        if (dir != NULL)
            return dir;
    }
    char *installed = rf_path_from_program(from_bindir);
    return installed != NULL ? installed : g_strdup(from_bindir);
}

char *rf_data_dir(void)
{
    return build_tree_or_installed("datadir", RF_DATA_FROM_BINDIR);
}

char *rf_user_guide(void)
{
    g_autofree char *dir = build_tree_or_installed("docdir", RF_DOCS_FROM_BINDIR);
    return g_build_filename(dir, "README.md", NULL);
}

char *rf_schema_dir(void)
{
    return build_tree_or_installed("schemadir", RF_SCHEMAS_FROM_BINDIR);
}
