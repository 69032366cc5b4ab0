#include "kept_weights.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

#define PREFIX "step-"
#define SUFFIX ".safetensors"

int rf_kept_weights_thin(const int64_t *steps, int n, int keep, bool *drop)
{
    for (int i = 0; i < n; i++)
        drop[i] = false;
    int left = n;
    while (left > (keep > 0 ? keep : 0)) {
        int victim = -1;
        if (keep < 2) {   /* the earliest goes: the latest stays longest */
            for (int i = 0; victim < 0 && i < n; i++)
                if (!drop[i])
                    victim = i;
        } else {
            /* a, b: the two survivors before i; b is interior once a exists */
            int a = -1, b = -1;
            int64_t best = INT64_MAX;
            for (int i = 0; i < n; i++) {
                if (drop[i])
                    continue;
                if (a >= 0 && steps[i] - steps[a] < best) {
                    best = steps[i] - steps[a];
                    victim = b;
                }
                a = b;
                b = i;
            }
        }
        drop[victim] = true;
        left--;
    }
    return left;
}

bool rf_kept_weights_path(const char *run_dir, int64_t step, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s/" RF_KEPT_WEIGHTS_DIR "/" PREFIX "%06" PRId64 SUFFIX, run_dir, step);
    return n > 0 && (size_t)n < size;
}

/* "step-NNNNNN.safetensors" -> NNNNNN; false for any other name (the
 * temporary files of writes under way among them). */
static bool parse_name(const char *name, int64_t *step)
{
    size_t len = strlen(name), pre = strlen(PREFIX), suf = strlen(SUFFIX);
    if (len <= pre + suf || strncmp(name, PREFIX, pre) != 0 || strcmp(name + len - suf, SUFFIX) != 0)
        return false;
    int64_t v = 0;
    for (size_t i = pre; i < len - suf; i++) {
        if (name[i] < '0' || name[i] > '9' || v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (name[i] - '0');
    }
    *step = v;
    return true;
}

static int compare_steps(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

bool rf_kept_weights_list(const char *run_dir, int64_t **steps, int *count, rf_status *st)
{
    *steps = NULL;
    *count = 0;
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s/" RF_KEPT_WEIGHTS_DIR, run_dir) >= (int)sizeof dir)
        return rf_fail(st, "%s: the path is too long", run_dir);
    DIR *d = opendir(dir);
    if (d == NULL)
        return errno == ENOENT || errno == ENOTDIR ||
               rf_fail(st, "%s: cannot read the folder: %s", dir, strerror(errno));
    int64_t *list = NULL;
    int n = 0, room = 0;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        int64_t step;
        if (!parse_name(e->d_name, &step))
            continue;
        if (n == room) {
            room = room ? 2 * room : 32;
            int64_t *grown = realloc(list, (size_t)room * sizeof *list);
            if (grown == NULL) {
                ok = rf_fail(st, "%s: out of memory listing the folder", dir);
                break;
            }
            list = grown;
        }
        list[n++] = step;
    }
    closedir(d);
    if (!ok) {
        free(list);
        return false;
    }
    if (n > 0)
        qsort(list, (size_t)n, sizeof *list, compare_steps);
    *steps = list;
    *count = n;
    return true;
}

/* Delete the kept steps past `keep`. */
static bool thin(const char *run_dir, int keep, rf_status *st)
{
    int64_t *steps;
    int n;
    if (!rf_kept_weights_list(run_dir, &steps, &n, st))
        return false;
    bool *drop = calloc((size_t)n + 1, sizeof *drop);
    bool ok = drop != NULL || rf_fail(st, "%s: out of memory", run_dir);
    if (ok)
        rf_kept_weights_thin(steps, n, keep, drop);
    for (int i = 0; ok && i < n; i++) {
        char path[4096];
        if (drop[i] && rf_kept_weights_path(run_dir, steps[i], path, sizeof path) && unlink(path) != 0 &&
            errno != ENOENT)
            ok = rf_fail(st, "%s: cannot remove it: %s", path, strerror(errno));
    }
    free(drop);
    free(steps);
    return ok;
}

bool rf_kept_weights_save(rf_trainer *t, const char *run_dir, int64_t step, int keep, rf_status *st)
{
    if (keep <= 0)
        return true;
    char dir[4096], path[4096];
    if (snprintf(dir, sizeof dir, "%s/" RF_KEPT_WEIGHTS_DIR, run_dir) >= (int)sizeof dir ||
        !rf_kept_weights_path(run_dir, step, path, sizeof path))
        return rf_fail(st, "%s: the path is too long", run_dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return rf_fail(st, "%s: cannot make the folder: %s", dir, strerror(errno));
    rf_atomic_remove_stale(path);
    return rf_trainer_save_weights(t, path, st) && thin(run_dir, keep, st);
}

/* A killed write's temporary file: "step-NNNNNN.safetensors.tmp-XXXXXX". */
static bool is_temporary(const char *name)
{
    const char *tmp = strstr(name, SUFFIX ".tmp-");
    return strncmp(name, PREFIX, strlen(PREFIX)) == 0 && tmp != NULL;
}

bool rf_kept_weights_forget_after(const char *run_dir, int64_t step, rf_status *st)
{
    char dir[4096], path[8192];
    if (snprintf(dir, sizeof dir, "%s/" RF_KEPT_WEIGHTS_DIR, run_dir) >= (int)sizeof dir)
        return rf_fail(st, "%s: the path is too long", run_dir);
    DIR *d = opendir(dir);
    if (d == NULL)
        return errno == ENOENT || errno == ENOTDIR ||
               rf_fail(st, "%s: cannot read the folder: %s", dir, strerror(errno));
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        int64_t kept;
        bool later = parse_name(e->d_name, &kept) && kept > step;
        if (!later && !is_temporary(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            ok = rf_fail(st, "%s: cannot remove it: %s", path, strerror(errno));
    }
    closedir(d);
    return ok;
}
