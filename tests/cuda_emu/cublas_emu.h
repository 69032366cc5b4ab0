/* cuBLAS for the CUDA emulator (emu.h): the few calls kernels/ makes,
 * computed by OpenBLAS's cblas_sgemm on host memory, synchronously.
 * kernels/cublas_compat.h includes it when RF_CUDA_EMULATE is defined;
 * nothing else should.
 *
 * Column-major, as cuBLAS. Arguments are checked as cuBLAS documents them
 * (a leading dimension too small, a negative size: CUBLAS_STATUS_INVALID_VALUE),
 * so a launcher that gets them wrong fails here as on a GPU. One check is
 * the emulator's own: a batched call whose outputs overlap is refused,
 * because a GPU runs the batch concurrently and such outputs race, where
 * running them one after another here would hide it.
 *
 * A call on a handle bound to a capturing stream is recorded with the
 * stream's other work (emu.h), alpha and beta read as the call is made. */
#ifndef RF_CUBLAS_EMU_H
#define RF_CUBLAS_EMU_H

#include "emu.h"

/* cuBLAS's own values (cublas_api.h) */
typedef enum cublasStatus {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
} cublasStatus_t;

typedef enum cublasOperation { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;

typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
const char *cublasGetStatusString(cublasStatus_t status);

/* C [m, n] = alpha op(A) op(B) + beta C, column-major; alpha and beta are
 * host pointers (cuBLAS's default pointer mode). */
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
                           const float *beta, float *C, int ldc);
/* The same for i < batch_count with A + i strideA, B + i strideB, C + i strideC. */
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float *alpha, const float *A, int lda,
                                         long long strideA, const float *B, int ldb, long long strideB,
                                         const float *beta, float *C, int ldc, long long strideC, int batch_count);

#endif
