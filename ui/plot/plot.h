/* Plotting on cairo, without GTK: axes with ticks, lines, points, legends,
 * heatmaps with a colour bar. The workbench's views, `rangefinder plot` and
 * the exports all draw through these, so a plot looks the same on screen,
 * in a PNG, an SVG and a PDF.
 *
 * Coordinates: a panel (rf_plot) maps data values to device units inside
 * its frame. Everything is drawn with the cairo_t given, at its current
 * transform; nothing here allocates per frame except heatmap caches.
 */
#ifndef RF_PLOT_H
#define RF_PLOT_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rf_rgb {
    double r, g, b;
} rf_rgb;

typedef struct rf_rect {
    double x, y, w, h;
} rf_rect;

/* Viridis (perceptually uniform), t in [0, 1] (clamped; NaN gives grey). */
rf_rgb rf_colormap(double t);
/* Colour maps: sequential (viridis) for values from a floor up; diverging
 * (blue, white at t = 0.5, red; ColorBrewer's RdBu) for signed values on a
 * range centred on 0, so the sign reads at a glance; grey (black to white)
 * for a grey picture's own pixels, a sequential scale too. */
typedef enum { RF_COLORMAP_SEQUENTIAL, RF_COLORMAP_DIVERGING, RF_COLORMAP_GREY } rf_colormap_kind;
rf_rgb rf_colormap_of(rf_colormap_kind kind, double t);
/* A categorical colour for series i: the first 8 colour-blind safe, 12 in
 * all, then they cycle. */
#define RF_SERIES_COLORS 12
rf_rgb rf_series_color(int i);
void rf_set_color(cairo_t *cr, rf_rgb c, double alpha);

/* Text sizes and the font, in drawing units (a pixel on screen; 1/96 in in
 * an export, so 11 is 8.25 pt), before the text scale below. */
#define RF_PLOT_FONT "Sans"
#define RF_PLOT_MONO "Monospace"   /* tokens, where columns line up */
#define RF_PLOT_TEXT 11.0
#define RF_PLOT_TITLE 13.0
/* Every text drawn with rf_draw_text on cr's target, and measured with
 * rf_text_width, is `scale` times its given size: an export's font size
 * (rf_export_options) scales tick labels, titles and legends together. Set
 * on cr's target; 1 unless set. Layout that leaves room for text asks
 * rf_plot_text_size: RF_PLOT_TEXT at the target's scale. */
void rf_plot_set_text_scale(cairo_t *cr, double scale);
double rf_plot_text_scale(cairo_t *cr);
double rf_plot_text_size(cairo_t *cr);

typedef enum rf_axis_scale { RF_AXIS_LINEAR, RF_AXIS_LOG } rf_axis_scale;
typedef enum rf_axis_format {
    RF_FORMAT_NUMBER,
    RF_FORMAT_BYTES,
    RF_FORMAT_PERCENT,
    RF_FORMAT_DURATION,          /* seconds as 0:30, 5:00, 1:02:00 (linear axes, ticks on round times) */
} rf_axis_format;

typedef struct rf_axis {
    double min, max;             /* data range shown (log: both > 0) */
    rf_axis_scale scale;
    rf_axis_format format;       /* tick labels: 1.5k / 3 GiB / 40 % / 5:00 */
    const char *label;           /* may be NULL */
    bool whole;                  /* a count (steps, segments, tokens): linear ticks on whole numbers only */
} rf_axis;

/* Widen [min, max] to include v (finite values only; log axes skip v <= 0). */
void rf_axis_include(rf_axis *a, double v);
/* Make the range drawable: empty or degenerate ranges get a sensible span,
 * linear ranges get 4 % padding on both sides unless `tight`. */
void rf_axis_finish(rf_axis *a, bool tight);
/* The part [f0, f1] (fractions of the span, in the axis's scale) of `a`,
 * for zooming. */
rf_axis rf_axis_zoom(const rf_axis *a, double f0, double f1);

/* Up to `max` "nice" tick values inside the range (1-2-5 steps, at least 1
 * on a `whole` axis; decades on log axes); on a linear axis the step widens
 * until that many cover the whole range. Returns the count. */
int rf_axis_ticks(const rf_axis *a, double *ticks, int max);
/* A tick label for v in the axis's format. */
void rf_axis_format_value(const rf_axis *a, double v, char *buf, size_t size);
/* Numbers for read-outs: 3 significant digits, k/M/G suffixes (no unit). */
void rf_format_number(double v, char *buf, size_t size);
/* Bytes as "512 B", "1.5 KiB", "3.1 GiB". */
void rf_format_bytes(double v, char *buf, size_t size);
/* Seconds as "0:30", "5:00", "1:02:00" ("0:02.5" below a whole second). */
void rf_format_duration(double seconds, char *buf, size_t size);

/* One panel: frame (the data area), both axes. */
typedef struct rf_plot {
    cairo_t *cr;
    rf_rect outer;               /* the panel including margins */
    rf_rect frame;               /* the data area */
    rf_axis x, y;
} rf_plot;

