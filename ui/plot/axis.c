/* Axis ranges, "nice" ticks and tick labels. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "plot.h"

void rf_axis_include(rf_axis *a, double v)
{
    if (!isfinite(v) || (a->scale == RF_AXIS_LOG && v <= 0))
        return;
    if (!(a->min <= a->max)) {       /* unset: NaN or inverted */
        a->min = a->max = v;
        return;
    }
    a->min = fmin(a->min, v);
    a->max = fmax(a->max, v);
}

void rf_axis_finish(rf_axis *a, bool tight)
{
    if (a->scale == RF_AXIS_LOG) {
        if (!(a->min > 0) || !isfinite(a->min) || !(a->max >= a->min) || !isfinite(a->max)) {
            a->min = 1;
            a->max = 10;
        }
        if (a->max <= a->min * 1.0001) {
            a->min /= 2;
            a->max *= 2;
        }
        if (!tight) {
            double pad = pow(a->max / a->min, 0.04);
            a->min /= pad;
            a->max *= pad;
        }
        return;
    }
    if (!isfinite(a->min) || !isfinite(a->max) || !(a->max >= a->min)) {
        a->min = 0;
        a->max = 1;
    }
    if (a->max - a->min <= 1e-12 * fmax(1, fabs(a->max))) {
        double span = a->min == 0 ? 1 : fabs(a->min) * 0.1;
        a->min -= span;
        a->max += span;
    }
    if (!tight) {
        double pad = 0.04 * (a->max - a->min);
        a->min -= pad;
        a->max += pad;
    }
}

rf_axis rf_axis_zoom(const rf_axis *a, double f0, double f1)
{
    rf_axis z = *a;
    if (a->scale == RF_AXIS_LOG) {
        double l0 = log(a->min), l1 = log(a->max);
        z.min = exp(l0 + f0 * (l1 - l0));
        z.max = exp(l0 + f1 * (l1 - l0));
    } else {
        z.min = a->min + f0 * (a->max - a->min);
        z.max = a->min + f1 * (a->max - a->min);
    }
    return z;
}

/* The 1-2-5 step giving about `target` intervals over span. */
static double nice_step(double span, int target)
{
    double raw = span / target;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double nice = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
    return nice * mag;
}

/* The round time step (1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min;
 * 1, 2, 3, 6, 12 h; then whole days) giving about `target` intervals; 1-2-5
 * below a second. */
