/* What the attention kernels (attention.cu, scalar f32, and
 * attention_tf32.cu, tensor cores) share: a head's rows, the key mask, and
 * the backward's row dot products. */
#ifndef RF_KERNELS_ATTENTION_HEADS_CUH
#define RF_KERNELS_ATTENTION_HEADS_CUH

#include "common.cuh"
#include "kernels.h"

/* Head h of batch item bi: column block [h dk, (h+1) dk) of [b, len, d] rows. */
struct rf_attention_head {
    int64_t bi, h, dk;
    __device__ rf_attention_head(const rf_cuda_heads &a, int64_t bh)
        : bi(bh / a.heads), h(bh % a.heads), dk(a.d / a.heads)
    {
    }
    template <class T> __device__ T *row(T *x, const rf_cuda_heads &a, int64_t len, int64_t r) const
    {
        return x + (bi * len + r) * a.d + h * dk;
    }
};

static __device__ __forceinline__ bool rf_attention_key_valid(const float *mask, const rf_cuda_heads &a, int64_t bi,
                                                              int64_t j)
{
    return j < a.m && (mask == nullptr || mask[bi * a.m + j] != 0.0f);
}

/* D[r] = dO_r . O_r over the head's columns for the b heads n rows: the
 * backward's rowsum(dO * O) (attention.cu). */
void rf_attention_rowdot(const float *out, const float *dout, float *D, rf_cuda_heads a, cudaStream_t s);

#endif
