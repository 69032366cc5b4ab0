/* Labelled audio clips as log-mel spectrograms (see audio_folder.h). */
#include "audio_folder.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "audio_decode.h"
#include "class_order.h"
#include "feature_cache.h"
#include "featurise.h"
#include "folder_report.h"
#include "folder_walk.h"
#include "logmel.h"
#include "tsan_sync.h"

#define AUDIO_FOLDER_STREAM 0x417564696f466f6cull   /* "AudioFol": this task's shuffle stream */
#define MAX_LOAD_THREADS 16

typedef struct clip {
    char *path;          /* full path */
    const char *rel;     /* inside path: relative to the root */
    int cls;             /* class name index; the label once loading is done */
    bool test;           /* from test/ of a fixed split */
    char *error;         /* "FILE: problem" when the clip is skipped */
    const char *format;  /* rf_audio_format_name's, once read */
    float *feat;         /* [frames x mel_bins], unnormalised */
    int frames;
    int64_t duration;    /* whole clip, samples at the data set's rate */
    rf_cache_result cache;
    bool cache_written;
    char *cache_error;   /* why the entry could not be written */
} clip;

typedef struct audio_folder {
    rf_dataset ds;
    char *root;
    char **class_names;        /* [classes] */
    clip *clips;
    int64_t clip_count;
    int64_t *order[RF_SPLIT_COUNT];   /* clip indices of each split */
    float mean, inv_std;
    int sample_rate;
    rf_logmel *lm;
    rf_audio_folder_stats stats;
} audio_folder;

/* ---- finding the files ---- */

typedef struct scan {
    const char *root;
    GArray *clips;           /* of clip */
    GPtrArray *classes;      /* class names, sorted, unique */
    GHashTable *visited;     /* folders walked (folder_walk.h) */
} scan;

static void add_clip(scan *sc, char *path, int cls, bool test, char *error)
{
    clip c = {.path = path, .cls = cls, .test = test, .error = error, .cache = RF_CACHE_MISS};
    c.rel = path + strlen(sc->root);   /* data.path may end in a separator, the built path has one */
    while (G_IS_DIR_SEPARATOR(*c.rel))
        c.rel++;
    g_array_append_val(sc->clips, c);
}

/* The files of one class folder, at any depth; every regular file is a
 * candidate (libsndfile judges it by its content). */
static void scan_class(scan *sc, const char *dir, int cls, bool test)
{
    GPtrArray *files = g_ptr_array_new(), *problems = g_ptr_array_new();
    rf_folder_files(dir, sc->visited, files, problems);
    for (guint i = 0; i < problems->len; i++)
        add_clip(sc, g_strdup(dir), cls, test, problems->pdata[i]);
    for (guint i = 0; i < files->len; i++)
        add_clip(sc, files->pdata[i], cls, test, NULL);
    g_ptr_array_unref(files);
    g_ptr_array_unref(problems);
}

/* Adds the class folders of dir to sc->classes. */
static bool collect_classes(scan *sc, const char *dir, rf_status *st)
{
    GError *err = NULL;
    GPtrArray *names = rf_folder_list(dir, &err);
    if (names == NULL) {
        rf_fail(st, "%s: cannot read the folder (%s)", dir, err->message);
        g_error_free(err);
        return false;
    }
    for (guint i = 0; i < names->len; i++) {
        char *path = g_build_filename(dir, names->pdata[i], NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
            g_ptr_array_add(sc->classes, g_strdup(names->pdata[i]));
            rf_folder_mark(sc->visited, path);   /* no walk enters another class */
        }
        g_free(path);
    }
    g_ptr_array_unref(names);
    rf_class_names_sort(sc->classes);
    for (guint i = 1; i < sc->classes->len;)   /* train/ and test/ share names */
        if (strcmp(sc->classes->pdata[i - 1], sc->classes->pdata[i]) == 0)
            g_ptr_array_remove_index(sc->classes, i);
        else
            i++;
    return true;
}

/* Every candidate clip under root, in a fixed order; *fixed tells whether
 * root holds a train/ + test/ split. */
