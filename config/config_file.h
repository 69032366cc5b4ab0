/* Config files: INI (GKeyFile) in, INI out, with --set overrides. Below
 * both the command line (app/) and the workbench (ui/), which read and
 * write configs the same way; GLib, so not in core/ (GLib-free), whose key
 * table (core/config.h) it reads and writes through.
 *
 *   [model]
 *   dim = 64
 *
 * sets the key model.dim. Groups and keys are checked against the key table
 * in core/config.h; every error names the file, the group and the key. A
 * file that is not UTF-8 text (a NUL byte, another encoding), or has a key
 * before its first group, is an error naming the file, line and column; an
 * empty file, or one of comments and blank lines, is every default.
 */
#ifndef RF_CONFIG_FILE_H
#define RF_CONFIG_FILE_H

#include <glib.h>

#include "../core/config.h"

/* Every error of this unit is RF_CONFIG_FILE_ERROR_FAILED, one line naming
 * the file (or the --set assignment) and the problem. */
#define RF_CONFIG_FILE_ERROR (rf_config_file_error_quark())
GQuark rf_config_file_error_quark(void);

enum { RF_CONFIG_FILE_ERROR_FAILED };

/* Every key of the INI file `path` onto `cfg`, in file order; no defaults
 * first, no validation. */
gboolean rf_config_apply_ini(rf_config *cfg, const char *path, GError **error);

/* Defaults, then every key of `path`, then each "section.key=value" of
 * `sets` (NULL-terminated, may be NULL), then rf_config_validate. */
gboolean rf_config_load_ini(const char *path, const char *const *sets, rf_config *cfg, GError **error);

/* Apply --set assignments in order (no validation; each must be UTF-8). */
gboolean rf_config_apply_sets(rf_config *cfg, const char *const *sets, GError **error);

/* rf_config_validate as a GError, prefixed with `source` (a file name). */
gboolean rf_config_check(const rf_config *cfg, const char *source, GError **error);

/* A key's value as text; floats in the shortest form that reads back to the
 * same value (4e-4 stays "0.0004"). */
void rf_config_format_value(const rf_config *cfg, const rf_config_key *k, char *buf, size_t size);

/* The keys ("section.key", in the key table's order) whose values are not
 * the same in all `n` configs; empty when n < 2. g_strfreev. */
char **rf_config_differing_keys(const rf_config *const *cfgs, guint n);

/* Every key, grouped by section, as INI text with `comment` (may be NULL)
 * at the top. */
char *rf_config_to_ini(const rf_config *cfg, const char *comment);

/* Write rf_config_to_ini atomically (a complete file or the old one). */
gboolean rf_config_write_ini(const rf_config *cfg, const char *path, const char *comment, GError **error);

#endif
