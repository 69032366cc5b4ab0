/* Skips, format counts and progress of folder loads (see folder_report.h). */
#include "folder_report.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

bool rf_skips_add(rf_skips *s, const char *message)
{
    if (s->strict)
        return rf_fail(s->st, "%s (data.strict = true)", message);
    if (s->count < RF_SKIPS_NAMED)
        rf_status_warn(s->st, "%s (skipped)", message);
    s->count++;
    return true;
}

void rf_skips_finish(rf_skips *s)
{
    if (s->count > RF_SKIPS_NAMED)
        rf_status_warn(s->st, "%lld more file%s skipped (%lld in all; data.strict = true names the first as an "
                       "error)", (long long)(s->count - RF_SKIPS_NAMED), s->count - RF_SKIPS_NAMED == 1 ? "" : "s",
                       (long long)s->count);
}

void rf_format_counts_add(rf_format_counts *c, const char *name)
{
    for (int i = 0; i < c->kinds; i++)
        if (strcmp(c->name[i], name) == 0) {
            c->count[i]++;
            return;
        }
    if (c->kinds == RF_FORMAT_KINDS) {
        c->other++;
        return;
    }
    c->name[c->kinds] = name;
    c->count[c->kinds++] = 1;
}

void rf_format_counts_text(const rf_format_counts *c, char *buf, size_t size)
{
    size_t at = 0;
    if (size > 0)
        buf[0] = '\0';
    for (int i = 0; i <= c->kinds && at < size; i++) {
        int64_t n = i < c->kinds ? c->count[i] : c->other;
        if (n == 0)
            continue;
        int w = snprintf(buf + at, size - at, "%s%lld %s", at > 0 ? ", " : "", (long long)n,
                         i < c->kinds ? c->name[i] : "other");
        at += w > 0 ? (size_t)w : 0;
    }
}

static GMutex progress_lock;
static rf_load_progress_fn progress_fn;
static void *progress_ctx;
static int64_t progress_last = -1;   /* thousandths told for the current load */

void rf_load_progress_set(rf_load_progress_fn fn, void *ctx)
{
    g_mutex_lock(&progress_lock);
    progress_fn = fn;
    progress_ctx = ctx;
    g_mutex_unlock(&progress_lock);
}

void rf_load_progress(const char *what, int64_t done, int64_t total)
{
    g_mutex_lock(&progress_lock);
    int64_t step = total > 0 ? done * 1000 / total : 1000;
    if (done == 0)
        progress_last = -1;
    if (progress_fn != NULL && (step > progress_last || done == total)) {
        progress_last = step;
        progress_fn(what, done, total, progress_ctx);
    }
    g_mutex_unlock(&progress_lock);
}
