/* The inspection figures (attention maps, BLRP latent states, TaLK window
 * bounds), headless: each is drawn into a cairo image surface and checked
 * pixel by pixel and through its hover read-out against the data it was
 * given. Set RF_INSPECT_PNG_DIR to keep the drawings as PNG files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/ops/ls_attention.h"
#include "../ui/figures/attention_figure.h"
#include "../ui/figures/latent_figure.h"
#include "../ui/figures/talk_figure.h"
#include "tap.h"

#define W 1600
#define H 1000

static cairo_surface_t *render(const rf_figure *fig, int w, int h, const rf_zoom *zoom, const char *png)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    fig->draw(fig->data, cr, w, h, zoom);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    const char *dir = getenv("RF_INSPECT_PNG_DIR");
    if (dir != NULL && png != NULL) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, png);
        cairo_surface_write_to_png(s, path);
    }
    return s;
}

static void pixel(cairo_surface_t *s, int x, int y, int *r, int *g, int *b)
{
    const uint32_t *row = (const uint32_t *)(const void *)(cairo_image_surface_get_data(s) +
                                                          (size_t)y * cairo_image_surface_get_stride(s));
    uint32_t p = row[x];
    *r = (int)(p >> 16 & 0xff);
    *g = (int)(p >> 8 & 0xff);
    *b = (int)(p & 0xff);
}

/* Pixels of strong colour (not white, not grey: heatmap cells, bands). */
static bool colourful(cairo_surface_t *s, int x, int y)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    int hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
    return hi - lo > 40;
}

static long count_colourful(cairo_surface_t *s)
{
    long n = 0;
    for (int y = 0; y < cairo_image_surface_get_height(s); y++)
        for (int x = 0; x < cairo_image_surface_get_width(s); x++)
            n += colourful(s, x, y);
    return n;
}

/* Viridis' bright end (yellow: r and g high, b low) in columns [0, x_end). */
static long count_yellow(cairo_surface_t *s, int x_end)
{
    long n = 0;
    for (int y = 0; y < cairo_image_surface_get_height(s); y++)
        for (int x = 0; x < x_end; x++) {
            int r, g, b;
            pixel(s, x, y, &r, &g, &b);
            n += r > 200 && g > 200 && b < 80;
        }
    return n;
}

/* Find a device point whose read-out starts with `prefix`; false if none. */
static bool find_hover(const rf_figure *fig, const rf_zoom *zoom, const char *prefix, double *px, double *py,
                       char *text, size_t size)
{
    for (int y = 0; y < H; y += 2)
        for (int x = 0; x < W; x += 2)
            if (fig->hover(fig->data, W, H, zoom, x + 0.5, y + 0.5, text, size) &&
                strncmp(text, prefix, strlen(prefix)) == 0) {
                *px = x + 0.5;
                *py = y + 0.5;
                return true;
            }
    return false;
}

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

    /* One hot cell near the top-left: visible in full, gone when zoomed into the bottom-right quarter. */
    float *hot = calloc((size_t)N * N, sizeof *hot);
    hot[5 * N + 5] = 1;
    rf_attention_figure_set_matrix(&f, hot, N, N, "query", "key");
    /* Count left of the colour bar (yellow at its top): up to the last column that reads a cell. */
    int frame_end = W - 1;
    while (frame_end > 0 && !fig.hover(fig.data, W, H, &RF_ZOOM_ALL, frame_end + 0.5, H / 2.0, text, sizeof text))
        frame_end--;
    s = render(&fig, W, H, &RF_ZOOM_ALL, NULL);
    long full = count_yellow(s, frame_end + 1);
    cairo_surface_destroy(s);
    rf_zoom quarter = {0.5, 1, 0.5, 1};
    s = render(&fig, W, H, &quarter, "attention_zoomed.png");
    long zoomed = count_yellow(s, frame_end + 1);
    cairo_surface_destroy(s);
    tap_ok(full > 50 && zoomed < full / 10,
           "zoom picks the cells drawn: the hot cell (5, 5) shows in full (%ld px), not in the bottom-right "
           "quarter (%ld px)", full, zoomed);
    found = fig.hover(fig.data, W, H, &quarter, 100, 60, text, sizeof text) ||
            find_hover(&fig, &quarter, "query", &x, &y, text, sizeof text);
    int qr = -1, kc = -1;
    tap_ok(found && sscanf(text, "query %d, key %d", &qr, &kc) == 2 && qr >= N / 2 && kc >= N / 2,
           "zoomed hover reads cells of the quarter only ('%s')", found ? text : "");
    free(hot);
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