static bool scan_root(scan *sc, bool *fixed, rf_status *st)
{
    char *train = g_build_filename(sc->root, "train", NULL), *test = g_build_filename(sc->root, "test", NULL);
    *fixed = rf_folder_has_subdir(train) && rf_folder_has_subdir(test);
    rf_folder_mark(sc->visited, sc->root);
    if (*fixed) {
        rf_folder_mark(sc->visited, train);
        rf_folder_mark(sc->visited, test);
    }
    bool ok = *fixed ? collect_classes(sc, train, st) && collect_classes(sc, test, st)
                     : collect_classes(sc, sc->root, st);
    for (int part = 0; ok && part < (*fixed ? 2 : 1); part++)
        for (guint c = 0; c < sc->classes->len; c++) {
            char *dir = g_build_filename(*fixed ? (part ? test : train) : sc->root, sc->classes->pdata[c], NULL);
            if (g_file_test(dir, G_FILE_TEST_IS_DIR))
                scan_class(sc, dir, (int)c, part == 1);
            g_free(dir);
        }
    g_free(train);
    g_free(test);
    return ok;
}

/* ---- features, in parallel ---- */

typedef struct loader {
    clip *clips;
    const rf_logmel *lm;
    const char *cache_dir;   /* NULL: cache off */
    int64_t to_load;         /* clips to load, for the progress */
    gint done;
} loader;

/* Decode and featurise one clip (no cache involved). */
static void compute_clip(const loader *ld, clip *c, float *feat)
{
    const rf_logmel_params *p = rf_logmel_params_of(ld->lm);
    rf_status st = {0};
    float *wave = NULL;
    int64_t n = 0;
    if (!rf_audio_read(c->path, p->sample_rate, rf_logmel_samples_needed(ld->lm), &wave, &n, &c->duration, &c->format,
                       &st)) {
        c->error = g_strdup(st.msg);
        return;
    }
    c->frames = rf_logmel_compute(ld->lm, wave, n, feat);
    free(wave);
    if (c->frames < 0)
        c->error = g_strdup_printf("%s: out of memory computing features", c->path);
}

static void load_clip_now(gpointer item, gpointer user)
{
    const loader *ld = user;
    clip *c = &ld->clips[(uintptr_t)item - 1];
    const rf_logmel_params *p = rf_logmel_params_of(ld->lm);
    float *feat = malloc((size_t)p->max_frames * p->mel_bins * sizeof *feat);
    if (feat == NULL) {
        c->error = g_strdup_printf("%s: out of memory for its features", c->path);
        return;
    }
    rf_status st = {0};
    char key[RF_FEATURE_KEY_LEN + 1];
    bool keyed = ld->cache_dir != NULL && rf_feature_cache_key(c->path, p, key, &st);
    if (ld->cache_dir != NULL && !keyed) {
        c->error = g_strdup(st.msg);   /* the file cannot be read */
    } else {
        if (keyed)
            c->cache = rf_feature_cache_read(ld->cache_dir, key, p, feat, &c->frames, &c->duration);
        if (c->cache == RF_CACHE_HIT)
            c->format = rf_audio_format_of(c->path);   /* the header only */
        if (c->cache != RF_CACHE_HIT || c->format == NULL)
            compute_clip(ld, c, feat);
        if (keyed && c->cache != RF_CACHE_HIT && c->error == NULL) {
            c->cache_written = rf_feature_cache_write(ld->cache_dir, key, p, feat, c->frames, c->duration, &st);
            c->cache_error = c->cache_written ? NULL : g_strdup(st.msg);
        }
    }
    if (c->error != NULL) {
        free(feat);
        return;
    }
    float *tight = realloc(feat, (size_t)c->frames * p->mel_bins * sizeof *feat);
    c->feat = tight != NULL ? tight : feat;
}

static void load_clip(gpointer item, gpointer user)
{
    RF_TSAN_ACQUIRE(user);
    load_clip_now(item, user);
    loader *ld = user;
    rf_load_progress("clips", g_atomic_int_add(&ld->done, 1) + 1, ld->to_load);
    RF_TSAN_RELEASE(user);
}

static void load_all(loader *ld, int64_t count, int threads)
{
    for (int64_t i = 0; i < count; i++)
        ld->to_load += ld->clips[i].error == NULL;
    rf_load_progress("clips", 0, ld->to_load);
    GThreadPool *pool = NULL;
    if (threads > 1 && count > 1)
        pool = g_thread_pool_new(load_clip, ld, threads, FALSE, NULL);
    for (int64_t i = 0; i < count; i++) {
        if (ld->clips[i].error != NULL)
            continue;
        gpointer item = (gpointer)(uintptr_t)(i + 1);
        RF_TSAN_RELEASE(ld);
        if (pool == NULL || !g_thread_pool_push(pool, item, NULL))
            load_clip(item, ld);
    }
    if (pool != NULL)
        g_thread_pool_free(pool, FALSE, TRUE);
    RF_TSAN_ACQUIRE(ld);
}

