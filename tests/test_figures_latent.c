/* The Latent view's figure (BLRP's latent block states), headless: drawn
 * into a cairo image surface and checked pixel by pixel and through its
 * hover read-out against the states it was given: the heat map of a
 * segment's state, the norms strip with its legend outside the plot, the
 * geometry of the cells, and the layers picked. (Split out of
 * test_figures_inspect.c.) Set RF_INSPECT_PNG_DIR to keep the drawings as
 * PNG files. */
#include <glib.h>

#include "../ui/figures/latent_figure.h"
#include "figure_checks.h"
#include "tap.h"

/* Pixels of colour c (within a small tolerance) inside [x0, x1) x [y0, y1). */
static long count_colour(cairo_surface_t *s, int x0, int x1, int y0, int y1, rf_rgb c)
{
    long n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int r, g, b;
            pixel(s, x, y, &r, &g, &b);
            n += abs(r - (int)lround(c.r * 255)) <= 6 && abs(g - (int)lround(c.g * 255)) <= 6 &&
                 abs(b - (int)lround(c.b * 255)) <= 6;
        }
    return n;
}

/* The norms strip's plot area, found through its hover (it answers inside
 * the frame only), and its legend and marker label: outside that area,
 * right of it, so they never cover a curve, in the band beside the strip
 * (its title's rows included, where the colour bar above never reaches),
 * and whole inside a figure w x h: the last entry, the chosen segment's
 * label, is the one a legend too tall for the strip loses. */
static void check_latent_legend(const rf_figure *fig, cairo_surface_t *s, int w, int h)
{
    char text[256];
    int y_mid = -1, x0 = w, x1 = -1, y0 = h, y1 = -1;
    for (int y = h - 1; y > h / 2 && y_mid < 0; y -= 4)
        if (fig->hover(fig->data, w, h, &RF_ZOOM_ALL, w / 2, y, text, sizeof text) && strstr(text, "‖L‖") != NULL)
            y_mid = y - 10;
    for (int x = 0; x < w && y_mid >= 0; x++)
        if (fig->hover(fig->data, w, h, &RF_ZOOM_ALL, x, y_mid, text, sizeof text) && strstr(text, "‖L‖") != NULL) {
            x0 = MIN(x0, x);
            x1 = MAX(x1, x);
        }
    for (int y = h / 2; y < h && x1 >= 0; y++)
        if (fig->hover(fig->data, w, h, &RF_ZOOM_ALL, (x0 + x1) / 2, y, text, sizeof text) &&
            strstr(text, "‖L‖") != NULL) {
            y0 = MIN(y0, y);
            y1 = MAX(y1, y);
        }
    if (!tap_ok(x1 > x0 && y1 > y0, "%d x %d: the strip's plot area found by hover: x %d..%d, y %d..%d", w, h, x0, x1,
                y0, y1))
        return;
    int band = MAX(h / 2, y0 - 30);
    long outside = 0;
    for (int k = 0; k < 4; k++)
        outside += count_colour(s, x1 + 2, w, band, h, rf_series_color(k)) > 0;
    /* the marker's red: its dashed line inside, its label's swatch outside */
    long label_outside = count_colour(s, x1 + 2, w, band, h, (rf_rgb){0.85, 0.2, 0.1});
    /* a box cut by the figure's edge leaves its sides in the last rows */
    long cut = (long)(w - x1 - 2) * 2 - count_colour(s, x1 + 2, w, h - 2, h, (rf_rgb){1, 1, 1});
    tap_ok(outside == 4 && label_outside >= 10 && cut == 0,
           "%d x %d: the strip's legend (%ld of 4 series) and the chosen segment's label (%ld red pixels) sit whole "
           "right of the plot area, over no curve (%ld drawn pixels in the bottom two rows)",
           w, h, outside, label_outside, cut);
}

