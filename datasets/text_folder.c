/* A folder of labelled text files, read as bytes (see text_folder.h). */
#include "text_folder.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "class_order.h"
#include "folder_walk.h"
#include "holdout.h"

#define TEXT_FOLDER_STREAM 0x54657874466f6c64ull   /* "TextFold": this task's shuffle stream */
#define MAX_DEPTH 64                                /* folders below a class folder */

typedef struct text_file {
    int64_t offset;      /* into the bytes */
    int len;
    int cls;
    bool test;           /* from test/ of a fixed split */
    char *rel;           /* path below the root */
} text_file;

typedef struct text_folder {
    rf_dataset ds;
    char *root;
    char **class_names;
    uint8_t *bytes;      /* every file's first max_len bytes, back to back */
    text_file *files;
    int64_t file_count, truncated;
    int64_t *order[RF_SPLIT_COUNT];
} text_folder;

typedef struct scan {
    const char *root;
    int max_len;
    bool strict;
    GByteArray *bytes;
    GArray *files;          /* of text_file */
    GPtrArray *classes;     /* names, sorted, unique */
    GHashTable *visited;    /* "dev:inode" of every folder read */
    int64_t skipped, truncated;
    rf_status *st;
} scan;

/* ---- the folder tree ---- */

/* A bad file: a warning and a count, or the error under data.strict. */
static bool bad_file(scan *sc, const char *path, const char *problem)
{
    if (sc->strict)
        return rf_fail(sc->st, "%s: %s (data.strict = true)", path, problem);
    rf_status_warn(sc->st, "%s: %s (skipped)", path, problem);
    sc->skipped++;
    return true;
}

/* False for a folder read before (a link loop, or two links to one place). */
static bool first_visit(scan *sc, const GStatBuf *info)
{
    char *key = g_strdup_printf("%llu:%llu", (unsigned long long)info->st_dev, (unsigned long long)info->st_ino);
    return g_hash_table_add(sc->visited, key);
}

/* The first max_len bytes of a regular file, appended to the bytes. */
static bool read_file(scan *sc, const char *path, int cls, bool test)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        char *problem = g_strdup_printf("cannot open (%s)", g_strerror(errno));
        bool ok = bad_file(sc, path, problem);
        g_free(problem);
        return ok;
    }
    guint start = sc->bytes->len;
    if ((uint64_t)start + (uint64_t)sc->max_len + 1 > G_MAXUINT) {
        fclose(f);
        return rf_fail(sc->st, "%s: more than 4 GiB of text in the folder (lower data.max_len)", sc->root);
    }
    g_byte_array_set_size(sc->bytes, start + (guint)sc->max_len + 1);
    size_t n = fread(sc->bytes->data + start, 1, (size_t)sc->max_len + 1, f);
    bool failed = ferror(f);
    fclose(f);
    bool cut = n > (size_t)sc->max_len;
    n = cut ? (size_t)sc->max_len : n;
    g_byte_array_set_size(sc->bytes, start + (guint)n);
    if (failed || n == 0) {
        g_byte_array_set_size(sc->bytes, start);
        return bad_file(sc, path, failed ? "read error" : "empty file (no bytes to classify)");
    }
    sc->truncated += cut;
    const char *rel = path + strlen(sc->root);   /* the root has no trailing separator */
    while (G_IS_DIR_SEPARATOR(*rel))
        rel++;
    text_file tf = {start, (int)n, cls, test, g_strdup(rel)};
    g_array_append_val(sc->files, tf);
    return true;
}

/* Every file below dir, in sorted order, as class `cls`. */
static bool walk(scan *sc, const char *dir, int cls, bool test, int depth)
{
    GError *err = NULL;
    GPtrArray *names = rf_folder_list(dir, &err);
    if (names == NULL) {
        char *problem = g_strdup_printf("cannot read the folder (%s)", err->message);
        bool ok = bad_file(sc, dir, problem);
        g_free(problem);
        g_error_free(err);
        return ok;
    }
    bool ok = true;
    for (guint i = 0; ok && i < names->len; i++) {
        char *path = g_build_filename(dir, names->pdata[i], NULL);
        GStatBuf info;
        if (g_stat(path, &info) != 0)
            ok = bad_file(sc, path, g_file_test(path, G_FILE_TEST_IS_SYMLINK) ? "a broken symbolic link"
                                                                               : "cannot be read");
        else if (S_ISDIR(info.st_mode))
            ok = depth >= MAX_DEPTH ? bad_file(sc, path, "folders nested too deep")
                 : first_visit(sc, &info) ? walk(sc, path, cls, test, depth + 1)
                                          : true;
        else if (!S_ISREG(info.st_mode))   /* a FIFO would block the reader */
            ok = bad_file(sc, path, "not a regular file");
        else
            ok = read_file(sc, path, cls, test);
        g_free(path);
    }
    g_ptr_array_unref(names);
    return ok;
}

