/* The optimiser step on the GPU: AdamW over the parameter store's flat
 * blocks (core/optim.c) and the check for NaN and infinite values that
 * stops a diverging run. The global gradient norm is in reduce.cu. */
#include "common.cuh"
#include "kernels.h"

namespace {

/* One parameter per grid row (blockIdx.y), a grid-stride loop over its
 * elements; the update is core/optim.c's, operation for operation, the
 * clipping factor applied as rf_clip_grads scales in place (one product;
 * by 1 it is exact). */
__global__ void adamw_kernel(float *w, const float *g, float *m, float *v, const rf_cuda_param *params,
                             rf_cuda_adamw_args args, const rf_cuda_adamw_args *device_args,
                             const rf_cuda_step_report *guard)
{
    if (guard != NULL && guard->skip)
        return;   /* the whole grid: a diverged step changes nothing */
    const rf_cuda_adamw_args a = device_args != NULL ? *device_args : args;
    float s = guard != NULL ? guard->scale : 1.0f;
    rf_cuda_param pe = params[blockIdx.y];
    float decay = pe.decay ? a.lr * a.decay : 0.0f;
    RF_FOR_EACH(k, pe.numel) {
        int64_t i = pe.offset + k;
        float gi = g[i] * s;
        m[i] = a.beta1 * m[i] + (1 - a.beta1) * gi;
        v[i] = a.beta2 * v[i] + (1 - a.beta2) * gi * gi;
        float mhat = m[i] / a.c1, vhat = v[i] / a.c2;
        w[i] -= a.lr * mhat / (sqrtf(vhat) + a.eps) + decay * w[i];
    }
}

__global__ void guard_kernel(const float *loss, const double *sum_squares, const rf_cuda_step_clock *clock,
                             rf_cuda_step_report *r)
{
    double clip = clock->clip;
    int64_t step = (int64_t)clock->step + 1;
    double norm = sqrt(*sum_squares);
    float l = *loss;
    bool ok = isfinite(l) && isfinite(norm);
    r->loss = l;
    r->norm = norm;
    r->scale = clip > 0 && norm > clip ? (float)(clip / norm) : 1.0f;
    if (!ok && r->first_bad == 0) {
        r->first_bad = step;
        r->bad_loss = l;
        r->bad_norm = norm;
    }
    r->skip = r->first_bad != 0;   /* from the first bad step on: the weights stay the last good ones */
}

/* *count += the block's non-finite elements (one atomic per block) */
__global__ void nonfinite_kernel(const float *x, int64_t n, int *count)
{
    int c = 0;
    RF_FOR_EACH(i, n) c += !isfinite(x[i]);
    c = rf_block_sum(c);
    if (threadIdx.x == 0 && c > 0)
        atomicAdd(count, c);
}

}   // namespace

extern "C" void rf_cuda_adamw(float *w, const float *g, float *m, float *v, const rf_cuda_param *params, int count,
                              int64_t max_numel, rf_cuda_adamw_args a, const rf_cuda_adamw_args *device_args,
                              const rf_cuda_step_report *guard, cudaStream_t s)
{
    if (max_numel == 0)
        return;
    const int max_rows = 65535;   /* gridDim.y's limit */
    for (int first = 0; first < count; first += max_rows) {
        int rows = count - first < max_rows ? count - first : max_rows;
        RF_LAUNCH(adamw_kernel, dim3(rf_blocks(max_numel, 256), (unsigned)rows), 256, 0, s, w, g, m, v,
                  params + first, a, device_args, guard);
    }
}

extern "C" void rf_cuda_step_guard(const float *loss, const double *sum_squares, const rf_cuda_step_clock *clock,
                                   rf_cuda_step_report *report, cudaStream_t s)
{
    RF_LAUNCH(guard_kernel, 1, 1, 0, s, loss, sum_squares, clock, report);
}

extern "C" void rf_cuda_count_nonfinite(const float *x, int64_t n, int *count, cudaStream_t s)
{
    if (n > 0)
        RF_LAUNCH(nonfinite_kernel, rf_blocks(n, 256), 256, 0, s, x, n, count);
}
