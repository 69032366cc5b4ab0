/* OpenBLAS kernel choice (see blas_kernels.h). */
#include "blas_kernels.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

char *openblas_get_corename(void);    /* OpenBLAS's own API; cblas.h does not declare it */

const char *rf_blas_kernels(void)
{
    return openblas_get_corename();
}

#if defined(__x86_64__) && defined(__GNUC__)
/* OpenBLAS's core names whose kernels stop short of AVX2 (its x86 fallbacks). */
static int pre_avx2(const char *name)
{
    static const char *const names[] = {"prescott", "core2",  "penryn",    "dunnington", "nehalem",
                                        "atom",     "sandybridge", "barcelona", "opteron"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (name != NULL && strcasecmp(name, names[i]) == 0)
            return 1;
    return 0;
}
#endif

const char *rf_blas_better_kernels(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (getenv("OPENBLAS_CORETYPE") != NULL || !pre_avx2(rf_blas_kernels()))
        return NULL;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
#endif
    return NULL;
}

void rf_blas_pick_kernels(char **argv)
{
    const char *better = rf_blas_better_kernels();
    if (better == NULL || argv == NULL || argv[0] == NULL)
        return;
    /* Set even if the exec fails: a child never tries again. */
    if (setenv("OPENBLAS_CORETYPE", better, 1) != 0)
        return;
    execv("/proc/self/exe", argv);
}
