/* The inspection figures (attention maps and their overview, TaLK window
 * bounds, the messages of empty views), headless: each is drawn into a
 * cairo image surface and checked pixel by pixel and through its hover
 * read-out against the data it was given (the Latent view's figure:
 * test_figures_latent.c). Set RF_INSPECT_PNG_DIR to keep the drawings as
 * PNG files. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/ops/ls_attention.h"
#include "../ui/figures/attention_figure.h"
#include "../ui/figures/talk_figure.h"
#include "figure_checks.h"
#include "figure_pixels.h"
#include "tap.h"

static float *random_rows(int rows, int cols, unsigned seed)
{
    float *m = malloc((size_t)rows * cols * sizeof *m);
    srand(seed);
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int c = 0; c < cols; c++)
            sum += m[(size_t)r * cols + c] = (float)(rand() % 1000 + 1);
        for (int c = 0; c < cols; c++)
            m[(size_t)r * cols + c] /= (float)sum;
    }
    return m;
}

static void test_matrix(void)
{
    enum { N = 64 };
    float *map = random_rows(N, N, 1);
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    tap_ok(rf_attention_figure_set_matrix(&f, map, N, N, "query", "key"), "a 64 x 64 map is accepted");
    rf_attention_figure_set_title(&f, "Layer 1 · head 1 · train sample 0");
    rf_figure fig = rf_attention_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "attention_matrix.png");
    long cells = count_colourful(s);
    tap_ok(cells > 200000L, "the map fills the frame with colour (%ld colourful pixels)", cells);
    cairo_surface_destroy(s);

    char text[256], expect[256];
    double x, y;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "query 12, key 40:", &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "query 12, key 40: %.4g", map[12 * N + 40]);
    tap_ok(found && strcmp(text, expect) == 0, "hover on cell (12, 40) reads its value: '%s' (expected '%s')",
           found ? text : "(no point found)", expect);

    rf_attention_figure_free(&f);
    free(map);
}

/* The hot cell (row, col) of a rows x cols map at `zoom`: where it lands,
 * and what the read-out says there and at the plot area's corners (the
 * zoom window's first and last cells). */
static void check_hot_cell(const rf_figure *fig, int rows, int cols, int row, int col, const rf_zoom *zoom,
                           const char *how)
{
    char png[64], text[256], expect[64];
    snprintf(png, sizeof png, "attention_hot_%dx%d_%s.png", rows, cols, how);
    cairo_surface_t *s = render(fig, W, H, zoom, png);
    box area = cell_area(s, W / 4, H / 2);
    box want = matrix_cell(area, rows, cols, zoom, row, col), got = find_shade(s, area, yellow);
    tap_ok(near(got, want), "%d x %d map, %s view: hot cell (query %d, key %d) at x %.0f..%.0f, y %.0f..%.0f "
           "(expected %.1f..%.1f, %.1f..%.1f)", rows, cols, how, row, col, BOX(got), BOX(want));
    cairo_surface_destroy(s);
    int r0 = (int)(zoom->y0 * rows), c0 = (int)(zoom->x0 * cols);
    int r1 = (int)(zoom->y1 * rows) - 1, c1 = (int)(zoom->x1 * cols) - 1;
    const struct {
        double x, y;
        int row, col;
    } probes[3] = {{(want.x0 + want.x1) / 2, (want.y0 + want.y1) / 2, row, col},
                   {area.x0 + 1, area.y0 + 1, r0, c0},
                   {area.x1 - 1, area.y1 - 1, r1, c1}};
    bool all = true;
    for (int k = 0; k < 3; k++) {
        snprintf(expect, sizeof expect, "query %d, key %d:", probes[k].row, probes[k].col);
        all = all && fig->hover(fig->data, W, H, zoom, probes[k].x, probes[k].y, text, sizeof text) &&
              strncmp(text, expect, strlen(expect)) == 0;
    }
    tap_ok(all, "%d x %d map, %s view: hover reads the hot cell, and (%d, %d) .. (%d, %d) at the corners", rows,
           cols, how, r0, c0, r1, c1);
}

/* A hot cell off the diagonal of a square and of a rectangular map lands
 * on its cell (queries down, keys across, query 0 at the top), in full and
 * in a zoom window that differs across and down. */
