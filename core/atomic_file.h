/* Replacing a file atomically, for every file the program rewrites
 * (checkpoints, config.ini): the contents go to PATH.tmp-XXXXXX in the same
 * folder, are fsync'd, the temporary file is renamed over PATH and the
 * folder is synced. A crash at any moment leaves the old file or the new
 * one, never a mix. A write that fails removes its temporary file; one that
 * is killed leaves it, and rf_atomic_remove_stale removes it at the next
 * start.
 */
#ifndef RF_ATOMIC_FILE_H
#define RF_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"

/* Writes the new contents to fd; false with errno set on failure. */
typedef bool (*rf_atomic_fill)(int fd, void *ctx);

/* Replace `path` with what `fill` writes (mode 0644). Errors name the path,
 * the failed step and the system's reason. */
bool rf_atomic_write(const char *path, rf_atomic_fill fill, void *ctx, rf_status *st);
bool rf_atomic_write_bytes(const char *path, const void *data, size_t size, rf_status *st);

/* write(2) until done (EINTR retried); false with errno set. */
bool rf_write_all(int fd, const void *buf, size_t size);

/* Delete the PATH.tmp-XXXXXX files that killed writes of `path` left
 * behind; returns how many. Only for a file this process alone writes. */
int rf_atomic_remove_stale(const char *path);

#endif
