/* What both cache files' tests share (tests/test_gemm.c,
 * tests/test_tiles.c): each bad file refused whole, the message naming
 * the file, the line and the problem; and the cleaning up. */
#ifndef RF_TEST_CACHE_REFUSALS_H
#define RF_TEST_CACHE_REFUSALS_H

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/status.h"
#include "tap.h"

typedef struct cache_refusal {
    const char *what, *text, *says;   /* the case, the file's text, what the message must say */
} cache_refusal;

/* Reads `path`, returning whether it was trusted (and nothing kept when not). */
typedef bool (*cache_read_fn)(const char *path, rf_status *st);

static inline void check_cache_refusals(const char *path, const cache_refusal *bad, size_t n, cache_read_fn read)
{
    for (size_t i = 0; i < n; i++) {
        g_file_set_contents(path, bad[i].text, -1, NULL);
        rf_status st = {0};
        bool refused = !read(path, &st) && strstr(st.msg, path) != NULL && strstr(st.msg, bad[i].says) != NULL;
        tap_ok(refused, "%s is refused: %s", bad[i].what, st.msg);
    }
}

/* Remove the cache file `path` (malloc'd), its rangefinder folder and the
 * temporary folder `dir` (g_malloc'd) holding it, and free both names. */
static inline void remove_cache_dir(char *dir, char *path)
{
    g_remove(path);
    char *sub = g_build_filename(dir, "rangefinder", NULL);
    g_rmdir(sub);
    g_rmdir(dir);
    g_free(sub);
    free(path);
    g_free(dir);
}

#endif