static void test_matrix_geometry(void)
{
    static const struct {
        int rows, cols, row, col;
    } maps[] = {{64, 64, 9, 50}, {24, 64, 5, 40}};
    const rf_zoom window = {0.5, 0.875, 0, 0.5};    /* keys 32..55, the first half of the queries */
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        int rows = maps[i].rows, cols = maps[i].cols;
        float *hot = calloc((size_t)rows * cols, sizeof *hot);
        hot[(size_t)maps[i].row * cols + maps[i].col] = 1;
        rf_attention_figure f;
        rf_attention_figure_init(&f);
        rf_attention_figure_set_matrix(&f, hot, rows, cols, "query", "key");
        rf_figure fig = rf_attention_figure_get(&f);
        check_hot_cell(&fig, rows, cols, maps[i].row, maps[i].col, &RF_ZOOM_ALL, "full");
        check_hot_cell(&fig, rows, cols, maps[i].row, maps[i].col, &window, "zoomed");
        rf_attention_figure_free(&f);
        free(hot);
    }
}

/* How far left of the cells the text beside row `row` reaches (pixels). */
static int row_text_reach(cairo_surface_t *s, box area, int rows, const rf_zoom *zoom, int row)
{
    box cell = matrix_cell(area, rows, rows, zoom, row, 0);
    int y = (int)((cell.y0 + cell.y1) / 2), reach = 0;
    for (int dx = 2; dx < 58 && area.x0 - dx >= 0; dx++) {
        int r, g, b;
        pixel(s, (int)area.x0 - dx, y, &r, &g, &b);
        if (r < 120 && g < 120 && b < 120)
            reach = dx;
    }
    return reach;
}

/* Token names on an attention map's axes (issue 12 item 9): drawn beside
 * each row (and under each column) once a cell is at least
 * RF_MATRIX_NAME_PITCH pixels, index ticks otherwise. "[MAX" reaches some
 * 30 pixels left of the cells, an index 2 digits some 15. */
static void test_token_names(void)
{
    enum { N = 200 };
    float *map = malloc(sizeof(float) * N * N);
    for (int i = 0; i < N * N; i++)
        map[i] = 0.2f + 0.8f * (float)((i * 7919) % 101) / 100.0f;
    char **names = g_new0(char *, N + 1);
    for (int i = 0; i < N; i++)
        names[i] = g_strdup("[MAX");
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    rf_attention_figure_set_matrix(&f, map, N, N, "query", "key");
    rf_attention_figure_take_names(&f, names, N);
    rf_figure fig = rf_attention_figure_get(&f);
    const rf_zoom near = {0, 0.05, 0, 0.05};   /* 10 x 10 cells */
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "attention_names_far.png");
    int far = row_text_reach(s, cell_area(s, W / 4, H / 2), N, &RF_ZOOM_ALL, 0);
    cairo_surface_destroy(s);
    s = render(&fig, W, H, &near, "attention_names_near.png");
    int close = row_text_reach(s, cell_area(s, W / 4, H / 2), N, &near, 3);
    cairo_surface_destroy(s);
    tap_ok(far > 0 && far < 22 && close > 24,
           "a 200-token map names its rows only zoomed in: text reaches %d px left of the cells at full view "
           "(index ticks), %d px at 10 x 10 cells (\"[MAX\")", far, close);
    rf_attention_figure_free(&f);
    free(map);
}

static void test_band(void)
{
    enum { N = 96, WINDOW = 8, G = 4 };
    int band = rf_ls_band(WINDOW), e = rf_ls_extent(WINDOW);
    float *local = random_rows(N, band, 2), *global = random_rows(N, G, 3);
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    tap_ok(rf_attention_figure_set_band(&f, local, N, WINDOW, global, G), "a long-short band is accepted");
    rf_attention_figure_set_title(&f, "Layer 1 · head 2 · long-short");
    rf_figure fig = rf_attention_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "attention_band.png");
    long n = count_colourful(s);
    tap_ok(n > 150000L, "band and globals are drawn (%ld colourful pixels)", n);
    cairo_surface_destroy(s);

    bool all = true;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < band; j++)
            all = all && rf_attention_figure_band_key(&f, i, j) == i / WINDOW * WINDOW - e + j;
    tap_ok(all, "band cell (i, j) is key (i / w) * w - e + j (w = %d, e = %d)", WINDOW, e);

    char text[256], expect[256];
    double x, y;
    int q = 37, j = 6, key = q / WINDOW * WINDOW - e + j;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "query %d, key %d (band column %d)", q, key, j);
    bool found = find_hover(&fig, &RF_ZOOM_ALL, prefix, &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "%s: %.4g", prefix, local[q * band + j]);
    tap_ok(found && strcmp(text, expect) == 0, "hover on band cell (%d, %d) names key %d and its value: '%s'", q, j,
           key, found ? text : "(no point found)");
    found = find_hover(&fig, &RF_ZOOM_ALL, "query 37, global key 2:", &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "query 37, global key 2: %.4g", global[37 * G + 2]);
    tap_ok(found && strcmp(text, expect) == 0, "hover on a global column reads it: '%s'", found ? text : "");
    found = find_hover(&fig, &RF_ZOOM_ALL, "query 0, key -4", &x, &y, text, sizeof text);
    tap_ok(found && strstr(text, "masked") != NULL, "keys before the sequence read as masked: '%s'",
           found ? text : "");
    rf_attention_figure_free(&f);
    free(local);
    free(global);
}

