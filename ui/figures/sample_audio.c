/* The sample figure for audio: the waveform above the log-mel spectrogram,
 * on one time axis. */
#include <glib.h>
#include <math.h>
#include <stdio.h>

#include "sample_figure_private.h"

/* Quieter than this below the clip's loudest cell is drawn as the floor
 * (the mel filters that catch no FFT bin sit at log(1e-10), -100 dB). */
#define DB_RANGE 80.0
#define COLORBAR_W (RF_MAP_LEGEND_W + 24)

void sample_audio_clear(rf_sample_figure *f)
{
    g_clear_pointer(&f->wave, g_free);
    g_clear_pointer(&f->wave_note, g_free);
    g_clear_pointer(&f->db, g_free);
    g_clear_pointer(&f->db_above_floor, g_free);
    g_clear_pointer(&f->bin_hz, g_free);
    rf_heatmap_clear(&f->spectrogram);
    f->spectrogram = (rf_heatmap){0};
    f->frames = f->bins = 0;
    f->wave_len = 0;
}

void rf_sample_figure_set_audio(rf_sample_figure *f, const float *wave, int64_t n, int sample_rate,
                                const char *wave_note, const float *logmel, int frames, int bins,
                                double hop_seconds, const float *bin_hz)
{
    sample_reset(f, SAMPLE_AUDIO);
    f->sample_rate = sample_rate;
    f->wave_note = g_strdup(wave_note);
    if (wave != NULL && n > 0) {
        f->wave = g_memdup2(wave, (size_t)n * sizeof *wave);
        f->wave_len = n;
        f->wave_peak = 0;
        for (int64_t i = 0; i < n; i++)
            f->wave_peak = fmaxf(f->wave_peak, fabsf(wave[i]));
    }
    f->frames = frames;
    f->bins = bins;
    f->hop = hop_seconds;
    f->bin_hz = g_memdup2(bin_hz, (size_t)bins * sizeof *bin_hz);
    /* dB = 10 log10(e) = ln(e) * 10 / ln 10; stored as dB above the floor so
     * the heatmap's max-|v| pooling keeps the loudest cell of a pixel. */
    const double db_per_neper = 10.0 / log(10.0);
    double top = -INFINITY;
    for (size_t i = 0; i < (size_t)frames * bins; i++)
        top = fmax(top, logmel[i] * db_per_neper);
    f->db_top = isfinite(top) ? top : 0.0;
    f->db_floor = f->db_top - DB_RANGE;
    f->db = g_new(float, (size_t)frames * bins);
    f->db_above_floor = g_new(float, (size_t)frames * bins);
    for (int t = 0; t < frames; t++)
        for (int b = 0; b < bins; b++) {
            size_t at = (size_t)(bins - 1 - b) * frames + t;
            f->db[at] = (float)(logmel[(size_t)t * bins + b] * db_per_neper);
            f->db_above_floor[at] = (float)fmax(0.0, f->db[at] - f->db_floor);
        }
    rf_heatmap_set(&f->spectrogram, f->db_above_floor, bins, frames, 0.0, DB_RANGE);
}

typedef struct audio_layout {
    rf_plot wave, spec;
    rf_rect colorbar;
    double t0, t1;             /* seconds shown */
    double r0, r1, c0, c1;     /* spectrogram cells shown (rows: highest bin first) */
} audio_layout;

/* Lays out both panels and draws their backgrounds, grids and ticks on cr. */
static audio_layout audio_begin(const rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z)
{
    audio_layout l;
    double seconds = f->frames * f->hop;
    l.t0 = z->x0 * seconds;
    l.t1 = z->x1 * seconds;
    l.c0 = z->x0 * f->frames;
    l.c1 = z->x1 * f->frames;
    l.r0 = z->y0 * f->bins;
    l.r1 = z->y1 * f->bins;
    double plot_w = body.w - COLORBAR_W, wave_h = round(body.h * 0.36);

    char wave_title[96], spec_title[96];
    double peak = f->wave_peak > 1e-6f ? f->wave_peak * 1.05 : 1.0;
    rf_axis time = {.min = l.t0, .max = l.t1, .label = NULL};
    rf_axis amp = {.min = -peak, .max = peak, .label = "amplitude"};
    rf_axis_finish(&time, true);
    rf_axis_finish(&amp, true);
    rf_axis time_labelled = time;
    time_labelled.label = "time (s)";
    rf_axis mel = {.min = f->bins - l.r1, .max = f->bins - l.r0, .label = "mel bin"};
    rf_axis_finish(&mel, true);
    snprintf(wave_title, sizeof wave_title, "Waveform (%.3g kHz)", f->sample_rate / 1000.0);
    snprintf(spec_title, sizeof spec_title, "Log-mel spectrogram (%d bins, %.0f ms hop)", f->bins, f->hop * 1000.0);
    rf_rect wave_outer = {body.x, body.y, plot_w, wave_h};
    rf_rect spec_outer = {body.x, body.y + wave_h, plot_w, body.h - wave_h};

    /* Both frames share one left edge, whichever tick labels are wider:
     * measure first, then indent the panel with the narrower labels. */
    cairo_t *measure = sample_scratch_context();
    rf_plot_begin(&l.wave, measure, wave_outer, &time, &amp, wave_title);
    rf_plot_begin(&l.spec, measure, spec_outer, &time_labelled, &mel, spec_title);
    cairo_destroy(measure);
    double shift = l.spec.frame.x - l.wave.frame.x;
    rf_rect *narrow = shift > 0 ? &wave_outer : &spec_outer;
    narrow->x += fabs(shift);
    narrow->w -= fabs(shift);
    rf_plot_begin(&l.wave, cr, wave_outer, &time, &amp, wave_title);
    rf_plot_begin(&l.spec, cr, spec_outer, &time_labelled, &mel, spec_title);
    double right = l.spec.frame.x + l.spec.frame.w;
    l.colorbar = (rf_rect){right + 20, l.spec.frame.y + RF_MAP_LEGEND_ABOVE, 14,
                           fmax(10, l.spec.frame.h - RF_MAP_LEGEND_ABOVE - RF_MAP_LEGEND_BELOW)};
    return l;
}

