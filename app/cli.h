/* What every verb shares: exit codes, the error domain, option parsing and
 * the one-line error report.
 *
 * Verbs work with GError. An error in RF_CLI_ERROR_USAGE (or any
 * GOptionContext error) means the command line was wrong (exit 2); anything
 * else means the job failed (exit 1).
 */
#ifndef RF_APP_CLI_H
#define RF_APP_CLI_H

#include <glib.h>

#include "../core/data.h"
#include "../core/status.h"

enum {
    RF_EXIT_OK = 0,
    RF_EXIT_FAILED = 1,
    RF_EXIT_USAGE = 2,
    RF_EXIT_INTERRUPTED = 130,   /* 128 + SIGINT, as a shell reports it */
};

#define RF_CLI_ERROR (rf_cli_error_quark())
GQuark rf_cli_error_quark(void);

typedef enum rf_cli_error_code {
    RF_CLI_ERROR_FAILED,
    RF_CLI_ERROR_USAGE,
} rf_cli_error_code;

/* Print "rangefinder: <message>" on stderr and return the exit code that
 * fits the error. */
/* The exit status an error calls for: 2 for usage errors, else 1. */
int rf_cli_exit_code(const GError *error);
int rf_cli_report(const GError *error);

/* Parse a verb's options (handles --help). Leftover arguments are a usage
 * error; `verb` names the verb in the hint. */
gboolean rf_cli_parse(GOptionContext *ctx, const char *verb, int *argc, char ***argv, GError **error);

/* A core failure as a GError (always returns FALSE). */
gboolean rf_cli_fail_status(GError **error, const rf_status *st);

/* "test" or "val" to a split; usage error otherwise. */
gboolean rf_cli_parse_split(const char *text, rf_split *out, GError **error);
/* "test", "val" or "train" to a split (for looking at single samples). */
gboolean rf_cli_parse_any_split(const char *text, rf_split *out, GError **error);

/* Bytes in binary units with one decimal, plain ASCII: "512 B", "4.1 MiB". */
char *rf_cli_format_bytes(size_t bytes);

/* Worker threads the engine uses for train.threads (0: all cores). */
int rf_cli_threads(int configured);

#endif