/* An 8 x 8 grey gradient picture with one token per pixel. */
static void gradient_picture(float *px, int side)
{
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++)
            px[y * side + x] = (float)(x + y) / (2 * side - 2);
}

static void test_picture(void)
{
    enum { SIDE = 8, N = SIDE * SIDE + 1 };     /* a CLS token, then the raster */
    float *map = random_rows(N, N, 4), px[SIDE * SIDE];
    gradient_picture(px, SIDE);
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    rf_attention_figure_set_matrix(&f, map, N, N, "query", "key");
    tap_ok(rf_picture_set(&f.picture, px, SIDE, SIDE, 1, SIDE, SIDE, 1), "a picture with a CLS offset is accepted");
    rf_attention_figure_show_picture(&f, true);
    rf_attention_figure_set_query(&f, 1 + 3 * SIDE + 4);
    rf_attention_figure_set_title(&f, "Layer 1 · head 1 · attention of one patch");
    rf_figure fig = rf_attention_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "attention_picture.png");
    long n = count_colourful(s);
    tap_ok(n > 100000L, "the overlay colours the picture (%ld colourful pixels)", n);
    cairo_surface_destroy(s);
    char text[256], expect[256];
    double x, y;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "patch (2, 5)", &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "patch (2, 5) = key %d: %.4g", 1 + 2 * SIDE + 5, map[(1 + 3 * SIDE + 4) * N + 1 + 2 * SIDE + 5]);
    tap_ok(found && strcmp(text, expect) == 0, "hover over the picture reads the query's weight: '%s'", found ? text : "");
    int query = -1;
    bool picked = found && rf_attention_figure_query_at(&f, W, H, x, y, &query);
    tap_ok(picked && query == 1 + 2 * SIDE + 5, "a click on patch (2, 5) picks query %d (got %d)", 1 + 2 * SIDE + 5, query);
    rf_attention_figure_free(&f);
    free(map);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void test_large(void)
{
    enum { N = 4096 };
    float *map = random_rows(N, N, 5);
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    rf_attention_figure_set_matrix(&f, map, N, N, "query", "key");
    rf_attention_figure_set_title(&f, "4096 x 4096");
    rf_figure fig = rf_attention_figure_get(&f);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    cairo_t *cr = cairo_create(s);
    /* Best of three (the machine is shared): a new snapshot copied in, its
     * first draw (pooling into the cache), a redraw from the cache. */
    double copy = INFINITY, first = INFINITY, redraw = INFINITY;
    for (int i = 0; i < 3; i++) {
        double t0 = seconds();
        rf_attention_figure_set_matrix(&f, map, N, N, "query", "key");
        double t1 = seconds();
        fig.draw(fig.data, cr, 1920, 1080, &RF_ZOOM_ALL);
        double t2 = seconds();
        fig.draw(fig.data, cr, 1920, 1080, &RF_ZOOM_ALL);
        double t3 = seconds();
        copy = fmin(copy, t1 - t0);
        first = fmin(first, t2 - t1);
        redraw = fmin(redraw, t3 - t2);
    }
    cairo_destroy(cr);
    cairo_surface_flush(s);
    long n = count_colourful(s);
    tap_ok(n > 500000L, "a 4096 x 4096 map draws at 1920 x 1080 (%ld colourful pixels)", n);
    tap_diag("4096 x 4096 at 1920 x 1080: copying a snapshot in %.1f ms, first draw %.1f ms, redraw from the "
             "cache %.2f ms", copy * 1e3, first * 1e3, redraw * 1e3);
    cairo_surface_destroy(s);
    rf_attention_figure_free(&f);
    free(map);
}

