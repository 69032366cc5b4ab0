/* The matrix-product ceiling, measured once and cached (core/peak.h). */
#include "peak.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "atomic_file.h"
#include "blas.h"

#define MAGIC "rangefinder peak_gflops 1"
#define FILE_MAX 4096

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* FNV-1a, 64 bits: the file's checksum and its name's hash. */
static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* /proc/cpuinfo's first "model name", or "unknown CPU". */
static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        char *v = colon + 1 + strspn(colon + 1, " \t");
        v[strcspn(v, "\r\n")] = '\0';
        snprintf(out, size, "%s", v);
        break;
    }
    fclose(f);
}

void rf_peak_key(int threads, char *key, size_t size)
{
    char model[256];
    cpu_model(model, sizeof model);
    const char *lib = openblas_get_config();
    snprintf(key, size, "cpu=%s;threads=%d;gemm=%s;f32=openblas,onednn", model, threads,
             lib != NULL ? lib : "OpenBLAS");
    for (char *c = key; *c; c++)   /* one line */
        *c = *c == '\n' || *c == '\r' ? ' ' : *c;
}

/* The sweep: square, tall and wide products, each timed three times with
 * each f32 library (core/gemm.h): the best either reaches, whatever
 * train.gemm and train.precision say (a bf16 product is not the f32
 * ceiling). */
static const int SHAPES[][3] = {{1024, 1024, 1024}, {8192, 128, 1024}, {2048, 2048, 256}, {512, 2048, 2048}};
enum { REPEATS = 3 };

double rf_peak_measure(rf_pool *pool)
{
    size_t a = 0, b = 0, c = 0;
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        size_t m = (size_t)SHAPES[s][0], n = (size_t)SHAPES[s][1], k = (size_t)SHAPES[s][2];
        a = m * k > a ? m * k : a;
        b = k * n > b ? k * n : b;
        c = m * n > c ? m * n : c;
    }
    float *A = malloc(a * sizeof *A), *B = malloc(b * sizeof *B), *C = calloc(c, sizeof *C);
    double best = 0;
    if (A != NULL && B != NULL && C != NULL) {
        for (size_t i = 0; i < a; i++)
            A[i] = (float)(i % 17) * 0.01f;
        for (size_t i = 0; i < b; i++)
            B[i] = (float)(i % 13) * 0.01f;
        for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
            int m = SHAPES[s][0], n = SHAPES[s][1], k = SHAPES[s][2];
            for (int lib = 0; lib < RF_GEMM_LIBS; lib++)
                for (int r = 0; r < REPEATS; r++) {
                    double t0 = now_s();
                    rf_sgemm_on(pool, (rf_gemm_lib)lib, false, false, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
                    double dt = now_s() - t0, rate = dt > 0 ? 2.0 * m * n * k / dt / 1e9 : 0;
                    best = rate > best ? rate : best;
                }
        }
    }
    free(A);
    free(B);
    free(C);
    return best;
}

bool rf_peak_cache_path(const char *key, char *path, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    uint64_t h = fnv1a(key, strlen(key));
    int n;
    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(path, size, "%s/rangefinder/peak-gflops-%016" PRIx64 ".txt", xdg, h);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(path, size, "%s/.cache/rangefinder/peak-gflops-%016" PRIx64 ".txt", home, h);
    else
        return false;
    return n > 0 && (size_t)n < size;
}

/* The body that the checksum covers: the magic, key and rate lines. */
static int body(char *out, size_t size, const char *key, double gflops)
{
    return snprintf(out, size, MAGIC "\nkey=%s\ngflops=%.17g\n", key, gflops);
}

