/* NumPy arrays as a data set (see npy_task.h). */
#include "npy_task.h"

#include <float.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "holdout.h"
#include "npy_read.h"

#define NPY_STREAM 0x4e756d5079417272ull   /* "NumPyArr": this task's shuffle stream */

/* One x/y pair: x.npy + y.npy, or x_test.npy + y_test.npy. */
typedef struct pair {
    char *x_path, *y_path;
    rf_npy_array x, y;
} pair;

typedef struct npy_task {
    rf_dataset ds;
    char *root;
    pair part[2];          /* [1] holds no rows without x_test.npy */
    int64_t length;        /* L: positions per row in the files */
    int channels;          /* C, or 0 for token ids */
    int64_t *order[RF_SPLIT_COUNT];   /* row numbers: part 0 first, then part 1 */
} npy_task;

/* "[12, 40]": value `index` (C order) of a's shape. */
static void position_text(const rf_npy_array *a, int64_t index, char *buf, size_t size)
{
    int64_t coord[RF_NPY_READ_MAX_DIMS];
    for (int i = a->ndim - 1; i >= 0; i--) {
        coord[i] = a->shape[i] > 0 ? index % a->shape[i] : 0;
        index = a->shape[i] > 0 ? index / a->shape[i] : 0;
    }
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < a->ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i > 0 ? ", " : "", (long long)coord[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* Padding (0) may come before the ids of a row (Keras pads so) or after
 * them, never between them, and a row needs an id. `id` is value i's. */
static bool check_padding(const rf_npy_array *a, const char *path, int64_t i, int64_t id, bool *seen, bool *ended,
                          rf_status *st)
{
    int64_t row_len = a->shape[a->ndim - 1];
    char where[96];
    if (i % row_len == 0)
        *seen = *ended = false;
    if (id != 0 && *ended) {
        position_text(a, i, where, sizeof where);
        return rf_fail(st, "%s: value %s: token id %lld after padding (0) inside the row; padding goes before "
                           "or after the ids", path, where, (long long)id);
    }
    *ended = *ended || (id == 0 && *seen);
    *seen = *seen || id != 0;
    if (i % row_len == row_len - 1 && !*seen) {
        position_text(a, i, where, sizeof where);
        return rf_fail(st, "%s: value %s: the row is all padding (0); a sample needs a token id", path, where);
    }
    return true;
}

/* Every value of `a` as a token id (tokens) or a feature; *largest gets the
 * largest id. */
static bool check_values(const rf_npy_array *a, const char *path, bool tokens, int64_t limit, int64_t *largest,
                         rf_status *st)
{
    char where[96];
    bool seen = false, ended = false;
    for (int64_t i = 0; i < a->count; i++) {
        if (!tokens) {
            double v = rf_npy_value(a, i);
            if (isfinite(v) && fabs(v) <= FLT_MAX)
                continue;
            position_text(a, i, where, sizeof where);
            return rf_fail(st, "%s: value %s: %g is not a finite float32 feature", path, where, v);
        }
        int64_t id;
        bool whole = rf_npy_integer(a, i, &id);
        if (whole && id >= 0 && id < limit) {
            *largest = id > *largest ? id : *largest;
            if (!check_padding(a, path, i, id, &seen, &ended, st))
                return false;
            continue;
        }
        position_text(a, i, where, sizeof where);
        if (!whole)
            return rf_fail(st, "%s: value %s: %g is not an integer token id (features go in as (N, L, C), a "
                               "series as (N, L, 1))", path, where, rf_npy_value(a, i));
        if (id < 0)
            return rf_fail(st, "%s: value %s: token id %lld is negative", path, where, (long long)id);
        return rf_fail(st, "%s: value %s: token id %lld is not below %lld (the vocabulary's size)", path, where,
                       (long long)id, (long long)limit);
    }
    return true;
}

static bool check_labels(const pair *p, int64_t *largest, rf_status *st)
{
    char where[96];
    for (int64_t i = 0; i < p->y.count; i++) {
        int64_t label;
        if (!rf_npy_integer(&p->y, i, &label) || label < 0 || label >= RF_NPY_MAX_CLASSES) {
            position_text(&p->y, i, where, sizeof where);
            return rf_fail(st, "%s: label %s: %g is not a class number in [0, %d)", p->y_path, where,
                           rf_npy_value(&p->y, i), RF_NPY_MAX_CLASSES);
        }
        *largest = label > *largest ? label : *largest;
    }
    return true;
}

/* Open a pair and check the shapes agree with each other (and with part 0). */
static bool open_pair(npy_task *t, pair *p, const pair *first, rf_status *st)
{
    if (!rf_npy_open(p->x_path, &p->x, st) || !rf_npy_open(p->y_path, &p->y, st))
        return false;
    char xs[160], ys[160];
    rf_npy_shape_text(&p->x, xs, sizeof xs);
    rf_npy_shape_text(&p->y, ys, sizeof ys);
    if (p->x.ndim != 2 && p->x.ndim != 3)
        return rf_fail(st, "%s: shape: %s; expected (N, L) token ids or (N, L, C) features", p->x_path, xs);
    if (p->y.ndim != 1)
        return rf_fail(st, "%s: shape: %s; expected (N,) labels, one per row of %s", p->y_path, ys, p->x_path);
    if (p->y.shape[0] != p->x.shape[0])
        return rf_fail(st, "%s: shape: %s labels, but %s has %lld rows %s", p->y_path, ys, p->x_path,
                       (long long)p->x.shape[0], xs);
    if (p->x.shape[0] < 1 || p->x.shape[1] < 1 || (p->x.ndim == 3 && p->x.shape[2] < 1))
        return rf_fail(st, "%s: shape: %s holds no sample", p->x_path, xs);
    if (p->x.ndim == 3 && p->x.shape[2] > RF_NPY_MAX_FEATURES)
        return rf_fail(st, "%s: shape: %s; at most %d features per position", p->x_path, xs, RF_NPY_MAX_FEATURES);
    if (first == NULL) {
        t->length = p->x.shape[1];
        t->channels = p->x.ndim == 3 ? (int)p->x.shape[2] : 0;
    } else if (p->x.ndim != first->x.ndim || p->x.shape[1] != first->x.shape[1] ||
               (p->x.ndim == 3 && p->x.shape[2] != first->x.shape[2])) {
        char fs[160];
        rf_npy_shape_text(&first->x, fs, sizeof fs);
        return rf_fail(st, "%s: shape: %s does not match %s's %s past the first dimension", p->x_path, xs,
                       first->x_path, fs);
    }
    return true;
}

/* ---- samples ---- */

static const pair *locate(const npy_task *t, rf_split split, int64_t index, int64_t *row)
{
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= t->ds.size[split])
        return NULL;
    int64_t r = t->order[split][index], first = t->part[0].x.shape[0];
    *row = r < first ? r : r - first;
    return &t->part[r < first ? 0 : 1];
}

/* Positions of one row (or one outside sample) into x; its length. Token
 * rows lose their padding (checked: only before or after the ids). */
static int fill(const rf_dataset *ds, const rf_npy_array *a, int64_t start, int64_t length, float *x)
{
    int width = ds->feat_dim > 0 ? ds->feat_dim : 1;
    int64_t first = 0, last = length - 1;
    while (ds->feat_dim == 0 && first < last && rf_npy_value(a, start + first) == 0)
        first++;
    while (ds->feat_dim == 0 && last > first && rf_npy_value(a, start + last) == 0)
        last--;
    int len = (int)(last - first + 1 < ds->seq_len ? last - first + 1 : ds->seq_len);
    for (int64_t i = 0; i < (int64_t)len * width; i++)
        x[i] = (float)rf_npy_value(a, start + first * width + i);
    return len;
}

static bool npy_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                    rf_status *st)
{
    const npy_task *t = ds->impl;
    int64_t row;
    const pair *p = locate(t, split, index, &row);
    if (p == NULL)
        return rf_fail(st, "npy has no %s sample %lld", rf_split_name(split), (long long)index);
    int width = t->channels > 0 ? t->channels : 1;
    *len = fill(ds, &p->x, row * t->length * width, t->length, x);
    *label = (int)rf_npy_value(&p->y, row);
    return true;
}