/* The length in pixels of the band drawn in the column at x. */
static int band_run(cairo_surface_t *s, int x)
{
    int n = 0;
    for (int y = 0; y < H; y++)
        n += colourful(s, x, y);
    return n;
}

static void test_talk(void)
{
    enum { N = 40, HEADS = 2 };
    float bounds[N * 2 * HEADS];
    for (int t = 0; t < N; t++)
        for (int h = 0; h < HEADS; h++) {
            bounds[t * 2 * HEADS + h] = (float)t;              /* a^l */
            bounds[t * 2 * HEADS + HEADS + h] = (float)t;      /* a^r */
        }
    bounds[15 * 2 * HEADS + 1] = 10.0f;                        /* head 1, token 15: [10, 20] */
    bounds[15 * 2 * HEADS + HEADS + 1] = 20.0f;
    rf_talk_figure f;
    rf_talk_figure_init(&f);
    tap_ok(rf_talk_figure_set_bounds(&f, bounds, N, HEADS, 1), "bounds of head 1 are accepted");
    rf_talk_figure_set_title(&f, "Layer 1 · head 2 · train sample 0");
    rf_figure fig = rf_talk_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "talk.png");
    char text[256];
    double x15, x30, y;
    bool found15 = find_hover(&fig, &RF_ZOOM_ALL, "token 15:", &x15, &y, text, sizeof text);
    tap_ok(found15 && strcmp(text, "token 15: window [10.0, 20.0]") == 0, "hover names token 15's window: '%s'",
           found15 ? text : "");
    bool found30 = find_hover(&fig, &RF_ZOOM_ALL, "token 30:", &x30, &y, text, sizeof text);
    /* Step into the middle of each token's column (find_hover stops at its left edge). */
    int run15 = found15 ? band_run(s, (int)x15 + 6) : 0, run30 = found30 ? band_run(s, (int)x30 + 6) : 0;
    double ratio = run30 > 0 ? (double)run15 / run30 : 0;
    /* [10, 20] spans 11 positions, [30, 30] one (bands run from a^l - 0.5 to a^r + 0.5). */
    tap_ok(ratio > 9.5 && ratio < 12.5, "token 15's band covers its 11-position window (%d px vs %d px for one "
           "position, ratio %.2f)", run15, run30, ratio);
    cairo_surface_destroy(s);

    /* Many tokens: every pixel column shows the union of its tokens' windows. */
    enum { BIG = 4096 };
    float *big = malloc(sizeof(float) * BIG * 2);
    for (int t = 0; t < BIG; t++) {
        big[2 * t] = (float)fmax(0, t - 40 - 30 * sin(t * 0.01));
        big[2 * t + 1] = (float)fmin(BIG - 1, t + 25);
    }
    rf_talk_figure_set_bounds(&f, big, BIG, 1, 0);
    s = render(&fig, W, H, &RF_ZOOM_ALL, "talk_4096.png");
    long n = count_colourful(s);
    tap_ok(n > 20000L, "4096 tokens draw as a band (%ld colourful pixels)", n);
    cairo_surface_destroy(s);
    free(big);

    /* Picture mode: 8 x 8 positions, the window of position (2, 3) outlined. */
    float px[64], pb[64 * 2];
    gradient_picture(px, 8);
    for (int t = 0; t < 64; t++) {
        pb[2 * t] = (float)fmax(0, t - 3.5);
        pb[2 * t + 1] = (float)fmin(63, t + 1.5 + t % 5);
    }
    rf_talk_figure_set_bounds(&f, pb, 64, 1, 0);
    rf_picture_set(&f.picture, px, 8, 8, 1, 8, 8, 0);
    rf_talk_figure_show_picture(&f, true);
    rf_talk_figure_set_token(&f, 19);
    s = render(&fig, W, H, &RF_ZOOM_ALL, "talk_picture.png");
    n = count_colourful(s);
    tap_ok(n > 100000L, "the window widths colour the picture (%ld colourful pixels)", n);
    cairo_surface_destroy(s);
    double x;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "position (2, 3)", &x, &y, text, sizeof text);
    char expect[128];
    snprintf(expect, sizeof expect, "position (2, 3) = token 19: window [%.1f, %.1f]", pb[38], pb[39]);
    tap_ok(found && strcmp(text, expect) == 0, "hover over the picture names the position's window: '%s'",
           found ? text : "");
    int token = -1;
    bool picked = found && rf_talk_figure_token_at(&f, W, H, x, y, &token);
    tap_ok(picked && token == 19,
           "a click on position (2, 3) picks token 19 (got %d)", token);
    rf_talk_figure_free(&f);
}

