#include "memory_figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../datasets/listops.h"
#include "../plot/plot.h"

static const char *const encoders[RF_MEMORY_ENCODERS] = {"full", "ls", "linear", "talk", "blrp", "maelre"};

#define FIRST_LENGTH 256
#define HOVER_RADIUS 16.0
#define RAM_COLOR ((rf_rgb){0.75, 0.10, 0.10})
#define KEY_GREY ((rf_rgb){0.40, 0.40, 0.44})

void rf_memory_figure_init(rf_memory_figure *f)
{
    *f = (rf_memory_figure){.current_bytes = NAN};
    for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
        f->lengths[i] = FIRST_LENGTH << i;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++) {
        f->curves[e].encoder = encoders[e];
        for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
            f->curves[e].bytes[i] = NAN;
    }
    f->measured = g_array_new(FALSE, FALSE, sizeof(rf_memory_point));
}

void rf_memory_figure_clear(rf_memory_figure *f)
{
    if (f->measured != NULL)
        g_array_unref(f->measured);
    f->measured = NULL;
}

bool rf_memory_figure_input_shape(const rf_config *cfg, int *feat_dim, int *vocab, int *classes)
{
    *feat_dim = 0;
    *classes = cfg->data.classes;
    if (strcmp(cfg->data.task, "listops") == 0) {
        *vocab = RF_LISTOPS_VOCAB;
        return true;
    }
    *vocab = cfg->data.vocab;
    return strcmp(cfg->data.task, "random") == 0;
}

/* The planner's total for `cfg` with `encoder` at length `seq` (NaN and the
 * reason in st when the config cannot take it). */
static double plan_total(const rf_config *cfg, const char *encoder, int seq, int feat_dim, int vocab, int classes,
                         rf_status *st)
{
    rf_config at = *cfg;
    rf_memory_plan plan;
    if (!rf_config_set2(&at, "model", "encoder", encoder, st))
        return NAN;
    at.data.max_len = seq;
    if (at.data.min_len >= seq)
        at.data.min_len = 0;   /* shapes nothing; it only has to stay below max_len */
    if (!rf_config_validate(&at, st) || !rf_memory_plan_compute(&at, seq, feat_dim, vocab, classes, &plan, st))
        return NAN;
    return (double)plan.total;
}

void rf_memory_figure_compute(rf_memory_figure *f, const rf_config *cfg, int feat_dim, int vocab, int classes,
                              double plan_budget_seconds)
{
    rf_memory_figure_compute_until(f, cfg, feat_dim, vocab, classes, plan_budget_seconds, NULL);
}

void rf_memory_figure_compute_until(rf_memory_figure *f, const rf_config *cfg, int feat_dim, int vocab, int classes,
                                    double plan_budget_seconds, const gint *stop)
{
    gint64 t0 = g_get_monotonic_time();
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++) {
        rf_memory_curve *c = &f->curves[e];
        c->planned = 0;
        double last_seconds = 0;
        for (int i = 0; i < RF_MEMORY_LENGTHS; i++) {
            c->bytes[i] = NAN;
            /* Doubling the length a little more than doubles a slow plan
             * (the planner is O(n log n) in blrp's segments). */
            if ((plan_budget_seconds > 0 && 2.5 * last_seconds > plan_budget_seconds) ||
                (stop != NULL && g_atomic_int_get(stop)))
                continue;
            gint64 t = g_get_monotonic_time();
            rf_status st = {0};
            c->bytes[i] = plan_total(cfg, encoders[e], f->lengths[i], feat_dim, vocab, classes, &st);
            last_seconds = (double)(g_get_monotonic_time() - t) * 1e-6;
            c->planned = i + 1;
        }
    }
    rf_status st = {0};
    g_strlcpy(f->current_encoder, cfg->model.encoder, sizeof f->current_encoder);
    f->current_seq = cfg->data.max_len;
    f->current_bytes = plan_total(cfg, cfg->model.encoder, cfg->data.max_len, feat_dim, vocab, classes, &st);
    g_strlcpy(f->current_problem, isnan(f->current_bytes) ? st.msg : "", sizeof f->current_problem);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    f->ram_bytes = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    f->compute_seconds = (double)(g_get_monotonic_time() - t0) * 1e-6;
}

void rf_memory_figure_set_runs(rf_memory_figure *f, rf_run_data *const *runs, guint n)
{
    g_array_set_size(f->measured, 0);
    for (guint i = 0; i < n; i++) {
        const rf_run_data *r = runs[i];
        if (!(r->peak_bytes > 0))
            continue;
        rf_memory_point pt = {.seq_len = r->cfg.data.max_len, .peak_bytes = r->peak_bytes,
                              .planned_bytes = r->planned_bytes};
        g_strlcpy(pt.name, r->name, sizeof pt.name);
        g_strlcpy(pt.encoder, r->cfg.model.encoder, sizeof pt.encoder);
        g_array_append_val(f->measured, pt);
    }
}

