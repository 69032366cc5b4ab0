/* Stream capture in the emulator (capture.cc; the model is emu.h's): what
 * the runtime's other calls (emu.cc) ask of it. */
#ifndef RF_CUDA_EMU_CAPTURE_H
#define RF_CUDA_EMU_CAPTURE_H

#include "emu.h"

namespace rf_emu {

/* A call that waits for the capturing stream (a synchronisation, the
 * legacy stream's synchronous copies): while a stream captures,
 * invalidates the capture and returns `e`, the error CUDA gives that
 * call; cudaSuccess otherwise. */
cudaError_t forbidden_in_capture(cudaError_t e);

/* A call CUDA deems unsafe during a capture (cudaMalloc, cudaFree): as
 * forbidden_in_capture where the capture's mode prohibits it for the
 * calling thread (global: every thread; thread-local: the thread that
 * began it; relaxed: none), else cudaSuccess. */
cudaError_t unsafe_in_capture(cudaError_t e);

/* `stream` is the one capturing now (valid or invalidated). */
bool capturing(cudaStream_t stream);

}   // namespace rf_emu

#endif
