/* The matrix-product peak's cache (core/peak.h): a written file reads back
 * the same rate for its key; another key's file counts as missing; every
 * kind of damage (a changed digit, a cut, a changed key, a bad rate with a
 * matching checksum, binary junk) is refused; and rf_peak_gflops measures
 * once, then reads the cache, and re-measures (with a warning) and repairs
 * a corrupt one; the sweep's products are f32 whatever train.precision
 * says (none asks rf_gemm_choice, which routes bf16 runs' products to
 * oneDNN's bf16 kernels). No timing is asserted: only that a measurement
 * is a positive rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/gemm.h"
#include "../core/gemm_bf16.h"
#include "../core/peak.h"
#include "../core/pool.h"
#include "tap.h"

static char dir[256];

static int warnings;
static void count_warning(const char *msg, void *ctx)
{
    (void)ctx;
    warnings++;
    printf("# warning: %s\n", msg);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
}

static size_t read_text(const char *path, char *text, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t n = f != NULL ? fread(text, 1, size - 1, f) : 0;
    text[n] = '\0';
    if (f != NULL)
        fclose(f);
    return n;
}

static rf_peak_cache read_back(const char *path, const char *key, double *v)
{
    rf_status st = {0};
    rf_peak_cache c = rf_peak_cache_read(path, key, v, &st);
    if (c == RF_PEAK_CACHE_CORRUPT)
        printf("# %s\n", st.msg);
    return c;
}

static void check_round_trip(void)
{
    char path[512], text[4096], bad[4096];
    snprintf(path, sizeof path, "%s/sub/peak.txt", dir);
    const char *key = "cpu=Test CPU;threads=2;gemm=OpenBLAS 0.3.21";
    rf_status st = {0};
    double v = 0;
    tap_ok(read_back(path, key, &v) == RF_PEAK_CACHE_MISSING, "no file: missing");
    tap_ok(rf_peak_cache_write(path, key, 123.456789, &st), "writes a cache file (creating its folder)");
    rf_peak_cache c = read_back(path, key, &v);
    tap_ok(c == RF_PEAK_CACHE_VALID && v == 123.456789, "reads back the same rate (%.9g)", v);
    tap_ok(read_back(path, "cpu=Other;threads=2;gemm=x", &v) == RF_PEAK_CACHE_MISSING,
           "another key's file counts as missing");

    size_t n = read_text(path, text, sizeof text);
    char *rate = strstr(text, "gflops=") + 7;
    memcpy(bad, text, n + 1);
    bad[rate - text] = bad[rate - text] == '9' ? '8' : '9';
    write_text(path, bad);
    tap_ok(read_back(path, key, &v) == RF_PEAK_CACHE_CORRUPT, "a changed digit of the rate is refused");

    memcpy(bad, text, n + 1);
    bad[n / 2] = '\0';
    write_text(path, bad);
    tap_ok(read_back(path, key, &v) == RF_PEAK_CACHE_CORRUPT, "a cut file is refused");

    memcpy(bad, text, n + 1);
    strstr(bad, "Test")[0] = 'B';
    write_text(path, bad);
    tap_ok(read_back(path, key, &v) == RF_PEAK_CACHE_CORRUPT, "a changed key (checksum) is refused");

    tap_ok(rf_peak_cache_write(path, key, 0.0, &st) && read_back(path, key, &v) == RF_PEAK_CACHE_CORRUPT,
           "a rate of 0 with a matching checksum is refused");
    write_text(path, "\x7f" "ELF\x02\x01\x01");
    tap_ok(read_back(path, key, &v) == RF_PEAK_CACHE_CORRUPT, "binary junk is refused");
    remove(path);
    snprintf(path, sizeof path, "%s/sub", dir);
    rmdir(path);
}

static void check_measure_and_cache(void)
{
    setenv("XDG_CACHE_HOME", dir, 1);
    char key[1024], path[4096], text[4096];
    rf_peak_key(2, key, sizeof key);
    tap_ok(rf_peak_cache_path(key, path, sizeof path) && strncmp(path, dir, strlen(dir)) == 0,
           "the cache file lies under $XDG_CACHE_HOME/rangefinder (%s)", path);
    bool measured = false;
    double first = rf_peak_gflops(2, &measured);
    tap_ok(measured && first > 0 && access(path, R_OK) == 0, "no cache: measured (%.1f GFLOP/s) and cached", first);
    double second = rf_peak_gflops(2, &measured);
    tap_ok(!measured && second == first, "then read from the cache (%.1f GFLOP/s)", second);

    size_t n = read_text(path, text, sizeof text);
    text[n - 3] = text[n - 3] == '0' ? '1' : '0';   /* a digit of the checksum */
    write_text(path, text);
    warnings = 0;
    rf_set_warn_handler(count_warning, NULL);
    double third = rf_peak_gflops(2, &measured);
    rf_set_warn_handler(NULL, NULL);
    double v = 0;
    tap_ok(measured && third > 0 && warnings == 1, "a corrupt cache is measured again, with a warning");
    tap_ok(read_back(path, key, &v) == RF_PEAK_CACHE_VALID && v == third, "and replaced by a valid one");
    remove(path);
    snprintf(path, sizeof path, "%s/rangefinder", dir);
    rmdir(path);
}

/* A bf16 run's bench measured its "f32 ceiling" with bf16 products (441
 * GFLOP/s cached for one Zen 4 thread, whose f32 peak is about 120). */
static void check_measure_is_f32(void)
{
    rf_status st = {0};
    bool bf16 = rf_bf16_supported() && rf_gemm_set_precision("bf16", &st);
    rf_gemm_reset_calls();
    rf_pool *pool = rf_pool_new(1);
    double rate = rf_peak_measure(pool);
    rf_pool_free(pool);
    rf_gemm_entry e[256];
    int64_t calls = 0;
    for (int i = 0, n = rf_gemm_entries(e, 256); i < n; i++)
        calls += e[i].calls;
    tap_ok(rate > 0 && calls == 0, "the sweep runs f32 products with train.precision = %s: %.1f GFLOP/s, %lld "
           "products through rf_gemm_choice", bf16 ? "bf16" : "f32 (no bf16 on this CPU)", rate, (long long)calls);
    rf_gemm_set_precision("f32", &st);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/rf-peak.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL)
        return 1;
    check_round_trip();
    check_measure_and_cache();
    check_measure_is_f32();
    rmdir(dir);
    return tap_done();
}
