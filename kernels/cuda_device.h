/* Registration of the CUDA backend in core's device table (core/device.h). */
#ifndef RF_CUDA_DEVICE_H
#define RF_CUDA_DEVICE_H

#include "../core/device.h"

#ifdef __cplusplus
extern "C" {
#endif

void rf_cuda_register(void);

#ifdef __cplusplus
}
#endif

#endif
