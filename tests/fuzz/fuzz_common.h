/* Shared by the fuzz targets (docs/testing.md,
 * section Fuzzing). The parsers read paths, so each input is written to a
 * file in a private folder under $TMPDIR (run.sh points it at /dev/shm when
 * it can) and read back from there. Everything here must stay cheap: it
 * runs once per input. */
#ifndef RF_FUZZ_COMMON_H
#define RF_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_folder[4096];

__attribute__((unused)) static void fuzz_remove_folder(void)
{
    if (fuzz_folder[0] == '\0')
        return;
    char cmd[4200];
    /* the folder holds only files this process wrote (no sub-folders but
     * the ones named by fuzz_path) */
    snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", fuzz_folder);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", fuzz_folder);
}

/* NAME inside the private folder (made on first use). */
__attribute__((unused)) static const char *fuzz_path(const char *name)
{
    static char path[8192];
    if (fuzz_folder[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_folder, sizeof fuzz_folder, "%s/rf-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(fuzz_folder) == NULL) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_remove_folder);
    }
    snprintf(path, sizeof path, "%s/%s", fuzz_folder, name);
    return path;
}

/* Write `size` bytes to NAME in the private folder; returns its path (a
 * static buffer: copy it before the next call). */
__attribute__((unused)) static const char *fuzz_file(const char *name, const void *data, size_t size)
{
    const char *path = fuzz_path(name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n <= 0) {
            perror(path);
            abort();
        }
        p += n;
        size -= (size_t)n;
    }
    close(fd);
    return path;
}

/* A check of the target's own: a failure is a finding (libFuzzer reports
 * the abort with the input that caused it). */
#define FUZZ_CHECK(cond, ...)                                               \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "fuzz check failed: %s: ", #cond);              \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            abort();                                                        \
        }                                                                   \
    } while (0)

#endif