/* The colour of an encoder's curve (grey for a name not in the list). */
static rf_rgb encoder_color(const char *encoder)
{
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        if (strcmp(encoder, encoders[e]) == 0)
            return rf_series_color(e);
    return rf_series_color(7);
}

static bool has_curves(const rf_memory_figure *f)
{
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
            if (isfinite(f->curves[e].bytes[i]))
                return true;
    return false;
}

/* A measured peak the plot can show (its axes include every such point). */
static bool measured_drawable(const rf_memory_point *pt)
{
    return pt->seq_len > 0 && isfinite(pt->peak_bytes) && pt->peak_bytes > 0;
}

static int drawable_measured(const rf_memory_figure *f)
{
    int n = 0;
    for (guint i = 0; i < f->measured->len; i++)
        n += measured_drawable(&g_array_index(f->measured, rf_memory_point, i));
    return n;
}

/* Curves a and b plan the same memory (within 0.5%) wherever either is
 * planned: one line hides the other. */
static bool same_curve(const rf_memory_curve *a, const rf_memory_curve *b)
{
    bool any = false;
    for (int i = 0; i < RF_MEMORY_LENGTHS; i++) {
        double x = a->bytes[i], y = b->bytes[i];
        if (isnan(x) != isnan(y))
            return false;
        if (isnan(x))
            continue;
        if (fabs(x - y) > 0.005 * fmax(fabs(x), fabs(y)))
            return false;
        any = true;
    }
    return any;
}

/* "lines coincide: full = talk = maelre" for each group of curves drawn on
 * top of each other, appended to buf. */
static void append_coinciding(const rf_memory_figure *f, char *buf, size_t size)
{
    bool grouped[RF_MEMORY_ENCODERS] = {false};
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++) {
        if (grouped[e])
            continue;
        size_t start = strlen(buf);
        int members = 0;
        for (int o = e + 1; o < RF_MEMORY_ENCODERS; o++)
            if (!grouped[o] && same_curve(&f->curves[e], &f->curves[o])) {
                size_t used = strlen(buf);
                if (members++ == 0)
                    used += (size_t)snprintf(buf + used, size - used, " · lines coincide: %s", f->curves[e].encoder);
                if (used < size)
                    snprintf(buf + used, size - used, " = %s", f->curves[o].encoder);
                grouped[o] = true;
            }
        if (members == 0)
            buf[start] = '\0';
    }
}

void rf_memory_figure_key(const rf_memory_figure *f, char *buf, size_t size)
{
    snprintf(buf, size, "dots: planned%s%s", isfinite(f->current_bytes) ? " · large dot: current config" : "",
             drawable_measured(f) > 0 ? " · squares: measured peaks" : "");
    append_coinciding(f, buf, size);
}

/* The notes under the plot, outside its data area so they never cover a
 * line: the key, the curves left unplanned, why the current config has no
 * plan. Returns how many. */
enum { MAX_NOTES = 3, NOTE_SIZE = 512 };

void rf_memory_figure_unplanned(const rf_memory_figure *f, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++) {
        const rf_memory_curve *c = &f->curves[e];
        size_t used = strlen(buf);
        if (c->planned > 0 && c->planned < RF_MEMORY_LENGTHS)
            snprintf(buf + used, size - used, "%s%s above N=%d", used > 0 ? ", " : "", c->encoder,
                     f->lengths[c->planned - 1]);
    }
    if (buf[0] != '\0') {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, f->more_coming ? ": still planning" : ": not planned (slow to plan there)");
    }
}

static int notes(const rf_memory_figure *f, char lines[MAX_NOTES][NOTE_SIZE])
{
    int n = 0;
    rf_memory_figure_key(f, lines[n++], NOTE_SIZE);
    rf_memory_figure_unplanned(f, lines[n], NOTE_SIZE);
    if (lines[n][0] != '\0')
        n++;
    if (isnan(f->current_bytes))
        snprintf(lines[n++], NOTE_SIZE, "The current config cannot be planned: %s", f->current_problem);
    return n;
}

/* A note line's height at cr's text scale. */
#define NOTE_LINE(cr) (rf_plot_text_size(cr) + 6)

