/* Walking class folders (see folder_walk.h). */
#include "folder_walk.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

bool rf_folder_ignored(const char *name)
{
    return name[0] == '.' || strcmp(name, "__MACOSX") == 0 || g_ascii_strcasecmp(name, "Thumbs.db") == 0 ||
           g_ascii_strcasecmp(name, "desktop.ini") == 0;
}

static int compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

GPtrArray *rf_folder_list(const char *dir, GError **err)
{
    GDir *d = g_dir_open(dir, 0, err);
    if (d == NULL)
        return NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (const char *name; (name = g_dir_read_name(d)) != NULL;)
        if (!rf_folder_ignored(name))
            g_ptr_array_add(names, g_strdup(name));
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);
    return names;
}

bool rf_folder_has_subdir(const char *dir)
{
    GPtrArray *names = rf_folder_list(dir, NULL);
    bool found = false;
    for (guint i = 0; names != NULL && i < names->len && !found; i++) {
        char *path = g_build_filename(dir, names->pdata[i], NULL);
        found = g_file_test(path, G_FILE_TEST_IS_DIR);
        g_free(path);
    }
    if (names != NULL)
        g_ptr_array_unref(names);
    return found;
}

/* Device and inode in one key: two 64-bit words. */
static guint id_hash(gconstpointer p)
{
    const guint64 *id = p;
    return g_int64_hash(&id[0]) * 31u + g_int64_hash(&id[1]);
}

static gboolean id_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, 2 * sizeof(guint64)) == 0;
}

GHashTable *rf_folder_visited_new(void)
{
    return g_hash_table_new_full(id_hash, id_equal, g_free, NULL);
}

bool rf_folder_mark(GHashTable *visited, const char *dir)
{
    GStatBuf sb;
    if (g_stat(dir, &sb) != 0)
        return false;
    guint64 *id = g_new(guint64, 2);
    id[0] = (guint64)sb.st_dev;
    id[1] = (guint64)sb.st_ino;
    return g_hash_table_add(visited, id);   /* frees id when it was there */
}

void rf_folder_files(const char *dir, GHashTable *visited, GPtrArray *files, GPtrArray *problems)
{
    GError *err = NULL;
    GPtrArray *names = rf_folder_list(dir, &err);
    if (names == NULL) {
        g_ptr_array_add(problems, g_strdup_printf("%s: cannot read the folder (%s)", dir, err->message));
        g_error_free(err);
        return;
    }
    for (guint i = 0; i < names->len; i++) {
        char *path = g_build_filename(dir, names->pdata[i], NULL);
        GStatBuf sb;
        if (g_stat(path, &sb) != 0) {
            g_ptr_array_add(problems, g_strdup_printf("%s: %s", path, g_strerror(errno)));
            g_free(path);
        } else if (S_ISDIR(sb.st_mode)) {
            if (rf_folder_mark(visited, path))
                rf_folder_files(path, visited, files, problems);
            g_free(path);
        } else if (S_ISREG(sb.st_mode)) {
            g_ptr_array_add(files, path);
        } else {   /* a FIFO would block the reader */
            g_ptr_array_add(problems, g_strdup_printf("%s: not a regular file", path));
            g_free(path);
        }
    }
    g_ptr_array_unref(names);
}
