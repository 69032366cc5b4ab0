/* The emulated tensor-core instruction and its fragment helpers
 * (kernels/mma.cuh) alone, against naive products: TF32 rounding as
 * cvt.rna.tf32.f32 does it, mma.m16n8k8's fragment layouts (matrices with
 * no symmetry and distinct entries, so a lane or register given the wrong
 * element changes the result), the transposed and paired loads the
 * attention kernels chain, and f32 accumulation within its bound. The
 * attention kernels built on them are checked in test_cuda_mechanisms. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "../kernels/mma.cuh"
#include "tap.h"
#include "tolerance.h"

typedef std::vector<float> vec;

static float *device(const vec &h)
{
    float *d;
    cudaMalloc(&d, h.size() * sizeof(float));
    cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
    return d;
}

static vec host(const float *d, size_t n)
{
    vec h(n);
    cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    return h;
}

static float tf32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    b = rf_tf32_rna_bits(b);
    memcpy(&x, &b, sizeof x);
    return x;
}

/* One warp: d (16x8) = A (16x8, row-major) B (8x8, row-major) + C. */
__global__ void mma_kernel(const float *A, const float *B, const float *C, float *D)
{
    int g = (int)threadIdx.x / 4, t = (int)threadIdx.x % 4;
    uint32_t a[4], b[2] = {rf_tf32(B[t * 8 + g]), rf_tf32(B[(t + 4) * 8 + g])};
    rf_mma_load_a(a, A, 8);
    float c[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t], C[(g + 8) * 8 + 2 * t + 1]};
    rf_mma_tf32(c, a, b, c);
    D[g * 8 + 2 * t] = c[0];
    D[g * 8 + 2 * t + 1] = c[1];
    D[(g + 8) * 8 + 2 * t] = c[2];
    D[(g + 8) * 8 + 2 * t + 1] = c[3];
}

/* One warp: D (16x8) = (A Yᵀ) X, Y (8x8) read as B = Yᵀ (rf_mma_load_bt)
 * and the first product's result the second's A (rf_mma_a_from_result,
 * with X read in the paired order: rf_mma_load_b_paired). */
__global__ void chain_kernel(const float *A, const float *Y, const float *X, float *D)
{
    int g = (int)threadIdx.x / 4, t = (int)threadIdx.x % 4;
    uint32_t a[4], b[2], w[4];
    rf_mma_load_a(a, A, 8);
    rf_mma_load_bt(b, Y, 8);
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f}, d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    rf_mma_tf32(s, a, b, s);
    rf_mma_a_from_result(w, s);
    rf_mma_load_b_paired(b, X, 8);
    rf_mma_tf32(d, w, b, d);
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

/* ref[i][n] = Σ_k A[i][k] B[k][n] (+ C), in double, with the sum of |terms|. */
static void naive(const vec &A, const vec &B, const vec *C, int rows, std::vector<double> &ref,
                  std::vector<double> &mag)
{
    ref.assign((size_t)rows * 8, 0.0);
    mag.assign((size_t)rows * 8, 0.0);
    for (int i = 0; i < rows; i++)
        for (int n = 0; n < 8; n++) {
            double s = C != nullptr ? (*C)[i * 8 + n] : 0.0, m = fabs(s);
            for (int k = 0; k < 8; k++) {
                s += (double)A[i * 8 + k] * B[k * 8 + n];
                m += fabs((double)A[i * 8 + k] * B[k * 8 + n]);
            }
            ref[i * 8 + n] = s;
            mag[i * 8 + n] = m;
        }
}

static void test_rounding(void)
{
    const struct {
        float in, want;
        const char *what;
    } cases[] = {
        {1.0f + 0x1p-12f, 1.0f, "below half of the last place: down"},
        {1.0f + 0x1p-11f, 1.0f + 0x1p-10f, "a tie: away from zero"},
        {-(1.0f + 0x1p-11f), -(1.0f + 0x1p-10f), "a negative tie: away from zero"},
        {1.0f + 3 * 0x1p-12f, 1.0f + 0x1p-10f, "above half: up"},
        {1.0f + 0x1p-10f + 0x1p-11f, 1.0f + 0x1p-9f, "a tie on an odd last digit: away, not to even"},
        {FLT_MAX, INFINITY, "the largest float: past TF32's largest and half a place"},
        {0x1p-130f, 0x1p-130f, "a subnormal TF32 holds"},
        {0x1p-140f, 0.0f, "a subnormal below TF32's last place: to zero"},
        {INFINITY, INFINITY, "infinity"},
    };
    for (const auto &c : cases) {
        float got = tf32(c.in);
        tap_ok(got == c.want, "TF32 (cvt.rna): %s: %a -> %a (want %a)", c.what, (double)c.in, (double)got,
               (double)c.want);
    }
    tap_ok(isnan(tf32(NAN)), "TF32 (cvt.rna): NaN stays NaN");
}

/* Small integers: every product and sum exact, so the result must be the
 * naive product to the bit; entries distinct across a row and a column,
 * so a swapped fragment register or lane shows. */