static void test_latent(void)
{
    enum { SEGMENTS = 6, L = 8, D = 32 };
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    tap_ok(rf_latent_figure_resize(&f, SEGMENTS, L, D), "latent figure sized for %d segments of %d x %d", SEGMENTS,
           L, D);
    float *state = malloc(sizeof(float) * L * D * SEGMENTS * 2);
    double norms[2][SEGMENTS];
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < SEGMENTS; s++) {
            float *b = state + ((size_t)p * SEGMENTS + s) * L * D;
            double sum = 0;
            for (int i = 0; i < L * D; i++) {
                b[i] = (float)sin(0.37 * i + s + 3 * p) * (1 + s);
                sum += (double)b[i] * b[i];
            }
            norms[p][s] = sqrt(sum);
            rf_latent_figure_set_state(&f, (rf_latent_pass)p, s + 1, b);
        }
    /* Gradients: the states scaled by 1e-3, so their norms are the states' / 1000. */
    float *grad = malloc(sizeof(float) * L * D);
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < SEGMENTS; s++) {
            for (int i = 0; i < L * D; i++)
                grad[i] = 1e-3f * state[((size_t)p * SEGMENTS + s) * L * D + i];
            rf_latent_figure_set_grad(&f, (rf_latent_pass)p, s + 1, grad);
        }
    free(grad);
    rf_latent_figure_select(&f, 3, RF_LATENT_BACKWARD);
    rf_latent_figure_set_title(&f, "BLRP latent states · train sample 0");
    rf_figure fig = rf_latent_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "latent.png");
    long n = count_colourful(s);
    tap_ok(n > 200000L, "heatmap and norm strip are drawn (%ld colourful pixels)", n);
    cairo_surface_destroy(s);

    char text[256], expect[256];
    double x, y;
    const float *b = state + ((size_t)1 * SEGMENTS + 2) * L * D;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "segment 3 backward, latent row 5, dimension 17:", &x, &y, text,
                            sizeof text);
    snprintf(expect, sizeof expect, "segment 3 backward, latent row 5, dimension 17: %.4g", b[5 * D + 17]);
    tap_ok(found && strcmp(text, expect) == 0, "hover on the latent block reads L[5][17]: '%s'", found ? text : "");
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 4: ", &x, &y, text, sizeof text);
    double gf = 0, gb = 0;
    for (int i = 0; i < L * D; i++) {
        float a = 1e-3f * state[(size_t)3 * L * D + i], c = 1e-3f * state[((size_t)SEGMENTS + 3) * L * D + i];
        gf += (double)a * a;
        gb += (double)c * c;
    }
    snprintf(expect, sizeof expect, "segment 4: ‖L‖ forward %.4g, backward %.4g · ‖∇L‖ forward %.4g, backward %.4g",
             norms[0][3], norms[1][3], sqrt(gf), sqrt(gb));
    tap_ok(found && strcmp(text, expect) == 0, "hover on the strip reads the norms: '%s'",
           found ? text : "");
    rf_latent_figure_select(&f, 1, RF_LATENT_FORWARD);
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 1 forward, latent row 0, dimension 0:", &x, &y, text,
                       sizeof text);
    snprintf(expect, sizeof expect, "segment 1 forward, latent row 0, dimension 0: %.4g", state[0]);
    tap_ok(found && strcmp(text, expect) == 0, "the slider and toggle choose the block shown: '%s'",
           found ? text : "");
    rf_latent_figure_free(&f);
    free(state);
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

int main(void)
{
    test_matrix();
    test_band();
    test_picture();
    test_large();
    test_latent();
    test_talk();
    test_messages();
    return tap_done();
}
