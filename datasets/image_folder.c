/* A folder of labelled images (see image_folder.h). */
#include "image_folder.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "class_order.h"
#include "folder_report.h"
#include "folder_walk.h"
#include "image_decode.h"
#include "tsan_sync.h"

#define IMAGE_FOLDER_STREAM 0x496d616765466f6cull   /* "ImageFol": this task's shuffle stream */
#define MAX_LOAD_THREADS 16

/* A file found under a class folder, decoded into its slot of `pixels`. */
typedef struct candidate {
    char *path;
    const char *rel;      /* inside path: class/..., the name kept for describe() */
    int label;
    const char *format;   /* gdk-pixbuf's name, when recognised */
    char *problem;        /* why it cannot be used */
} candidate;

typedef struct loader {
    rf_image_table *t;
    const char *root;
    rf_image_options opt;
    size_t image_bytes;
    rf_skips skips;
    rf_status *st;
    GArray *files;        /* of candidate, in class then path order */
    uint8_t *pixels;      /* [files->len][image_bytes] while decoding */
    gint done;            /* files decoded, for the progress */
} loader;

/* The class folders under the root in class order (class_order.h), each marked as visited so that
 * no walk enters another class; other entries are bad files. */
static GPtrArray *find_classes(loader *ld, GHashTable *visited)
{
    GError *err = NULL;
    GPtrArray *entries = rf_folder_list(ld->root, &err);
    if (entries == NULL) {
        rf_fail(ld->st, "%s: cannot read the folder (%s)", ld->root, err->message);
        g_error_free(err);
        return NULL;
    }
    rf_folder_mark(visited, ld->root);
    GPtrArray *classes = g_ptr_array_new_with_free_func(g_free);
    bool ok = true;
    for (guint i = 0; ok && i < entries->len; i++) {
        const char *name = g_ptr_array_index(entries, i);
        char *path = g_build_filename(ld->root, name, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
            g_ptr_array_add(classes, g_strdup(name));
            rf_folder_mark(visited, path);
        } else {
            char *message = g_strdup_printf("%s: not a class folder (images go in data.path/<class>/)", path);
            ok = rf_skips_add(&ld->skips, message);
            g_free(message);
        }
        g_free(path);
    }
    g_ptr_array_unref(entries);
    rf_class_names_sort(classes);
    if (ok && classes->len < 2)
        ok = rf_fail(ld->st, "%s: %u class folder%s; a classifier needs at least two (data.path/<class>/<image>)",
                     ld->root, classes->len, classes->len == 1 ? "" : "s");
    if (!ok) {
        g_ptr_array_unref(classes);
        return NULL;
    }
    return classes;
}

/* Every file below each class folder, at any depth; unreadable entries
 * are skipped files. */
static bool find_files(loader *ld, GPtrArray *classes, GHashTable *visited)
{
    bool ok = true;
    for (guint c = 0; ok && c < classes->len; c++) {
        char *dir = g_build_filename(ld->root, classes->pdata[c], NULL);
        GPtrArray *files = g_ptr_array_new(), *problems = g_ptr_array_new_with_free_func(g_free);
        rf_folder_files(dir, visited, files, problems);
        for (guint i = 0; ok && i < problems->len; i++)
            ok = rf_skips_add(&ld->skips, problems->pdata[i]);
        for (guint i = 0; i < files->len; i++) {
            candidate f = {.path = files->pdata[i], .label = (int)c};
            f.rel = f.path + strlen(ld->root) + 1;
            g_array_append_val(ld->files, f);
        }
        g_ptr_array_unref(files);
        g_ptr_array_unref(problems);
        g_free(dir);
    }
    return ok;
}

static void decode_one(gpointer item, gpointer user)
{
    loader *ld = user;
    RF_TSAN_ACQUIRE(ld);
    size_t i = (uintptr_t)item - 1;
    candidate *f = &g_array_index(ld->files, candidate, i);
    char *problem = NULL;
    if (!rf_image_decode(f->path, &ld->opt, ld->pixels + i * ld->image_bytes, &f->format, &problem))
        f->problem = problem;
    rf_load_progress("images", g_atomic_int_add(&ld->done, 1) + 1, ld->files->len);
    RF_TSAN_RELEASE(ld);
}