/* ---- the data set ---- */

static const clip *locate(const audio_folder *af, rf_split split, int64_t index)
{
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= af->ds.size[split])
        return NULL;
    return &af->clips[af->order[split][index]];
}

static bool audio_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                      rf_status *st)
{
    const audio_folder *af = ds->impl;
    const clip *c = locate(af, split, index);
    if (c == NULL)
        return rf_fail(st, "audio_folder has no %s sample %lld", rf_split_name(split), (long long)index);
    size_t n = (size_t)c->frames * ds->feat_dim;
    for (size_t i = 0; i < n; i++)
        x[i] = (c->feat[i] - af->mean) * af->inv_std;
    *len = c->frames;
    *label = c->cls;
    return true;
}

static bool audio_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    const audio_folder *af = ds->impl;
    const clip *c = locate(af, split, index);
    if (c == NULL || size == 0)
        return false;
    snprintf(buf, size, "%s (%.2f s, %d frames)", c->rel, (double)c->duration / af->sample_rate, c->frames);
    return true;
}

/* An outside clip decoded and featurised as the loader's clips are (mono at
 * data.sample_rate, the same log-mel), normalised with the training split's
 * statistics. A clip longer than the frames the model has is refused, not
 * cropped: the user would not see that the model heard only its start. */
static bool audio_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                            rf_status *st)
{
    const audio_folder *af = ds->impl;
    const rf_logmel_params *p = rf_logmel_params_of(af->lm);
    int64_t keep = rf_logmel_samples_needed(af->lm);
    char wants[96];
    snprintf(wants, sizeof wants, "an audio clip of at most %.2f s", (double)keep / p->sample_rate);
    if (!rf_input_needs_file(ds, path, text, wants, st))
        return false;
    float *wave = NULL;
    int64_t n = 0, duration = 0;
    rf_status why = {0};
    if (!rf_audio_read(path, p->sample_rate, keep, &wave, &n, &duration, NULL, &why)) {
        char *kind = rf_input_kind(path);
        if (kind == NULL || g_str_has_prefix(kind, "an audio clip"))
            rf_fail(st, "%s", why.msg);
        else
            rf_fail(st, "%s is %s, but this %s model takes %s", path, kind, ds->name, wants);
        g_free(kind);
        return false;
    }
    bool ok;
    if (duration > keep) {
        ok = rf_fail(st, "%s: %.2f s long; this %s model takes at most %.2f s (%d frames)", path,
                     (double)duration / p->sample_rate, ds->name, (double)keep / p->sample_rate, p->max_frames);
    } else {
        *len = rf_logmel_compute(af->lm, wave, n, x);
        ok = *len > 0 || rf_fail(st, "%s: out of memory computing features", path);
        for (size_t i = 0; ok && i < (size_t)*len * ds->feat_dim; i++)
            x[i] = (x[i] - af->mean) * af->inv_std;
    }
    free(wave);
    return ok;
}

static void audio_destroy(rf_dataset *ds)
{
    audio_folder *af = ds->impl;
    for (int64_t i = 0; i < af->clip_count; i++) {
        g_free(af->clips[i].path);
        g_free(af->clips[i].error);
        g_free(af->clips[i].cache_error);
        free(af->clips[i].feat);
    }
    g_free(af->clips);
    for (int c = 0; af->class_names != NULL && c < ds->classes; c++)
        g_free(af->class_names[c]);
    free(af->class_names);
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        free(af->order[s]);
    rf_logmel_free(af->lm);
    g_free(af->root);
    free(af);
}

/* ---- after loading: warnings, classes, splits, statistics ---- */

/* Bad files become warnings (or the error under data.strict); classes
 * without a usable (training) clip are dropped; labels are renumbered. */
