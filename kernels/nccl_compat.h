/* NCCL for the backend, chosen as cublas_compat.h chooses cuBLAS: the real
 * library under nvcc when meson found it (RF_HAVE_NCCL), the emulator's
 * NCCL over the host collective (tests/cuda_emu/nccl_emu.h) when the code
 * is compiled as C++ with RF_CUDA_EMULATE. Without either the backend has
 * no join_ranks, and several ranks are refused on it. */
#ifndef RF_NCCL_COMPAT_H
#define RF_NCCL_COMPAT_H

#include "cuda_compat.h"

#if !defined(__CUDACC__) && defined(RF_CUDA_EMULATE)
#include "../tests/cuda_emu/nccl_emu.h"
#define RF_BACKEND_NCCL 1
#elif defined(RF_HAVE_NCCL)
#include <nccl.h>
#define RF_BACKEND_NCCL 1
#endif

#endif
