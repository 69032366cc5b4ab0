/* The Attribution figure's probe maps in compare mode (attribution_maps.h). */
#include "attribution_maps.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#define NAME_H 18.0      /* the tap's name above its heatmaps */
#define SLICE_GAP 6.0

static const rf_rgb ink = {0.12, 0.12, 0.14};

void rf_attribution_maps_clear(rf_attribution_maps *m)
{
    for (int i = 0; m->heat != NULL && i < 3 * m->slices; i++)
        rf_heatmap_clear(&m->heat[i]);
    g_free(m->heat);
    for (int p = 0; p < 3; p++)
        g_free(m->values[p]);
    g_free(m->name);
    memset(m, 0, sizeof *m);
}

void rf_attribution_maps_set(rf_attribution_maps *m, const char *name, const rf_shape *shape, const float *a,
                             const float *b, int seq_len, int len)
{
    rf_attribution_maps_clear(m);
    m->name = g_strdup(name);
    m->shape = *shape;
    m->n = 1;
    for (int d = 0; d < shape->ndim; d++)
        m->n *= (size_t)shape->dim[d];
    /* the last two dimensions are a heatmap's rows and columns; what comes
     * before counts the heatmaps; a vector is one row */
    m->cols = shape->ndim >= 1 ? (int)shape->dim[shape->ndim - 1] : 1;
    m->rows = shape->ndim >= 2 ? (int)shape->dim[shape->ndim - 2] : 1;
    m->slices = (int)(m->n / ((size_t)m->rows * (size_t)m->cols));
    bool cut = len > 0 && len < seq_len;
    m->shown_rows = cut && m->rows == seq_len ? len : m->rows;
    m->shown_cols = cut && m->cols == seq_len ? len : m->cols;
    m->values[0] = g_memdup2(a, sizeof(float) * m->n);
    m->values[1] = g_memdup2(b, sizeof(float) * m->n);
    m->values[2] = g_new(float, m->n);
    double top = 0;
    for (size_t i = 0; i < m->n; i++) {
        m->values[2][i] = a[i] - b[i];
        top = fmax(top, fmax(fabsf(a[i]), fabsf(b[i])));
    }
    m->range = top;
    double r = fmax(top, 1e-12);
    m->heat = g_new0(rf_heatmap, (size_t)3 * m->slices);
    for (int p = 0; p < 3; p++)
        for (int s = 0; s < m->slices; s++) {
            rf_heatmap *h = &m->heat[p * m->slices + s];
            rf_heatmap_set(h, m->values[p] + (size_t)s * m->rows * m->cols, m->rows, m->cols, -r, r);
            h->colormap = RF_COLORMAP_DIVERGING;
        }
}

rf_map_scale rf_attribution_maps_scale(const rf_attribution_maps *m)
{
    double r = fmax(m->range, 1e-12);
    return (rf_map_scale){.vmin = -r, .vmax = r, .kind = RF_COLORMAP_DIVERGING, .quantity = m->name,
                          .units = "A, B, A − B"};
}

/* Slice s's rectangle in r: the slices side by side under the name, as
 * large as fits with square cells. */
static rf_rect slice_rect(const rf_attribution_maps *m, rf_rect r, double text_scale, int s)
{
    double top = r.y + NAME_H * text_scale, gap = SLICE_GAP * text_scale, h = fmax(r.h - NAME_H * text_scale, 1);
    double w = fmax((r.w - gap * (m->slices - 1)) / m->slices, 1);
    double cell = fmin(w / m->shown_cols, h / m->shown_rows);
    return (rf_rect){r.x + s * (cell * m->shown_cols + gap), top, cell * m->shown_cols, cell * m->shown_rows};
}

void rf_attribution_maps_draw(rf_attribution_maps *m, cairo_t *cr, rf_rect r, double text_scale, int panel)
{
    if (m->name == NULL)
        return;
    char line[200];
    if (m->slices > 1)
        g_snprintf(line, sizeof line, "%s: %d maps of %d × %d", m->name, m->slices, m->shown_rows, m->shown_cols);
    else
        g_snprintf(line, sizeof line, "%s: %d × %d", m->name, m->shown_rows, m->shown_cols);
    rf_set_color(cr, ink, 1);
    rf_draw_text(cr, r.x, r.y + NAME_H * text_scale / 2, 0, 0.5, RF_PLOT_TEXT, false, line);
    for (int s = 0; s < m->slices; s++) {
        rf_rect at = slice_rect(m, r, text_scale, s);
        rf_heatmap_draw(&m->heat[panel * m->slices + s], cr, at, 0, m->shown_rows, 0, m->shown_cols);
    }
}

bool rf_attribution_maps_cell_rect(const rf_attribution_maps *m, rf_rect r, double text_scale, int slice, int row,
                                   int col, rf_rect *cell)
{
    if (m->name == NULL || slice < 0 || slice >= m->slices || row < 0 || row >= m->shown_rows || col < 0 ||
        col >= m->shown_cols)
        return false;
    rf_rect at = slice_rect(m, r, text_scale, slice);
    double w = at.w / m->shown_cols, h = at.h / m->shown_rows;
    *cell = (rf_rect){at.x + col * w, at.y + row * h, w, h};
    return true;
}

bool rf_attribution_maps_cell_at(const rf_attribution_maps *m, rf_rect r, double text_scale, double x, double y,
                                 size_t *index)
{
    for (int s = 0; m->name != NULL && s < m->slices; s++) {
        rf_rect at = slice_rect(m, r, text_scale, s);
        int row, col;
        if (rf_heatmap_cell_at(&m->heat[s], at, 0, m->shown_rows, 0, m->shown_cols, x, y, &row, &col)) {
            *index = ((size_t)s * m->rows + row) * m->cols + col;
            return true;
        }
    }
    return false;
}

void rf_attribution_maps_describe(const rf_attribution_maps *m, size_t index, char *text, size_t size)
{
    size_t at[RF_MAX_DIMS] = {0}, rest = index;
    for (int d = m->shape.ndim - 1; d >= 0; d--) {
        at[d] = rest % (size_t)m->shape.dim[d];
        rest /= (size_t)m->shape.dim[d];
    }
    GString *s = g_string_new(m->name);
    for (int d = 0; d < m->shape.ndim; d++)
        g_string_append_printf(s, "%s%zu", d == 0 ? "[" : ", ", at[d]);
    g_string_append(s, m->shape.ndim > 0 ? "]" : "");
    g_strlcpy(text, s->str, size);
    g_string_free(s, TRUE);
}
