/* Run-time CPU feature checks (cpu_features.h). */
#include "cpu_features.h"

bool rf_cpu_avx512(void)
{
    static int known = -1;   /* a benign race: every thread computes the same answer */
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    }
    return known;
}