static void test_latent(void)
{
    enum { SEGMENTS = 6, L = 8, D = 32 };
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    tap_ok(rf_latent_figure_resize(&f, SEGMENTS, L, D), "latent figure sized for %d segments of %d x %d", SEGMENTS,
           L, D);
    float *state = malloc(sizeof(float) * L * D * SEGMENTS * 2);
    /* the strip's series: each pass's norms, and its gradients' (the states
     * scaled by 1e-3, so their norms are the states' / 1000), a point a segment */
    float norms[RF_LATENT_NORMS][SEGMENTS];
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < SEGMENTS; s++) {
            float *b = state + ((size_t)p * SEGMENTS + s) * L * D;
            double sum = 0;
            for (int i = 0; i < L * D; i++) {
                b[i] = (float)sin(0.37 * i + s + 3 * p) * (1 + s);
                sum += (double)b[i] * b[i];
            }
            norms[p][s] = (float)sqrt(sum);
            norms[2 + p][s] = 1e-3f * norms[p][s];
        }
    for (int k = 0; k < RF_LATENT_NORMS; k++)
        rf_latent_figure_set_norms(&f, (rf_latent_norm)k, norms[k], (rf_matrix_positions){0, SEGMENTS, SEGMENTS},
                                   false);
    /* the view gives the chosen segment's block of each pass */
    rf_latent_figure_set_state(&f, RF_LATENT_FORWARD, 1, state);
    rf_latent_figure_set_state(&f, RF_LATENT_BACKWARD, 3, state + ((size_t)SEGMENTS + 2) * L * D);
    rf_latent_figure_select(&f, 3, RF_LATENT_BACKWARD);
    rf_latent_figure_set_title(&f, "BLRP latent states · train sample 0");
    rf_figure fig = rf_latent_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "latent.png");
    long n = count_colourful(s);
    tap_ok(n > 200000L, "heatmap and norm strip are drawn (%ld colourful pixels)", n);
    check_latent_legend(&fig, s, W, H);
    cairo_surface_destroy(s);
    /* about the figure's size in a 1024 x 600 window: a strip of 120 pixels */
    s = render(&fig, 1000, 360, &RF_ZOOM_ALL, "latent_short.png");
    check_latent_legend(&fig, s, 1000, 360);
    cairo_surface_destroy(s);

    char text[256], expect[256];
    double x, y;
    const float *b = state + ((size_t)1 * SEGMENTS + 2) * L * D;
    /* hover counts rows and dimensions from 1, as the axes do: L[5][17] is row 6, dimension 18 */
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "segment 3 backward, latent row 6, dimension 18:", &x, &y, text,
                            sizeof text);
    snprintf(expect, sizeof expect, "segment 3 backward, latent row 6, dimension 18: %.4g", b[5 * D + 17]);
    tap_ok(found && strcmp(text, expect) == 0, "hover on the latent block reads L[5][17]: '%s'", found ? text : "");
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 4: ", &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "segment 4: ‖L‖ forward %.4g, backward %.4g · ‖∇L‖ forward %.4g, backward %.4g",
             norms[0][3], norms[1][3], norms[2][3], norms[3][3]);
    tap_ok(found && strcmp(text, expect) == 0, "hover on the strip reads the norms: '%s'",
           found ? text : "");
    rf_latent_figure_select(&f, 1, RF_LATENT_FORWARD);
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 1 forward, latent row 1, dimension 1:", &x, &y, text,
                       sizeof text);
    snprintf(expect, sizeof expect, "segment 1 forward, latent row 1, dimension 1: %.4g", state[0]);
    tap_ok(found && strcmp(text, expect) == 0, "the slider and toggle choose the block shown: '%s'",
           found ? text : "");
    rf_latent_figure_free(&f);
    free(state);
}

/* A latent block with a high cell (+1, deep red) and a low one (-1, deep
 * blue: the diverging map, white at 0) off the diagonal lands as documented
 * (latent rows down, model dimensions across), in full and in a zoom window
 * that differs across and down. */