rf_peak_cache rf_peak_cache_read(const char *path, const char *key, double *gflops, rf_status *st)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return RF_PEAK_CACHE_MISSING;
    char text[FILE_MAX + 1];
    size_t n = fread(text, 1, FILE_MAX, f);
    bool too_long = n == FILE_MAX && fgetc(f) != EOF;
    fclose(f);
    text[n] = '\0';
    if (too_long || strlen(text) != n) {
        rf_fail(st, "%s: not a peak_gflops cache (too long or binary)", path);
        return RF_PEAK_CACHE_CORRUPT;
    }
    /* MAGIC \n key=... \n gflops=... \n check=<16 hex> \n */
    char *check = strstr(text, "\ncheck=");
    if (strncmp(text, MAGIC "\nkey=", strlen(MAGIC "\nkey=")) != 0 || check == NULL) {
        rf_fail(st, "%s: not a peak_gflops cache (no header or checksum line)", path);
        return RF_PEAK_CACHE_CORRUPT;
    }
    size_t covered = (size_t)(check - text) + 1;
    char hex[32], rest;
    if (sscanf(check + 7, "%16[0-9a-f]%c", hex, &rest) != 2 || strlen(hex) != 16 || rest != '\n' ||
        check[7 + 17] != '\0') {
        rf_fail(st, "%s: its checksum line is malformed", path);
        return RF_PEAK_CACHE_CORRUPT;
    }
    char want[17];
    snprintf(want, sizeof want, "%016" PRIx64, fnv1a(text, covered));
    if (strcmp(hex, want) != 0) {
        rf_fail(st, "%s: its checksum does not match its contents", path);
        return RF_PEAK_CACHE_CORRUPT;
    }
    text[covered] = '\0';
    char *key_line = text + strlen(MAGIC "\nkey="), *nl = strchr(key_line, '\n');
    if (nl == NULL || strncmp(nl, "\ngflops=", 8) != 0) {
        rf_fail(st, "%s: no gflops line after the key", path);
        return RF_PEAK_CACHE_CORRUPT;
    }
    *nl = '\0';
    if (strcmp(key_line, key) != 0)
        return RF_PEAK_CACHE_MISSING;
    char *end;
    errno = 0;
    double v = strtod(nl + 8, &end);
    if (errno != 0 || end == nl + 8 || strcmp(end, "\n") != 0 || !isfinite(v) || v <= 0) {
        rf_fail(st, "%s: its rate '%.*s' is not a positive number", path, (int)strcspn(nl + 8, "\n"), nl + 8);
        return RF_PEAK_CACHE_CORRUPT;
    }
    *gflops = v;
    return RF_PEAK_CACHE_VALID;
}

/* mkdir -p of path's folder */
static bool make_folder(const char *path, rf_status *st)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        return true;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return rf_fail(st, "%s: cannot create the folder: %s", dir, strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return rf_fail(st, "%s: cannot create the folder: %s", dir, strerror(errno));
    return true;
}

bool rf_peak_cache_write(const char *path, const char *key, double gflops, rf_status *st)
{
    char text[FILE_MAX];
    int n = body(text, sizeof text, key, gflops);
    if (n < 0 || (size_t)n + 32 > sizeof text)
        return rf_fail(st, "%s: the key is too long for a peak_gflops cache", path);
    n += snprintf(text + n, sizeof text - (size_t)n, "check=%016" PRIx64 "\n", fnv1a(text, (size_t)n));
    return make_folder(path, st) && rf_atomic_write_bytes(path, text, (size_t)n, st);
}

double rf_peak_gflops(int threads, bool *measured)
{
    char key[1024], path[4096];
    rf_peak_key(threads, key, sizeof key);
    bool have_path = rf_peak_cache_path(key, path, sizeof path);
    rf_status st = {0};
    double gflops = 0;
    if (have_path) {
        rf_peak_cache c = rf_peak_cache_read(path, key, &gflops, &st);
        if (c == RF_PEAK_CACHE_VALID) {
            if (measured != NULL)
                *measured = false;
            return gflops;
        }
        if (c == RF_PEAK_CACHE_CORRUPT)
            rf_warn("%s; measuring the matrix-product peak again", st.msg);
    }
    rf_pool *pool = rf_pool_new(threads);
    gflops = rf_peak_measure(pool);
    rf_pool_free(pool);
    if (measured != NULL)
        *measured = true;
    rf_status_clear(&st);
    if (have_path && gflops > 0 && !rf_peak_cache_write(path, key, gflops, &st))
        rf_warn("the matrix-product peak is not cached: %s", st.msg);
    return gflops;
}
