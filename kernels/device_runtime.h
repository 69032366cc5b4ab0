/* The CUDA backend's device runtime (device_runtime.cu), shared with its
 * op table (backend.cu) and nothing else: the stream and cuBLAS handle
 * every kernel is launched on, the reductions' space, the probes' buffer,
 * and the memory and optimiser services of the rf_backend table. */
#ifndef RF_CUDA_DEVICE_RUNTIME_H
#define RF_CUDA_DEVICE_RUNTIME_H

#include <stddef.h>

#include "common.cuh"
#include "cublas_compat.h"
#include "kernels.h"

extern "C" {
#include "../core/op.h"
}

extern cudaStream_t rf_cuda_stream;   /* made by the first allocation */
extern cublasHandle_t rf_cuda_blas;   /* default math mode: no TF32 (kernels.h) */
extern double *rf_cuda_partials;      /* RF_CUDA_PARTIALS doubles, then the result */

/* The step a queued step's kernels read when they run (its clock,
 * rf_backend.step_scalars), or NULL outside one: they take x->step. */
const uint64_t *rf_cuda_clock_step(const rf_exec *x);

/* Room for the probes' attention maps (not part of the plan: allocated
 * only while a probe is attached, grown to the largest request); NULL when
 * the device is out of memory. */
float *rf_cuda_probe_space(size_t floats);

/* Fill the table's services: alloc, free, zero, fill, sync, sum_squares,
 * scale, adamw, peak_bytes, step_scalars, queue_step, upload, the graph
 * services (capture_begin, capture_end, replay, release) and, with NCCL,
 * join_ranks and average_ranks. */
void rf_cuda_runtime_services(rf_backend *table);

#endif