static void test_latent_geometry(void)
{
    enum { L = 8, D = 32 };
    float block[L * D] = {0};
    block[2 * D + 21] = 1;
    block[6 * D + 3] = -1;
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    rf_latent_figure_resize(&f, 2, L, D);
    rf_latent_figure_set_state(&f, RF_LATENT_FORWARD, 1, block);
    rf_latent_figure_select(&f, 1, RF_LATENT_FORWARD);
    rf_figure fig = rf_latent_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "latent_hot.png");
    box area = cell_area_of(s, W / 4, H / 4, painted);
    box want = matrix_cell(area, L, D, &RF_ZOOM_ALL, 2, 21), got = find_shade(s, area, deep_red);
    tap_ok(near(got, want), "latent L[2][21] = +1 (deep red) at x %.0f..%.0f, y %.0f..%.0f (expected %.1f..%.1f, %.1f..%.1f)",
           BOX(got), BOX(want));
    want = matrix_cell(area, L, D, &RF_ZOOM_ALL, 6, 3);
    got = find_shade(s, area, deep_blue);
    tap_ok(near(got, want), "latent L[6][3] = -1 (deep blue) at x %.0f..%.0f, y %.0f..%.0f (expected %.1f..%.1f, %.1f..%.1f)",
           BOX(got), BOX(want));
    cairo_surface_destroy(s);

    const rf_zoom window = {0.5, 1, 0, 0.5};    /* dimensions 16..31, latent rows 0..3 */
    s = render(&fig, W, H, &window, "latent_hot_zoomed.png");
    area = cell_area_of(s, W / 4, H / 4, painted);
    want = matrix_cell(area, L, D, &window, 2, 21);
    got = find_shade(s, area, deep_red);
    box low = find_shade(s, area, deep_blue);
    tap_ok(near(got, want) && low.x1 <= low.x0, "zoomed to dimensions 16..31 of rows 0..3: L[2][21] at x "
           "%.0f..%.0f, y %.0f..%.0f (expected %.1f..%.1f, %.1f..%.1f), L[6][3] outside", BOX(got), BOX(want));
    cairo_surface_destroy(s);
    rf_latent_figure_free(&f);
}

/* The layer selector: with Θ_SELF 2 or Θ_X chosen the heatmap is the
 * chosen segment's t x d token block (a +1 cell deep red and a -1 cell deep
 * blue where the data has them, hover reading the array), titled with the
 * layer; the norms strip and the latent block stay behind Θ_L. */