/* rf_plot's frame: its border, found by walking out from a point inside it. */
static box plot_frame(cairo_surface_t *s, int x, int y)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int x0 = x, x1 = x, y0 = y, y1 = y;
    while (x0 > 0 && !is(s, x0, y, border))
        x0--;
    while (x1 < w - 1 && !is(s, x1, y, border))
        x1++;
    while (y0 > 0 && !is(s, x, y0, border))
        y0--;
    while (y1 < h - 1 && !is(s, x, y1, border))
        y1++;
    return (box){x0, y0, x1, y1};
}

/* The TaLK self line: its row (the one with the most red), the middle of
 * its red run there, and its centre line (red rows weighted by their red). */
static void self_line(cairo_surface_t *s, int *row, int *mid, double *centre)
{
    long count[H] = {0}, best = 0, weight = 0;
    int first = W, last = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            count[y] += is(s, x, y, red);
    for (int y = 0; y < H; y++)
        if (count[y] > best) {
            best = count[y];
            *row = y;
        }
    for (int x = 0; x < W; x++)
        if (is(s, x, *row, red)) {
            first = x < first ? x : first;
            last = x;
        }
    *mid = first <= last ? (first + last) / 2 : W / 2;
    *centre = 0;
    for (int y = *row > 3 ? *row - 3 : 0; y <= *row + 3 && y < H; y++) {
        *centre += count[y] * (y + 0.5);
        weight += count[y];
    }
    *centre = weight > 0 ? *centre / weight : *row;
}

/* The visible data ranges of the TaLK bands panel: tokens across (token
 * t's column is [t - 0.5, t + 0.5] on an axis from -0.5 to N - 0.5),
 * positions relative to the token up (from the lowest a^l - t - 0.5 to the
 * highest a^r - t + 0.5, padded 4 % on both sides, plot.h), narrowed by
 * the zoom (y fractions run from the top). */
typedef struct talk_range {
    double t0, t1, v0, v1;    /* left and right tokens; bottom and top positions */
} talk_range;

static talk_range talk_visible(const float *left, const float *right, int n, const rf_zoom *zoom)
{
    double lo = -0.5, hi = 0.5;
    for (int t = 0; t < n; t++) {
        lo = fmin(lo, left[t] - t - 0.5);
        hi = fmax(hi, right[t] - t + 0.5);
    }
    double pad = 0.04 * (hi - lo);
    lo -= pad;
    hi += pad;
    return (talk_range){-0.5 + zoom->x0 * n, -0.5 + zoom->x1 * n, hi - zoom->y1 * (hi - lo), hi - zoom->y0 * (hi - lo)};
}

static double talk_x(box fr, talk_range r, double t) { return fr.x0 + (t - r.t0) / (r.t1 - r.t0) * (fr.x1 - fr.x0); }
static double talk_y(box fr, talk_range r, double v) { return fr.y0 + (r.v1 - v) / (r.v1 - r.v0) * (fr.y1 - fr.y0); }

/* Token t's band (window [left, right]) against where the layout puts it:
 * its rows through the self line at `centre`, its columns across its middle. */
static void check_band(cairo_surface_t *s, box fr, talk_range r, double centre, int t, float left, float right,
                       const char *how)
{
    /* Walk out from 3 px either side of the self line (where the line blends
     * with the band, the colours cancel to grey). */
    int x = (int)fmin(fmax(talk_x(fr, r, t), 0), W - 1);
    int top = (int)fmax(centre - 3, 1), bottom = (int)fmin(centre + 3, H - 2);
    while (top > 0 && colourful(s, x, top - 1))
        top--;
    while (bottom < H - 1 && colourful(s, x, bottom + 1))
        bottom++;
    double want_top = fmax(fr.y0, talk_y(fr, r, right - t + 0.5));
    double want_bottom = fmin(fr.y1, talk_y(fr, r, left - t - 0.5));
    tap_ok(fabs(top - want_top) <= 1.5 && fabs(bottom + 1 - want_bottom) <= 1.5,
           "TaLK %s: token %d's band [%.0f, %.0f] spans y %d..%d at x %d (expected %.1f..%.1f)", how, t, left, right,
           top, bottom + 1, x, want_top, want_bottom);
    int y = (int)((want_top + want_bottom) / 2), x0 = x, x1 = x;
    while (x0 > 0 && colourful(s, x0 - 1, y))
        x0--;
    while (x1 < W - 1 && colourful(s, x1 + 1, y))
        x1++;
    double c0 = talk_x(fr, r, t - 0.5), c1 = talk_x(fr, r, t + 0.5), mid = (x0 + x1 + 1) / 2.0;
    tap_ok(colourful(s, x, y) && x0 >= c0 - 1 && x1 + 1 <= c1 + 1 && fabs(mid - talk_x(fr, r, t)) <= 1.5,
           "TaLK %s: token %d's band spans x %d..%d, centred in its column %.1f..%.1f", how, t, x0, x1 + 1, c0, c1);
}