/* The class folders of dir into sc->classes; files there are bad files. */
static bool collect_classes(scan *sc, const char *dir)
{
    GError *err = NULL;
    GPtrArray *names = rf_folder_list(dir, &err);
    if (names == NULL) {
        rf_fail(sc->st, "%s: cannot read the folder (%s)", dir, err->message);
        g_error_free(err);
        return false;
    }
    bool ok = true;
    for (guint i = 0; ok && i < names->len; i++) {
        char *path = g_build_filename(dir, names->pdata[i], NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR))
            g_ptr_array_add(sc->classes, g_strdup(names->pdata[i]));
        else
            ok = bad_file(sc, path, "not in a class folder (text files go in data.path/<class>/)");
        g_free(path);
    }
    g_ptr_array_unref(names);
    rf_class_names_sort(sc->classes);
    for (guint i = 1; i < sc->classes->len;)   /* train/ and test/ share names */
        if (strcmp(sc->classes->pdata[i - 1], sc->classes->pdata[i]) == 0)
            g_ptr_array_remove_index(sc->classes, i);
        else
            i++;
    return ok;
}

/* Each class needs a training file (else the model never sees it). */
static bool check_classes(scan *sc, bool fixed)
{
    guint n = sc->classes->len;
    if (n < 2)
        return rf_fail(sc->st, "%s: %u class folder%s; a classifier needs at least two (data.path/<class>/<file>)",
                       sc->root, n, n == 1 ? "" : "s");
    int64_t *count = g_new0(int64_t, n);
    for (guint i = 0; i < sc->files->len; i++) {
        const text_file *tf = &g_array_index(sc->files, text_file, i);
        count[tf->cls] += !tf->test;
    }
    bool ok = true;
    for (guint c = 0; ok && c < n; c++)
        if (count[c] == 0) {
            char *dir = g_build_filename(sc->root, fixed ? "train" : "", sc->classes->pdata[c], NULL);
            ok = rf_fail(sc->st, "%s: class folder without a usable text file", dir);
            g_free(dir);
        }
    g_free(count);
    return ok;
}

/* Every file under the root; *fixed tells whether it holds train/ + test/. */
static bool scan_root(scan *sc, bool *fixed)
{
    char *train = g_build_filename(sc->root, "train", NULL), *test = g_build_filename(sc->root, "test", NULL);
    *fixed = rf_folder_has_subdir(train) && rf_folder_has_subdir(test);
    bool ok = *fixed ? collect_classes(sc, train) && collect_classes(sc, test) : collect_classes(sc, sc->root);
    for (int part = 0; ok && part < (*fixed ? 2 : 1); part++)
        for (guint c = 0; ok && c < sc->classes->len; c++) {
            char *dir = g_build_filename(*fixed ? (part ? test : train) : sc->root, sc->classes->pdata[c], NULL);
            GStatBuf info;
            if (g_stat(dir, &info) == 0 && S_ISDIR(info.st_mode) && first_visit(sc, &info))
                ok = walk(sc, dir, (int)c, part == 1, 0);
            g_free(dir);
        }
    g_free(train);
    g_free(test);
    return ok && check_classes(sc, *fixed);
}

/* ---- the data set ---- */

static const text_file *locate(const text_folder *tf, rf_split split, int64_t index)
{
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= tf->ds.size[split])
        return NULL;
    return &tf->files[tf->order[split][index]];
}

static void bytes_to_ids(const uint8_t *bytes, int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = (float)bytes[i] + 1.0f;
}

static bool text_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                     rf_status *st)
{
    const text_folder *t = ds->impl;
    const text_file *f = locate(t, split, index);
    if (f == NULL)
        return rf_fail(st, "text_folder has no %s sample %lld", rf_split_name(split), (long long)index);
    bytes_to_ids(t->bytes + f->offset, f->len, x);
    *len = f->len;
    *label = f->cls;
    return true;
}

void rf_text_folder_printable(const uint8_t *bytes, size_t n, char *buf, size_t size)
{
    if (size == 0)
        return;
    size_t used = 0, i = 0;
    const char *ellipsis = "…";
    while (i < n) {
        const char *p = (const char *)bytes + i;
        gunichar c = g_utf8_get_char_validated(p, (gssize)(n - i));
        char out[8];
        size_t step = 1, w;
        if (c == (gunichar)-1 || c == (gunichar)-2 || c == 0) {
            w = (size_t)g_unichar_to_utf8(0xb7, out);
        } else {
            step = (size_t)(g_utf8_next_char(p) - p);
            c = c == '\t' || c == '\n' || c == '\r' ? ' ' : c;
            w = g_unichar_iscntrl(c) ? (size_t)g_unichar_to_utf8(0xb7, out) : (size_t)g_unichar_to_utf8(c, out);
        }
        if (used + w + (i + step < n ? strlen(ellipsis) : 0) >= size) {
            if (used + strlen(ellipsis) < size) {
                memcpy(buf + used, ellipsis, strlen(ellipsis));
                used += strlen(ellipsis);
            }
            break;
        }
        memcpy(buf + used, out, w);
        used += w;
        i += step;
    }
    buf[used] = '\0';
}

