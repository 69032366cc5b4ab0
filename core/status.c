#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool rf_fail(rf_status *st, const char *fmt, ...)
{
    if (st == NULL || st->failed)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    st->failed = true;
    return false;
}

void rf_status_clear(rf_status *st)
{
    if (st != NULL) {
        st->failed = false;
        st->agreed = false;
        st->msg[0] = '\0';
        st->warnings = 0;
        st->warning_lines[0] = '\0';
    }
}

static rf_warn_handler warn_fn;
static void *warn_ctx;

void rf_set_warn_handler(rf_warn_handler fn, void *ctx)
{
    warn_fn = fn;
    warn_ctx = ctx;
}

void rf_warn(const char *fmt, ...)
{
    char msg[RF_STATUS_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (warn_fn != NULL)
        warn_fn(msg, warn_ctx);
    else
        fprintf(stderr, "rangefinder: warning: %s\n", msg);
}

void rf_status_warn(rf_status *st, const char *fmt, ...)
{
    char msg[RF_STATUS_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rf_warn("%s", msg);
    if (st == NULL)
        return;
    /* Whole lines only: a cut line would misname a file. */
    size_t used = strlen(st->warning_lines), len = strlen(msg);
    if (used + len + 2 <= sizeof st->warning_lines) {
        memcpy(st->warning_lines + used, msg, len);
        st->warning_lines[used + len] = '\n';
        st->warning_lines[used + len + 1] = '\0';
    }
    st->warnings++;
}
