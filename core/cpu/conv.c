/* Convolution kernels: im2col + one GEMM per batch item.
 *
 * For batch item b the im2col matrix col [Cin*KH*KW, OH*OW] holds, in row
 * (c, kh, kw) and column (oh, ow), the input x[b, c, oh*sh + kh - ph,
 * ow*sw + kw - pw] (zero outside the image). Then
 *     out[b] [Cout, OH*OW] = w [Cout, Cin*KH*KW] @ col (+ bias),
 *     dw += dout[b] @ col^T,   dcol = w^T @ dout[b],   dx[b] += col2im(dcol).
 * conv1d runs as conv2d with H = KH = 1, stride_h = 1, pad_h = 0.
 */
#include "../blas.h"
#include <string.h>

#include "../gemm.h"
#include "../op.h"
#include "../ops/conv.h"

#define TASK_FLOATS 16384   /* about this many floats per pool task */

typedef struct {
    int64_t B, Cin, H, W;       /* x [B, Cin, H, W] */
    int64_t Cout, KH, KW;       /* w [Cout, Cin, KH, KW] */
    int64_t OH, OW;             /* out [B, Cout, OH, OW] */
    int64_t sh, sw, ph, pw;
} conv_geom;

static conv_geom conv_geometry(rf_graph *gr, const rf_node *n)
{
    rf_shape sx = rf_graph_node(gr, n->in[0])->shape, sw = rf_graph_node(gr, n->in[1])->shape;
    conv_geom c = {.B = sx.dim[0], .Cin = sx.dim[1], .Cout = sw.dim[0]};
    if (n->op == RF_OP_CONV1D) {
        c.H = c.KH = c.OH = c.sh = 1;
        c.W = sx.dim[2];
        c.KW = sw.dim[2];
        c.OW = n->shape.dim[2];
        c.sw = n->ia[0];
        c.pw = n->ia[1];
    } else {
        c.H = sx.dim[2];
        c.W = sx.dim[3];
        c.KH = sw.dim[2];
        c.KW = sw.dim[3];
        c.OH = n->shape.dim[2];
        c.OW = n->shape.dim[3];
        c.sh = n->ia[0];
        c.sw = n->ia[1];
        c.ph = n->ia[2];
        c.pw = n->ia[3];
    }
    return c;
}

/* A 1x1 kernel with stride 1 and no padding: x[b] is its own im2col. */
static bool pointwise(const conv_geom *c)
{
    return c->KH == 1 && c->KW == 1 && c->sh == 1 && c->sw == 1 && c->ph == 0 && c->pw == 0;
}

static int64_t col_rows(const conv_geom *c) { return c->Cin * c->KH * c->KW; }
static int64_t col_cols(const conv_geom *c) { return c->OH * c->OW; }

static int64_t grain_for(int64_t floats_per_item)
{
    return floats_per_item >= TASK_FLOATS ? 1 : TASK_FLOATS / (floats_per_item > 0 ? floats_per_item : 1);
}

typedef struct {
    const conv_geom *g;
    const float *x;     /* x[b] [Cin, H, W] */
    float *col;         /* [Cin*KH*KW, OH*OW] */
} im2col_ctx;

static void im2col_rows(void *p, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const im2col_ctx *c = p;
    const conv_geom *g = c->g;
    for (int64_t r = begin; r < end; r++) {
        int64_t ch = r / (g->KH * g->KW), kh = r / g->KW % g->KH, kw = r % g->KW;
        const float *src = c->x + ch * g->H * g->W;
        float *dst = c->col + r * col_cols(g);
        for (int64_t oh = 0; oh < g->OH; oh++, dst += g->OW) {
            int64_t ih = oh * g->sh + kh - g->ph;
            if (ih < 0 || ih >= g->H) {
                memset(dst, 0, (size_t)g->OW * sizeof(float));
                continue;
            }
            for (int64_t ow = 0; ow < g->OW; ow++) {
                int64_t iw = ow * g->sw + kw - g->pw;
                dst[ow] = iw >= 0 && iw < g->W ? src[ih * g->W + iw] : 0.0f;
            }
        }
    }
}

static void im2col(rf_exec *x, const conv_geom *g, const float *xb, float *col)
{
    im2col_ctx c = {g, xb, col};
    rf_pool_run(x->pool, col_rows(g), grain_for(col_cols(g)), im2col_rows, &c);
}

typedef struct {
    const conv_geom *g;
    const float *dcol;  /* [Cin*KH*KW, OH*OW] */
    float *dx;          /* dx[b] [Cin, H, W] */
} col2im_ctx;

