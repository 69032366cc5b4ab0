/* cuBLAS for the kernels and their tests, chosen as cuda_compat.h chooses
 * the runtime: the real library under nvcc or against the real runtime,
 * the emulator's shim over cblas (tests/cuda_emu/cublas_emu.h) when the
 * code is compiled as C++ with RF_CUDA_EMULATE defined. */
#ifndef RF_CUBLAS_COMPAT_H
#define RF_CUBLAS_COMPAT_H

#include "cuda_compat.h"

#if !defined(__CUDACC__) && defined(RF_CUDA_EMULATE)
#include "../tests/cuda_emu/cublas_emu.h"
#else
#include <cublas_v2.h>
#endif

#endif
