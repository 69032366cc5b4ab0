/* conv1d and conv2d (core/cpu/conv.c): im2col and one cuBLAS product per
 * batch item, as the CPU's, with the same one-item im2col buffer (`work`:
 * the CPU op's scratch).
 *
 * For batch item b the im2col matrix col [Cin*KH*KW, OH*OW] holds, in row
 * (c, kh, kw) and column (oh, ow), x[b, c, oh*sh + kh - ph, ow*sw + kw - pw]
 * (zero outside the image). Then
 *     out[b] [Cout, OH*OW] = w [Cout, Cin*KH*KW] @ col (+ bias),
 *     dw += dout[b] @ col^T,   dcol = w^T @ dout[b],   dx[b] += col2im(dcol).
 * A 1x1 kernel with stride 1 and no padding is its own im2col: then each
 * product covers every batch item in one batched call. conv1d runs as
 * conv2d with H = KH = 1, stride_h = 1, pad_h = 0. */
#include "common.cuh"
#include "cublas_compat.h"
#include "kernels.h"

namespace {

constexpr unsigned THREADS = 256;

struct geom {
    int64_t B, Cin, H, W;   /* x [B, Cin, H, W] */
    int64_t Cout, KH, KW;   /* w [Cout, Cin, KH, KW] */
    int64_t OH, OW;         /* out [B, Cout, OH, OW] */
    int64_t sh, sw, ph, pw;
    int64_t K, P;           /* col [K, P]: K = Cin*KH*KW, P = OH*OW */
};

geom geometry(rf_cuda_shape xs, rf_cuda_shape ws, int sh, int sw, int ph, int pw)
{
    bool two = xs.ndim == 4;
    geom g;
    g.B = xs.dim[0];
    g.Cin = xs.dim[1];
    g.H = two ? xs.dim[2] : 1;
    g.W = xs.dim[xs.ndim - 1];
    g.Cout = ws.dim[0];
    g.KH = two ? ws.dim[2] : 1;
    g.KW = ws.dim[ws.ndim - 1];
    g.sh = sh;
    g.sw = sw;
    g.ph = ph;
    g.pw = pw;
    g.OH = (g.H + 2 * ph - g.KH) / sh + 1;
    g.OW = (g.W + 2 * pw - g.KW) / sw + 1;
    g.K = g.Cin * g.KH * g.KW;
    g.P = g.OH * g.OW;
    return g;
}

bool pointwise(const geom &g) { return g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0; }

/* col [K, P] of one batch item xb [Cin, H, W], one thread per col element */
__global__ void im2col_kernel(const float *xb, float *col, geom g)
{
    RF_FOR_EACH(e, g.K * g.P) {
        int64_t r = e / g.P, t = e - r * g.P;
        int64_t ch = r / (g.KH * g.KW), kh = r / g.KW % g.KH, kw = r % g.KW;
        int64_t ih = t / g.OW * g.sh + kh - g.ph, iw = t % g.OW * g.sw + kw - g.pw;
        col[e] = ih >= 0 && ih < g.H && iw >= 0 && iw < g.W ? xb[(ch * g.H + ih) * g.W + iw] : 0.0f;
    }
}

/* dxb [Cin, H, W] += col2im(dcol): one thread per input pixel gathers the
 * col entries that read it, (kh, kw) in order, so no two threads add into
 * one place. Output row oh reads input row ih = oh*sh + kh - ph. */
__global__ void col2im_kernel(const float *dcol, float *dxb, geom g)
{
    RF_FOR_EACH(e, g.Cin * g.H * g.W) {
        int64_t ch = e / (g.H * g.W), ih = e / g.W % g.H, iw = e % g.W;
        float s = 0.0f;
        for (int64_t kh = 0; kh < g.KH; kh++) {
            int64_t oh = ih + g.ph - kh;
            if (oh < 0 || oh % g.sh != 0 || oh / g.sh >= g.OH)
                continue;
            for (int64_t kw = 0; kw < g.KW; kw++) {
                int64_t ow = iw + g.pw - kw;
                if (ow < 0 || ow % g.sw != 0 || ow / g.sw >= g.OW)
                    continue;
                s += dcol[((ch * g.KH + kh) * g.KW + kw) * g.P + oh / g.sh * g.OW + ow / g.sw];
            }
        }
        dxb[e] += s;
    }
}

void im2col(const geom &g, const float *xb, float *col, cudaStream_t s)
{
    RF_LAUNCH(im2col_kernel, rf_blocks(g.K * g.P, THREADS), THREADS, 0, s, xb, col, g);
}

int forward(const geom &g, const float *x, const float *w, const float *bias, float *out, float *work,
            cublasHandle_t blas, cudaStream_t s)
{
    if (g.B * g.Cout * g.P == 0)
        return CUBLAS_STATUS_SUCCESS;
    int64_t x_step = g.Cin * g.H * g.W, out_step = g.Cout * g.P;
    int st = CUBLAS_STATUS_SUCCESS;
    if (pointwise(g)) {
        st = rf_cuda_gemm(false, false, g.Cout, g.P, g.K, w, 0, x, x_step, 0.0f, out, out_step, g.B, blas, s);
    } else {
        for (int64_t b = 0; b < g.B && st == CUBLAS_STATUS_SUCCESS; b++) {
            im2col(g, x + b * x_step, work, s);
            st = rf_cuda_gemm(false, false, g.Cout, g.P, g.K, w, 0, work, 0, 0.0f, out + b * out_step, 0, 1, blas, s);
        }
    }
    if (bias != nullptr)
        rf_cuda_bias_add(bias, out, g.B, g.Cout, g.P, s);
    return st;
}

int backward(const geom &g, const float *x, const float *w, const float *dout, float *dx, float *dw, float *dbias,
             float *work, cublasHandle_t blas, cudaStream_t s)
{
    if (g.B * g.Cout * g.P == 0)
        return CUBLAS_STATUS_SUCCESS;
    int64_t x_step = g.Cin * g.H * g.W, out_step = g.Cout * g.P;
    rf_cuda_bias_grad(dout, dbias, g.B, g.Cout, g.P, s);
    if (pointwise(g)) {
        /* dw [Cout, Cin] += dout[b] x[b]^T, summed over b (stride 0: in order) */
        int st = dw == nullptr ? CUBLAS_STATUS_SUCCESS
                               : rf_cuda_gemm(false, true, g.Cout, g.K, g.P, dout, out_step, x, x_step, 1.0f, dw, 0,
                                              g.B, blas, s);
        if (dx == nullptr || st != CUBLAS_STATUS_SUCCESS)
            return st;
        return rf_cuda_gemm(true, false, g.K, g.P, g.Cout, w, 0, dout, out_step, 1.0f, dx, x_step, g.B, blas, s);
    }
    int st = CUBLAS_STATUS_SUCCESS;
    for (int64_t b = 0; b < g.B && st == CUBLAS_STATUS_SUCCESS; b++) {
        const float *db = dout + b * out_step;
        if (dw != nullptr) {
            im2col(g, x + b * x_step, work, s);
            st = rf_cuda_gemm(false, true, g.Cout, g.K, g.P, db, 0, work, 0, 1.0f, dw, 0, 1, blas, s);
        }
        if (dx != nullptr && st == CUBLAS_STATUS_SUCCESS) {
            /* work is free again: the product above ran before this one (stream order) */
            st = rf_cuda_gemm(true, false, g.K, g.P, g.Cout, w, 0, db, 0, 0.0f, work, 0, 1, blas, s);
            RF_LAUNCH(col2im_kernel, rf_blocks(g.Cin * g.H * g.W, THREADS), THREADS, 0, s, work, dx + b * x_step, g);
        }
    }
    return st;
}

}   // namespace

