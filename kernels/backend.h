/* The CUDA backend's executor table (backend.cu): kernels per op, managed
 * memory, the optimiser on the device. */
#ifndef RF_CUDA_BACKEND_H
#define RF_CUDA_BACKEND_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>

struct rf_backend;

const struct rf_backend *rf_cuda_backend(void);
/* rf_backend_layout() as these kernels were compiled (core/backend_layout.h):
 * the module exports it, and the program refuses a module built against
 * other headers. */
uint64_t rf_cuda_layout(void);

#ifdef __cplusplus
}
#endif

#endif
