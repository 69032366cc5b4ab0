/* Full attention's probabilities pooled on demand (attention_pool.h).
 *
 * The flash kernel keeps no probabilities, only each query row's
 * log-sum-exp; a pooled map recomputes the window's scores block by block,
 * p = e^(s - lse) as the exact probe path does (the same score product and
 * row exponential), and folds each block into its cells: the running max
 * (probabilities are >= 0, so the cells start at 0), or a sum in double
 * divided by the cell's area at the end. A masked key, or every key of a
 * query row with no valid key, has probability 0. */
#include "attention_pool.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../graph_private.h"
#include "../op.h"
#include "exp_row.h"
#include "small_head.h"

/* Blocks of the default tile's size (core/tiles.h): a map is drawn at most
 * once per refresh, not a path worth choosing a tile per CPU for. */
enum { QB = RF_ATTN_DEFAULT_QB, KB = RF_ATTN_DEFAULT_KB };

typedef struct {
    const float *q, *k;        /* batch row b, the head's first column; leading dimension D */
    const float *mask;         /* batch row b's keys, or NULL */
    const float *lse;          /* the head's rows */
    int D, dk;
    float scale;
} head_src;

/* s [rows, cols] (leading dimension KB) = p for queries i0.. and keys j0... */
static void block_probs(const head_src *h, int64_t i0, int rows, int64_t j0, int cols, float *s)
{
    const float *q = h->q + i0 * h->D, *k = h->k + j0 * h->D;
    if (!rf_small_head_nt(rows, cols, h->dk, h->scale, q, h->D, k, h->D, s, KB))
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, cols, h->dk, h->scale, q, h->D, k, h->D, 0.0f, s,
                    KB);
    for (int r = 0; r < rows; r++) {
        float *p = s + (int64_t)r * KB, l = h->lse[i0 + r];
        if (h->mask != NULL)
            for (int c = 0; c < cols; c++)
                if (h->mask[j0 + c] == 0.0f)
                    p[c] = -INFINITY;
        if (l == -INFINITY)
            memset(p, 0, (size_t)cols * sizeof *p);
        else
            rf_attn_exp_row(p, cols, l);
    }
}

/* cell[x] for x in [x0, x0 + len): the cell of n over [lo, hi) holding it */
static void cells_of(int64_t lo, int64_t hi, int64_t n, int64_t x0, int len, int64_t *cell)
{
    int64_t c = (x0 - lo) * n / (hi - lo);   /* at or before x0's cell */
    for (int i = 0; i < len; i++) {
        while (rf_pool_edge(lo, hi, n, c + 1) <= x0 + i)
            c++;
        cell[i] = c;
    }
}

void rf_cpu_attention_pool(const rf_graph *g, const rf_node *n, int64_t b0, int64_t planes, const rf_probe_window *w,
                           float *out)
{
    const rf_node *qn = &g->nodes[n->in[0]], *kn = &g->nodes[n->in[1]];
    const float *mask = n->n_in == 4 ? g->nodes[n->in[3]].value : NULL;
    int64_t N = n->shape.dim[1], M = kn->shape.dim[1], D = n->shape.dim[2], H = n->ia[0];
    int64_t rows, cols;
    rf_probe_window_cells(w, &rows, &cols);
    bool mean = w->reduce == RF_POOL_MEAN;
    float *s = malloc((size_t)QB * KB * sizeof *s);
    int64_t *row_cell = malloc((size_t)(QB + KB) * sizeof *row_cell), *col_cell = row_cell + QB;
    double *sum = mean ? malloc((size_t)(rows * cols) * sizeof *sum) : NULL;
    if (s == NULL || row_cell == NULL || (mean && sum == NULL)) {
        for (int64_t i = 0; i < planes * rows * cols; i++)
            out[i] = NAN;   /* no room: the map says so rather than lie */
        goto done;
    }
    for (int64_t p = 0; p < planes; p++) {
        int64_t b = b0 + p / H, h = p % H;
        head_src src = {qn->value + b * N * D + h * (D / H), kn->value + b * M * D + h * (D / H),
                        mask != NULL ? mask + b * M : NULL, n->aux + (b * H + h) * N, (int)D, (int)(D / H),
                        n->fa[0]};
        float *o = out + p * rows * cols;
        memset(o, 0, (size_t)(rows * cols) * sizeof *o);
        if (mean)
            memset(sum, 0, (size_t)(rows * cols) * sizeof *sum);
        for (int64_t i0 = w->r0; i0 < w->r1; i0 += QB) {
            int nr = (int)(w->r1 - i0 < QB ? w->r1 - i0 : QB);
            cells_of(w->r0, w->r1, rows, i0, nr, row_cell);
            for (int64_t j0 = w->c0; j0 < w->c1; j0 += KB) {
                int nc = (int)(w->c1 - j0 < KB ? w->c1 - j0 : KB);
                cells_of(w->c0, w->c1, cols, j0, nc, col_cell);
                block_probs(&src, i0, nr, j0, nc, s);
                for (int r = 0; r < nr; r++) {
                    const float *pr = s + (int64_t)r * KB;
                    int64_t at = row_cell[r] * cols;
                    if (mean)
                        for (int c = 0; c < nc; c++)
                            sum[at + col_cell[c]] += pr[c];
                    else
                        for (int c = 0; c < nc; c++)
                            o[at + col_cell[c]] = fmaxf(o[at + col_cell[c]], pr[c]);
                }
            }
        }
        if (!mean)
            continue;
        for (int64_t i = 0; i < rows; i++) {
            int64_t area_r = rf_pool_edge(w->r0, w->r1, rows, i + 1) - rf_pool_edge(w->r0, w->r1, rows, i);
            for (int64_t j = 0; j < cols; j++) {
                int64_t area_c = rf_pool_edge(w->c0, w->c1, cols, j + 1) - rf_pool_edge(w->c0, w->c1, cols, j);
                o[i * cols + j] = (float)(sum[i * cols + j] / (double)(area_r * area_c));
            }
        }
    }
done:
    free(s);
    free(row_cell);
    free(sum);
}
