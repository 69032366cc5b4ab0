#include "start_folders.h"

#include "../config/data_dir.h"
#include "settings.h"

/* Where each kind was last, in the preferences (ui/settings.h); in memory
 * when there are none. */
static const char *const preference[] = {
    [RF_FOLDER_CONFIGS] = "last-config-folder",
    [RF_FOLDER_DATA] = "last-data-folder",
    [RF_FOLDER_RUN] = "last-run-folder",
};
static char *noted[RF_FOLDER_RUN + 1];

static char *existing(char *folder)
{
    if (folder != NULL && g_file_test(folder, G_FILE_TEST_IS_DIR))
        return folder;
    g_free(folder);
    return NULL;
}

static char *first_folder(RfFolderKind kind)
{
    switch (kind) {
    case RF_FOLDER_CONFIGS: {
        g_autofree char *data = rf_data_dir();
        return g_build_filename(data, "configs", NULL);
    }
    case RF_FOLDER_DATA:
        return g_strdup("/usr/share/datasets");
    case RF_FOLDER_RUN:
        return g_build_filename(g_get_user_data_dir(), "rangefinder", "runs", NULL);
    }
    return NULL;
}

char *rf_start_folder(RfFolderKind kind)
{
    GSettings *settings = rf_settings();
    char *folder = existing(settings != NULL ? g_settings_get_string(settings, preference[kind]) : g_strdup(noted[kind]));
    return folder != NULL ? folder : existing(first_folder(kind));
}

void rf_start_folder_note(RfFolderKind kind, const char *path)
{
    if (path == NULL || path[0] == '\0')
        return;
    g_free(noted[kind]);
    noted[kind] = kind == RF_FOLDER_DATA && g_file_test(path, G_FILE_TEST_IS_DIR) ? g_strdup(path)
                                                                                  : g_path_get_dirname(path);
    GSettings *settings = rf_settings();
    if (settings != NULL)
        g_settings_set_string(settings, preference[kind], noted[kind]);
}
