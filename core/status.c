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