static void layout(const rf_memory_figure *f, cairo_t *cr, double w, double h, int n_notes, rf_plot *p)
{
    rf_axis x = {.min = NAN, .max = NAN, .scale = RF_AXIS_LOG, .format = RF_FORMAT_NUMBER,
                 .label = "sequence length (tokens)"};
    rf_axis y = {.min = NAN, .max = NAN, .scale = RF_AXIS_LOG, .format = RF_FORMAT_BYTES,
                 .label = "planned memory of a training step"};
    rf_axis_include(&x, f->lengths[0]);
    rf_axis_include(&x, f->lengths[RF_MEMORY_LENGTHS - 1]);
    rf_axis_include(&x, f->current_seq);
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
            rf_axis_include(&y, f->curves[e].bytes[i]);
    rf_axis_include(&y, f->current_bytes);
    rf_axis_include(&y, f->ram_bytes);
    for (guint i = 0; i < f->measured->len; i++) {
        const rf_memory_point *pt = &g_array_index(f->measured, rf_memory_point, i);
        rf_axis_include(&x, pt->seq_len);
        rf_axis_include(&y, pt->peak_bytes);
    }
    rf_axis_finish(&x, false);
    rf_axis_finish(&y, false);
    rf_plot_begin(p, cr, (rf_rect){0, 0, w, fmax(20, h - n_notes * NOTE_LINE(cr) - 4)}, &x, &y,
                  "Planned training memory against sequence length");
}

/* A hollow square: a measured point, told apart from the planned dots. */
static void draw_measured(rf_plot *p, const rf_memory_point *pt)
{
    if (!measured_drawable(pt))
        return;
    double px = rf_plot_px(p, pt->seq_len), py = rf_plot_py(p, pt->peak_bytes);
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_rectangle(cr, px - 10, py - 10, 20, 20);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill_preserve(cr);
    rf_set_color(cr, encoder_color(pt->encoder), 1);
    cairo_set_line_width(cr, 2);
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* The current configuration: a large dot with a white ring and its label,
 * placed to the left of the dot when the right side has no room, and
 * above it when there is none below. */
static void draw_current(rf_plot *p, const rf_memory_figure *f)
{
    cairo_t *cr = p->cr;
    if (isnan(f->current_bytes))
        return;   /* the notes say why */
    cairo_save(cr);
    double px = rf_plot_px(p, f->current_seq), py = rf_plot_py(p, f->current_bytes);
    cairo_arc(cr, px, py, 8, 0, 2 * M_PI);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
    cairo_arc(cr, px, py, 6, 0, 2 * M_PI);
    rf_set_color(cr, encoder_color(f->current_encoder), 1);
    cairo_fill(cr);
    char bytes[32], text[128];
    rf_format_bytes(f->current_bytes, bytes, sizeof bytes);
    snprintf(text, sizeof text, "current: %s, N = %d, %s", f->current_encoder, f->current_seq, bytes);
    double text_w = rf_text_width(cr, RF_PLOT_TEXT, true, text), text_h = rf_plot_text_size(cr);
    bool right = px + 12 + text_w < p->frame.x + p->frame.w - 4;
    /* below the dot, or above it where below would leave the frame (the
     * smallest config sits on the bottom edge, over the length ticks) */
    bool below = py + 14 + text_h / 2 + 3 <= p->frame.y + p->frame.h;
    double tx = right ? px + 12 : px - 12 - text_w, ty = below ? py + 14 : py - 14;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);   /* keeps the label readable over the curves */
    cairo_rectangle(cr, tx - 3, ty - text_h / 2 - 3, text_w + 6, text_h + 6);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.17);
    rf_draw_text(cr, tx, ty, 0, 0.5, RF_PLOT_TEXT, true, text);
    cairo_restore(cr);
}

