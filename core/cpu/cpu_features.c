/* Run-time CPU feature checks (cpu_features.h). */
#include "cpu_features.h"

#include <unistd.h>

bool rf_cpu_avx512(void)
{
    static int known = -1;   /* a benign race: every thread computes the same answer */
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    }
    return known;
}

int64_t rf_cpu_l1d_bytes(void)
{
    static int64_t known;   /* 0: not asked yet; the same benign race */
    if (known == 0) {
        long n = sysconf(_SC_LEVEL1_DCACHE_SIZE);
        known = n >= 4096 && n <= (1L << 24) ? n : 32768;   /* unknown or absurd: a common 32 KiB */
    }
    return known;
}
