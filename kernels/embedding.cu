/* Embedding lookup (core/cpu/embedding.c): a gather forward, a scatter-add
 * of the output gradient into the table's gradient backward. Ids are
 * trusted to lie in [0, V) (the data layer checks them, as for the CPU). */
#include "common.cuh"
#include "kernels.h"

namespace {

/* out[r, :] = table[ids[r], :], one thread per output element */
__global__ void gather_kernel(const float *ids, const float *table, float *out, int64_t n, int64_t d)
{
    RF_FOR_EACH(i, n) {
        int64_t r = i / d;
        out[i] = table[(int64_t)ids[r] * d + (i - r * d)];
    }
}

/* dtable[ids[r], :] += dout[r, :]; rows sharing an id meet in atomicAdd */
__global__ void scatter_kernel(const float *ids, const float *dout, float *dtable, int64_t n, int64_t d)
{
    RF_FOR_EACH(i, n) {
        int64_t r = i / d;
        atomicAdd(dtable + (int64_t)ids[r] * d + (i - r * d), dout[i]);
    }
}

}   // namespace

extern "C" void rf_cuda_embedding_forward(const float *ids, const float *table, float *out, int64_t rows, int64_t d,
                                          cudaStream_t s)
{
    int64_t n = rows * d;
    if (n > 0)
        RF_LAUNCH(gather_kernel, rf_blocks(n, 256), 256, 0, s, ids, table, out, n, d);
}

extern "C" void rf_cuda_embedding_backward(const float *ids, const float *dout, float *dtable, int64_t rows,
                                           int64_t d, cudaStream_t s)
{
    int64_t n = rows * d;
    if (n > 0)
        RF_LAUNCH(scatter_kernel, rf_blocks(n, 256), 256, 0, s, ids, dout, dtable, n, d);
}