/* One task per run of channels: each input pixel is written by its own
 * channel's task only, in a fixed (kh, kw, oh, ow) order. */
static void col2im_channels(void *p, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const col2im_ctx *c = p;
    const conv_geom *g = c->g;
    for (int64_t ch = begin; ch < end; ch++) {
        float *dst = c->dx + ch * g->H * g->W;
        for (int64_t kh = 0; kh < g->KH; kh++)
            for (int64_t kw = 0; kw < g->KW; kw++) {
                const float *src = c->dcol + ((ch * g->KH + kh) * g->KW + kw) * col_cols(g);
                for (int64_t oh = 0; oh < g->OH; oh++, src += g->OW) {
                    int64_t ih = oh * g->sh + kh - g->ph;
                    if (ih < 0 || ih >= g->H)
                        continue;
                    for (int64_t ow = 0; ow < g->OW; ow++) {
                        int64_t iw = ow * g->sw + kw - g->pw;
                        if (iw >= 0 && iw < g->W)
                            dst[ih * g->W + iw] += src[ow];
                    }
                }
            }
    }
}

static void col2im(rf_exec *x, const conv_geom *g, const float *dcol, float *dxb)
{
    col2im_ctx c = {g, dcol, dxb};
    rf_pool_run(x->pool, g->Cin, grain_for(g->KH * g->KW * col_cols(g)), col2im_channels, &c);
}

typedef struct {
    const float *bias;  /* [Cout] */
    float *out;         /* [B*Cout, P] */
    int64_t Cout, P;
} bias_ctx;

static void fill_bias_rows(void *p, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const bias_ctx *c = p;
    for (int64_t r = begin; r < end; r++) {
        float v = c->bias[r % c->Cout], *dst = c->out + r * c->P;
        for (int64_t t = 0; t < c->P; t++)
            dst[t] = v;
    }
}

/* The im2col matrix of batch item b, on the calling thread alone: x[b]
 * itself for a pointwise kernel, else written into col. */
static const float *item_col(const conv_geom *g, const float *xb, float *col)
{
    if (pointwise(g))
        return xb;
    im2col_ctx c = {g, xb, col};
    im2col_rows(&c, 0, col_rows(g), 0);
    return col;
}

/* Every batch item's products run as one single-threaded call each, the
 * items spread over the pool (one product per item of [Cout, P] is too
 * small to cut across threads: per item, the cut, im2col and col2im each
 * cost a pool round trip). A batch of one keeps the product cut across
 * the pool. Chosen by the shape only, so results do not depend on the
 * thread count. */
static bool per_item(const conv_geom *g) { return g->B >= 2; }

/* Runs of batch items whose dw partial sums (rf_conv_dw_chunks; the
 * first part of the scratch that core/ops/conv.c sizes) are added in
 * order: a fixed summation order whatever the thread count. */
static int64_t dw_chunks(const conv_geom *g) { return rf_conv_dw_chunks(g->B); }

typedef struct {
    const conv_geom *g;
    rf_gemm_lib lib, lib_dw, lib_dx;   /* forward's, backward's two products' */
    const float *x, *w, *dout;
    float *out, *dx, *dw_part, *scratch;   /* scratch: per thread, col then dcol */
    float beta;
} item_ctx;

static float *thread_col(const item_ctx *c, int thread, int which)
{
    return c->scratch + ((int64_t)thread * 2 + which) * col_rows(c->g) * col_cols(c->g);
}

static void forward_items(void *p, int64_t begin, int64_t end, int thread)
{
    const item_ctx *c = p;
    const conv_geom *g = c->g;
    int64_t K = col_rows(g), P = col_cols(g);
    for (int64_t b = begin; b < end; b++) {
        const float *col = item_col(g, c->x + b * g->Cin * g->H * g->W, thread_col(c, thread, 0));
        rf_gemm1(c->lib, false, false, (int)g->Cout, (int)P, (int)K, 1.0f, c->w, (int)K, col, (int)P, c->beta,
                 c->out + b * g->Cout * P, (int)P);
    }
}

/* x [B, Cin, H, W], w [Cout, Cin, KH, KW], bias [Cout] -> out [B, Cout, OH, OW]
 * (conv1d: x [B, Cin, L], w [Cout, Cin, K] -> out [B, Cout, L']) */
