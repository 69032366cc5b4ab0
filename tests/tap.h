/* Minimal TAP producer for the test binaries (meson runs them with
 * protocol: 'tap'). Each check prints "ok N - name" or "not ok N - name"
 * with a diagnostic line, or is skipped with a reason (tap_skip); tap_done
 * prints the plan and returns the exit code. */
#ifndef RF_TAP_H
#define RF_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* shared by every object of a test binary (the harness and the test file) */
__attribute__((weak)) int tap_count, tap_failed;

static inline __attribute__((format(printf, 2, 3))) bool tap_ok(bool cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!cond)
        tap_failed++;
    fflush(stdout);
    return cond;
}

/* A check this machine cannot make: "ok N - name # SKIP reason", counted as
 * skipped by meson and by setup.sh's summary, never as passed. */
static inline __attribute__((format(printf, 2, 3))) void tap_skip(const char *name, const char *reason_fmt, ...)
{
    va_list ap;
    va_start(ap, reason_fmt);
    printf("ok %d - %s # SKIP ", ++tap_count, name);
    vprintf(reason_fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/* A diagnostic line (shown by meson on failure). */
static inline __attribute__((format(printf, 1, 2))) void tap_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* Whether the program was started with --portable (remembered in
 * tap_portable_run for the cases): suite `portable` runs the kernel tests
 * on emulated CPUs that way, and they then make only the checks that reach
 * the ISA-dependent code (the RF_VEC_CLONES functions and the kernels that
 * decline without AVX-512), on small shapes: emulation is 10-170x slower
 * than native (docs/testing.md, "Kernels on CPUs without AVX-512 or AVX"). */
__attribute__((weak)) bool tap_portable_run;

static inline bool tap_portable(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--portable") == 0)
            tap_portable_run = true;
    return tap_portable_run;
}

static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