/* "neg/007.txt: It was the best of…" */
static bool text_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    const text_folder *t = ds->impl;
    const text_file *f = locate(t, split, index);
    if (f == NULL || size == 0)
        return false;
    int head = snprintf(buf, size, "%s: ", f->rel);
    if (head >= 0 && (size_t)head < size)
        rf_text_folder_printable(t->bytes + f->offset, (size_t)f->len, buf + head, size - (size_t)head);
    return true;
}

/* A text file (path) or a string as this data set's samples: bytes + 1,
 * cut to seq_len. */
static bool text_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                           rf_status *st)
{
    size_t n;
    uint8_t *bytes;
    if (path != NULL) {
        GStatBuf info;
        if (g_stat(path, &info) != 0 || !S_ISREG(info.st_mode))
            return rf_fail(st, "%s: %s", path, g_file_test(path, G_FILE_TEST_EXISTS) ? "not a regular file"
                                                                                      : "no such file");
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            return rf_fail(st, "%s: cannot open (%s)", path, g_strerror(errno));
        bytes = g_malloc((size_t)ds->seq_len + 1);
        n = fread(bytes, 1, (size_t)ds->seq_len + 1, f);
        bool failed = ferror(f);
        fclose(f);
        if (failed || n == 0) {
            g_free(bytes);
            return rf_fail(st, "%s: %s", path, failed ? "read error" : "empty file (no bytes to classify)");
        }
    } else {
        n = text != NULL ? strlen(text) : 0;
        if (n == 0)
            return rf_fail(st, "the text is empty (no bytes to classify)");
        bytes = g_memdup2(text, n);
    }
    if (n > (size_t)ds->seq_len) {
        rf_status_warn(st, "%s: cut to the first %d bytes (this data set's longest sample)",
                       path != NULL ? path : "the text", ds->seq_len);
        n = (size_t)ds->seq_len;
    }
    bytes_to_ids(bytes, (int)n, x);
    *len = (int)n;
    g_free(bytes);
    return true;
}

static void text_destroy(rf_dataset *ds)
{
    text_folder *t = ds->impl;
    for (int64_t i = 0; i < t->file_count; i++)
        g_free(t->files[i].rel);
    g_free(t->files);
    for (int c = 0; t->class_names != NULL && t->class_names[c] != NULL; c++)
        g_free(t->class_names[c]);
    g_free(t->class_names);
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        free(t->order[s]);
    g_free(t->bytes);
    g_free(t->root);
    g_free(t);
}

rf_dataset *rf_text_folder_open(const rf_config *cfg, rf_status *st)
{
    if (cfg->data.path[0] == '\0') {
        rf_fail(st, "text_folder needs data.path: a folder with one sub-folder of text files per class");
        return NULL;
    }
    if (!g_file_test(cfg->data.path, G_FILE_TEST_IS_DIR)) {
        rf_fail(st, "%s: not a folder (data.path of text_folder)", cfg->data.path);
        return NULL;
    }
    text_folder *t = g_new0(text_folder, 1);
    t->ds.name = "text_folder";
    t->ds.impl = t;
    t->ds.destroy = text_destroy;
    t->root = g_strdup(cfg->data.path);
    for (size_t n = strlen(t->root); n > 1 && G_IS_DIR_SEPARATOR(t->root[n - 1]);)   /* "dir/" names "dir" */
        t->root[--n] = '\0';
    scan sc = {
        .root = t->root,
        .max_len = cfg->data.max_len,
        .strict = strcmp(cfg->data.strict, "true") == 0,
        .bytes = g_byte_array_new(),
        .files = g_array_new(FALSE, TRUE, sizeof(text_file)),
        .classes = g_ptr_array_new_with_free_func(g_free),
        .visited = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .st = st,
    };
    bool fixed = false, ok = scan_root(&sc, &fixed);
    t->truncated = sc.truncated;
    t->file_count = sc.files->len;
    t->files = (text_file *)(void *)g_array_free(sc.files, FALSE);
    t->bytes = g_byte_array_free(sc.bytes, FALSE);
    g_hash_table_destroy(sc.visited);
    t->ds.classes = (int)sc.classes->len;
    g_ptr_array_add(sc.classes, NULL);
    t->class_names = (char **)g_ptr_array_free(sc.classes, FALSE);
    int64_t pool = 0;
    for (int64_t i = 0; i < t->file_count; i++)   /* training files come first */
        pool += !t->files[i].test;
    ok = ok && rf_holdout_split(t->root, "files", pool, t->file_count - pool, cfg, TEXT_FOLDER_STREAM, t->order,
                                t->ds.size, st);
    if (!ok) {
        text_destroy(&t->ds);
        return NULL;
    }
    for (int64_t i = 0; i < t->file_count; i++)
        t->ds.seq_len = t->files[i].len > t->ds.seq_len ? t->files[i].len : t->ds.seq_len;
    t->ds.vocab = RF_TEXT_FOLDER_VOCAB;
    t->ds.class_names = (const char *const *)t->class_names;
    t->ds.get = text_get;
    t->ds.describe = text_describe;
    t->ds.featurise = text_featurise;
    return &t->ds;
}

int64_t rf_text_folder_truncated(const rf_dataset *ds)
{
    return ds != NULL && ds->destroy == text_destroy ? ((const text_folder *)ds->impl)->truncated : 0;
}