extern "C" int rf_cuda_conv1d_forward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws,
                                      const float *bias, float *out, int stride, int pad, float *work,
                                      cublasHandle_t blas, cudaStream_t s)
{
    return forward(geometry(xs, ws, 1, stride, 0, pad), x, w, bias, out, work, blas, s);
}

extern "C" int rf_cuda_conv1d_backward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws,
                                       const float *dout, float *dx, float *dw, float *dbias, int stride, int pad,
                                       float *work, cublasHandle_t blas, cudaStream_t s)
{
    return backward(geometry(xs, ws, 1, stride, 0, pad), x, w, dout, dx, dw, dbias, work, blas, s);
}

extern "C" int rf_cuda_conv2d_forward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws,
                                      const float *bias, float *out, int stride_h, int stride_w, int pad_h, int pad_w,
                                      float *work, cublasHandle_t blas, cudaStream_t s)
{
    return forward(geometry(xs, ws, stride_h, stride_w, pad_h, pad_w), x, w, bias, out, work, blas, s);
}

extern "C" int rf_cuda_conv2d_backward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws,
                                       const float *dout, float *dx, float *dw, float *dbias, int stride_h,
                                       int stride_w, int pad_h, int pad_w, float *work, cublasHandle_t blas,
                                       cudaStream_t s)
{
    return backward(geometry(xs, ws, stride_h, stride_w, pad_h, pad_w), x, w, dout, dx, dw, dbias, work, blas, s);
}