static void test_latent_layers(void)
{
    enum { SEGMENTS = 4, L = 8, D = 32, T = 5 };
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    rf_latent_figure_resize(&f, SEGMENTS, L, D);
    float latent[L * D], tokens[SEGMENTS][T * D];
    for (int i = 0; i < L * D; i++)
        latent[i] = 0.2f * (float)cos(0.3 * i);
    for (int s = 0; s < SEGMENTS; s++)
        for (int i = 0; i < T * D; i++)
            tokens[s][i] = 0.1f * (float)sin(0.7 * i + s);
    tokens[2][1 * D + 21] = 1;
    tokens[2][4 * D + 3] = -1;
    float norms[SEGMENTS] = {1, 2, 3, 4};
    rf_latent_figure_set_norms(&f, RF_LATENT_NORM_FORWARD, norms, (rf_matrix_positions){0, SEGMENTS, SEGMENTS}, false);
    rf_latent_figure_set_state(&f, RF_LATENT_FORWARD, 3, latent);
    bool sized = rf_latent_figure_set_layer(&f, (rf_latent_layer){RF_LATENT_LAYER_SELF, 2}, T);
    rf_latent_figure_set_tokens(&f, RF_LATENT_FORWARD, 3, tokens[2]);
    rf_latent_figure_select(&f, 3, RF_LATENT_FORWARD);
    char title[160];
    rf_latent_figure_block_title(&f, title, sizeof title);
    tap_ok(sized && strcmp(title, "segment 3 · forward · Θ_SELF 2: token states, 5 × 32") == 0,
           "the heatmap's title names the layer: '%s'", title);
    rf_figure fig = rf_latent_figure_get(&f);
    cairo_surface_t *s = render(&fig, W, H, &RF_ZOOM_ALL, "latent_self2.png");
    box area = cell_area_of(s, W / 4, H / 4, painted);
    box want = matrix_cell(area, T, D, &RF_ZOOM_ALL, 1, 21), got = find_shade(s, area, deep_red);
    tap_ok(near(got, want), "Θ_SELF 2: token 1, dimension 21 = +1 (deep red) at x %.0f..%.0f, y %.0f..%.0f "
           "(expected %.1f..%.1f, %.1f..%.1f)", BOX(got), BOX(want));
    want = matrix_cell(area, T, D, &RF_ZOOM_ALL, 4, 3);
    got = find_shade(s, area, deep_blue);
    tap_ok(near(got, want), "Θ_SELF 2: token 4, dimension 3 = -1 (deep blue) at x %.0f..%.0f, y %.0f..%.0f "
           "(expected %.1f..%.1f, %.1f..%.1f)", BOX(got), BOX(want));
    cairo_surface_destroy(s);
    char text[256], expect[256];
    double x, y;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "segment 3 forward, Θ_SELF 2, token 3, dimension 10:", &x, &y, text,
                            sizeof text);
    snprintf(expect, sizeof expect, "segment 3 forward, Θ_SELF 2, token 3, dimension 10: %.4g", tokens[2][2 * D + 9]);
    tap_ok(found && strcmp(text, expect) == 0, "hover on the Θ_SELF block reads S_3[2][9]: '%s'", found ? text : "");
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 2: ", &x, &y, text, sizeof text);
    tap_ok(found && strstr(text, "‖L‖ forward") != NULL, "the norms strip stays the latent's: '%s'",
           found ? text : "");

    /* Θ_X: a new layer forgets the blocks until they arrive */
    rf_latent_figure_set_layer(&f, (rf_latent_layer){RF_LATENT_LAYER_CROSS, 0}, T);
    rf_latent_figure_block_title(&f, title, sizeof title);
    bool empty = title[0] == '\0';
    rf_latent_figure_set_tokens(&f, RF_LATENT_FORWARD, 3, tokens[0]);
    rf_latent_figure_block_title(&f, title, sizeof title);
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 3 forward, Θ_X, token 5, dimension 31:", &x, &y, text,
                       sizeof text);
    snprintf(expect, sizeof expect, "segment 3 forward, Θ_X, token 5, dimension 31: %.4g", tokens[0][4 * D + 30]);
    tap_ok(empty && found && strcmp(text, expect) == 0 &&
               strcmp(title, "segment 3 · forward · Θ_X: segment after reading the latent, 5 × 32") == 0,
           "Θ_X shows its own block, absent until it arrives: '%s', '%s'", title, found ? text : "");

    rf_latent_figure_set_layer(&f, (rf_latent_layer){RF_LATENT_LAYER_LATENT, 0}, 0);
    rf_latent_figure_block_title(&f, title, sizeof title);
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 3 forward, latent row 8, dimension 2:", &x, &y, text,
                       sizeof text);
    snprintf(expect, sizeof expect, "segment 3 forward, latent row 8, dimension 2: %.4g", latent[7 * D + 1]);
    tap_ok(found && strcmp(text, expect) == 0 &&
               strcmp(title, "segment 3 · forward · Θ_L (latent): latent block, 8 × 32") == 0,
           "Θ_L shows the latent block again: '%s', '%s'", title, found ? text : "");

    /* the heatmap's title says how far apart the latent rows are */
    rf_latent_figure g;
    rf_latent_figure_init(&g);
    rf_latent_figure_resize(&g, 1, 4, 2);
    static const float same[8] = {1, 0, 1, 0, 1, 0, 1, 0}, opposite[8] = {1, 0, -1, 0, 1, 0, -1, 0};
    static const float halves[8] = {1, 0, 1, 0, 0, 1, 0, 1};
    double spread[3];
    const float *blocks[3] = {same, opposite, halves};
    for (int k = 0; k < 3; k++) {
        rf_latent_figure_set_state(&g, RF_LATENT_FORWARD, 1, blocks[k]);
        rf_latent_figure_select(&g, 1, RF_LATENT_FORWARD);
        spread[k] = rf_latent_figure_row_spread(&g);
    }
    rf_latent_figure_heat_title(&g, title, sizeof title);
    tap_ok(spread[0] == 0 && spread[1] == 1 && fabs(spread[2] - 0.5) < 1e-12 &&
               strcmp(title, "segment 1 · forward · Θ_L (latent): latent block, 4 × 2 · rows differ: 50%") == 0,
           "the row spread: 0 for equal rows, 1 for rows that cancel, 0.5 for two halves (%g, %g, %g); title '%s'",
           spread[0], spread[1], spread[2], title);
    rf_latent_figure_set_state(&g, RF_LATENT_FORWARD, 1, same);
    rf_latent_figure_heat_title(&g, title, sizeof title);
    tap_ok(strstr(title, "rows differ: < 0.01%") != NULL, "a collapsed latent reads '< 0.01%%': '%s'", title);
    rf_latent_figure_free(&g);
    rf_latent_figure_free(&f);
}

