#include "launch_files.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "config_file.h"

#define LAUNCH_COMMENT " The workbench's config for a launch on several ranks (Launch on a Cluster…)."

char *rf_launch_config_path(const char *out_dir)
{
    return g_build_filename(out_dir, "launch.ini", NULL);
}

char *rf_launch_prepare(const rf_config *cfg, rf_launch_kind kind, int ranks, const char *out_dir, GError **error)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    g_autofree char *dir = g_canonicalize_filename(out_dir, NULL);
    g_autofree char *ini = rf_launch_config_path(dir);
    rf_launch l = {.kind = kind, .ranks = ranks, .exe = exe != NULL ? exe : "rangefinder", .config_path = ini,
                   .out_dir = dir};
    char *text = rf_launch_text(&l, cfg, error);   /* checks the ranks before anything is written */
    if (text == NULL)
        return NULL;
    if (g_mkdir_with_parents(dir, 0777) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot create %s: %s", dir,
                    g_strerror(errno));
        g_free(text);
        return NULL;
    }
    if (!rf_config_write_ini(cfg, ini, LAUNCH_COMMENT, error)) {
        g_free(text);
        return NULL;
    }
    return text;
}
