/* Reducing a line to the points its stroke needs (M4: per pixel column
 * the first, lowest, highest and last point). The polyline through all of a
 * column's points covers every pixel between its lowest and highest in that
 * column and enters and leaves it at its first and last: so does the one
 * through those four, so both strokes ink the same pixels, however many
 * rows a run has. */
#include <math.h>

#include "plot.h"

static void keep(const double *x, const double *y, size_t i, double *out_x, double *out_y, size_t *m)
{
    out_x[*m] = x[i];
    out_y[*m] = y[i];
    (*m)++;
}

size_t rf_plot_line_points(const rf_plot *p, const double *x, const double *y, size_t n, double *out_x,
                           double *out_y)
{
    size_t lo = 0, hi = n;
    while (lo < n && x[lo] < p->x.min)
        lo++;
    while (hi > lo && x[hi - 1] > p->x.max)
        hi--;
    lo = lo > 0 ? lo - 1 : 0;
    hi = hi < n ? hi + 1 : n;
    size_t m = 0;
    for (size_t i = lo; i < hi;) {
        /* the column's points [i, j); a point that cannot be drawn breaks
         * the line: a column with one keeps every point */
        double column = floor(rf_plot_px(p, x[i]));
        size_t j = i + 1, lowest = i, highest = i;
        bool drawable = rf_plot_drawable(p, x[i], y[i]);
        for (; j < hi && floor(rf_plot_px(p, x[j])) == column; j++) {
            drawable = drawable && rf_plot_drawable(p, x[j], y[j]);
            if (y[j] < y[lowest])
                lowest = j;
            if (y[j] > y[highest])
                highest = j;
        }
        if (j - i <= 4 || !drawable) {
            for (size_t k = i; k < j; k++)
                keep(x, y, k, out_x, out_y, &m);
        } else {
            size_t a = lowest < highest ? lowest : highest, b = lowest < highest ? highest : lowest;
            keep(x, y, i, out_x, out_y, &m);
            if (a != i)
                keep(x, y, a, out_x, out_y, &m);
            if (b != a && b != j - 1)
                keep(x, y, b, out_x, out_y, &m);
            keep(x, y, j - 1, out_x, out_y, &m);
        }
        i = j;
    }
    return m;
}