static bool npy_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    const npy_task *t = ds->impl;
    int64_t row;
    const pair *p = locate(t, split, index, &row);
    if (p == NULL || size == 0)
        return false;
    snprintf(buf, size, "%s row %lld", strrchr(p->x_path, '/') + 1, (long long)row);
    return true;
}

/* One outside sample: a .npy file of shape (L,) for token ids or (L, C). */
static bool npy_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                          rf_status *st)
{
    if (path == NULL)
        return rf_fail(st, "a NumPy data set reads its inputs from .npy files, not from text ('%.40s')",
                       text != NULL ? text : "");
    rf_npy_array a;
    if (!rf_npy_open(path, &a, st))
        return false;
    char shape[160];
    rf_npy_shape_text(&a, shape, sizeof shape);
    bool ok = true;
    int64_t largest = 0;
    if (ds->feat_dim == 0 && a.ndim != 1)
        ok = rf_fail(st, "%s: shape: %s; this data set's samples are (L,) token ids", path, shape);
    else if (ds->feat_dim > 0 && (a.ndim != 2 || a.shape[1] != ds->feat_dim))
        ok = rf_fail(st, "%s: shape: %s; this data set's samples are (L, %d) features", path, shape, ds->feat_dim);
    else if (a.shape[0] < 1)
        ok = rf_fail(st, "%s: shape: %s holds no position", path, shape);
    else
        ok = check_values(&a, path, ds->feat_dim == 0, ds->vocab, &largest, st);
    if (ok)
        *len = fill(ds, &a, 0, a.shape[0], x);
    rf_npy_close(&a);
    return ok;
}