static bool settle_classes(audio_folder *af, GPtrArray *names, bool fixed, bool strict, rf_status *st)
{
    rf_skips skips = {.st = st, .strict = strict};
    int64_t *usable = calloc(names->len + 1, sizeof *usable);
    int *label = malloc((names->len + 1) * sizeof *label);
    bool ok = usable != NULL && label != NULL;
    if (!ok)
        rf_fail(st, "%s: out of memory", af->root);
    for (int64_t i = 0; ok && i < af->clip_count; i++) {
        const clip *c = &af->clips[i];
        if (c->error == NULL)
            usable[c->cls] += !c->test;
        else
            ok = rf_skips_add(&skips, c->error);
    }
    af->stats.skipped = skips.count;
    if (ok)
        rf_skips_finish(&skips);
    int kept = 0;
    for (guint k = 0; ok && k < names->len; k++) {
        label[k] = usable[k] > 0 ? kept++ : -1;
        if (usable[k] > 0)
            continue;
        char *dir = g_build_filename(af->root, fixed ? "train" : "", names->pdata[k], NULL);
        if (strict)
            ok = rf_fail(st, "%s: class folder without a usable audio clip (data.strict = true)", dir);
        else
            rf_status_warn(st, "%s: class folder without a usable audio clip (class skipped)",
                    dir);
        af->stats.empty_classes++;
        g_free(dir);
    }
    if (ok && kept < 2)
        ok = rf_fail(st, "%s: %d class folder%s with usable audio clips; a classifier needs at least 2", af->root,
                     kept, kept == 1 ? "" : "s");
    af->class_names = ok ? calloc((size_t)kept, sizeof *af->class_names) : NULL;
    if (ok && af->class_names == NULL)
        ok = rf_fail(st, "%s: out of memory", af->root);
    for (guint k = 0; ok && k < names->len; k++)
        if (label[k] >= 0)
            af->class_names[label[k]] = g_strdup(names->pdata[k]);
    for (int64_t i = 0; ok && i < af->clip_count; i++) {
        clip *c = &af->clips[i];
        c->cls = label[c->cls];
        if (c->cls < 0 && c->error == NULL)
            c->error = g_strdup("class dropped");   /* keeps it out of every split */
    }
    af->ds.classes = ok ? kept : 0;
    free(usable);
    free(label);
    return ok;
}

static void shuffle(int64_t *a, int64_t n, uint64_t seed)
{
    rf_rng rng = {rf_hash3(seed, AUDIO_FOLDER_STREAM, 0)};
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = rf_rng_int(&rng, 0, i), swap = a[i];
        a[i] = a[j];
        a[j] = swap;
    }
}

/* The split's clips, from pool[from ..) */
static bool take(audio_folder *af, rf_split s, const int64_t *pool, int64_t from, int64_t count)
{
    af->order[s] = malloc((size_t)(count > 0 ? count : 1) * sizeof *af->order[s]);
    if (af->order[s] == NULL)
        return false;
    memcpy(af->order[s], pool + from, (size_t)count * sizeof *pool);
    af->ds.size[s] = count;
    return true;
}

/* Caps a hold-out that would leave no training clip, as image_folder does. */
static int64_t cap_holdout(const audio_folder *af, bool fixed, int64_t n, int64_t *val, int64_t *test,
                           rf_status *st)
{
    if (*val + *test > n - 1) {
        int64_t quarter = n / 4;
        *val = *val < quarter ? *val : quarter;
        *test = *test < quarter ? *test : quarter;
        if (fixed)
            rf_status_warn(st, "%s: %lld training clips; data.val_size capped to %lld to leave a training split",
                           af->root, (long long)n, (long long)*val);
        else
            rf_status_warn(st, "%s: %lld clips; data.val_size and data.test_size capped to %lld and %lld to leave a "
                           "training split", af->root, (long long)n, (long long)*val,
                    (long long)*test);
    }
    return n - *val - *test;
}

static bool make_splits(audio_folder *af, const rf_config *cfg, bool fixed, rf_status *st)
{
    int64_t *pool = malloc((size_t)(af->clip_count + 1) * sizeof *pool), *test = NULL;
    int64_t n = 0, n_test = 0;
    if (pool == NULL)
        return rf_fail(st, "%s: out of memory", af->root);
    for (int64_t i = 0; i < af->clip_count; i++)
        if (af->clips[i].error == NULL && !af->clips[i].test)
            pool[n++] = i;
    shuffle(pool, n, cfg->train.seed);
    int64_t val = cfg->data.val_size, held = fixed ? 0 : cfg->data.test_size;
    int64_t rest = cap_holdout(af, fixed, n, &val, &held, st);
    int64_t train = rest < cfg->data.train_size ? rest : cfg->data.train_size;
    bool ok = take(af, RF_SPLIT_TRAIN, pool, held + val, train) && take(af, RF_SPLIT_VAL, pool, held, val);
    if (ok && fixed) {
        test = malloc((size_t)(af->clip_count + 1) * sizeof *test);
        for (int64_t i = 0; test != NULL && i < af->clip_count; i++)
            if (af->clips[i].error == NULL && af->clips[i].test)
                test[n_test++] = i;
        ok = test != NULL && take(af, RF_SPLIT_TEST, test, 0, n_test);
    } else if (ok) {
        ok = take(af, RF_SPLIT_TEST, pool, 0, held);
    }
    free(pool);
    free(test);
    if (!ok)
        return rf_fail(st, "%s: out of memory", af->root);
    return true;
}