/* Decodes every candidate, on `threads` threads. */
static bool decode_all(loader *ld, int threads)
{
    size_t n = ld->files->len;
    ld->pixels = malloc((n > 0 ? n : 1) * ld->image_bytes);
    if (ld->pixels == NULL)
        return rf_fail(ld->st, "%s: out of memory for %zu images", ld->root, n);
    rf_load_progress("images", 0, (int64_t)n);
    GThreadPool *pool = threads > 1 && n > 1 ? g_thread_pool_new(decode_one, ld, threads, FALSE, NULL) : NULL;
    for (size_t i = 0; i < n; i++) {
        gpointer item = (gpointer)(uintptr_t)(i + 1);
        RF_TSAN_RELEASE(ld);
        if (pool == NULL || !g_thread_pool_push(pool, item, NULL))
            decode_one(item, ld);
    }
    if (pool != NULL)
        g_thread_pool_free(pool, FALSE, TRUE);
    RF_TSAN_ACQUIRE(ld);
    return true;
}

/* The decoded images into the table in file order; bad ones skipped (or
 * the error under data.strict); a class without an image is an error. */
static bool keep_decoded(loader *ld, const GPtrArray *classes)
{
    rf_image_table *t = ld->t;
    size_t n = ld->files->len;
    t->labels = malloc((n > 0 ? n : 1) * sizeof *t->labels);
    t->names = calloc(n > 0 ? n : 1, sizeof *t->names);
    if (t->labels == NULL || t->names == NULL)
        return rf_fail(ld->st, "%s: out of memory", ld->root);
    t->pixels = ld->pixels;
    ld->pixels = NULL;
    int64_t *per_class = calloc(classes->len, sizeof *per_class), *bad = calloc(classes->len, sizeof *bad);
    bool ok = per_class != NULL && bad != NULL;
    if (!ok)
        rf_fail(ld->st, "%s: out of memory", ld->root);
    for (size_t i = 0; ok && i < n; i++) {
        const candidate *f = &g_array_index(ld->files, candidate, i);
        if (f->problem != NULL) {
            char *message = g_strdup_printf("%s: %s", f->path, f->problem);
            ok = rf_skips_add(&ld->skips, message);
            g_free(message);
            bad[f->label]++;
            continue;
        }
        if ((int64_t)i != t->count)
            memmove(t->pixels + (size_t)t->count * ld->image_bytes, t->pixels + i * ld->image_bytes, ld->image_bytes);
        t->labels[t->count] = f->label;
        t->names[t->count] = strdup(f->rel);   /* the table free()s it */
        ok = t->names[t->count] != NULL || rf_fail(ld->st, "%s: out of memory", ld->root);
        t->count += ok;
        per_class[f->label]++;
        rf_format_counts_add(&t->formats, f->format);
    }
    for (guint c = 0; ok && c < classes->len; c++) {
        if (per_class[c] > 0)
            continue;
        char *dir = g_build_filename(ld->root, classes->pdata[c], NULL);
        if (bad[c] == 0)
            rf_fail(ld->st, "%s: class folder without an image", dir);
        else
            rf_fail(ld->st, "%s: class folder without a readable image (%lld file%s skipped)", dir,
                    (long long)bad[c], bad[c] == 1 ? "" : "s");
        g_free(dir);
        ok = false;
    }
    free(per_class);
    free(bad);
    return ok;
}

/* A seeded shuffle: test first, then val, then train; stored train, val, test. */
static bool make_splits(loader *ld, const rf_config *cfg)
{
    rf_image_table *t = ld->t;
    int64_t n = t->count, val = cfg->data.val_size, test = cfg->data.test_size;
    if (val + test > n - 1) {
        int64_t quarter = n / 4;
        val = val < quarter ? val : quarter;
        test = test < quarter ? test : quarter;
        rf_status_warn(ld->st, "%s: %lld images; data.val_size and data.test_size capped to %lld and %lld to leave a "
                       "training split", ld->root, (long long)n, (long long)val, (long long)test);
    }
    int64_t rest = n - val - test;
    int64_t size[RF_SPLIT_COUNT] = {rest < cfg->data.train_size ? rest : cfg->data.train_size, val, test};
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    t->order = malloc((size_t)n * sizeof *t->order);
    if (perm == NULL || t->order == NULL) {
        free(perm);
        return rf_fail(ld->st, "%s: out of memory", ld->root);
    }
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    rf_rng rng = {rf_hash3(cfg->train.seed, IMAGE_FOLDER_STREAM, 0)};
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = rf_rng_int(&rng, 0, i), swap = perm[i];
        perm[i] = perm[j];
        perm[j] = swap;
    }
    memcpy(t->order, perm + test + val, (size_t)size[RF_SPLIT_TRAIN] * sizeof *perm);
    memcpy(t->order + size[RF_SPLIT_TRAIN], perm + test, (size_t)val * sizeof *perm);
    memcpy(t->order + size[RF_SPLIT_TRAIN] + val, perm, (size_t)test * sizeof *perm);
    free(perm);
    rf_image_table_finish(t, size);
    return true;
}

