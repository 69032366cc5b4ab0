/* Run-time CPU feature checks (cpu_features.h). */
#include "cpu_features.h"

#include <unistd.h>

bool rf_cpu_avx512(void)
{
    /* -1: not asked yet. Kernels ask from the pool's threads, so the answer
     * is kept atomically (every thread computes the same one). */
    static int known = -1;
    int yes = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (yes < 0) {
        __builtin_cpu_init();
        yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
        __atomic_store_n(&known, yes, __ATOMIC_RELAXED);
    }
    return yes;
}

int64_t rf_cpu_l1d_bytes(void)
{
    /* 0: not asked yet. Kernels ask from the pool's threads, so the
     * answer is kept atomically (every thread computes the same one). */
    static int64_t known;
    int64_t bytes = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (bytes == 0) {
        long n = sysconf(_SC_LEVEL1_DCACHE_SIZE);
        bytes = n >= 4096 && n <= (1L << 24) ? n : 32768;   /* unknown or absurd: a common 32 KiB */
        __atomic_store_n(&known, bytes, __ATOMIC_RELAXED);
    }
    return bytes;
}