static void wave_draw(const rf_sample_figure *f, const audio_layout *l)
{
    const rf_plot *p = &l->wave;
    cairo_t *cr = p->cr;
    if (f->wave == NULL) {
        rf_draw_message(cr, p->frame, f->wave_note != NULL ? f->wave_note : "No waveform");
        return;
    }
    cairo_save(cr);
    cairo_rectangle(cr, p->frame.x, p->frame.y, p->frame.w, p->frame.h);
    cairo_clip(cr);
    rf_set_color(cr, rf_series_color(0), 1);
    double per_px = (l->t1 - l->t0) * f->sample_rate / p->frame.w;
    if (per_px > 2) {
        /* Many samples per pixel: each column's min-max envelope. */
        for (int px = 0; px < (int)ceil(p->frame.w); px++) {
            int64_t a = (int64_t)floor(l->t0 * f->sample_rate + px * per_px);
            int64_t b = (int64_t)ceil(l->t0 * f->sample_rate + (px + 1) * per_px);
            a = a < 0 ? 0 : a;
            b = b > f->wave_len ? f->wave_len : b;
            if (a >= b)
                continue;
            float lo = f->wave[a], hi = f->wave[a];
            for (int64_t i = a + 1; i < b; i++) {
                lo = fminf(lo, f->wave[i]);
                hi = fmaxf(hi, f->wave[i]);
            }
            double y0 = rf_plot_py(p, hi), y1 = rf_plot_py(p, lo);
            cairo_rectangle(cr, p->frame.x + px, y0, 1, fmax(1, y1 - y0));
        }
        cairo_fill(cr);
    } else {
        int64_t a = (int64_t)floor(l->t0 * f->sample_rate), b = (int64_t)ceil(l->t1 * f->sample_rate) + 1;
        a = a < 0 ? 0 : a;
        b = b > f->wave_len ? f->wave_len : b;
        for (int64_t i = a; i < b; i++)
            cairo_line_to(cr, rf_plot_px(p, (double)i / f->sample_rate), rf_plot_py(p, f->wave[i]));
        cairo_set_line_width(cr, 1.2);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

void sample_audio_draw(rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z)
{
    audio_layout l = audio_begin(f, cr, body, z);
    wave_draw(f, &l);
    rf_plot_end(&l.wave);
    rf_heatmap_draw(&f->spectrogram, cr, l.spec.frame, l.r0, l.r1, l.c0, l.c1);
    if (f->attr != NULL && f->attr_len == f->frames) {   /* each frame's column, blended */
        const rf_rect fr = l.spec.frame;
        double w = fr.w / (l.c1 - l.c0);
        cairo_save(cr);
        cairo_rectangle(cr, fr.x, fr.y, fr.w, fr.h);
        cairo_clip(cr);
        for (int t = (int)floor(l.c0); t < f->frames && t < (int)ceil(l.c1); t++) {
            sample_attr_colour(f, cr, t, SAMPLE_ATTR_ALPHA);
            cairo_rectangle(cr, fr.x + (t - l.c0) * w, fr.y, w, fr.h);
            cairo_fill(cr);
        }
        cairo_restore(cr);
    }
    rf_plot_end(&l.spec);
    rf_map_scale scale = {.vmin = f->db_floor, .vmax = f->db_top, .kind = RF_COLORMAP_SEQUENTIAL,
                          .quantity = "log-mel power", .units = "dB"};
    rf_map_legend(cr, l.colorbar, &scale);
}

bool sample_audio_hover(rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, char *text,
                        size_t size)
{
    cairo_t *cr = sample_scratch_context();
    audio_layout l = audio_begin(f, cr, body, z);
    cairo_destroy(cr);
    int row, col;
    if (f->wave != NULL && rf_plot_contains(&l.wave, x, y)) {
        double t = rf_plot_x_at(&l.wave, x);
        int64_t i = (int64_t)floor(t * f->sample_rate);
        if (i < 0 || i >= f->wave_len)
            return false;
        snprintf(text, size, "%.4f s (sample %lld): amplitude %.4f", (double)i / f->sample_rate, (long long)i,
                 f->wave[i]);
        return true;
    }
    if (rf_heatmap_cell_at(&f->spectrogram, l.spec.frame, l.r0, l.r1, l.c0, l.c1, x, y, &row, &col)) {
        int bin = f->bins - 1 - row;
        char hz[32];
        rf_format_number(f->bin_hz[bin], hz, sizeof hz);
        snprintf(text, size, "%.2f s (frame %d), %s Hz (mel bin %d): %.1f dB", col * f->hop, col, hz, bin,
                 f->db[(size_t)row * f->frames + col]);
        return true;
    }
    return false;
}
