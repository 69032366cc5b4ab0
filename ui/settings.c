#include "settings.h"

#include "../config/data_dir.h"

/* The schema source of `schema_dir` above the system's, when it holds a
 * compiled schema, else the system's own (either may be NULL). */
static GSettingsSchemaSource *source_for(const char *schema_dir)
{
    GSettingsSchemaSource *system = g_settings_schema_source_get_default();
    g_autofree char *compiled = g_build_filename(schema_dir, "gschemas.compiled", NULL);
    if (!g_file_test(compiled, G_FILE_TEST_EXISTS))
        return system != NULL ? g_settings_schema_source_ref(system) : NULL;
    g_autoptr(GError) error = NULL;
    GSettingsSchemaSource *source = g_settings_schema_source_new_from_directory(schema_dir, system, FALSE, &error);
    if (source == NULL) {
        g_warning("%s: %s; looking in the system's schema folders", compiled, error->message);
        return system != NULL ? g_settings_schema_source_ref(system) : NULL;
    }
    return source;
}

GSettings *rf_settings_new_from(const char *schema_dir)
{
    GSettingsSchemaSource *source = source_for(schema_dir);
    g_autoptr(GSettingsSchema) schema =
        source != NULL ? g_settings_schema_source_lookup(source, RF_SETTINGS_SCHEMA, TRUE) : NULL;
    if (source != NULL)
        g_settings_schema_source_unref(source);
    if (schema == NULL) {
        g_warning("the preferences schema %s is neither in %s nor in the system's schema folders: the workbench "
                  "starts from its defaults and will not remember its preferences (reinstall, or run "
                  "glib-compile-schemas on the folder holding %s.gschema.xml)",
                  RF_SETTINGS_SCHEMA, schema_dir, RF_SETTINGS_SCHEMA);
        return NULL;
    }
    return g_settings_new_full(schema, NULL, NULL);
}

GSettings *rf_settings(void)
{
    static gboolean looked;
    static GSettings *settings;
    if (!looked) {
        looked = TRUE;
        g_autofree char *dir = rf_schema_dir();
        settings = rf_settings_new_from(dir);
    }
    return settings;
}
