/* A stand-in for librfcuda.so (core/device.h) for test_device_module: the
 * two entry points only. Built twice, with FAKE_LAYOUT_SKEW 0 (compiled
 * against this program's headers) and 1 (a stale module, as nvcc's objects
 * can be after core/op.h changed: core/backend_layout.h). */
#include "../core/backend_layout.h"

int fake_cuda_registered;   /* read by the test through dlsym */

uint64_t rf_cuda_layout(void);
void rf_cuda_register(void);

uint64_t rf_cuda_layout(void)
{
    return rf_backend_layout() + FAKE_LAYOUT_SKEW;
}

/* A real module registers its backend here; this one only says it ran. */
void rf_cuda_register(void)
{
    fake_cuda_registered = 1;
}