static void conv_forward(rf_exec *x, rf_node *n)
{
    conv_geom g = conv_geometry(x->g, n);
    const float *xv = rf_in(x, n, 0)->value, *w = rf_in(x, n, 1)->value;
    int64_t K = col_rows(&g), P = col_cols(&g);
    float beta = 0.0f;
    if (n->n_in == 3) {
        bias_ctx bc = {rf_in(x, n, 2)->value, n->value, g.Cout, P};
        rf_pool_run(x->pool, g.B * g.Cout, grain_for(P), fill_bias_rows, &bc);
        beta = 1.0f;
    }
    if (per_item(&g)) {
        rf_gemm_shape s = {false, false, (int)g.Cout, (int)P, (int)K, (int)g.B};
        item_ctx c = {.g = &g, .lib = rf_gemm_choice(&s), .x = xv, .w = w, .out = n->value,
                      .scratch = x->scratch + dw_chunks(&g) * g.Cout * K, .beta = beta};
        rf_pool_run(x->pool, g.B, 1, forward_items, &c);
        return;
    }
    for (int64_t b = 0; b < g.B; b++) {
        const float *xb = xv + b * g.Cin * g.H * g.W;
        const float *col = xb;
        if (!pointwise(&g)) {
            im2col(x, &g, xb, x->scratch);
            col = x->scratch;
        }
        rf_sgemm(x->pool, CblasNoTrans, CblasNoTrans, (int)g.Cout, (int)P, (int)K, 1.0f, w,
                    (int)K, col, (int)P, beta, n->value + b * g.Cout * P, (int)P);
    }
}

typedef struct {
    const float *dout;  /* [B, Cout, P] */
    float *dbias;       /* [Cout] */
    int64_t B, Cout, P;
} dbias_ctx;

/* Each output channel sums its own (b, t) entries in a fixed order. */
static void sum_bias_grad(void *p, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const dbias_ctx *c = p;
    for (int64_t co = begin; co < end; co++) {
        double s = 0.0;   /* B*P terms: accumulate in double */
        for (int64_t b = 0; b < c->B; b++) {
            const float *src = c->dout + (b * c->Cout + co) * c->P;
            for (int64_t t = 0; t < c->P; t++)
                s += src[t];
        }
        c->dbias[co] += (float)s;
    }
}

/* Items: runs of batch items (dw_chunks of them). Per item, its share of
 * dw into the run's partial sum, and dx[b] (items own their rows of dx). */
static void backward_items(void *p, int64_t begin, int64_t end, int thread)
{
    const item_ctx *c = p;
    const conv_geom *g = c->g;
    int64_t K = col_rows(g), P = col_cols(g), chunks = dw_chunks(g);
    for (int64_t r = begin; r < end; r++)
        for (int64_t b = r * g->B / chunks; b < (r + 1) * g->B / chunks; b++) {
            const float *xb = c->x + b * g->Cin * g->H * g->W, *dout = c->dout + b * g->Cout * P;
            if (c->dw_part != NULL) {
                /* partial [Cout, K] (+)= dout[b] [Cout, P] @ col^T [P, K] */
                const float *col = item_col(g, xb, thread_col(c, thread, 0));
                rf_gemm1(c->lib_dw, false, true, (int)g->Cout, (int)K, (int)P, 1.0f, dout, (int)P, col, (int)P,
                         b == r * g->B / chunks ? 0.0f : 1.0f, c->dw_part + r * g->Cout * K, (int)K);
            }
            if (c->dx != NULL) {
                /* dcol [K, P] = w^T [K, Cout] @ dout[b] [Cout, P], then col2im */
                float *dxb = c->dx + b * g->Cin * g->H * g->W;
                bool direct = pointwise(g);
                float *dcol = direct ? dxb : thread_col(c, thread, 1);
                rf_gemm1(c->lib_dx, true, false, (int)K, (int)P, (int)g->Cout, 1.0f, c->w, (int)K, dout, (int)P,
                         direct ? 1.0f : 0.0f, dcol, (int)P);
                if (!direct) {
                    col2im_ctx cc = {g, dcol, dxb};
                    col2im_channels(&cc, 0, g->Cin, 0);
                }
            }
        }
}

typedef struct {
    const float *part;  /* [chunks, n] */
    float *dw;          /* [n] */
    int64_t chunks, n;
} dw_sum_ctx;

static void sum_dw_parts(void *p, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const dw_sum_ctx *c = p;
    for (int64_t i = begin; i < end; i++) {
        float s = c->dw[i];
        for (int64_t r = 0; r < c->chunks; r++)
            s += c->part[r * c->n + i];
        c->dw[i] = s;
    }
}