/* Asymmetric windows (token 15: [10, 18], 5 back and 3 ahead; token 28:
 * [27, 36]) land where the layout puts them, in full and zoomed to tokens
 * 9.5..29.5 and the positions from 10 % to 80 % of the way down. */
static void test_talk_geometry(void)
{
    enum { N = 40 };
    float bounds[N * 2], left[N], right[N];
    for (int t = 0; t < N; t++)
        left[t] = right[t] = (float)t;
    left[15] = 10;
    right[15] = 18;
    left[28] = 27;
    right[28] = 36;
    for (int t = 0; t < N; t++) {
        bounds[2 * t] = left[t];
        bounds[2 * t + 1] = right[t];
    }
    rf_talk_figure f;
    rf_talk_figure_init(&f);
    rf_talk_figure_set_bounds(&f, bounds, N, 1, 0);
    rf_figure fig = rf_talk_figure_get(&f);
    const rf_zoom window = {0.25, 0.75, 0.1, 0.8};
    const rf_zoom *zooms[2] = {&RF_ZOOM_ALL, &window};
    for (int z = 0; z < 2; z++) {
        const char *how = z ? "zoomed" : "in full";
        cairo_surface_t *s = render(&fig, W, H, zooms[z], z ? "talk_windows_zoomed.png" : "talk_windows.png");
        int row = 0, mid = 0;
        double centre = 0;
        self_line(s, &row, &mid, &centre);
        box fr = plot_frame(s, mid, row);
        talk_range r = talk_visible(left, right, N, zooms[z]);
        tap_ok(fabs(centre - talk_y(fr, r, 0)) <= 1.5, "TaLK %s: the self line at y %.1f (expected %.1f)", how,
               centre, talk_y(fr, r, 0));
        check_band(s, fr, r, centre, 15, left[15], right[15], how);
        check_band(s, fr, r, centre, 28, left[28], right[28], how);
        cairo_surface_destroy(s);
    }
    rf_talk_figure_free(&f);
}

static void test_messages(void)
{
    rf_attention_figure a;
    rf_attention_figure_init(&a);
    rf_attention_figure_set_message(&a, "This model has no attention maps (encoder: talk)");
    rf_figure fig = rf_attention_figure_get(&a);
    cairo_surface_t *s = render(&fig, 800, 500, &RF_ZOOM_ALL, "attention_message.png");
    long grey = 0;
    for (int y = 0; y < 500; y++)
        for (int x = 0; x < 800; x++) {
            int r, g, b;
            pixel(s, x, y, &r, &g, &b);
            grey += r < 200;
        }
    char text[64];
    tap_ok(grey > 100 && !fig.hover(fig.data, 800, 500, &RF_ZOOM_ALL, 400, 250, text, sizeof text),
           "without taps the figure draws its message (%ld text pixels) and reads out nothing", grey);
    cairo_surface_destroy(s);
    rf_attention_figure_free(&a);
}

/* --- the attention overview: layers x heads thumbnails --- */

typedef struct picked {
    int layer, head, calls;
} picked;

static void on_pick(void *user, int layer, int head)
{
    picked *p = user;
    *p = (picked){layer, head, p->calls + 1};
}

/* The runs of colourful pixels along row y (or column x): thumbnails. */
static int runs_across(cairo_surface_t *s, int y, box *found, int max)
{
    int n = 0;
    for (int x = 0; x < cairo_image_surface_get_width(s); x++)
        if (colourful(s, x, y) && (x == 0 || !colourful(s, x - 1, y))) {
            if (n < max)
                found[n] = cell_area(s, x + 2, y);
            n++;
        }
    return n;
}

