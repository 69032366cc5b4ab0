/* A folder of labelled images (see image_folder.h). */
#include "image_folder.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "image_decode.h"

#define IMAGE_FOLDER_STREAM 0x496d616765466f6cull   /* "ImageFol": this task's shuffle stream */
#define FIRST_CAPACITY 256

typedef struct loader {
    rf_image_table *t;
    const char *root;
    int side, channels;
    size_t image_bytes;
    int64_t capacity;   /* images the table's arrays have room for */
    bool strict;
    rf_status *st;
} loader;

/* A bad file: a warning and a count, or an error under data.strict. */
static bool bad_file(loader *ld, const char *path, const char *problem)
{
    if (ld->strict)
        return rf_fail(ld->st, "%s: %s (data.strict = true)", path, problem);
    rf_status_warn(ld->st, "%s: %s (skipped)", path, problem);
    ld->t->skipped++;
    return true;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's entries without hidden ones, sorted; NULL if it cannot be read. */
static GPtrArray *list_folder(const char *dir, rf_status *st)
{
    GError *err = NULL;
    GDir *d = g_dir_open(dir, 0, &err);
    if (d == NULL) {
        rf_fail(st, "%s: cannot read the folder (%s)", dir, err->message);
        g_error_free(err);
        return NULL;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (const char *name; (name = g_dir_read_name(d)) != NULL;)
        if (name[0] != '.')
            g_ptr_array_add(names, g_strdup(name));
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);
    return names;
}

static bool has_image_suffix(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot != NULL && (g_ascii_strcasecmp(dot, ".png") == 0 || g_ascii_strcasecmp(dot, ".jpg") == 0 ||
                           g_ascii_strcasecmp(dot, ".jpeg") == 0);
}

/* "a/b", malloc'd (the table frees its strings with free()). */
static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* Room in the table for one more image. */
static bool make_room(loader *ld)
{
    rf_image_table *t = ld->t;
    if (t->count < ld->capacity)
        return true;
    int64_t cap = ld->capacity > 0 ? 2 * ld->capacity : FIRST_CAPACITY;
    uint8_t *pixels = realloc(t->pixels, (size_t)cap * ld->image_bytes);
    if (pixels != NULL)
        t->pixels = pixels;
    int32_t *labels = realloc(t->labels, (size_t)cap * sizeof *labels);
    if (labels != NULL)
        t->labels = labels;
    char **names = realloc(t->names, (size_t)cap * sizeof *names);
    if (names != NULL)
        t->names = names;
    if (pixels == NULL || labels == NULL || names == NULL)
        return rf_fail(ld->st, "%s: out of memory for %lld images", ld->root, (long long)cap);
    ld->capacity = cap;
    return true;
}

/* One file of class `label`: decoded into the table, or judged bad. */
static bool load_file(loader *ld, const char *class_name, const char *dir, const char *name, int label)
{
    rf_image_table *t = ld->t;
    char *path = g_build_filename(dir, name, NULL);
    bool ok;
    char *problem = NULL;
    if (!has_image_suffix(name)) {
        ok = bad_file(ld, path, "not a .png, .jpg or .jpeg file");
    } else if (!make_room(ld)) {
        ok = false;
    } else if (!rf_image_decode(path, ld->side, ld->channels, t->pixels + (size_t)t->count * ld->image_bytes,
                                &problem)) {
        ok = bad_file(ld, path, problem);
    } else {
        t->labels[t->count] = label;
        t->names[t->count] = join(class_name, name);
        ok = t->names[t->count] != NULL || rf_fail(ld->st, "%s: out of memory", ld->root);
        t->count += ok;
    }
    g_free(problem);
    g_free(path);
    return ok;
}

static bool load_class(loader *ld, const char *class_name, int label)
{
    char *dir = g_build_filename(ld->root, class_name, NULL);
    GPtrArray *files = list_folder(dir, ld->st);
    int64_t before = ld->t->count, skipped = ld->t->skipped;
    bool ok = files != NULL;
    for (guint i = 0; ok && i < files->len; i++)
        ok = load_file(ld, class_name, dir, g_ptr_array_index(files, i), label);
    int64_t bad = ld->t->skipped - skipped;
    if (ok && ld->t->count == before && bad == 0)
        ok = rf_fail(ld->st, "%s: class folder without a PNG or JPEG image", dir);
    else if (ok && ld->t->count == before)
        ok = rf_fail(ld->st, "%s: class folder without a readable PNG or JPEG image (%lld file%s skipped)", dir,
                     (long long)bad, bad == 1 ? "" : "s");
    if (files != NULL)
        g_ptr_array_unref(files);
    g_free(dir);
    return ok;
}

/* The class folders under the root, sorted; other entries are bad files. */
static GPtrArray *find_classes(loader *ld)
{
    GPtrArray *entries = list_folder(ld->root, ld->st);
    if (entries == NULL)
        return NULL;
    GPtrArray *classes = g_ptr_array_new_with_free_func(g_free);
    bool ok = true;
    for (guint i = 0; ok && i < entries->len; i++) {
        const char *name = g_ptr_array_index(entries, i);
        char *path = g_build_filename(ld->root, name, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR))
            g_ptr_array_add(classes, g_strdup(name));
        else
            ok = bad_file(ld, path, "not a class folder (images go in data.path/<class>/)");
        g_free(path);
    }
    g_ptr_array_unref(entries);
    if (ok && classes->len < 2)
        ok = rf_fail(ld->st, "%s: %u class folder%s; a classifier needs at least two (data.path/<class>/<image>.png)",
                     ld->root, classes->len, classes->len == 1 ? "" : "s");
    if (!ok) {
        g_ptr_array_unref(classes);
        return NULL;
    }
    return classes;
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

static bool load_all(loader *ld, const rf_config *cfg)
{
    GPtrArray *classes = find_classes(ld);
    if (classes == NULL)
        return false;
    rf_image_table *t = ld->t;
    t->owned_class_names = calloc(classes->len, sizeof *t->owned_class_names);
    bool ok = t->owned_class_names != NULL || rf_fail(ld->st, "%s: out of memory", ld->root);
    if (ok)
        t->ds.classes = (int)classes->len;
    for (guint c = 0; ok && c < classes->len; c++) {
        t->owned_class_names[c] = strdup(g_ptr_array_index(classes, c));
        ok = t->owned_class_names[c] != NULL ? load_class(ld, t->owned_class_names[c], (int)c)
                                             : rf_fail(ld->st, "%s: out of memory", ld->root);
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
    int side = cfg->data.image_size;
    /* [-1, 1]: (v / 255 - 0.5) / 0.5 */
    rf_image_table *t = rf_image_table_new("image_folder", side, side, channels, cfg->data.patch, 0.5f, 0.5f, st);
    if (t == NULL)
        return NULL;
    rf_image_table_set_augment(t, cfg->data.augment_shift, strcmp(cfg->data.augment_flip, "true") == 0);
    loader ld = {
        .t = t,
        .root = cfg->data.path,
        .side = side,
        .channels = channels,
        .image_bytes = (size_t)side * (size_t)side * (size_t)channels,
        .strict = strcmp(cfg->data.strict, "true") == 0,
        .st = st,
    };
    if (!load_all(&ld, cfg)) {
        t->ds.destroy(&t->ds);
        return NULL;
    }
    return &t->ds;
}
