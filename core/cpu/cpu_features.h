/* What the CPU running this process can execute, for the kernels that pick
 * an AVX-512 path at run time (the same binary runs on CPUs without it). */
#ifndef RF_CPU_FEATURES_H
#define RF_CPU_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

/* AVX-512 F and VL (512-bit registers, and the same instructions at 128
 * and 256 bits), as the attention kernels' hand-written paths use them. */
bool rf_cpu_avx512(void);

/* The L1 data cache of one core in bytes, as the C library reads it from
 * the CPU (32 KiB where it cannot tell), for kernels that size their
 * blocks to it. */
int64_t rf_cpu_l1d_bytes(void);

#endif
