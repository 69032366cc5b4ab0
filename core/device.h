/* Where a graph runs: train.device = cpu | cuda | cuda:N.
 *
 * The CPU backend is always there. Other backends live outside core/ (the
 * CUDA one in kernels/) and register themselves when their library is
 * linked, so core names no CUDA symbol and a build without nvcc simply has
 * no "cuda" entry. */
#ifndef RF_DEVICE_H
#define RF_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"

typedef enum rf_device_kind { RF_DEVICE_CPU, RF_DEVICE_CUDA } rf_device_kind;

typedef struct rf_device {
    rf_device_kind kind;
    int index;             /* cuda:N; 0 for plain "cuda" and for the CPU */
} rf_device;

#define RF_DEVICE_MAX_INDEX 63

/* Parse "cpu", "cuda" or "cuda:N" (0 <= N <= RF_DEVICE_MAX_INDEX). */
bool rf_device_parse(const char *text, rf_device *out, rf_status *st);

/* A GPU backend, as it registers itself. */
typedef struct rf_device_backend {
    rf_device_kind kind;
    const char *name;      /* "cuda" */
    /* How many devices are usable now; false with the runtime's reason
     * (no driver, no device) in st. */
    bool (*count)(int *n, rf_status *st);
    /* Name and memory of device i, for listings. */
    bool (*describe)(int i, char *name, size_t size, size_t *memory_bytes, rf_status *st);
    /* Its kernels and memory for the executor (core/op.h); a model whose
     * ops it lacks kernels for is refused when it is built (rf_model_new),
     * naming the op. NULL: it cannot run graphs at all. */
    const struct rf_backend *exec;
    /* Make device i the one this process's kernels and memory use (before
     * the first allocation); false with the reason. NULL: one device. */
    bool (*use)(int i, rf_status *st);
} rf_device_backend;

/* Called by a backend's library at start-up (a constructor), or by its
 * module's entry when the module is loaded. */
void rf_device_register(const rf_device_backend *b);

/* The CUDA backend as a module (a shared object with an entry
 * `void rf_cuda_register(void)`), loaded the first time a CUDA device is
 * asked for: a CPU run then never maps the CUDA libraries, whose loading
 * alone costs about 150 MB of resident memory. Call before any device is
 * asked for; NULL forgets it. */
void rf_device_set_cuda_module(const char *path);

/* The registered backend of a kind, or NULL if this build has none. */
const rf_device_backend *rf_device_backend_of(rf_device_kind kind);

/* train.tf32: whether a GPU backend may round its attention products'
 * operands to TF32 and run them on tensor cores (kernels/attention_tf32.cu);
 * off (the default) keeps them exact f32. Process-wide, as the CPU's
 * product precision (core/gemm.h): the trainer sets it from its config. */
void rf_device_set_tf32(bool on);
bool rf_device_tf32(void);

/* Check, before any work, that the device a config asks for can be used,
 * and return its executor backend: the CPU always; cuda[:N] needs this
 * build's CUDA backend, a usable GPU N and an executor for it. On failure
 * NULL, and st says what was asked and why it cannot be had, in one
 * sentence. */
const struct rf_backend *rf_device_open(const char *text, rf_status *st);

/* The executor backend a config's device would run on, for planning only:
 * no GPU needs to be there, only this build's backend for its kind (a
 * plan for cuda on a machine without one says what the GPU would need). */
const struct rf_backend *rf_device_plan_backend(const char *text, rf_status *st);

#endif