static void test_layout(void)
{
    vec A(16 * 8), B(8 * 8), C(16 * 8);
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 8; k++)
            A[i * 8 + k] = (float)(i * 8 + k) - 60.0f;
    for (int k = 0; k < 8; k++)
        for (int n = 0; n < 8; n++)
            B[k * 8 + n] = (float)((3 * k + 5 * n) % 17) - 8.0f;
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++)
            C[i * 8 + n] = (float)(100 * i - 7 * n);
    float *dA = device(A), *dB = device(B), *dC = device(C), *dD = device(vec(16 * 8, NAN));
    RF_LAUNCH(mma_kernel, 1, 32, 0, 0, dA, dB, dC, dD);
    vec D = host(dD, 16 * 8);
    std::vector<double> ref, mag;
    naive(A, B, &C, 16, ref, mag);
    int wrong = 0, first = -1;
    for (int e = 0; e < 16 * 8; e++)
        if (D[e] != ref[e] && wrong++ == 0)
            first = e;
    if (!tap_ok(cudaGetLastError() == cudaSuccess && wrong == 0,
                "mma.m16n8k8 tf32: integer A B + C, not symmetric, exact in every element (%d wrong)", wrong))
        tap_diag("D[%d][%d] = %g, want %g", first / 8, first % 8, D[first], ref[first]);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dD);
}

/* Random operands: within the accumulation's worst case (8 products and C
 * added in f32, any order: tol_gamma(9) of the terms' magnitudes) of the
 * naive product of the operands rounded to TF32; and far enough from the
 * product of the unrounded ones that dropping the rounding would show. */
static void test_random(void)
{
    unsigned s = 12345;
    auto uniform = [&s] {
        s = s * 1664525u + 1013904223u;
        return (float)((s >> 8) * 0x1p-24 * 2.0 - 1.0);
    };
    vec A(16 * 8), B(8 * 8), C(16 * 8), At(16 * 8), Bt(8 * 8);
    for (size_t e = 0; e < A.size(); e++)
        At[e] = tf32(A[e] = uniform());
    for (size_t e = 0; e < B.size(); e++)
        Bt[e] = tf32(B[e] = uniform());
    for (float &c : C)
        c = uniform();
    float *dA = device(A), *dB = device(B), *dC = device(C), *dD = device(vec(16 * 8, NAN));
    RF_LAUNCH(mma_kernel, 1, 32, 0, 0, dA, dB, dC, dD);
    vec D = host(dD, 16 * 8);
    std::vector<double> ref, mag, raw, rmag;
    naive(At, Bt, &C, 16, ref, mag);
    naive(A, B, &C, 16, raw, rmag);
    double worst = 0, far = 0;
    for (int e = 0; e < 16 * 8; e++) {
        worst = fmax(worst, fabs(D[e] - ref[e]) / (tol_gamma(9) * mag[e]));
        far = fmax(far, fabs(D[e] - raw[e]) / (tol_gamma(9) * rmag[e]));
    }
    tap_ok(worst <= 1, "mma.m16n8k8 tf32: random A B + C within the f32 accumulation's bound of the TF32 operands' "
                       "product (%.3g of it)",
           worst);
    tap_ok(far > 1, "... and outside it for the unrounded operands (%.3g of it): the operands are rounded", far);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dD);
}

/* Two chained products with the transposed and the paired loads: small
 * integers again, so exact. */
static void test_chain(void)
{
    vec A(16 * 8), Y(8 * 8), X(8 * 8);
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 8; k++)
            A[i * 8 + k] = (float)((5 * i + 3 * k) % 7) - 3.0f;
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            Y[r * 8 + c] = (float)((r * 8 + c) % 9) - 4.0f;
            X[r * 8 + c] = (float)(r * 8 + c) - 31.0f;
        }
    vec Yt(8 * 8);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            Yt[c * 8 + r] = Y[r * 8 + c];
    std::vector<double> s, smag, ref, mag;
    naive(A, Yt, nullptr, 16, s, smag);
    vec S(s.begin(), s.end());
    naive(S, X, nullptr, 16, ref, mag);
    float *dA = device(A), *dY = device(Y), *dX = device(X), *dD = device(vec(16 * 8, NAN));
    RF_LAUNCH(chain_kernel, 1, 32, 0, 0, dA, dY, dX, dD);
    vec D = host(dD, 16 * 8);
    int wrong = 0;
    for (int e = 0; e < 16 * 8; e++)
        wrong += D[e] != ref[e];
    tap_ok(cudaGetLastError() == cudaSuccess && wrong == 0,
           "(A Yᵀ) X through rf_mma_load_bt, rf_mma_a_from_result and rf_mma_load_b_paired: exact (%d wrong)", wrong);
    cudaFree(dA);
    cudaFree(dY);
    cudaFree(dX);
    cudaFree(dD);
}

int main(void)
{
    test_rounding();
    test_layout();
    test_random();
    test_chain();
    return tap_done();
}
