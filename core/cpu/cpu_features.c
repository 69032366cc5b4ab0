/* Run-time CPU feature checks (cpu_features.h). */
#include "cpu_features.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rf_cpu_avx512(void)
{
    /* -1: not asked yet. Kernels ask from the pool's threads, so the answer
     * is kept atomically (every thread computes the same one). */
    static int known = -1;
    int yes = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (yes < 0) {
        __builtin_cpu_init();
        const char *isa = getenv("RF_CPU_ISA");
        yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
              (isa == NULL || strcmp(isa, "avx2") != 0);
        __atomic_store_n(&known, yes, __ATOMIC_RELAXED);
    }
    return yes;
}

bool rf_cpu_avx2(void)
{
    static int known = -1;   /* as in rf_cpu_avx512 */
    int yes = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (yes < 0) {
        __builtin_cpu_init();
        yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
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

/* The value of /proc/cpuinfo's first line named `name` into out. */
static void cpuinfo_field(const char *name, char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    size_t len = strlen(name);
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, name, len) != 0 || colon == NULL || strspn(line + len, " \t") != (size_t)(colon - line) - len)
            continue;
        const char *v = colon + 1;
        v += strspn(v, " \t");
        int n = (int)strcspn(v, "\t\n");
        if (n > 0)
            snprintf(out, size, "%.*s", n, v);
        break;
    }
    if (f != NULL)
        fclose(f);
}

static char key[192];

static void make_key(void)
{
    char model_name[128], family[16], model[16];
    cpuinfo_field("model name", model_name, sizeof model_name);
    cpuinfo_field("cpu family", family, sizeof family);
    cpuinfo_field("model", model, sizeof model);
    __builtin_cpu_init();
    const char *isa = rf_cpu_avx512() ? "AVX-512" : __builtin_cpu_supports("avx2") ? "AVX2" : "SSE";
    snprintf(key, sizeof key, "%s, family %s, model %s, %s", model_name, family, model, isa);
}

const char *rf_cpu_key(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_key);
    return key;
}
