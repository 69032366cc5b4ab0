#include "progress.h"

#include <stdarg.h>
#include <unistd.h>

#define BAR_WIDTH 24

struct rf_progress {
    FILE *out;
    gboolean tty;
    gboolean bar_shown;     /* the cursor sits at the end of a drawn bar */
    int64_t first_step, total;
    rf_metrics last;        /* the last training report, to redraw the bar */
    double last_rate;
    gboolean have_last;
};

rf_progress *rf_progress_new(FILE *out, int64_t first_step, int64_t total)
{
    rf_progress *p = g_new0(rf_progress, 1);
    p->out = out;
    p->tty = isatty(fileno(out));
    p->first_step = first_step;
    p->total = total;
    return p;
}

void rf_progress_free(rf_progress *p)
{
    g_free(p);
}

static void clear_bar(rf_progress *p)
{
    if (p->bar_shown) {
        fputs("\r\033[K", p->out);
        p->bar_shown = FALSE;
    }
}

/* The speed as a researcher reads it: steps a second when there are
 * several, seconds a step when a step takes longer (a long sequence's
 * "0.0 steps/s" says nothing). */
static void format_rate(double rate, char *buf, size_t size)
{
    if (rate <= 0)
        snprintf(buf, size, "-- steps/s");
    else if (rate >= 0.95)
        snprintf(buf, size, "%.1f steps/s", rate);
    else
        snprintf(buf, size, "%.1f s/step", 1.0 / rate);
}

/* The time left at this rate: MM:SS, or H:MM:SS past an hour. */
static void format_eta(const rf_progress *p, const rf_metrics *m, double rate, char *buf, size_t size)
{
    if (rate <= 0) {
        snprintf(buf, size, "--:--");
        return;
    }
    int64_t left = (int64_t)((p->total - m->step) / rate + 0.5);
    if (left >= 3600)
        snprintf(buf, size, "%lld:%02lld:%02lld", (long long)(left / 3600), (long long)(left / 60 % 60),
                 (long long)(left % 60));
    else
        snprintf(buf, size, "%02lld:%02lld", (long long)(left / 60), (long long)(left % 60));
}

static void draw_bar(rf_progress *p, const rf_metrics *m, double rate)
{
    char bar[BAR_WIDTH + 1];
    int filled = p->total > 0 ? (int)(BAR_WIDTH * m->step / p->total) : BAR_WIDTH;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    char speed[32], eta[32];
    format_rate(rate, speed, sizeof speed);
    format_eta(p, m, rate, eta, sizeof eta);
    fprintf(p->out, "\r\033[Kstep %lld/%lld [%s] loss %.3f acc %.3f %s ETA %s", (long long)m->step,
            (long long)p->total, bar, m->loss, m->accuracy, speed, eta);
    p->bar_shown = TRUE;
}

void rf_progress_metrics(rf_progress *p, const rf_metrics *m)
{
    if (m->split == RF_SPLIT_TRAIN) {
        /* Over the whole invocation, evaluations included, so the ETA holds. */
        double rate = m->seconds > 0 ? (double)(m->step - p->first_step) / m->seconds : 0;
        p->last = *m;
        p->last_rate = rate;
        p->have_last = TRUE;
        if (p->tty)
            draw_bar(p, m, rate);
        else {
            char speed[32], eta[32];
            format_rate(rate, speed, sizeof speed);
            format_eta(p, m, rate, eta, sizeof eta);
            fprintf(p->out, "step %lld/%lld loss %.3f acc %.3f lr %.1e %s ETA %s\n", (long long)m->step,
                    (long long)p->total, m->loss, m->accuracy, m->lr, speed, eta);
        }
    } else {
        clear_bar(p);
        fprintf(p->out, "%s step %lld/%lld loss %.3f acc %.3f\n", rf_split_name(m->split), (long long)m->step,
                (long long)p->total, m->loss, m->accuracy);
        if (p->tty && p->have_last && m->split == RF_SPLIT_VAL)
            draw_bar(p, &p->last, p->last_rate);
    }
    fflush(p->out);
}

void rf_progress_note(rf_progress *p, const char *fmt, ...)
{
    clear_bar(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputc('\n', p->out);
    fflush(p->out);
}

void rf_progress_end(rf_progress *p)
{
    if (p->bar_shown) {
        fputc('\n', p->out);
        p->bar_shown = FALSE;
        fflush(p->out);
    }
}