static int load_threads(const rf_config *cfg)
{
    int n = cfg->train.threads > 0 ? cfg->train.threads : (int)g_get_num_processors();
    return n < 1 ? 1 : n > MAX_LOAD_THREADS ? MAX_LOAD_THREADS : n;
}

static bool load_all(loader *ld, const rf_config *cfg)
{
    GHashTable *visited = rf_folder_visited_new();
    GPtrArray *classes = find_classes(ld, visited);
    bool ok = classes != NULL && find_files(ld, classes, visited) && decode_all(ld, load_threads(cfg)) &&
              keep_decoded(ld, classes);
    g_hash_table_unref(visited);
    if (classes == NULL)
        return false;
    rf_image_table *t = ld->t;
    t->skipped = ld->skips.count;
    if (ok)
        rf_skips_finish(&ld->skips);
    t->owned_class_names = calloc(classes->len, sizeof *t->owned_class_names);
    ok = ok && (t->owned_class_names != NULL || rf_fail(ld->st, "%s: out of memory", ld->root));
    if (ok)
        t->ds.classes = (int)classes->len;
    for (guint c = 0; ok && c < classes->len; c++) {
        t->owned_class_names[c] = strdup(g_ptr_array_index(classes, c));
        ok = t->owned_class_names[c] != NULL || rf_fail(ld->st, "%s: out of memory", ld->root);
    }
    g_ptr_array_unref(classes);
    return ok && make_splits(ld, cfg);
}

rf_dataset *rf_image_folder_open(const rf_config *cfg, rf_status *st)
{
    if (cfg->data.path[0] == '\0') {
        rf_fail(st, "image_folder needs data.path: a folder with one sub-folder of images per class");
        return NULL;
    }
    int channels = strcmp(cfg->data.channels, "rgb") == 0 ? 3 : 1;
    int side = cfg->data.image_size, background = 255;
    rf_image_resize resize = RF_RESIZE_CROP;
    if (!rf_image_resize_parse(cfg->data.resize, &resize) || !rf_config_background(cfg->data.background, &background)) {
        rf_fail(st, "image_folder: data.resize = '%s' (crop, squash or pad) or data.background = '%s' (white, black "
                    "or 0..1) is not understood", cfg->data.resize, cfg->data.background);
        return NULL;
    }
    /* [-1, 1]: (v / 255 - 0.5) / 0.5 */
    rf_image_table *t = rf_image_table_new("image_folder", side, side, channels, cfg->data.patch, 0.5f, 0.5f, st);
    if (t == NULL)
        return NULL;
    rf_image_table_set_augment(t, cfg->data.augment_shift, strcmp(cfg->data.augment_flip, "true") == 0);
    t->decode = (rf_image_options){.side = side, .channels = channels, .resize = resize, .background = (uint8_t)background};
    loader ld = {
        .t = t,
        .root = cfg->data.path,
        .opt = t->decode,
        .image_bytes = (size_t)side * (size_t)side * (size_t)channels,
        .skips = {.st = st, .strict = strcmp(cfg->data.strict, "true") == 0},
        .st = st,
        .files = g_array_new(FALSE, TRUE, sizeof(candidate)),
    };
    bool ok = load_all(&ld, cfg);
    for (guint i = 0; i < ld.files->len; i++) {
        g_free(g_array_index(ld.files, candidate, i).path);
        g_free(g_array_index(ld.files, candidate, i).problem);
    }
    g_array_unref(ld.files);
    free(ld.pixels);
    if (!ok) {
        t->ds.destroy(&t->ds);
        return NULL;
    }
    return &t->ds;
}
