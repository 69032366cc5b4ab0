#include "status.h"

#include <stdarg.h>
#include <stdio.h>

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
        st->msg[0] = '\0';
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