/* A sample shorter than the batch: its 13 tokens fill segments of 5 as
 * 5, 5, 3, 0. The Θ_SELF block of segment 3 is its 3 tokens (title, rows,
 * the row spread over them), the colour range ignores the padding rows
 * (a 5 there), and segment 4 shows no block. */
static void test_latent_padding(void)
{
    enum { SEGMENTS = 4, L = 2, D = 4, T = 5 };
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    rf_latent_figure_resize(&f, SEGMENTS, L, D);
    float latent[L * D] = {0}, tokens[SEGMENTS][T * D];
    for (int s = 0; s < SEGMENTS; s++)
        for (int i = 0; i < T * D; i++)
            tokens[s][i] = (i / D) % 2 ? 0.5f : -0.5f;   /* rows alternate */
    tokens[2][3 * D] = 5;                                /* segment 3's first padding row */
    tokens[3][0] = 5;                                    /* segment 4: all padding */
    rf_latent_figure_set_state(&f, RF_LATENT_FORWARD, 1, latent);
    rf_latent_figure_set_layer(&f, (rf_latent_layer){RF_LATENT_LAYER_SELF, 1}, T);
    rf_latent_figure_set_tokens(&f, RF_LATENT_FORWARD, 3, tokens[2]);
    rf_latent_figure_set_sample_tokens(&f, 13);
    rf_latent_figure_select(&f, 3, RF_LATENT_FORWARD);
    char title[160];
    rf_latent_figure_heat_title(&f, title, sizeof title);
    tap_ok(strcmp(title, "segment 3 · forward · Θ_SELF 1: token states, 3 × 4 · rows differ: 89%") == 0 &&
               f.heat.rows == 3 && f.heat.vmax == 0.5,
           "segment 3 of a 13-token sample shows its 3 tokens, coloured to ±%g: '%s'", f.heat.vmax, title);
    rf_latent_figure_set_tokens(&f, RF_LATENT_FORWARD, 4, tokens[3]);
    rf_latent_figure_select(&f, 4, RF_LATENT_FORWARD);
    rf_figure fig = rf_latent_figure_get(&f);
    char text[256];
    double x, y;
    bool hovered = find_hover(&fig, &RF_ZOOM_ALL, "segment 4 forward, Θ_SELF 1, token", &x, &y, text, sizeof text);
    tap_ok(isnan(rf_latent_figure_row_spread(&f)) && !hovered, "segment 4, all padding, shows no block");
    rf_latent_figure_set_sample_tokens(&f, 0);
    rf_latent_figure_set_tokens(&f, RF_LATENT_FORWARD, 3, tokens[2]);
    rf_latent_figure_select(&f, 3, RF_LATENT_FORWARD);
    tap_ok(f.heat.rows == T && f.heat.vmax == 5, "with the length unknown every row shows (%d, to ±%g)", f.heat.rows,
           f.heat.vmax);
    rf_latent_figure_free(&f);
}