static void backward_per_item(rf_exec *x, rf_node *n, const conv_geom *g)
{
    rf_node *in = rf_in(x, n, 0), *wn = rf_in(x, n, 1);
    int64_t K = col_rows(g), P = col_cols(g), chunks = dw_chunks(g);
    /* the libraries for the shapes rf_cpu_conv_products declares */
    rf_gemm_shape sw = {false, true, (int)g->Cout, (int)K, (int)P, (int)g->B};
    rf_gemm_shape sx = {true, false, (int)K, (int)P, (int)g->Cout, (int)g->B};
    item_ctx c = {.g = g,
                  .lib_dw = wn->grad != NULL ? rf_gemm_choice(&sw) : RF_GEMM_OPENBLAS,
                  .lib_dx = in->grad != NULL ? rf_gemm_choice(&sx) : RF_GEMM_OPENBLAS,
                  .x = in->value, .w = wn->value, .dout = n->grad,
                  .dx = in->grad, .dw_part = wn->grad != NULL ? x->scratch : NULL,
                  .scratch = x->scratch + chunks * g->Cout * K};
    rf_pool_run(x->pool, chunks, 1, backward_items, &c);
    if (wn->grad != NULL) {
        dw_sum_ctx d = {x->scratch, wn->grad, chunks, g->Cout * K};
        rf_pool_run(x->pool, g->Cout * K, TASK_FLOATS / chunks + 1, sum_dw_parts, &d);
    }
}

static void conv_backward(rf_exec *x, rf_node *n)
{
    conv_geom g = conv_geometry(x->g, n);
    rf_node *in = rf_in(x, n, 0), *wn = rf_in(x, n, 1);
    int64_t K = col_rows(&g), P = col_cols(&g);
    if (n->n_in == 3 && rf_in(x, n, 2)->grad != NULL) {
        dbias_ctx bc = {n->grad, rf_in(x, n, 2)->grad, g.B, g.Cout, P};
        rf_pool_run(x->pool, g.Cout, grain_for(g.B * P), sum_bias_grad, &bc);
    }
    if (per_item(&g)) {
        if (wn->grad != NULL || in->grad != NULL)
            backward_per_item(x, n, &g);
        return;
    }
    for (int64_t b = 0; b < g.B; b++) {
        const float *xb = in->value + b * g.Cin * g.H * g.W;
        const float *dout = n->grad + b * g.Cout * P;
        if (wn->grad != NULL) {
            /* dw [Cout, K] += dout[b] [Cout, P] @ col^T [P, K] */
            const float *col = xb;
            if (!pointwise(&g)) {
                im2col(x, &g, xb, x->scratch);
                col = x->scratch;
            }
            rf_sgemm(x->pool, CblasNoTrans, CblasTrans, (int)g.Cout, (int)K, (int)P, 1.0f, dout,
                        (int)P, col, (int)P, 1.0f, wn->grad, (int)K);
        }
        if (in->grad != NULL) {
            /* dcol [K, P] = w^T [K, Cout] @ dout[b] [Cout, P]; a pointwise
             * conv adds it straight into dx[b] */
            float *dxb = in->grad + b * g.Cin * g.H * g.W;
            bool direct = pointwise(&g);
            rf_sgemm(x->pool, CblasTrans, CblasNoTrans, (int)K, (int)P, (int)g.Cout, 1.0f, wn->value,
                        (int)K, dout, (int)P, direct ? 1.0f : 0.0f, direct ? dxb : x->scratch, (int)P);
            if (!direct)
                col2im(x, &g, x->scratch, dxb);
        }
    }
}

void rf_cpu_conv1d_forward(rf_exec *x, rf_node *n) { conv_forward(x, n); }
void rf_cpu_conv1d_backward(rf_exec *x, rf_node *n) { conv_backward(x, n); }
void rf_cpu_conv2d_forward(rf_exec *x, rf_node *n) { conv_forward(x, n); }
void rf_cpu_conv2d_backward(rf_exec *x, rf_node *n) { conv_backward(x, n); }

/* The products above, as they run them (core/gemm.h). */
void rf_cpu_conv_products(rf_graph *gr, const rf_node *n, bool backward, rf_gemm_list *out)
{
    if (n->op != RF_OP_CONV1D && n->op != RF_OP_CONV2D)
        return;
    conv_geom g = conv_geometry(gr, n);
    int64_t K = col_rows(&g), P = col_cols(&g), batch = per_item(&g) ? g.B : 1;
    if (!backward)
        rf_gemm_list_add(out, false, false, g.Cout, P, K, batch);
    if (backward && rf_graph_node(gr, n->in[1])->grad != NULL)
        rf_gemm_list_add(out, false, true, g.Cout, K, P, batch);
    if (backward && rf_graph_node(gr, n->in[0])->grad != NULL)
        rf_gemm_list_add(out, true, false, K, P, g.Cout, batch);
}
