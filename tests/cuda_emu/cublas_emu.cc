/* The emulator's cuBLAS (see cublas_emu.h) over cblas_sgemm. */
#include "cublas_emu.h"

#include <cblas.h>

struct cublasContext {
    cudaStream_t stream;
};

cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    *handle = new cublasContext{};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

static int at_least_1(int v) { return v > 1 ? v : 1; }

/* cuBLAS's documented argument checks for gemm */
static bool gemm_args_ok(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    bool ops = (ta == CUBLAS_OP_N || ta == CUBLAS_OP_T) && (tb == CUBLAS_OP_N || tb == CUBLAS_OP_T);
    return ops && m >= 0 && n >= 0 && k >= 0 && lda >= at_least_1(ta == CUBLAS_OP_N ? m : k) &&
           ldb >= at_least_1(tb == CUBLAS_OP_N ? k : n) && ldc >= at_least_1(m);
}

static CBLAS_TRANSPOSE cblas_op(cublasOperation_t t) { return t == CUBLAS_OP_N ? CblasNoTrans : CblasTrans; }

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
                           const float *beta, float *C, int ldc)
{
    return cublasSgemmStridedBatched(handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0,
                                     1);
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float *alpha, const float *A, int lda,
                                         long long strideA, const float *B, int ldb, long long strideB,
                                         const float *beta, float *C, int ldc, long long strideC, int batch_count)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!gemm_args_ok(transa, transb, m, n, k, lda, ldb, ldc) || batch_count < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    /* C_i spans (n - 1) ldc + m floats; the next one must start beyond it */
    long long span = (long long)(n - 1) * ldc + m;
    if (batch_count > 1 && m > 0 && n > 0 && (strideC < 0 ? -strideC : strideC) < span)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    float al = *alpha, be = *beta;
    cudaError_t e = rf_emu::issue(handle->stream, rf_emu::work::launch, [=] {
        for (int i = 0; i < batch_count; i++)
            cblas_sgemm(CblasColMajor, cblas_op(transa), cblas_op(transb), m, n, k, al, A + i * strideA, lda,
                        B + i * strideB, ldb, be, C + i * strideC, ldc);
    });
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}
