/* The training figure's state, shared by training_figure.c (series, axes,
 * drawing) and training_figure_hover.c (read-outs and clicks). Not for use
 * outside ui/figures/. */
#ifndef RF_TRAINING_FIGURE_PRIVATE_H
#define RF_TRAINING_FIGURE_PRIVATE_H

#include "../plot/plot.h"
#include "training_figure.h"

enum { SERIES_TRAIN, SERIES_VAL, N_SERIES };

/* One split's rows as columns (doubles), in step order. */
typedef struct columns {
    GArray *step, *time, *loss, *accuracy, *lr, *step_seconds;
} columns;

/* The panels whose lines a run's layer holds: loss to step time. */
#define N_LINE_PANELS RF_TRAINING_MEMORY

/* What a run's layers were drawn for: any difference draws them again. */
typedef struct layer_key {
    guint version;                   /* the series' (rows, smoothing) */
    rf_training_x x;
    rf_rect frames[N_LINE_PANELS];
    double ranges[N_LINE_PANELS][6]; /* x and y: min, max, scale */
    double scale;                    /* image pixels per unit */
    double box[4];                   /* the image's place, in units */
} layer_key;

/* A run's rows split into columns, rebuilt when its row count changes. */
typedef struct run_series {
    const rf_run_data *run;
    guint rows_seen;
    columns split[N_SERIES];
    double first[2], last[2];        /* by rf_training_x: the extent of the run's rows; NaN when it has none */
    GArray *smooth_loss, *smooth_accuracy;   /* the train columns smoothed */
    double smoothed_with;            /* the weight they were smoothed with; NaN: not yet */
    bool hidden;
    guint version;                   /* counts rebuilds and smoothings */
    cairo_surface_t *layers[2];      /* coverage of its lines in its colour and of the light ones, as last
                                        drawn (training_figure_layers.c), or NULL */
    layer_key layer_key;
    layer_key seen_key;              /* of the last draw that stroked straight */
} run_series;

struct rf_training_figure {
    GArray *series;                  /* run_series */
    double smoothing;
    rf_training_x x;
    bool log[RF_TRAINING_N_PANELS];
    bool log_chosen[RF_TRAINING_N_PANELS];   /* by the user; else memory's follows its span */
    GArray *scratch_x, *scratch_y;   /* the points one line draws */
    GArray *scratch_times;           /* visible step times, sorted for their median */
};

/* The panels laid out as drawn; they draw into a scratch surface when there
 * is nothing to draw on (hover, click). */
typedef struct laid_out {
    rf_plot plots[RF_TRAINING_N_PANELS];
    cairo_surface_t *scratch;
    cairo_t *cr;
} laid_out;

/* Rebuild the runs whose rows (or the smoothing) changed; true when any
 * run has a row. */
bool rf_training_refresh(rf_training_figure *f);
/* Lay out every panel (background, grid, ticks) at w x h for zoom, on a
 * scratch surface; free with rf_training_laid_out_clear. */
void rf_training_lay_out(rf_training_figure *f, double w, double h, const rf_zoom *zoom, laid_out *out);
void rf_training_laid_out_clear(laid_out *l);

run_series *rf_training_series(rf_training_figure *f, guint i);
/* A split's x column (step or time, as the figure's axis). */
GArray *rf_training_x_column(const rf_training_figure *f, run_series *s, int split);
/* The column a panel plots for a split, or NULL; `smoothed` gives the
 * smoothed train loss and accuracy (NULL for the other columns). */
GArray *rf_training_panel_column(run_series *s, int panel, int split, bool smoothed);
bool rf_training_smoothing_on(const rf_training_figure *f);

/* The grey of keys, labels and the log buttons. */
#define KEY_GREY ((rf_rgb){0.40, 0.40, 0.44})

/* The label of a run's baseline line, kind 0 the first-token rule, 1 the
 * majority class, led by the run's data.task: a baseline belongs to one
 * data set ("listops · majority class: 16.9%"). */
void rf_training_baseline_label(const rf_run_data *run, int kind, char *buf, size_t size);

/* A baseline as drawn: one per data set, kind and value, across the x
 * extent of the shown runs on that data (runs on other data never sit on
 * another's line). */
typedef struct baseline_mark {
    double value;
    int kind;
    const rf_run_data *run;   /* the first shown run with it: its data set names it */
    double x0, x1;
} baseline_mark;

enum { RF_TRAINING_MAX_BASELINES = 8 };

typedef struct rf_training_baselines {
    baseline_mark marks[RF_TRAINING_MAX_BASELINES];
    int n;
} rf_training_baselines;

/* The shown runs' baselines (training_baselines.c); their dashed lines
 * (drawn under the runs); each line's label beside it, at whichever end
 * (above or below it) covers the fewest of the runs' points and no other
 * label (drawn over them). */
void rf_training_collect_baselines(rf_training_figure *f, rf_training_baselines *b);
void rf_training_draw_baseline_lines(rf_plot *acc, const rf_training_baselines *b);
void rf_training_draw_baseline_labels(rf_training_figure *f, rf_plot *acc, const rf_training_baselines *b);

/* The legend's labels: the runs' names, a finished run's with its test
 * accuracy ("… · test 40.5 %"); g_strfreev. */
char **rf_training_legend_labels(rf_training_figure *f);
/* Where the loss panel's legend goes: the first of top right, bottom
 * right, top left whose box covers the fewest of the runs' loss lines'
 * points, hidden runs' included (a rising loss leaves top right to its
 * line). */
rf_legend_corner rf_training_legend_corner(rf_training_figure *f, const rf_plot *loss, const char *const *labels);
/* The log button in a panel's title row (zero size for linear-only panels). */
rf_rect rf_training_log_button(const rf_plot *p, int panel);
bool rf_training_panel_can_log(int panel);
/* Where on the axis a change marks, or NaN when that is not known (time
 * mode, a step after the run's last row). */
double rf_training_change_x(const rf_training_figure *f, run_series *s, const rf_run_change *c);

/* Run i's colour: its own (rf_run_data.color, the same in every figure),
 * else by its place. */
rf_rgb rf_training_run_color(const run_series *s, guint i);

/* One run's train lines in the loss to step time panels (training_figure.c):
 * all of them, or only those in the run's colour, or only the light ones
 * (raw train rows without smoothing, in rf_training_lighter of it). Its
 * validation rows are drawn apart, over every run's train lines. */
typedef enum { INK_ALL, INK_RUN_COLOR, INK_LIGHT } line_ink;
void rf_training_draw_run(rf_training_figure *f, rf_plot plots[RF_TRAINING_N_PANELS], run_series *s, rf_rgb c,
                          line_ink ink);
rf_rgb rf_training_lighter(rf_rgb c);
/* The same through the run's cached layer on a raster target
 * (training_figure_layers.c); vector targets get the strokes. */
void rf_training_draw_run_layer(rf_training_figure *f, rf_plot plots[RF_TRAINING_N_PANELS], run_series *s,
                                rf_rgb c);
void rf_training_layer_clear(run_series *s);

/* The figure's hover and click (training_figure_hover.c). */
bool rf_training_hover(void *data, double w, double h, const rf_zoom *zoom, double px, double py, char *text,
                       size_t size);
bool rf_training_click(void *data, double w, double h, const rf_zoom *zoom, double px, double py);

#endif