/* Lay out the panel inside `outer` (margins for tick labels, axis labels and
 * the title), fill the background, draw grid lines, ticks, labels and the
 * title (may be NULL). Axes must be finished (rf_axis_finish). */
void rf_plot_begin(rf_plot *p, cairo_t *cr, rf_rect outer, const rf_axis *x, const rf_axis *y, const char *title);
/* Draw the frame border (call after the data, so it sits on top). */
void rf_plot_end(rf_plot *p);

/* Data value -> device coordinate and back. */
double rf_plot_px(const rf_plot *p, double x);
double rf_plot_py(const rf_plot *p, double y);
double rf_plot_x_at(const rf_plot *p, double px);
double rf_plot_y_at(const rf_plot *p, double py);
bool rf_plot_contains(const rf_plot *p, double px, double py);

/* For images cached by a figure: the device pixels per unit a drawing on
 * cr ends up with, or 0 where a cache would not fit (a vector target such
 * as an SVG or PDF export, a rotated or skewed transform). A recording
 * surface (GTK's) counts with the scale it is replayed at, which its drawer
 * sets with rf_plot_set_replay_scale (1 unless set; 0 for a recording
 * meant for vector output). */
double rf_plot_raster_scale(cairo_t *cr);
void rf_plot_set_replay_scale(cairo_t *cr, double scale);

/* A drawing for a file (rf_figure_export, `rangefinder plot`), not the
 * screen: figures leave out what only a pointer uses (their buttons). Set
 * on cr's target. */
void rf_plot_set_figure_only(cairo_t *cr);
bool rf_plot_figure_only(cairo_t *cr);

/* Whether (x, y) can be drawn: finite, and positive on a log axis. */
bool rf_plot_drawable(const rf_plot *p, double x, double y);
/* The points of the line (x, y)[0, n) that p needs to stroke it over its
 * visible x range (x ascending): those inside and one on each side, and
 * where a pixel column holds more than four, only its first, lowest,
 * highest and last, in their order (line_points.c: the stroke inks the same
 * pixels). Writes at most n points to out_x, out_y; returns how many. */
size_t rf_plot_line_points(const rf_plot *p, const double *x, const double *y, size_t n, double *out_x,
                           double *out_y);

/* A polyline through (x[i], y[i]), clipped to the frame; non-finite points
 * (and non-positive ones on log axes) break the line. `dash` > 0 dashes it. */
void rf_plot_line(rf_plot *p, const double *x, const double *y, int n, rf_rgb color, double width, double dash);
/* The same at opacity `alpha` (a faint line behind another). */
void rf_plot_line_alpha(rf_plot *p, const double *x, const double *y, int n, rf_rgb color, double alpha,
                        double width, double dash);
/* Filled circles. */
void rf_plot_points(rf_plot *p, const double *x, const double *y, int n, rf_rgb color, double radius);
/* A horizontal/vertical reference line across the frame with an optional label. */
void rf_plot_hline(rf_plot *p, double y, rf_rgb color, const char *label);
/* A reference line's label, right-aligned at the frame's right edge just
 * above y, on a white box: drawn after the data, it stays readable over
 * noisy lines. Nothing when y is outside the value axis. */
void rf_plot_hline_label(rf_plot *p, double y, rf_rgb color, const char *label);
void rf_plot_vline(rf_plot *p, double x, rf_rgb color, const char *label);
/* Where a legend box sits in the frame: the corner the figure's data leave
 * empty (a memory plot's curves rise from bottom left to top right). */
typedef enum { RF_LEGEND_TOP_RIGHT, RF_LEGEND_TOP_LEFT, RF_LEGEND_BOTTOM_RIGHT } rf_legend_corner;
void rf_plot_legend(rf_plot *p, const char *const *labels, const rf_rgb *colors, int n, rf_legend_corner corner);
/* The same with the entries where dimmed[i] greyed out (dimmed may be NULL). */
void rf_plot_legend_dimmed(rf_plot *p, const char *const *labels, const rf_rgb *colors, const bool *dimmed, int n,
                           rf_legend_corner corner);
/* The box rf_plot_legend draws in p for these labels at that corner. */
rf_rect rf_plot_legend_rect(const rf_plot *p, const char *const *labels, int n, rf_legend_corner corner);
/* The legend entry (as rf_plot_legend lays it out in p with cr's font) under
 * device point (px, py), or -1. */
int rf_plot_legend_entry_at(const rf_plot *p, const char *const *labels, int n, rf_legend_corner corner, double px,
                            double py);

/* The advance width of text as rf_draw_text draws it. */
double rf_text_width(cairo_t *cr, double size, bool bold, const char *text);
/* Text with its anchor: ax, ay in {0, 0.5, 1} (left/centre/right, top/middle/bottom). */
void rf_draw_text(cairo_t *cr, double x, double y, double ax, double ay, double size, bool bold, const char *text);
/* The same two in another font family (RF_PLOT_MONO). */
double rf_text_width_in(cairo_t *cr, const char *family, double size, bool bold, const char *text);
void rf_draw_text_in(cairo_t *cr, const char *family, double x, double y, double ax, double ay, double size, bool bold,
                     const char *text);
