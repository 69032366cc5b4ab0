/* Image tables: storage, tokens and description (see image_table.h). */
#include "image_table.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "featurise.h"
#include "image_decode.h"
#include "rng.h"

static void image_table_destroy(rf_dataset *ds)
{
    rf_image_table *t = ds->impl;
    if (t->names != NULL)
        for (int64_t i = 0; i < t->count; i++)
            free(t->names[i]);
    if (t->owned_class_names != NULL)
        for (int c = 0; c < t->ds.classes; c++)
            free(t->owned_class_names[c]);
    free(t->names);
    free(t->owned_class_names);
    free(t->pixels);
    free(t->labels);
    free(t->order);
    free(t);
}

static const rf_image_table *as_table(const rf_dataset *ds)
{
    return ds != NULL && ds->destroy == image_table_destroy ? ds->impl : NULL;
}

/* The storage index of a sample, or -1 if there is none. */
static int64_t locate(const rf_image_table *t, rf_split split, int64_t index)
{
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= t->ds.size[split])
        return -1;
    return t->order[t->first[split] + index];
}

/* Where a token's pixels come from: the stored image shifted by (dy, dx)
 * and then mirrored when flip is set. {0, 0, false} is the stored image. */
typedef struct view {
    int dy, dx;
    bool flip;
} view;

/* Write the image's tokens in model form: p x p patches in raster order, each
 * patch row-major with channels innermost (p = 1: the raster as stored). */
static void tokenise(const rf_image_table *t, const uint8_t *img, view v, float *x)
{
    const int p = t->patch, c = t->channels, gh = t->height / p, gw = t->width / p;
    const float outside = t->value[0];
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++)
            for (int y = gy * p; y < gy * p + p; y++)
                for (int xo = gx * p; xo < gx * p + p; xo++) {
                    int sy = y - v.dy, sx = (v.flip ? t->width - 1 - xo : xo) - v.dx;
                    if (sy < 0 || sy >= t->height || sx < 0 || sx >= t->width) {
                        for (int k = 0; k < c; k++)
                            *x++ = outside;
                        continue;
                    }
                    const uint8_t *src = img + ((size_t)sy * t->width + (size_t)sx) * c;
                    for (int k = 0; k < c; k++)
                        *x++ = t->value[src[k]];
                }
}

static bool draw(const rf_dataset *ds, rf_split split, int64_t index, view v, float *x, int *len, int *label,
                 rf_status *st)
{
    const rf_image_table *t = ds->impl;
    int64_t i = locate(t, split, index);
    if (i < 0)
        return rf_fail(st, "%s has no %s sample %lld", ds->name, rf_split_name(split), (long long)index);
    tokenise(t, t->pixels + (size_t)i * (size_t)t->height * (size_t)t->width * (size_t)t->channels, v, x);
    *len = ds->seq_len;
    *label = t->labels[i];
    return true;
}

static bool image_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                      rf_status *st)
{
    return draw(ds, split, index, (view){0, 0, false}, x, len, label, st);
}

static bool image_get_augmented(const rf_dataset *ds, int64_t index, uint64_t key, float *x, int *len, int *label,
                                rf_status *st)
{
    const rf_image_table *t = ds->impl;
    rf_rng rng = {key};
    int s = t->augment_shift;
    view v = {0, 0, false};
    v.dy = (int)rf_rng_int(&rng, -s, s);
    v.dx = (int)rf_rng_int(&rng, -s, s);
    v.flip = t->augment_flip && (rf_rng_next(&rng) & 1);
    return draw(ds, RF_SPLIT_TRAIN, index, v, x, len, label, st);
}

/* "train #12: Sneaker", with the file when there is one: "train #3: cat (cat/01.png)". */
static bool image_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    const rf_image_table *t = ds->impl;
    int64_t i = locate(t, split, index);
    if (i < 0 || size == 0)
        return false;
    int n = snprintf(buf, size, "%s #%lld: %s", rf_split_name(split), (long long)index,
                     ds->class_names[t->labels[i]]);
    if (t->names != NULL && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (%s)", t->names[i]);
    return true;
}

/* An image file decoded as the loader decodes the table's images (its
 * options through rf_image_decode) and tokenised as get() does. */