static double time_step(double span, int target)
{
    static const double steps[] = {1,   2,   5,    10,   15,   30,   60,    120,   300,   600,
                                   900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
    double raw = span / target;
    if (raw < 1)
        return nice_step(span, target);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (raw <= steps[i] * 1.5)
            return steps[i];
    return 86400 * nice_step(raw / 86400, 1);
}

/* A linear byte axis counts in one unit, the largest value's (0.2, 0.4 ...
 * 1.2 GiB; never 205, 410, 614 MiB), unless zoomed in below half of it:
 * then in the span's. Returns the unit in bytes. */
static double byte_unit(const rf_axis *a)
{
    double span = a->max - a->min, top = fmax(fabs(a->min), fabs(a->max));
    double unit = pow(1024, floor(log(fmax(top, 1)) / log(1024)));
    return span >= unit / 2 ? unit : pow(1024, floor(log(fmax(span, 1)) / log(1024)));
}

/* Round steps in that unit. */
static double byte_step(const rf_axis *a, double unit, int target)
{
    return nice_step((a->max - a->min) / unit, target) * unit;
}

/* A linear axis's tick step for about `target` intervals, in its format's
 * round numbers. */
static double linear_step(const rf_axis *a, int target)
{
    double step = a->format == RF_FORMAT_DURATION ? time_step(a->max - a->min, target)
                                                  : nice_step(a->max - a->min, target);
    if (a->format == RF_FORMAT_BYTES && a->max - a->min >= 1024)
        step = byte_step(a, byte_unit(a), target);
    if (a->whole && step < 1)
        step = 1;   /* no "segment 1.5" */
    return step;
}

int rf_axis_ticks(const rf_axis *a, double *ticks, int max)
{
    int n = 0;
    if (a->scale == RF_AXIS_LOG && a->format == RF_FORMAT_BYTES) {
        /* Powers of two, every k-th, so labels read 1 GiB, 4 GiB, 16 GiB. */
        int p0 = (int)ceil(log2(a->min) - 1e-9), p1 = (int)floor(log2(a->max) + 1e-9);
        int every = 1;
        while ((p1 - p0) / every + 1 > 7)
            every *= 2;
        p0 = (int)ceil((double)p0 / every) * every;
        for (int k = p0; k <= p1 && n < max; k += every)
            ticks[n++] = ldexp(1, k);
        return n;
    }
    if (a->scale == RF_AXIS_LOG) {
        int d0 = (int)ceil(log10(a->min) - 1e-9), d1 = (int)floor(log10(a->max) + 1e-9);
        int decades = d1 - d0 + 1;
        int every = decades > max ? (decades + max - 1) / max : 1;
        if (decades >= 3) {
            for (int d = d0; d <= d1 && n < max; d += every)
                ticks[n++] = pow(10, d);
            return n;
        }
        /* Less than two decades: 1-2-5 within them. */
        static const double mant[] = {1, 2, 5};
        for (int d = d0 - 1; d <= d1 && n < max; d++)
            for (int i = 0; i < 3 && n < max; i++) {
                double v = mant[i] * pow(10, d);
                if (v >= a->min * (1 - 1e-9) && v <= a->max * (1 + 1e-9))
                    ticks[n++] = v;
            }
        if (n >= 2)
            return n;
        n = 0;
        rf_axis lin = *a;
        lin.scale = RF_AXIS_LINEAR;
        return rf_axis_ticks(&lin, ticks, max);
    }
    /* Wider steps until the ticks over the whole range number at most
     * `max`: fewer ticks, never a range cut short. */
    double step = 1;
    for (int target = max - 1 < 5 ? max - 1 : 5;; target--) {
        step = linear_step(a, target > 1 ? target : 1);
        double count = floor(a->max / step + 1e-9) - ceil(a->min / step - 1e-9) + 1;
        if (count <= max || target <= 1)
            break;
    }
    for (double v = ceil(a->min / step - 1e-9) * step; v <= a->max + step * 1e-9 && n < max; v += step)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

void rf_format_number(double v, char *buf, size_t size)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    if (!isfinite(v)) {
        snprintf(buf, size, "%s", isnan(v) ? "NaN" : v > 0 ? "∞" : "-∞");
        return;
    }
    double a = fabs(v);
    if (a != 0 && a < 1e-3) {
        snprintf(buf, size, "%.3g", v);
        return;
    }
    int k = 0;
    while (a >= 1000 && k < 4) {
        a /= 1000;
        v /= 1000;
        k++;
    }
    snprintf(buf, size, "%.3g%s", v, suffix[k]);
}

void rf_format_bytes(double v, char *buf, size_t size)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (fabs(v) >= 1024 && k < 4) {
        v /= 1024;
        k++;
    }
    if (k == 0 || fabs(v) >= 999.5)   /* %.3g would print 1e+03 */
        snprintf(buf, size, "%.0f %s", v, unit[k]);
    else
        snprintf(buf, size, "%.3g %s", v, unit[k]);
}

void rf_format_duration(double seconds, char *buf, size_t size)
{
    if (!isfinite(seconds)) {
        rf_format_number(seconds, buf, size);
        return;
    }
    const char *sign = seconds < 0 ? "-" : "";
    double t = fabs(seconds);
    /* Tenths below a whole second, so ticks 0.5 s apart differ. */
    bool tenths = fabs(t - round(t)) > 0.05;
    long long whole = tenths ? (long long)floor(t) : llround(t);
    long long h = whole / 3600, m = whole / 60 % 60, s = whole % 60;
    char secs[16];
    if (tenths)
        snprintf(secs, sizeof secs, "%04.1f", s + (t - floor(t)));
    else
        snprintf(secs, sizeof secs, "%02lld", s);
    if (h > 0)
        snprintf(buf, size, "%s%lld:%02lld:%s", sign, h, m, secs);
    else
        snprintf(buf, size, "%s%lld:%s", sign, m, secs);
}

void rf_axis_format_value(const rf_axis *a, double v, char *buf, size_t size)
{
    switch (a->format) {
    case RF_FORMAT_BYTES:
        if (a->scale == RF_AXIS_LINEAR && a->max - a->min >= 1024) {
            static const char *const unit_name[] = {"B", "KiB", "MiB", "GiB", "TiB"};
            double unit = byte_unit(a), step = byte_step(a, unit, 5) / unit;   /* the finest step the ticks take */
            int k = (int)fmin(4, round(log(unit) / log(1024)));
            int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
            snprintf(buf, size, "%.*f %s", decimals, fabs(v) < unit * 1e-9 ? 0.0 : v / unit, unit_name[k]);
        } else {
            rf_format_bytes(v, buf, size);
        }
        break;
    case RF_FORMAT_PERCENT:
        snprintf(buf, size, "%.4g %%", v * 100);
        break;
    case RF_FORMAT_DURATION:
        rf_format_duration(v, buf, size);
        break;
    default:
        rf_format_number(v, buf, size);
        break;
    }
}