/* Text drawn with rf_draw_text on cr's target goes to `out` as SVG <text>
 * elements (device units) instead of glyph outlines: an SVG export keeps
 * its text as text. `out` must outlive the drawing. */
typedef struct _GString GString;
void rf_plot_collect_svg_text(cairo_t *cr, GString *out);
/* A centred grey message (e.g. "No data yet: start training") in r. */
void rf_draw_message(cairo_t *cr, rf_rect r, const char *text);

/* Heatmaps. The source is rows x cols floats, row-major. Drawing resamples
 * it to at most the device pixel size (max-|v| pooling, so a single strong
 * attention weight stays visible when 4096 keys share one pixel), caches the
 * image, and redraws from the cache while data, view and size are the same.
 * Call rf_heatmap_changed after writing new data into the source. */
typedef struct rf_heatmap {
    const float *data;
    int rows, cols;
    double vmin, vmax;           /* colour range */
    rf_colormap_kind colormap;   /* sequential unless set after rf_heatmap_set */
    /* private: the cached image */
    cairo_surface_t *image;
    uint64_t version, image_version;
    double image_view[4];
    int image_w, image_h;
} rf_heatmap;

void rf_heatmap_set(rf_heatmap *h, const float *data, int rows, int cols, double vmin, double vmax);
void rf_heatmap_changed(rf_heatmap *h);
void rf_heatmap_clear(rf_heatmap *h);        /* frees the cache */
/* Draw rows [r0, r1) x cols [c0, c1) (fractional cell bounds; zoom) into r. */
void rf_heatmap_draw(rf_heatmap *h, cairo_t *cr, rf_rect r, double r0, double r1, double c0, double c1);
/* Building the cache ahead of the draw, in any thread (the heatmap must not
 * be in use elsewhere meanwhile): the size and view of the cached image
 * (false when there is none), and the image for a given size and view. A
 * draw at that size and view then only paints it. */
bool rf_heatmap_cached_view(const rf_heatmap *h, int *iw, int *ih, double view[4]);
void rf_heatmap_prepare(rf_heatmap *h, int iw, int ih, const double view[4]);
/* The cell under device point (px, py) for the same r and view; false outside. */
bool rf_heatmap_cell_at(const rf_heatmap *h, rf_rect r, double r0, double r1, double c0, double c1, double px,
                        double py, int *row, int *col);

/* Pool a rows x cols matrix into out_rows x out_cols (each at most the
 * source's) as a heatmap draws it: every value is the one of largest
 * magnitude among the cells it covers (NaN skipped). Thread-safe; it keeps
 * thumbnails and stored snapshots small. */
void rf_heatmap_pool(const float *src, int rows, int cols, float *dst, int out_rows, int out_cols);
/* The same for the top-left keep_rows x keep_cols block of the matrix (out
 * at most that size): a sample's own positions of a padded map. */
void rf_heatmap_pool_block(const float *src, int rows, int cols, int keep_rows, int keep_cols, float *dst,
                           int out_rows, int out_cols);

/* What a heatmap's colours mean: one legend design for every heatmap of
 * the workbench (map_legend.c). A colour bar for [vmin, vmax] with both
 * ends labelled by their values and nice ticks between, the quantity (and
 * its units) above it, and below it whether the scale is sequential (low to
 * high) or diverging (white at 0 between blue negatives and red
 * positives). `per_map`: a grid of maps each coloured over its own range
 * (the attention overview): the ends read "0" and "own max", the words below
 * say so, and vmin, vmax are ignored. */
typedef struct rf_map_scale {
    double vmin, vmax;
    rf_colormap_kind kind;
    const char *quantity;        /* "attention weight", "latent value", "log-mel power" */
    const char *units;           /* "dB", "positions"; NULL: none */
    bool per_map;
} rf_map_scale;

/* The room the legend takes beside a map: the bar and its tick labels. */
#define RF_MAP_LEGEND_W 96.0
/* Above the bar (the quantity) and below it (the scale's kind), so a
 * figure keeps them inside its drawing. */
#define RF_MAP_LEGEND_ABOVE 32.0
#define RF_MAP_LEGEND_BELOW 34.0

/* The same rooms for text drawn `text_scale` times its on-screen size
 * (rf_plot_text_scale: exports at a larger font size). */
double rf_map_legend_w(double text_scale);
double rf_map_legend_above(double text_scale);
double rf_map_legend_below(double text_scale);

/* Draw the legend; r is the colour bar's own rectangle (the words go above
 * and below it, the tick labels right of it). */
void rf_map_legend(cairo_t *cr, rf_rect r, const rf_map_scale *s);
/* The scale's kind in words: "sequential", "diverging, white = 0", or for
 * per-map scales "each map: 0 to its max". */
const char *rf_map_scale_kind_words(const rf_map_scale *s);
/* Finite min and max of n floats (0, 1 when none are finite). */
void rf_data_range(const float *v, size_t n, double *lo, double *hi);

#endif