/* Text drawn in an empty overview cell: a grey darker than its border. */
static bool text_grey(int r, int g, int b)
{
    return r < 140 && abs(r - g) < 8 && abs(g - b) < 8;
}

static void test_overview(void)
{
    enum { LAYERS = 2, HEADS = 3, N = 4 };
    const int layer_ids[LAYERS] = {0, 3};   /* the model's taps: layers 0 and 3 */
    rf_attention_overview o;
    rf_attention_overview_init(&o);
    rf_attention_overview_resize(&o, LAYERS, HEADS);
    float maps[LAYERS][HEADS][N][N] = {{{{0}}}};
    for (int l = 0; l < LAYERS; l++)
        for (int h = 0; h < HEADS; h++)
            maps[l][h][h][l] = 1.0f;   /* map (l, h): its only weight at query h, key l */
    for (int l = 0; l < LAYERS; l++)
        rf_attention_overview_set_layer(&o, l, layer_ids[l], &maps[l][0][0][0], HEADS, N, N, 0);
    rf_attention_overview_set_title(&o, "Attention overview · val sample 0");
    picked p = {-1, -1, 0};
    o.pick = on_pick;
    o.user = &p;
    rf_figure fig = rf_attention_overview_get(&o);
    cairo_surface_t *s = render(&fig, 900, 560, &RF_ZOOM_ALL, "overview.png");

    /* find the thumbnails in the drawing: a row of HEADS through each layer's */
    box cells[LAYERS][HEADS];
    box first[HEADS + 2];
    int across = 0;
    for (int y = 0; y < 560 && across == 0; y++)
        across = runs_across(s, y, first, HEADS + 2) == HEADS ? HEADS : 0;
    int rows_found = 0;
    for (int y = 0; y < 560 && rows_found < LAYERS + 1; y++) {
        box row[HEADS + 2];
        if (runs_across(s, y, row, HEADS + 2) == HEADS && (rows_found == 0 || row[0].y0 >= cells[rows_found - 1][0].y1)) {
            if (rows_found < LAYERS)
                memcpy(cells[rows_found], row, sizeof cells[0]);
            rows_found++;
        }
    }
    if (!tap_ok(across == HEADS && rows_found == LAYERS, "the overview draws %d x %d thumbnails (found %d rows of %d)",
                LAYERS, HEADS, rows_found, across)) {
        cairo_surface_destroy(s);
        rf_attention_overview_free(&o);
        return;
    }
    bool square = true, placed = true, hover_ok = true, at_ok = true;
    char text[160];
    for (int l = 0; l < LAYERS; l++)
        for (int h = 0; h < HEADS; h++) {
            box c = cells[l][h];
            double cw = (c.x1 - c.x0) / N, ch = (c.y1 - c.y0) / N;
            square = square && fabs((c.x1 - c.x0) - (c.y1 - c.y0)) <= 1.5 && c.x1 - c.x0 > 60;
            /* every map cell's pixels: yellow at (h, l), the dark end elsewhere */
            for (int r = 0; r < N; r++)
                for (int k = 0; k < N; k++) {
                    int px = (int)(c.x0 + (k + 0.5) * cw), py = (int)(c.y0 + (r + 0.5) * ch);
                    placed = placed && is(s, px, py, yellow) == (r == h && k == l);
                }
            double mx = (c.x0 + c.x1) / 2, my = (c.y0 + c.y1) / 2;
            char want[64];
            g_snprintf(want, sizeof want, "Layer %d · head %d", layer_ids[l] + 1, h + 1);   /* counted from 1 */
            hover_ok = hover_ok && fig.hover(fig.data, 900, 560, &RF_ZOOM_ALL, mx, my, text, sizeof text) &&
                       g_str_has_prefix(text, want);
            int got_l = -1, got_h = -1;
            at_ok = at_ok && rf_attention_overview_cell_at(&o, 900, 560, mx, my, &got_l, &got_h) &&
                    got_l == layer_ids[l] && got_h == h;
        }
    tap_ok(square, "each thumbnail is a square of %.0f px", cells[0][0].x1 - cells[0][0].x0);
    tap_ok(placed, "each thumbnail shows its own map: the weight of map (layer, head) at query head, key layer");
    tap_ok(hover_ok, "hovering a thumbnail names its layer and head (%s)", text);
    tap_ok(at_ok, "the cell under a point maps to the model's layer number (0 and 3) and head");
    int gl, gh;
    double gap_x = (cells[0][0].x1 + cells[0][1].x0) / 2, mid_y = (cells[0][0].y0 + cells[0][0].y1) / 2;
    tap_ok(!rf_attention_overview_cell_at(&o, 900, 560, gap_x, mid_y, &gl, &gh) &&
               !fig.hover(fig.data, 900, 560, &RF_ZOOM_ALL, gap_x, mid_y, text, sizeof text),
           "between thumbnails there is no cell");
    double cx = (cells[1][2].x0 + cells[1][2].x1) / 2, cy = (cells[1][2].y0 + cells[1][2].y1) / 2;
    bool clicked = fig.click(fig.data, 900, 560, &RF_ZOOM_ALL, cx, cy);
    tap_ok(clicked && p.calls == 1 && p.layer == 3 && p.head == 2,
           "a click on L3 H2 picks layer 3, head 2 (picked %d, %d)", p.layer, p.head);
    /* labels: dark text just above each thumbnail */
    bool labelled = true;
    for (int h = 0; h < HEADS; h++) {
        box above = {cells[1][h].x0, cells[1][h].y0 - 15, cells[1][h].x1, cells[1][h].y0 - 2};
        labelled = labelled && isfinite(find_shade(s, above, border).x0);
    }
    tap_ok(labelled, "each thumbnail has its label above it");

    /* the attention figure draws the overview in place of its map, and exports it */
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    rf_attention_figure_show_overview(&f, &o);
    rf_figure via = rf_attention_figure_get(&f);
    cairo_surface_t *s2 = render(&via, 900, 560, &RF_ZOOM_ALL, NULL);
    tap_ok(memcmp(cairo_image_surface_get_data(s), cairo_image_surface_get_data(s2),
                  (size_t)cairo_image_surface_get_stride(s) * 560) == 0 &&
               via.hover(via.data, 900, 560, &RF_ZOOM_ALL, cx, cy, text, sizeof text) &&
               g_str_has_prefix(text, "Layer 4 · head 3"),
           "the Attention figure shows the overview in place of its map, hover included");
    cairo_surface_destroy(s2);
    rf_attention_figure_free(&f);
    cairo_surface_destroy(s);

    /* a layer without maps at this step: its cells say why, drawn and hovered */
    rf_attention_overview_set_layer(&o, 1, layer_ids[1], NULL, HEADS, N, N, 0);
    cairo_surface_t *s3 = render(&fig, 900, 560, &RF_ZOOM_ALL, "overview-missing.png");
    bool said = true, hover_why = true;
    for (int h = 0; h < HEADS; h++) {
        box c = cells[1][h], inner = {c.x0 + 3, c.y0 + 3, c.x1 - 3, c.y1 - 3};
        said = said && isfinite(find_shade(s3, inner, text_grey).x0);
        hover_why = hover_why && fig.hover(fig.data, 900, 560, &RF_ZOOM_ALL, (c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2, text,
                                           sizeof text) &&
                    strstr(text, "not stored at this step") != NULL;
    }
    tap_ok(said, "a cell without a map at this step is not blank: its reason is written in it");
    tap_ok(hover_why, "and hovering it says why (%s)", text);
    cairo_surface_destroy(s3);

    /* many small cells: headers in place of per-cell labels, still one cell per map */
    rf_attention_overview_resize(&o, 12, 12);
    for (int l = 0; l < 12; l++)
        rf_attention_overview_set_layer(&o, l, l, NULL, 0, 0, 0, 0);
    rf_attention_overview_set_layer(&o, 11, 11, &maps[0][0][0][0], 1, N, N, 0);
    int ll, hh;
    bool found = false;
    for (int y = 0; y < 500 && !found; y += 2)
        for (int x = 0; x < 600 && !found; x += 2)
            found = rf_attention_overview_cell_at(&o, 600, 500, x, y, &ll, &hh) && ll == 11 && hh == 11;
    tap_ok(found, "a 12 x 12 grid in 600 x 500 still has a cell for layer 11, head 11");
    rf_attention_overview_free(&o);
}

int main(void)
{
    test_overview();
    test_matrix();
    test_matrix_geometry();
    test_token_names();
    test_band();
    test_picture();
    test_large();
    test_talk();
    test_talk_geometry();
    test_messages();
    return tap_done();
}