static void draw(void *data, cairo_t *cr, double w, double h, const rf_zoom *zoom)
{
    (void)zoom;
    rf_memory_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    if (!has_curves(f)) {
        rf_draw_message(cr, (rf_rect){0, 0, w, h},
                        f->current_problem[0] != '\0' ? f->current_problem : "No memory plan yet");
        cairo_restore(cr);
        return;
    }
    char lines[MAX_NOTES][NOTE_SIZE];
    int n_notes = notes(f, lines);
    rf_plot p;
    layout(f, cr, w, h, n_notes, &p);
    double xs[RF_MEMORY_LENGTHS];
    for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
        xs[i] = f->lengths[i];
    const char *labels[RF_MEMORY_ENCODERS + 1];
    rf_rgb colors[RF_MEMORY_ENCODERS + 1];
    int n_labels = 0;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++) {
        rf_rgb c = rf_series_color(e);
        rf_plot_line(&p, xs, f->curves[e].bytes, RF_MEMORY_LENGTHS, c, 2, 0);
        rf_plot_points(&p, xs, f->curves[e].bytes, RF_MEMORY_LENGTHS, c, 3);
        labels[n_labels] = f->curves[e].encoder;
        colors[n_labels++] = c;
    }
    char ram[64];
    if (f->ram_bytes > 0) {
        char bytes[32];
        rf_format_bytes(f->ram_bytes, bytes, sizeof bytes);
        snprintf(ram, sizeof ram, "RAM of this machine: %s", bytes);
        rf_plot_hline(&p, f->ram_bytes, RAM_COLOR, ram);
    }
    /* the current dot over the measured squares, and smaller than them: a
     * run of the current config measures at the dot's very place, and both
     * stay visible there (the square a frame around the dot) */
    for (guint i = 0; i < f->measured->len; i++)
        draw_measured(&p, &g_array_index(f->measured, rf_memory_point, i));
    draw_current(&p, f);
    rf_plot_legend(&p, labels, colors, n_labels, RF_LEGEND_BOTTOM_RIGHT);
    rf_plot_end(&p);
    for (int i = 0; i < n_notes; i++) {
        rf_set_color(cr, i == n_notes - 1 && isnan(f->current_bytes) ? RAM_COLOR : KEY_GREY, 1);
        rf_draw_text(cr, p.frame.x + p.frame.w, h - (n_notes - i) * NOTE_LINE(cr) + 2, 1, 0, RF_PLOT_TEXT, false,
                     lines[i]);
    }
    cairo_restore(cr);
}

static void format_length(int n, char *buf, size_t size)
{
    if (n >= 10000 && n % 1024 == 0)
        snprintf(buf, size, "%d (%dk)", n, n / 1024);
    else
        snprintf(buf, size, "%d", n);
}

static bool hover(void *data, double w, double h, const rf_zoom *zoom, double px, double py, char *text,
                  size_t size)
{
    (void)zoom;
    rf_memory_figure *f = data;
    if (!has_curves(f))
        return false;
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(scratch);
    char lines[MAX_NOTES][NOTE_SIZE];
    int n_notes = notes(f, lines);
    rf_plot p;
    layout(f, cr, w, h, n_notes, &p);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    if (!rf_plot_contains(&p, px, py))
        return false;

    double best = HOVER_RADIUS;
    char bytes[32], planned[32], length[32];
    text[0] = '\0';
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        for (int i = 0; i < RF_MEMORY_LENGTHS; i++) {
            double v = f->curves[e].bytes[i];
            if (!isfinite(v))
                continue;
            double d = hypot(rf_plot_px(&p, f->lengths[i]) - px, rf_plot_py(&p, v) - py);
            if (d < best) {
                best = d;
                rf_format_bytes(v, bytes, sizeof bytes);
                format_length(f->lengths[i], length, sizeof length);
                snprintf(text, size, "%s · N=%s · %s planned", f->curves[e].encoder, length, bytes);
            }
        }
    for (guint i = 0; i < f->measured->len; i++) {
        const rf_memory_point *pt = &g_array_index(f->measured, rf_memory_point, i);
        double d = hypot(rf_plot_px(&p, pt->seq_len) - px, rf_plot_py(&p, pt->peak_bytes) - py);
        if (d <= best) {
            best = d;
            rf_format_bytes(pt->peak_bytes, bytes, sizeof bytes);
            rf_format_bytes(pt->planned_bytes, planned, sizeof planned);
            format_length(pt->seq_len, length, sizeof length);
            if (pt->planned_bytes > 0)
                snprintf(text, size, "%s · N=%s · %s measured peak (%s planned)", pt->name, length, bytes, planned);
            else
                snprintf(text, size, "%s · N=%s · %s measured peak", pt->name, length, bytes);
        }
    }
    if (isfinite(f->current_bytes)) {
        double d = hypot(rf_plot_px(&p, f->current_seq) - px, rf_plot_py(&p, f->current_bytes) - py);
        if (d <= best) {
            best = d;
            rf_format_bytes(f->current_bytes, bytes, sizeof bytes);
            format_length(f->current_seq, length, sizeof length);
            snprintf(text, size, "current config: %s · N=%s · %s planned", f->current_encoder, length, bytes);
        }
    }
    if (f->ram_bytes > 0 && fabs(rf_plot_py(&p, f->ram_bytes) - py) < fmin(best, 6)) {
        rf_format_bytes(f->ram_bytes, bytes, sizeof bytes);
        snprintf(text, size, "RAM of this machine: %s", bytes);
        best = 0;
    }
    return best < HOVER_RADIUS;
}

rf_figure rf_memory_figure_figure(rf_memory_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f};
}