static void npy_destroy(rf_dataset *ds)
{
    npy_task *t = ds->impl;
    for (int i = 0; i < 2; i++) {
        rf_npy_close(&t->part[i].x);
        rf_npy_close(&t->part[i].y);
        g_free(t->part[i].x_path);
        g_free(t->part[i].y_path);
    }
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        free(t->order[s]);
    g_free(t->root);
    free(t);
}

/* ---- opening ---- */

static bool load(npy_task *t, const rf_config *cfg, rf_status *st)
{
    static const char *const names[2][2] = {{"x.npy", "y.npy"}, {"x_test.npy", "y_test.npy"}};
    for (int i = 0; i < 2; i++) {
        t->part[i].x_path = g_build_filename(t->root, names[i][0], NULL);
        t->part[i].y_path = g_build_filename(t->root, names[i][1], NULL);
    }
    bool x_test = g_file_test(t->part[1].x_path, G_FILE_TEST_EXISTS),
         y_test = g_file_test(t->part[1].y_path, G_FILE_TEST_EXISTS);
    if (x_test != y_test)
        return rf_fail(st, "%s: found without %s (the fixed test split needs both)",
                       x_test ? t->part[1].x_path : t->part[1].y_path, x_test ? names[1][1] : names[1][0]);
    int parts = x_test ? 2 : 1;
    bool tokens = true;
    int64_t largest_id = 0, largest_label = 0;
    for (int i = 0; i < parts; i++) {
        if (!open_pair(t, &t->part[i], i > 0 ? &t->part[0] : NULL, st))
            return false;
        tokens = t->part[i].x.ndim == 2;
        if (!check_values(&t->part[i].x, t->part[i].x_path, tokens, RF_NPY_MAX_VOCAB, &largest_id, st) ||
            !check_labels(&t->part[i], &largest_label, st))
            return false;
    }
    if (largest_label < 1)
        return rf_fail(st, "%s: labels: every label is %lld; a classifier needs at least two classes",
                       t->part[0].y_path, (long long)largest_label);
    if (t->length > cfg->data.max_len)
        rf_status_warn(st, "%s: rows of %lld positions cut to data.max_len = %d", t->part[0].x_path,
                       (long long)t->length, cfg->data.max_len);
    t->ds.seq_len = (int)(t->length < cfg->data.max_len ? t->length : cfg->data.max_len);
    t->ds.feat_dim = t->channels;
    t->ds.vocab = tokens ? (int)(largest_id + 1 > 2 ? largest_id + 1 : 2) : 0;
    t->ds.classes = (int)largest_label + 1;
    int64_t test_rows = parts == 2 ? t->part[1].x.shape[0] : 0;
    return rf_holdout_split(t->root, "rows", t->part[0].x.shape[0], test_rows, cfg, NPY_STREAM, t->order,
                            t->ds.size, st);
}

rf_dataset *rf_npy_task_open(const rf_config *cfg, rf_status *st)
{
    if (cfg->data.path[0] == '\0') {
        rf_fail(st, "npy needs data.path: a folder with x.npy and y.npy (and optionally x_test.npy, y_test.npy)");
        return NULL;
    }
    if (!g_file_test(cfg->data.path, G_FILE_TEST_IS_DIR)) {
        rf_fail(st, "%s: not a folder (data.path of npy: the folder holding x.npy and y.npy)", cfg->data.path);
        return NULL;
    }
    npy_task *t = calloc(1, sizeof *t);
    if (t == NULL) {
        rf_fail(st, "out of memory for the npy data set");
        return NULL;
    }
    t->ds.name = "npy";
    t->ds.impl = t;
    t->ds.get = npy_get;
    t->ds.describe = npy_describe;
    t->ds.featurise = npy_featurise;
    t->ds.destroy = npy_destroy;
    t->root = g_strdup(cfg->data.path);
    if (!load(t, cfg, st)) {
        npy_destroy(&t->ds);
        return NULL;
    }
    return &t->ds;
}
