/* OpenBLAS kernel choice.
 *
 * Debian 12's OpenBLAS (0.3.21, DYNAMIC_ARCH) picks its kernels from the
 * CPU's identity at load time. CPUs it does not know (seen here: a Sapphire
 * Rapids Xeon that a hypervisor reports as plain "Intel(R) Xeon(R)
 * Processor") fall back to the SSE3 "Prescott" kernels, which run our GEMMs
 * 2-4 times slower than the AVX-512 ones the CPU can run. The choice can
 * only be overridden by OPENBLAS_CORETYPE before the library loads, so a
 * program that finds such a fallback sets it and executes itself again.
 */
#ifndef RF_BLAS_KERNELS_H
#define RF_BLAS_KERNELS_H

/* The kernel set OpenBLAS uses ("SkylakeX", "Haswell", "Prescott", ...). */
const char *rf_blas_kernels(void);

/* The OPENBLAS_CORETYPE this CPU should have when OpenBLAS chose a pre-AVX2
 * fallback the CPU outgrows and the user has not set one; NULL otherwise. */
const char *rf_blas_better_kernels(void);

/* Call first thing in main: when rf_blas_better_kernels() names a kernel
 * set, set OPENBLAS_CORETYPE to it and execute /proc/self/exe with the same
 * arguments. Returns (doing nothing) when no change is needed or the exec
 * fails; never returns otherwise. */
void rf_blas_pick_kernels(char **argv);

#endif
