/* The CUDA backend's executor table (backend.cu): kernels per op, managed
 * memory, the optimiser on the device. */
#ifndef RF_CUDA_BACKEND_H
#define RF_CUDA_BACKEND_H

#ifdef __cplusplus
extern "C" {
#endif

struct rf_backend;

const struct rf_backend *rf_cuda_backend(void);

#ifdef __cplusplus
}
#endif

#endif