/* One mean and std over every training frame and bin; features of clips in
 * no split are freed. */
static void finish(audio_folder *af)
{
    bool *used = calloc((size_t)af->clip_count + 1, sizeof *used);
    double sum = 0.0, sq = 0.0, count = 0.0;
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < af->ds.size[s]; i++) {
            const clip *c = &af->clips[af->order[s][i]];
            if (used != NULL)
                used[af->order[s][i]] = true;
            af->stats.clips++;
            rf_format_counts_add(&af->stats.formats, c->format);
            af->stats.audio_seconds += (double)c->duration / af->sample_rate;
            if (s != RF_SPLIT_TRAIN)
                continue;
            size_t n = (size_t)c->frames * af->ds.feat_dim;
            for (size_t k = 0; k < n; k++) {
                sum += c->feat[k];
                sq += (double)c->feat[k] * c->feat[k];
            }
            count += (double)n;
        }
    for (int64_t i = 0; used != NULL && i < af->clip_count; i++)
        if (!used[i]) {
            free(af->clips[i].feat);
            af->clips[i].feat = NULL;
        }
    free(used);
    double mean = count > 0 ? sum / count : 0.0, var = count > 0 ? sq / count - mean * mean : 1.0;
    af->mean = (float)mean;
    af->inv_std = var > 1e-12 ? (float)(1.0 / sqrt(var)) : 1.0f;
}

/* Cache bookkeeping, and one warning when entries could not be written. */
static void cache_report(audio_folder *af, rf_status *st)
{
    const char *first_error = NULL;
    int64_t failed = 0;
    for (int64_t i = 0; i < af->clip_count; i++) {
        const clip *c = &af->clips[i];
        af->stats.cache_hits += c->cache == RF_CACHE_HIT && c->error == NULL;
        af->stats.cache_rejected += c->cache == RF_CACHE_INVALID;
        af->stats.cache_written += c->cache_written;
        if (c->cache_error != NULL) {
            first_error = first_error != NULL ? first_error : c->cache_error;
            failed++;
        }
    }
    if (failed > 0)
        rf_status_warn(st, "%lld feature cache entr%s not written (first: %s); features are recomputed on the next "
                           "open", (long long)failed, failed == 1 ? "y" : "ies", first_error);
}

static bool check_config(const rf_config *cfg, rf_status *st)
{
    if (cfg->data.path[0] == '\0')
        return rf_fail(st, "audio_folder: data.path is empty; set it to a folder of class folders of audio clips");
    if (!g_file_test(cfg->data.path, G_FILE_TEST_IS_DIR))
        return rf_fail(st, "%s: not a folder (data.path of audio_folder)", cfg->data.path);
    if (cfg->data.train_size < 1 || cfg->data.val_size < 0 || cfg->data.test_size < 0)
        return rf_fail(st, "audio_folder: need data.train_size >= 1 and val_size, test_size >= 0 (got %d, %d, %d)",
                       cfg->data.train_size, cfg->data.val_size, cfg->data.test_size);
    return true;
}

static int load_threads(const rf_config *cfg)
{
    int n = cfg->train.threads > 0 ? cfg->train.threads : (int)g_get_num_processors();
    return n < 1 ? 1 : n > MAX_LOAD_THREADS ? MAX_LOAD_THREADS : n;
}