/* The strip at many segments: 1,000 segments pooled into 64 cells (as the
 * view asks for them, core/probe.h), max: the title says so and how many
 * segments a cell holds, hover names a cell's segments and reads its
 * values, and a zoom across shows part of them (the view then asks for
 * those segments); at one cell a segment the title says nothing of
 * pooling and hover names single segments. */
static void test_latent_pooled_strip(void)
{
    enum { SEGMENTS = 1000, CELLS = 64, L = 4, D = 8 };
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    rf_latent_figure_resize(&f, SEGMENTS, L, D);
    float block[L * D], cells[CELLS];
    for (int i = 0; i < L * D; i++)
        block[i] = 0.1f * (float)(i % 7);
    for (int i = 0; i < CELLS; i++)
        cells[i] = 1.0f + (float)i;
    rf_latent_figure_set_state(&f, RF_LATENT_FORWARD, 500, block);
    rf_latent_figure_select(&f, 500, RF_LATENT_FORWARD);
    rf_matrix_positions at = {0, SEGMENTS, CELLS};
    rf_latent_figure_set_norms(&f, RF_LATENT_NORM_FORWARD, cells, at, false);
    char title[200];
    rf_latent_figure_strip_title(&f, title, sizeof title);
    tap_ok(strstr(title, "max over up to 16 segments a cell") != NULL, "the pooled strip's title: '%s'", title);
    rf_figure fig = rf_latent_figure_get(&f);
    char text[256], expect[256];
    double x, y;
    /* cell 10 covers segments 157-171 (from 1): rf_pool_edge(0, 1000, 64, 10) = 156 */
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "segments 157-", &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "segments 157-171 (max): ‖L‖ forward %.4g, backward –", cells[10]);
    tap_ok(found && strncmp(text, expect, strlen(expect)) == 0, "hover on a pooled cell names its segments: '%s'",
           found ? text : "");
    /* zoomed to the last quarter across: no cell of the first half answers */
    rf_zoom quarter = {0.75, 1.0, 0.0, 1.0};
    found = find_hover(&fig, &quarter, "segments 157-", &x, &y, text, sizeof text);
    bool late = find_hover(&fig, &quarter, "segments 985-", &x, &y, text, sizeof text);
    tap_ok(!found && late, "zoomed across, the strip shows the last segments only: '%s'", late ? text : "");
    /* a zoom's 40 segments, a point each */
    float exact[40];
    for (int i = 0; i < 40; i++)
        exact[i] = 0.5f + (float)i;
    rf_latent_figure_set_norms(&f, RF_LATENT_NORM_FORWARD, exact, (rf_matrix_positions){480, 520, 40}, true);
    rf_latent_figure_strip_title(&f, title, sizeof title);
    found = find_hover(&fig, &RF_ZOOM_ALL, "segment 500:", &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "segment 500: ‖L‖ forward %.4g,", exact[19]);
    tap_ok(strstr(title, "segments a cell") == NULL && found && strncmp(text, expect, strlen(expect)) == 0,
           "segments 481-520 a point each: '%s', '%s'", title, found ? text : "");
    rf_latent_figure_free(&f);
}

int main(void)
{
    test_latent();
    test_latent_geometry();
    test_latent_layers();
    test_latent_padding();
    test_latent_pooled_strip();
    return tap_done();
}