static bool image_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                            rf_status *st)
{
    const rf_image_table *t = ds->impl;
    char wants[64];
    snprintf(wants, sizeof wants, "an image file (%dx%d %s)", t->width, t->height, t->channels == 1 ? "gray" : "RGB");
    if (!rf_input_needs_file(ds, path, text, wants, st))
        return false;
    uint8_t *img = malloc((size_t)t->height * (size_t)t->width * (size_t)t->channels);
    if (img == NULL)
        return rf_fail(st, "%s: out of memory", path);
    char *problem = NULL;
    rf_image_options o = t->decode.side > 0 ? t->decode
                                            : (rf_image_options){.side = t->height, .channels = t->channels,
                                                                 .resize = RF_RESIZE_CROP, .background = 0};
    bool ok = rf_image_decode(path, &o, img, NULL, &problem);
    if (ok) {
        tokenise(t, img, (view){0, 0, false}, x);
        *len = ds->seq_len;
    } else {
        char *kind = rf_input_kind(path);
        if (kind == NULL || g_str_has_prefix(kind, "an image"))
            rf_fail(st, "%s: %s", path, problem);
        else
            rf_fail(st, "%s is %s, but this %s model takes %s", path, kind, ds->name, wants);
        g_free(kind);
        g_free(problem);
    }
    free(img);
    return ok;
}

rf_image_table *rf_image_table_new(const char *name, int height, int width, int channels, int patch, float mean,
                                   float std, rf_status *st)
{
    int p = patch > 0 ? patch : 1;
    if (height % p != 0 || width % p != 0 || p > height || p > width) {
        char sides[160] = "";
        for (int d = 1, n = 0; d <= height && d <= width; d++)
            if (height % d == 0 && width % d == 0)
                n += snprintf(sides + n, sizeof sides - (size_t)n, ", %d", d);
        rf_fail(st, "%s: data.patch = %d does not divide the %dx%d images (allowed: 0 for pixels%s)", name, patch,
                height, width, sides);
        return NULL;
    }
    rf_image_table *t = calloc(1, sizeof *t);
    if (t == NULL) {
        rf_fail(st, "%s: out of memory", name);
        return NULL;
    }
    t->height = height;
    t->width = width;
    t->channels = channels;
    t->patch = p;
    for (int v = 0; v < 256; v++)
        t->value[v] = ((float)v / 255.0f - mean) / std;
    t->ds.name = name;
    t->ds.get = image_get;
    t->ds.describe = image_describe;
    t->ds.featurise = image_featurise;
    t->ds.destroy = image_table_destroy;
    t->ds.impl = t;
    return t;
}

void rf_image_table_finish(rf_image_table *t, const int64_t size[RF_SPLIT_COUNT])
{
    int64_t at = 0;
    for (int s = 0; s < RF_SPLIT_COUNT; s++) {
        t->first[s] = at;
        t->ds.size[s] = size[s];
        at += size[s];
    }
    t->ds.grid_h = t->height / t->patch;
    t->ds.grid_w = t->width / t->patch;
    t->ds.seq_len = t->ds.grid_h * t->ds.grid_w;
    t->ds.feat_dim = t->patch * t->patch * t->channels;
    t->ds.vocab = 0;
    if (t->owned_class_names != NULL)
        t->ds.class_names = (const char *const *)t->owned_class_names;
}

void rf_image_table_set_augment(rf_image_table *t, int shift, bool flip)
{
    t->augment_shift = shift > 0 ? shift : 0;
    t->augment_flip = flip;
    t->ds.get_augmented = t->augment_shift > 0 || flip ? image_get_augmented : NULL;
}

const uint8_t *rf_image_pixels(const rf_dataset *ds, rf_split split, int64_t index, int *height, int *width,
                               int *channels)
{
    const rf_image_table *t = as_table(ds);
    int64_t i = t != NULL ? locate(t, split, index) : -1;
    if (i < 0)
        return NULL;
    *height = t->height;
    *width = t->width;
    *channels = t->channels;
    return t->pixels + (size_t)i * (size_t)t->height * (size_t)t->width * (size_t)t->channels;
}

int64_t rf_image_skipped(const rf_dataset *ds)
{
    const rf_image_table *t = as_table(ds);
    return t != NULL ? t->skipped : 0;
}

const rf_format_counts *rf_image_formats(const rf_dataset *ds)
{
    const rf_image_table *t = as_table(ds);
    return t != NULL ? &t->formats : NULL;
}
