/* Inverted dropout (core/cpu/dropout.c): kept elements scaled by 1/(1 - p),
 * the keep decision recomputed from (seed, step, node, i) in backward. */
#include "common.cuh"
#include "dropout_keep.h"
#include "kernels.h"

namespace {

struct dropout_args {
    bool active;   /* training and p > 0; else the identity */
    float p, scale;
    uint64_t seed, step;
    const uint64_t *device_step;   /* when not NULL: the step, read as the kernel runs */
    int32_t node;
    int64_t base;   /* element 0's index in the global tensor */
};

dropout_args make_args(float p, bool training, uint64_t seed, uint64_t step, const uint64_t *device_step,
                       int32_t node, int64_t base)
{
    bool active = training && p > 0.0f;
    return {active, p, active ? 1.0f / (1.0f - p) : 1.0f, seed, step, device_step, node, base};
}

/* out[i] (+)= keep(i) ? in[i] * scale : 0 */
template <bool ACC> __global__ void dropout_kernel(const float *in, float *out, int64_t n, dropout_args a)
{
    uint64_t step = a.device_step != NULL ? *a.device_step : a.step;
    RF_FOR_EACH(i, n) {
        bool keep = !a.active || rf_cuda_dropout_keep(a.seed, step, a.node, a.base + i, a.p);
        float v = keep ? in[i] * a.scale : 0.0f;
        if constexpr (ACC)
            out[i] += v;
        else
            out[i] = v;
    }
}

}   // namespace

extern "C" void rf_cuda_dropout_forward(const float *x, float *y, int64_t n, float p, bool training, uint64_t seed,
                                        uint64_t step, const uint64_t *device_step, int32_t node, int64_t base,
                                        cudaStream_t s)
{
    if (n > 0)
        RF_LAUNCH(dropout_kernel<false>, rf_blocks(n, 256), 256, 0, s, x, y, n,
                  make_args(p, training, seed, step, device_step, node, base));
}

extern "C" void rf_cuda_dropout_backward(const float *dy, float *dx, int64_t n, float p, bool training,
                                         uint64_t seed, uint64_t step, const uint64_t *device_step, int32_t node,
                                         int64_t base, cudaStream_t s)
{
    if (n > 0)
        RF_LAUNCH(dropout_kernel<true>, rf_blocks(n, 256), 256, 0, s, dy, dx, n,
                  make_args(p, training, seed, step, device_step, node, base));
}
