/* Error reporting for the engine.
 *
 * Core never exits and never prints errors: a function that can fail on user
 * input takes an rf_status *, fills it with a one-line message and returns
 * false (or NULL / -1). The caller decides how to show it (CLI line, GUI
 * dialog). Programmer errors (wrong shapes inside the engine) use assert().
 * What is worth telling but stops nothing (a checkpoint without a checksum)
 * goes to rf_warn's handler.
 */
#ifndef RF_STATUS_H
#define RF_STATUS_H

#include <stdbool.h>

#define RF_STATUS_MSG 512

typedef struct rf_status {
    bool failed;
    char msg[RF_STATUS_MSG];
    /* Every rank of a data-parallel run failed with this same message
     * (decided together): rank 0 alone needs to show it. */
    bool agreed;
    /* Warnings given through rf_status_warn while the call ran: how many,
     * and the first of them, one per line (what fits), for a caller that
     * shows them (the workbench's data dialog). */
    long long warnings;
    char warning_lines[4 * RF_STATUS_MSG];
} rf_status;

/* Record a failure (printf-style). Keeps the first message if called twice.
 * `st` may be NULL. Always returns false, so `return rf_fail(st, ...)` reads well. */
bool rf_fail(rf_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clear a status (failure and warnings) before reuse. */
void rf_status_clear(rf_status *st);

/* A one-line warning (printf-style). The default handler writes
 * "rangefinder: warning: <msg>" on stderr. */
void rf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* rf_warn, and the warning counted and kept in `st` (may be NULL) so the
 * caller can show what was skipped. */
void rf_status_warn(rf_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Send warnings to `fn` instead (NULL: back to the default). Set it before
 * any thread that may warn starts. */
typedef void (*rf_warn_handler)(const char *msg, void *ctx);
void rf_set_warn_handler(rf_warn_handler fn, void *ctx);

#endif
