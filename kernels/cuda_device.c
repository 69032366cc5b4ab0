/* The CUDA backend's entry in the engine's device table (core/device.h):
 * how many GPUs the runtime sees, their names and memory. The program
 * registers it at start (app/main.c), so core never names a CUDA symbol. Uses the
 * runtime API only (no libcuda: a machine without a driver must still run
 * the program and get a clear sentence). */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "backend.h"
#include "cuda_device.h"

static bool cuda_count(int *n, rf_status *st)
{
    cudaError_t e = cudaGetDeviceCount(n);
    if (e != cudaSuccess) {
        cudaGetLastError();   /* clear it, so later calls do not report it again */
        return rf_fail(st, "CUDA: %s", cudaGetErrorString(e));
    }
    if (*n == 0)
        return rf_fail(st, "CUDA: the runtime sees no device");
    return true;
}

static bool cuda_describe(int i, char *name, size_t size, size_t *memory_bytes, rf_status *st)
{
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, i);
    if (e != cudaSuccess)
        return rf_fail(st, "CUDA device %d: %s", i, cudaGetErrorString(e));
    snprintf(name, size, "%s", p.name);
    *memory_bytes = p.totalGlobalMem;
    return true;
}

/* The backend keeps one stream and one cuBLAS handle on the device it
 * started on, so a process uses one GPU (a rank of an MPI job its own). */
static bool cuda_use(int i, rf_status *st)
{
    static int in_use = -1;
    if (in_use >= 0 && in_use != i)
        return rf_fail(st, "this process already uses cuda:%d; another GPU needs another process", in_use);
    cudaError_t e = cudaSetDevice(i);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return rf_fail(st, "CUDA: %s", cudaGetErrorString(e));
    }
    in_use = i;
    return true;
}

static rf_device_backend cuda_backend = {
    .kind = RF_DEVICE_CUDA,
    .name = "cuda",
    .count = cuda_count,
    .describe = cuda_describe,
    .use = cuda_use,
};

void rf_cuda_register(void)
{
    cuda_backend.exec = rf_cuda_backend();
    rf_device_register(&cuda_backend);
}
