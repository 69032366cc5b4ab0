/* What the CPU running this process can execute, for the kernels that pick
 * an AVX-512 path at run time (the same binary runs on CPUs without it). */
#ifndef RF_CPU_FEATURES_H
#define RF_CPU_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

/* AVX-512 F and VL (512-bit registers, and the same instructions at 128
 * and 256 bits), as the attention kernels' hand-written paths use them.
 * RF_CPU_ISA=avx2 in the environment answers no on any CPU, so the AVX2
 * paths run (and are tested) where AVX-512 exists too. */
bool rf_cpu_avx512(void);
/* AVX2 and FMA, the short-head kernels' and row exponentials' second path
 * (an AMD Zen 2, an Intel Haswell). */
bool rf_cpu_avx2(void);

/* The L1 data cache of one core in bytes, as the C library reads it from
 * the CPU (32 KiB where it cannot tell), for kernels that size their
 * blocks to it. */
int64_t rf_cpu_l1d_bytes(void);

/* The CPU that timings are kept for (core/gemm_cache.h, core/tiles.h):
 * /proc/cpuinfo's "model name", "cpu family" and "model", and the widest
 * vector ISA the kernels use on it, as "AMD EPYC, family 23, model 49,
 * AVX2". The model name alone is not enough: a virtual machine shows "AMD
 * EPYC" on both a Zen 2 (AVX2) and a Zen 4 (AVX-512). Fields
 * /proc/cpuinfo lacks read "unknown"; the key has no tab. */
const char *rf_cpu_key(void);

#endif
