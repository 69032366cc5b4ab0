#include "atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEMP_SUFFIX ".tmp-"
#define TEMP_RANDOM 6   /* the XXXXXX of mkostemp */

bool rf_write_all(int fd, const void *buf, size_t size)
{
    const char *p = buf;
    while (size > 0) {
        size_t chunk = size < (1u << 30) ? size : (1u << 30);
        ssize_t n = write(fd, p, chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += n;
        size -= (size_t)n;
    }
    return true;
}

/* The folder that holds `path`, malloc'd. */
static char *parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash == NULL ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* Make the rename durable: sync the folder that holds `path`. */
static bool sync_parent_dir(const char *path)
{
    char *dir = parent_dir(path);
    if (dir == NULL)
        return false;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int saved = errno;
    free(dir);
    errno = saved;
    if (fd < 0)
        return false;
    /* some file systems cannot sync a directory; the rename is then as durable as it gets */
    bool ok = fsync(fd) == 0 || errno == EINVAL;
    saved = errno;
    close(fd);
    errno = saved;
    return ok;
}

bool rf_atomic_write(const char *path, rf_atomic_fill fill, void *ctx, rf_status *st)
{
    size_t tmp_size = strlen(path) + sizeof TEMP_SUFFIX + TEMP_RANDOM;
    char *tmp = malloc(tmp_size);
    if (tmp == NULL)
        return rf_fail(st, "%s: out of memory", path);
    snprintf(tmp, tmp_size, "%s" TEMP_SUFFIX "XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        rf_fail(st, "%s: cannot create temporary file %s: %s", path, tmp, strerror(errno));
        free(tmp);
        return false;
    }

    /* mkstemp creates 0600; these are ordinary output files */
    const char *failed = NULL;
    if (fchmod(fd, 0644) != 0)
        failed = "setting permissions of";
    else if (!fill(fd, ctx))
        failed = "writing";
    else if (fsync(fd) != 0)
        failed = "syncing";
    int err = errno;
    if (close(fd) != 0 && failed == NULL) {
        failed = "closing";
        err = errno;
    }
    if (failed == NULL && rename(tmp, path) != 0) {
        failed = "renaming";
        err = errno;
    }
    bool ok = failed == NULL;
    if (!ok) {
        rf_fail(st, "%s: %s temporary file %s failed: %s", path, failed, tmp, strerror(err));
        unlink(tmp);
    } else if (!sync_parent_dir(path)) {
        ok = rf_fail(st, "%s: written, but syncing its directory failed: %s", path, strerror(errno));
    }
    free(tmp);
    return ok;
}

typedef struct byte_span {
    const void *data;
    size_t size;
} byte_span;

static bool fill_bytes(int fd, void *ctx)
{
    const byte_span *b = ctx;
    return rf_write_all(fd, b->data, b->size);
}

bool rf_atomic_write_bytes(const char *path, const void *data, size_t size, rf_status *st)
{
    byte_span b = {data, size};
    return rf_atomic_write(path, fill_bytes, &b, st);
}

/* "<base>.tmp-" followed by exactly what mkostemp puts in place of XXXXXX. */
static bool is_temp_of(const char *name, const char *base)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0 || strncmp(name + n, TEMP_SUFFIX, strlen(TEMP_SUFFIX)) != 0)
        return false;
    const char *rest = name + n + strlen(TEMP_SUFFIX);
    const char *alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    return strlen(rest) == TEMP_RANDOM && strspn(rest, alnum) == TEMP_RANDOM;
}

int rf_atomic_remove_stale(const char *path)
{
    char *dir = parent_dir(path);
    DIR *d = dir != NULL ? opendir(dir) : NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    int removed = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        if (is_temp_of(e->d_name, base) && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    if (d != NULL)
        closedir(d);
    free(dir);
    return removed;
}
