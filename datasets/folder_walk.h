/* Class folders as people keep them (image_folder, audio_folder).
 *
 * A class folder's files are every file below it at any depth, in sorted
 * order of their relative paths (depth first, each folder's entries sorted
 * by byte order). Junk is ignored silently: hidden entries (".name", so
 * .DS_Store too), Thumbs.db, desktop.ini and __MACOSX/. Symbolic links are
 * followed; a folder is entered once per walk (by device and inode), so a
 * link back up or a link to another class folder already marked adds nothing
 * and a loop ends. What is neither a file nor a folder (a FIFO, a dangling
 * link) and a folder that cannot be read become problems, "PATH: reason". */
#ifndef RF_DATASETS_FOLDER_WALK_H
#define RF_DATASETS_FOLDER_WALK_H

#include <glib.h>
#include <stdbool.h>

/* Junk that folders carry, by name. */
bool rf_folder_ignored(const char *name);

/* The entries of dir that are not junk, sorted; NULL with *err if dir cannot be read. */
GPtrArray *rf_folder_list(const char *dir, GError **err);

/* Whether dir holds a folder (not junk, links followed). */
bool rf_folder_has_subdir(const char *dir);

/* A set of folders by device and inode (free with g_hash_table_unref). */
GHashTable *rf_folder_visited_new(void);

/* Adds dir (links followed) to visited; false if it was there already or cannot be read. */
bool rf_folder_mark(GHashTable *visited, const char *dir);

/* Appends the full path of every file below dir to files (g_free'd
 * strings) and each problem to problems. dir itself is read whether or not
 * it is marked; the folders below it are entered only if rf_folder_mark
 * takes them. */
void rf_folder_files(const char *dir, GHashTable *visited, GPtrArray *files, GPtrArray *problems);

#endif
