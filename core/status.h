/* Error reporting for the engine.
 *
 * Core never prints and never exits: a function that can fail on user input
 * takes an rf_status *, fills it with a one-line message and returns false
 * (or NULL / -1). The caller decides how to show it (CLI line, GUI dialog).
 * Programmer errors (wrong shapes inside the engine) use assert().
 */
#ifndef RF_STATUS_H
#define RF_STATUS_H

#include <stdbool.h>

#define RF_STATUS_MSG 512

typedef struct rf_status {
    bool failed;
    char msg[RF_STATUS_MSG];
} rf_status;

/* Record a failure (printf-style). Keeps the first message if called twice.
 * `st` may be NULL. Always returns false, so `return rf_fail(st, ...)` reads well. */
bool rf_fail(rf_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clear a status before reuse. */
void rf_status_clear(rf_status *st);

#endif
