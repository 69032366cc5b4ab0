/* The workbench's preferences, kept from one launch to the next in GSettings
 * (schema org.rangefinder.Workbench, data/org.rangefinder.Workbench.gschema.xml):
 * the style, the main window's size and maximised state, the sidebar's
 * width, the runs folder and where each kind of file chooser last was.
 *
 * The schema is looked for where the program's own files are
 * (config/data_dir.h: the build tree's build/data/gschemas.compiled, or the
 * installed datadir/glib-2.0/schemas of the program's prefix), then in the
 * system's schema folders. Without it the workbench still runs, on its
 * defaults, and forgets its preferences: one warning says so.
 * Main thread only.
 */
#ifndef RF_UI_SETTINGS_H
#define RF_UI_SETTINGS_H

#include <gio/gio.h>

#define RF_SETTINGS_SCHEMA "org.rangefinder.Workbench"

/* The process's preferences, or NULL when the schema is not found (the
 * first call warns). Owned by the process: do not unref. */
GSettings *rf_settings(void);

/* The preferences of the schema compiled in `schema_dir`, or else of the
 * system's folders; NULL, with one warning naming where it looked, when
 * neither has it. rf_settings() calls it once with config/data_dir.h's
 * rf_schema_dir(). Free with g_object_unref. */
GSettings *rf_settings_new_from(const char *schema_dir);

#endif
