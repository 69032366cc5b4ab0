/* A fingerprint of the structs the program and a backend module share
 * (rf_exec, rf_backend, rf_node, rf_params, rf_device_backend, ...),
 * compiled into both. The CUDA module's .cu objects are built by nvcc,
 * which Debian's meson 1.0 gives no header dependencies: after a field is
 * added to core/op.h an incremental build can keep a stale object that
 * reads every field after it at the wrong offset. The module reports the
 * value it was compiled with (rf_cuda_layout) and core/device.c refuses a
 * module whose value differs, with a sentence instead of a crash. */
#ifndef RF_BACKEND_LAYOUT_H
#define RF_BACKEND_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "op.h"
#include "params.h"

/* FNV-1a over the shared structs' sizes, a few field offsets (a reordering
 * keeps the size) and the table lengths. */
static inline uint64_t rf_backend_layout(void)
{
    const uint64_t parts[] = {
        sizeof(rf_exec),         offsetof(rf_exec, fresh),        sizeof(rf_backend),
        offsetof(rf_backend, alloc), offsetof(rf_backend, queue_step), sizeof(rf_op_info),
        sizeof(rf_node),         offsetof(rf_node, value),        sizeof(rf_shape),
        sizeof(rf_params),       offsetof(rf_params, backend),    sizeof(rf_device_backend),
        sizeof(rf_adamw_args),   sizeof(rf_step_report),          RF_OP_COUNT,
        RF_MAX_INPUTS,
    };
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        h ^= parts[i];
        h *= 1099511628211ull;
    }
    return h;
}

#endif