rf_dataset *rf_audio_folder_open(const rf_config *cfg, rf_status *st)
{
    if (!check_config(cfg, st))
        return NULL;
    audio_folder *af = calloc(1, sizeof *af);
    if (af == NULL) {
        rf_fail(st, "out of memory for the audio folder");
        return NULL;
    }
    af->ds.impl = af;
    af->ds.destroy = audio_destroy;
    af->root = g_strdup(cfg->data.path);
    af->sample_rate = cfg->data.sample_rate;
    af->lm = rf_logmel_new(cfg->data.sample_rate, cfg->data.mel_bins, cfg->data.max_frames, st);
    scan sc = {af->root, g_array_new(FALSE, TRUE, sizeof(clip)), g_ptr_array_new_with_free_func(g_free),
               rf_folder_visited_new()};
    bool fixed = false, ok = af->lm != NULL && scan_root(&sc, &fixed, st);
    af->clip_count = sc.clips->len;
    af->clips = g_array_steal(sc.clips, NULL);
    g_array_unref(sc.clips);
    if (ok) {
        char *cache_dir = g_build_filename(af->root, RF_FEATURE_CACHE_DIR, NULL);
        loader ld = {af->clips, af->lm, strcmp(cfg->data.cache, "on") == 0 ? cache_dir : NULL, 0, 0};
        load_all(&ld, af->clip_count, load_threads(cfg));
        g_free(cache_dir);
        cache_report(af, st);
        ok = settle_classes(af, sc.classes, fixed, strcmp(cfg->data.strict, "true") == 0, st) &&
             make_splits(af, cfg, fixed, st);
    }
    g_ptr_array_unref(sc.classes);
    g_hash_table_unref(sc.visited);
    if (!ok) {
        audio_destroy(&af->ds);
        return NULL;
    }
    af->ds.name = "audio_folder";
    af->ds.seq_len = cfg->data.max_frames;
    af->ds.feat_dim = cfg->data.mel_bins;
    finish(af);
    af->ds.class_names = (const char *const *)af->class_names;
    af->ds.get = audio_get;
    af->ds.describe = audio_describe;
    af->ds.featurise = audio_featurise;
    return &af->ds;
}

/* ---- raw access ---- */

static const audio_folder *as_audio_folder(const rf_dataset *ds)
{
    return ds != NULL && ds->destroy == audio_destroy ? ds->impl : NULL;
}

bool rf_audio_folder_get_stats(const rf_dataset *ds, rf_audio_folder_stats *out)
{
    const audio_folder *af = as_audio_folder(ds);
    if (af != NULL)
        *out = af->stats;
    return af != NULL;
}

bool rf_audio_folder_silence(const rf_dataset *ds, float *x, int len)
{
    const audio_folder *af = as_audio_folder(ds);
    if (af == NULL)
        return false;
    float silent = (logf((float)RF_LOGMEL_FLOOR) - af->mean) * af->inv_std;   /* as rf_logmel_compute floors */
    for (size_t i = 0; i < (size_t)len * ds->feat_dim; i++)
        x[i] = silent;
    return true;
}

int rf_audio_folder_sample_rate(const rf_dataset *ds)
{
    const audio_folder *af = as_audio_folder(ds);
    return af != NULL ? af->sample_rate : 0;
}

const char *rf_audio_folder_file(const rf_dataset *ds, rf_split split, int64_t index)
{
    const audio_folder *af = as_audio_folder(ds);
    const clip *c = af != NULL ? locate(af, split, index) : NULL;
    return c != NULL ? c->path : NULL;
}

const float *rf_audio_folder_logmel(const rf_dataset *ds, rf_split split, int64_t index, int *frames,
                                    rf_status *st)
{
    const audio_folder *af = as_audio_folder(ds);
    const clip *c = af != NULL ? locate(af, split, index) : NULL;
    if (c == NULL) {
        rf_fail(st, "no audio_folder %s sample %lld", rf_split_name(split), (long long)index);
        return NULL;
    }
    *frames = c->frames;
    return c->feat;
}

float *rf_audio_folder_waveform(const rf_dataset *ds, rf_split split, int64_t index, int64_t *n, rf_status *st)
{
    const audio_folder *af = as_audio_folder(ds);
    const clip *c = af != NULL ? locate(af, split, index) : NULL;
    if (c == NULL) {
        rf_fail(st, "no audio_folder %s sample %lld", rf_split_name(split), (long long)index);
        return NULL;
    }
    const rf_logmel_params *p = rf_logmel_params_of(af->lm);
    int64_t covered = (int64_t)(c->frames - 1) * p->hop + p->window, duration;
    float *wave = NULL;
    return rf_audio_read(c->path, af->sample_rate, covered, &wave, n, &duration, NULL, st) ? wave : NULL;
}
